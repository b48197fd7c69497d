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
  await expect(once.getByTestId('claude-mcp-add')).toHaveText(`claude mcp add --transport http bullpen ${server().url}/api/mcp --header "Authorization: Bearer ${key}"`);
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
