import { expect, test } from '@playwright/test';
import { agent, agentKey, server, signIn, uniqueKey } from './helpers';

/**
 * The memory pages in a real browser, in a workspace of their own: decisions appear live when an
 * agent logs them, superseding shows the chain, the palette jumps to a task by a word of its title,
 * notes show their embedding status and search says how it searched, and a skill edit that lost a
 * race is shown, not overwritten.
 */

const WS = 'memory-e2e';

test('an agent logs a decision and it appears live on the timeline', async ({ page }) => {
  const { key } = await agentKey('memory-agent', WS);
  const bot = await agent(key);
  await signIn(page, 'Mona Memory', WS);
  await page.getByRole('link', { name: 'Decisions' }).click();
  await expect(page.getByTestId('decisions-empty')).toContainText('decision_log');
  const logged = await bot.call('decision_log', {
    title: 'Money as integer cents',
    choice: 'Store every amount as integer cents',
    options: [{ label: 'integer cents', pros: ['exact'], cons: ['formatting at the edges'] }, { label: 'floats', cons: ['lose cents'] }],
  });
  expect(logged.ok).toBe(true);
  const card = page.locator(`[data-decision-id="${logged.decision_id}"]`);
  await expect(card).toBeVisible();
  await expect(card.getByTestId('decision-status')).toHaveText('accepted');
  await card.getByTestId('decision-title').click();
  await expect(card.getByTestId('decision-options')).toContainText('+ exact');
  await expect(card.getByTestId('decision-options')).toContainText('− lose cents');
  await bot.close();
});

test('superseding from the console shows the chain both ways', async ({ page }) => {
  await signIn(page, 'Mona Memory', WS);
  await page.goto(`${server().url}/decisions`);
  const old = page.locator('[data-testid="decision"]', { hasText: 'Money as integer cents' });
  await old.getByTestId('decision-title').click();
  await old.getByTestId('supersede').click();
  const dialog = page.getByTestId('decision-dialog');
  await dialog.getByLabel('Title').fill('Money as bigint micros');
  await dialog.getByLabel('Choice').fill('Store amounts as bigint micro-units');
  await dialog.getByRole('button', { name: 'Supersede' }).click();
  await expect(dialog).toBeHidden();
  const neu = page.locator('[data-testid="decision"]', { hasText: 'Money as bigint micros' });
  await expect(neu.getByTestId('supersedes')).toContainText('Money as integer cents');
  const before = page.locator('[data-testid="decision"]', { hasText: 'Store every amount as integer cents' });
  await expect(before.getByTestId('decision-status')).toHaveText('superseded');
  await expect(before.getByTestId('superseded-by')).toContainText('Money as bigint micros');
  // without superseded ones, only the current decision is left
  await page.getByLabel('Show superseded').uncheck();
  await expect(page.getByTestId('decision')).toHaveCount(1);
});

test('a decision and a note carry discussion threads: an agent’s comment appears live, the console’s reply reaches the agent', async ({ page }) => {
  const { key } = await agentKey('memory-agent', WS);
  const bot = await agent(key);
  await signIn(page, 'Mona Memory', WS);
  await page.goto(`${server().url}/decisions`);
  const card = page.getByTestId('decision').filter({ has: page.getByTestId('decision-title').getByText('Money as bigint micros', { exact: true }) });
  await card.getByTestId('decision-title').click();
  const thread = card.getByTestId('thread');
  await expect(thread.getByTestId('thread-empty')).toContainText('comment_add');
  const decision = (await card.getAttribute('data-decision-id'))!;
  expect((await bot.call('comment_add', { object_type: 'decision', object_id: decision, body: 'Micros overflow past 9.2 trillion units' })).ok).toBe(true);
  await expect(thread.getByTestId('comment')).toHaveCount(1);
  await expect(thread.getByTestId('comment')).toContainText('Micros overflow');
  await thread.getByTestId('comment-input').fill('Far beyond our volumes; keep it');
  await thread.getByTestId('comment-send').click();
  await expect(thread.getByTestId('comment')).toHaveCount(2);
  await expect(thread.getByTestId('comment-input')).toHaveValue('');
  const read = await bot.call('comment_query', { object_type: 'decision', object_id: decision });
  expect(read.comments.map((c: { body: string; author: string }) => [c.author, c.body])).toEqual([
    ['memory-agent', 'Micros overflow past 9.2 trillion units'],
    ['Mona Memory', 'Far beyond our volumes; keep it'],
  ]);

  const note = await bot.call('knowledge_write', { title: 'Rounding at the edge', body: 'Round half to even when formatting.' });
  await page.goto(`${server().url}/knowledge?note=${note.note_id}`);
  const noteThread = page.locator(`[data-note-id="${note.note_id}"]`).getByTestId('thread');
  await expect(noteThread.getByTestId('thread-empty')).toBeVisible();
  expect((await bot.call('comment_add', { object_type: 'note', object_id: note.note_id, body: 'Source: the finance team' })).ok).toBe(true);
  await expect(noteThread.getByTestId('comment')).toContainText('Source: the finance team');
  await bot.close();
});

