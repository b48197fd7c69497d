import { expect, test } from '@playwright/test';
import { agent, agentKey, boardReady, card, server, signIn, uniqueKey } from './helpers';

/** Routing work in the console: agent status and load on the agents page, deactivation, recovery of stale cards, the capability filter. */

test('an owner deactivates an agent on the agents page: its key is refused at once and its lease goes back to the pool', async ({ page }) => {
  const name = `router-${Date.now().toString(36)}`;
  const bot = await agentKey(name);
  const a = await agent(bot.key);
  const key = uniqueKey('DEA');
  await a.call('register_actor', { external_ref: `agent:${name}`, kind: 'agent', capabilities: ['python'], max_concurrent_tasks: 3, default_model: 'model-e2e' });
  await a.call('project_create', { title: 'Deactivation', key });
  await a.call('task_create', { project_id: key, title: 'Held by the bot' });
  expect((await a.call('task_claim', { task_id: `${key}-1` })).claimed).toBe(true);

  await signIn(page);
  await page.goto(`${server().url}/actors`);
  const row = page.locator(`[data-testid="actor-row"][data-actor-id="${bot.actorId}"]`);
  await expect(row.getByTestId('actor-status')).toHaveAttribute('data-status', 'active');
  await expect(row.getByTestId('actor-capabilities')).toContainText('python');
  await expect(row.getByTestId('actor-model')).toContainText('model-e2e');
  await expect(row.getByTestId('actor-load')).toHaveText('1 / 3');
  await expect(row.getByTestId('actor-lease')).toContainText(`${key}-1`);

  await row.getByTestId('deactivate-agent').click();
  await row.getByTestId('confirm-deactivate').click();
  await expect(row.getByTestId('actor-status')).toHaveAttribute('data-status', 'deactivated');
  await expect(row.getByTestId('actor-load')).toHaveText('0 / 3');
  // the key stops at once: the next call is refused at the door
  const res = await fetch(`${server().url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bot.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
  });
  expect(res.status).toBe(401);
  await a.close().catch(() => {});
  // the task is back in the pool, and its thread says why
  const other = await agent(server().agent.key);
  const t = await other.call('task_get', { task_id: `${key}-1` });
  expect(t.task).toMatchObject({ status: 'todo', lease: null });
  expect(JSON.stringify(t.comments)).toContain('was deactivated by');
  await other.close();

  await row.getByTestId('activate-agent').click();
  await expect(row.getByTestId('actor-status')).toHaveAttribute('data-status', 'active');

  // an owner edits capabilities, limit and model in place
  const answers = ['python, gpu', '2', 'model-two'];
  const onDialog = (d: import('@playwright/test').Dialog) => void d.accept(answers.shift());
  page.on('dialog', onDialog);
  await row.getByTestId('edit-routing').click();
  await expect(row.getByTestId('actor-capabilities')).toContainText('gpu');
  await expect(row.getByTestId('actor-load')).toHaveText('0 / 2');
  await expect(row.getByTestId('actor-model')).toContainText('model-two');
  page.off('dialog', onDialog);
});

test('a stale card (its holder paused) shows Recover; recovering moves it to todo', async ({ page }) => {
  const name = `pauser-${Date.now().toString(36)}`;
  const bot = await agentKey(name);
  const a = await agent(bot.key);
  const key = uniqueKey('REC');
  await a.call('project_create', { title: 'Recovery', key });
  await a.call('task_create', { project_id: key, title: 'Stranded work', requires_capabilities: [] });
  await a.call('task_create', { project_id: key, title: 'Needs a GPU', requires_capabilities: ['gpu'] });
  expect((await a.call('task_claim', { task_id: `${key}-1` })).claimed).toBe(true);
  const paused = await a.call('register_actor', { external_ref: `agent:${name}`, kind: 'agent', status: 'paused' });
  expect(paused.actor.status).toBe('paused');
  expect(await a.call('task_claim', {})).toMatchObject({ claimed: false, reason: 'paused' });

  await signIn(page);
  await page.goto(`${server().url}/projects/${key}`);
  await boardReady(page);
  // the capability filter shows only the work that needs it
  await page.getByTestId('filter-capability').selectOption('gpu');
  await expect(card(page, `${key}-2`)).toBeVisible();
  await expect(card(page, `${key}-1`)).toHaveCount(0);
  await page.getByTestId('filter-capability').selectOption('');

  const stranded = card(page, `${key}-1`);
  await expect(stranded).toHaveAttribute('data-stale', 'true');
  page.once('dialog', (d) => void d.accept('its agent is paused'));
  await stranded.getByTestId('recover-task').click();
  await expect(card(page, `${key}-1`)).toHaveAttribute('data-status', 'todo');
  await expect(card(page, `${key}-1`)).not.toHaveAttribute('data-stale', 'true');
  // the holder is told
  const inbox = await a.call('inbox', {});
  expect(JSON.stringify(inbox.items)).toContain('its agent is paused');
  await a.close();
});
