import { expect, test } from '@playwright/test';
import { agent, server, signIn } from './helpers';

test('connecting an agent shows its key once; revoking it locks the agent out (401)', async ({ page }) => {
  await signIn(page);
  await page.goto(`${server().url}/actors`);
  await page.getByTestId('connect-agent').click();
  const name = `reviewer-${Date.now().toString(36)}`;
  await page.getByTestId('agent-name').fill(name);
  await page.getByTestId('create-agent').click();
  const once = page.getByTestId('key-once');
  await expect(once).toBeVisible();
  const key = (await once.getByTestId('api-key-value').textContent())!.trim();
  expect(key).toMatch(/^bp_live_/);
  await expect(once.getByTestId('claude-mcp-add')).toHaveText(`claude mcp add --transport http bullpen '${server().url}/api/mcp' --header "Authorization: Bearer ${key}"`);
  const json = JSON.parse((await once.getByTestId('mcp-json').textContent())!);
  expect(json).toEqual({ mcpServers: { bullpen: { type: 'http', url: `${server().url}/api/mcp`, headers: { Authorization: `Bearer ${key}` } } } });
  await expect(once.getByTestId('claude-mcp-add-copy')).toBeVisible();

  // the key works: the agent is who the console says
  const a = await agent(key);
  const me = await a.call('whoami');
  expect(me.actor.display_name).toBe(name);
  await a.close();
  const row = page.locator('[data-testid="actor-row"]', { hasText: name });
  await expect(row).toBeVisible();
  await expect(row.locator('[data-actor-kind="agent"]')).toBeVisible();

  // the key is shown once: a reload shows only its prefix
  await page.reload();
  await expect(page.getByTestId('key-once')).toHaveCount(0);
  await expect(row.getByTestId('api-key')).toHaveAttribute('data-key-prefix', key.slice(0, 12));
  await expect(page.getByText(key)).toHaveCount(0);

  await row.getByTestId('revoke-key').click();
  await row.getByTestId('confirm-revoke').click();
  await expect(row.getByTestId('api-key')).toHaveAttribute('data-revoked', 'true');
  const res = await fetch(`${server().url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
  });
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
  await expect(agent(key)).rejects.toThrow();
});

test('the actors page shows last seen, open tasks and the current claim, live', async ({ page }) => {
  await signIn(page);
  await page.goto(`${server().url}/actors`);
  const a = await agent(server().agent.key);
  const key = `ACT${Date.now().toString(36).slice(-4).toUpperCase().replace(/[^A-Z]/g, 'Q')}`;
  await a.call('whoami', {});
  await a.call('project_create', { title: 'Actors page', key });
  await a.call('task_create', { project_id: key, title: 'Something to hold' });
  await a.call('task_claim', { task_id: `${key}-1` });
  const row = page.locator(`[data-testid="actor-row"][data-actor-id="${server().agent.actorId}"]`);
  await expect(row).toContainText(`${key}-1`);
  await expect(row).toContainText('Something to hold');
  await expect(row).toContainText('just now');
  await a.call('task_release', { task_id: `${key}-1` });
  await expect(row).not.toContainText(`${key}-1`);
  await a.close();
});

test('a scoped, expiring key: the agents page shows its scopes and expiry, and the agent sees only its tools', async ({ page }) => {
  await signIn(page);
  await page.goto(`${server().url}/actors`);
  await page.getByTestId('connect-agent').click();
  const name = `ci-bot-${Date.now().toString(36)}`;
  await page.getByTestId('agent-name').fill(name);
  await page.getByTestId('agent-scopes').fill('tasks:read,comments');
  await page.getByTestId('agent-expires-days').fill('30');
  await page.getByTestId('create-agent').click();
  const key = (await page.getByTestId('key-once').getByTestId('api-key-value').textContent())!.trim();
  const row = page.locator('[data-testid="actor-row"]', { hasText: name });
  await expect(row.getByTestId('key-scopes')).toHaveText('comments, tasks:read');
  await expect(row.getByTestId('key-expiry')).toContainText('expires');
  // an unscoped key says so
  const other = page.locator('[data-testid="actor-row"]', { hasText: 'e2e-agent' });
  await expect(other.getByTestId('key-scopes').first()).toHaveText('all tools');
  await expect(other.getByTestId('key-expiry').first()).toHaveText('no expiry');

  const a = await agent(key);
  const q = await a.call('task_query');
  expect(q.ok).toBe(true);
  await expect(a.call('project_create', { title: 'not mine to make' })).rejects.toThrow(/FORBIDDEN/);
  await a.close();

  // a scope with a typo is refused in the dialog, naming the room
  await page.getByTestId('key-once').getByRole('button', { name: 'I have stored the key' }).click();
  await page.getByTestId('connect-agent').click();
  await page.getByTestId('agent-name').fill(`${name}-typo`);
  await page.getByTestId('agent-scopes').fill('taskz');
  await page.getByTestId('create-agent').click();
  await expect(page.getByText(/no room "taskz"/)).toBeVisible();
});