test('the palette (Ctrl-K) finds a task by a word of its title and opens it', async ({ page }) => {
  const { key } = await agentKey('memory-agent', WS);
  const bot = await agent(key);
  const pk = uniqueKey('PAL');
  expect((await bot.call('project_create', { title: 'Palette project', key: pk })).ok).toBe(true);
  expect((await bot.call('task_create', { project_id: pk, title: 'Recalibrate the flux capacitor' })).ok).toBe(true);
  await bot.close();
  await signIn(page, 'Mona Memory', WS);
  await page.keyboard.press('Control+k');
  const palette = page.getByTestId('command-palette');
  await palette.getByLabel('Search').fill('capacitor');
  const hit = palette.getByTestId('palette-hit').first();
  await expect(hit).toHaveAttribute('data-type', 'task');
  await expect(hit).toContainText(`${pk}-1`);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/projects/${pk}\\?task=${pk}-1$`));
  await expect(page.getByTestId('drawer-title')).toHaveText('Recalibrate the flux capacitor');
});

test('notes show their embedding status, and search by meaning says its mode', async ({ page }) => {
  const { key } = await agentKey('memory-agent', WS);
  const bot = await agent(key);
  const note = await bot.call('knowledge_write', {
    title: 'Restarting the invoice consumer',
    body: 'If invoices stop going out, run systemctl restart invoice-consumer on the worker host.',
    kind: 'runbook',
    tags: ['ops'],
  });
  expect(note).toMatchObject({ ok: true, embedding_status: 'pending' });
  await bot.close();
  await signIn(page, 'Mona Memory', WS);
  await page.goto(`${server().url}/knowledge`);
  const row = page.locator(`[data-note-id="${note.note_id}"]`);
  // the server's job worker embeds it in the background; the page follows
  await expect(row.getByTestId('embedding-status')).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });
  await page.getByTestId('knowledge-search').fill('clients are not receiving their bills');
  await expect(page.getByTestId('search-mode')).toHaveText('hybrid');
  await expect(page.getByTestId('note').first()).toHaveAttribute('data-note-id', note.note_id);
  await page.getByLabel('words only').check();
  await expect(page.getByTestId('search-mode')).toHaveText('lexical');
  await expect(page.getByTestId('knowledge-empty')).toBeVisible();
});

test('a skill edited meanwhile by an agent shows the conflict instead of overwriting it', async ({ page }) => {
  const { key } = await agentKey('memory-agent', WS);
  const bot = await agent(key);
  expect((await bot.call('skill_upsert', { slug: 'release-checklist', description: 'Use when shipping', body: '# Release\n\n1. Tag' })).ok).toBe(true);
  await signIn(page, 'Mona Memory', WS);
  await page.goto(`${server().url}/skills?slug=release-checklist`);
  await expect(page.getByTestId('skill-detail')).toContainText('v1');
  await page.getByTestId('skill-edit').click();
  await page.getByTestId('skill-editor').getByLabel('Body').fill('# Release\n\n1. Tag\n2. Push (from the console)');
  expect((await bot.call('skill_upsert', { slug: 'release-checklist', body: '# Release\n\n1. Tag\n2. Announce (from the agent)' })).ok).toBe(true);
  await page.getByTestId('skill-save').click();
  await expect(page.getByTestId('skill-conflict')).toContainText('Someone saved version 2');
  const stored = await bot.call('skill_get', { slug: 'release-checklist' });
  expect(stored.skill.body).toContain('from the agent');
  await page.getByRole('button', { name: 'Reload their version' }).click();
  await expect(page.getByTestId('skill-detail')).toContainText('from the agent');
  await bot.close();
});
