import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { agent, agentKey, server, signIn, uniqueKey } from './helpers';

/**
 * Memory as a graph in the console, in a workspace of its own: the Related panel of a task shows a
 * link an agent makes over MCP live, as a picture whose nodes open their object; "Add link" makes
 * one the agent then finds; decisions and notes carry the same panel; the Knowledge page filters
 * by kind and tag and shows the guidelines in force with what they shadow. axe-core judges each
 * view, at 1280 px and on a phone.
 */

// each test signs in, drives the live feed and runs axe: on a loaded 2-core machine that takes a while
test.describe.configure({ timeout: 150_000 });

const WS = 'graph-e2e';
let key = '';
const ids: Record<string, string> = {};

async function seriousViolations(page: Page, what: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${what}: ${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join('\n    ')}`);
}

/** Clicks a node of the cytoscape picture where it is drawn (the canvas has no elements to click). */
/**
 * Clicks a node of the Related graph where the panel says it is drawn, until the page goes where
 * the click leads: a live update may lay the graph out again between reading a node's position
 * and the click landing.
 */
async function clickNode(page: Page, scope: ReturnType<Page['getByTestId']>, nodeId: string, leadsTo: RegExp): Promise<void> {
  const graph = scope.getByTestId('related-graph');
  await expect(graph).toHaveAttribute('data-nodes', new RegExp(nodeId));
  await expect(async () => {
    await graph.scrollIntoViewIfNeeded();
    const nodes = JSON.parse((await graph.getAttribute('data-nodes'))!) as { id: string; x: number; y: number }[];
    const at = nodes.find((n) => n.id === nodeId)!;
    const box = (await graph.boundingBox())!;
    await page.mouse.click(box.x + at.x, box.y + at.y);
    await expect(page).toHaveURL(leadsTo, { timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
}

test.beforeAll(async () => {
  const { key: apiKey } = await agentKey('graph-agent', WS);
  const bot = await agent(apiKey);
  key = uniqueKey('GR');
  expect((await bot.call('project_create', { title: 'Graph work', key })).ok).toBe(true);
  const t = await bot.call('task_create', { project_id: key, title: 'Retry failed payouts', labels: ['ops'] });
  ids.task = t.task_id;
  const d = await bot.call('decision_log', { project_id: key, title: 'Retries use exponential backoff', choice: 'Backoff with jitter, five tries' });
  ids.decision = d.decision_id;
  const n = await bot.call('knowledge_write', { title: 'Payout retry runbook', body: 'Drain the **dead letter** queue first.', kind: 'runbook', tags: ['ops'] });
  ids.note = n.note_id;
  const p = await bot.call('knowledge_write', { title: 'Batch the writes', body: 'One statement per hundred rows.', kind: 'pattern', tags: ['perf'], language: 'sql', category: 'performance' });
  ids.pattern = p.note_id;
  const shared = await bot.call('knowledge_write', { title: 'Errors', body: 'Throw typed errors.', kind: 'guideline', language: 'typescript', category: 'style' });
  ids.shared = shared.note_id;
  const own = await bot.call('knowledge_write', { title: 'Errors', body: 'Return result values; no throws in handlers.', kind: 'guideline', language: 'typescript', category: 'style', project_id: key });
  ids.own = own.note_id;
  const other = await bot.call('knowledge_write', { title: 'Naming', body: 'Names say what, not how.', kind: 'guideline', language: 'typescript', category: 'naming' });
  expect([shared.ok, own.ok, other.ok, n.ok, p.ok, d.ok, t.ok]).toEqual([true, true, true, true, true, true, true]);
  await bot.close();
});

test('a link an agent makes over MCP appears live in the task’s Related panel; clicking its node opens it', async ({ page }) => {
  const { key: apiKey } = await agentKey('graph-agent', WS);
  const bot = await agent(apiKey);
  await signIn(page, 'Gina Graph', WS);
  await page.goto(`${server().url}/projects/${key}?task=${key}-1`);
  const panel = page.getByTestId('task-drawer').getByTestId('related-panel');
  await expect(panel.getByTestId('related-empty')).toContainText('Add link');
  expect((await bot.call('link_add', { from: { type: 'note', id: ids.note }, to: { type: 'task', id: `${key}-1` }, relation: 'explains', strength: 0.8 })).ok).toBe(true);
  const node = panel.locator(`[data-testid="related-node"][data-node-id="${ids.note}"]`);
  await expect(node).toContainText('Payout retry runbook');
  await expect(node).toContainText('← explains');
  await expect(panel.getByTestId('related-empty')).toBeHidden();
  // a second level: the note's own link shows two links away
  expect((await bot.call('link_add', { from: { type: 'note', id: ids.note }, to: { type: 'note', id: ids.pattern }, relation: 'relates_to' })).ok).toBe(true);
  await expect(panel.locator(`[data-testid="related-node"][data-node-id="${ids.pattern}"]`)).toContainText('← explains · relates to →');
  expect(await seriousViolations(page, 'drawer with the Related panel')).toEqual([]);
  // Esc in the add-link picker closes the picker, not the drawer around it
  await panel.getByTestId('add-link').click();
  await page.getByTestId('link-search').fill('runbook');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('link-picker')).toBeHidden();
  await expect(page.getByTestId('task-drawer')).toBeVisible();
  await clickNode(page, panel, ids.note, new RegExp(`/knowledge\\?note=${ids.note}`));
  const opened = page.locator(`[data-testid="note"][data-note-id="${ids.note}"]`);
  await expect(opened).toContainText('dead letter');
  // the note carries the panel too, pointing back at the task
  await expect(opened.getByTestId('related-panel').locator(`[data-node-id="${ids.task}"]`)).toContainText(`${key}-1 Retry failed payouts`);
  // a removed link leaves live as well
  expect((await bot.call('link_remove', { from: { type: 'note', id: ids.note }, to: { type: 'note', id: ids.pattern } })).ok).toBe(true);
  await expect(opened.getByTestId('related-panel').locator(`[data-node-id="${ids.pattern}"]`)).toBeHidden();
  await bot.close();
});

test('“Add link” picks a target by search, a relation and a strength; the agent finds the link', async ({ page }) => {
  const { key: apiKey } = await agentKey('graph-agent', WS);
  const bot = await agent(apiKey);
  await signIn(page, 'Gina Graph', WS);
  await page.goto(`${server().url}/decisions?d=${ids.decision}`);
  const card = page.locator(`[data-decision-id="${ids.decision}"]`);
  const panel = card.getByTestId('related-panel');
  await expect(panel.getByTestId('related-empty')).toBeVisible();
  await panel.getByTestId('add-link').click();
  const picker = page.getByTestId('link-picker');

  await picker.getByTestId('link-search').fill('payouts');
  await picker.getByTestId('link-hit').filter({ hasText: 'Retry failed payouts' }).click();
  await expect(picker.getByTestId('link-target')).toContainText(`${key}-1`);
  await picker.getByTestId('link-relation').selectOption('explains');
  await picker.getByTestId('link-strength').fill('0.6');
  expect(await seriousViolations(page, 'add-link picker')).toEqual([]);
  await picker.getByTestId('link-save').click();
  await expect(picker).toBeHidden();
  await expect(panel.locator(`[data-node-id="${ids.task}"]`)).toContainText('explains →');
  const related = await bot.call('find_related', { type: 'task', id: `${key}-1` });
  const back = related.nodes.find((n: { id: string }) => n.id === ids.decision);
  expect(back).toMatchObject({ distance: 1, path: [{ relation: 'explains', direction: 'in', strength: 0.6 }] });
  expect(await seriousViolations(page, 'decision with the Related panel')).toEqual([]);
  // clicking the task's node opens its drawer on the board
  await clickNode(page, panel, ids.task, new RegExp(`/projects/${key}\\?task=${key}-1`));
  await expect(page.getByTestId('drawer-ref')).toHaveText(`${key}-1`);
  await bot.close();
});

test('the Knowledge page filters by kind and tag, and the Guidelines view shows what a project overrides', async ({ page }) => {
  await signIn(page, 'Gina Graph', WS);
  await page.goto(`${server().url}/knowledge`);
  const titles = page.getByTestId('note-title');
  await expect(titles.filter({ hasText: 'Batch the writes' })).toBeVisible();
  await page.getByLabel('Kind').selectOption('pattern');
  await expect(titles).toHaveText(['Batch the writes']);
  await page.getByLabel('Kind').selectOption('');
  await page.getByLabel('Tag').selectOption('ops');
  await expect(titles).toHaveText(['Payout retry runbook']);
  await page.getByLabel('Tag').selectOption('');

  await page.getByTestId('knowledge-tab-guidelines').click();
  await expect(page).toHaveURL(/view=guidelines/);
  const list = page.getByTestId('guideline');
  await expect(list).toHaveCount(2);
  await expect(list.first()).toHaveAttribute('data-scope', 'shared');
  expect(await seriousViolations(page, 'guidelines (shared)')).toEqual([]);
  await page.getByTestId('guidelines-project').selectOption({ label: `${key} · Graph work` });
  const own = page.locator(`[data-testid="guideline"][data-note-id="${ids.own}"]`);
  await expect(own).toHaveAttribute('data-scope', 'project');
  await expect(own.getByTestId('guideline-shadows')).toHaveText('overrides the shared “Errors”');
  // the shared "Errors" is shadowed (listed beneath, struck through); the shared "Naming" still applies
  await expect(page.locator(`[data-testid="guideline"][data-note-id="${ids.shared}"]`)).toHaveCount(0);
  await expect(list.filter({ hasText: 'Naming' })).toHaveAttribute('data-scope', 'shared');
  await expect(page.getByTestId('guidelines-shadowed')).toContainText(`Errors`);
  await expect(page.getByTestId('guidelines-shadowed')).toContainText(`applies instead`);
  await own.getByRole('button').first().click();
  await expect(own).toContainText('no throws in handlers');
  expect(await seriousViolations(page, 'guidelines (project)')).toEqual([]);
  await page.getByLabel('Category').fill('nothing-here');
  await expect(page.getByTestId('guidelines-empty')).toContainText('knowledge_write');
});

test('on a phone the Related panel takes the drawer’s width and its nodes stay reachable', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, 'Gina Graph', WS);
  await page.goto(`${server().url}/projects/${key}?task=${key}-1`);
  const panel = page.getByTestId('task-drawer').getByTestId('related-panel');
  const graph = panel.getByTestId('related-graph');
  await expect(graph).toBeVisible();
  const box = (await graph.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  await expect(panel.getByTestId('related-node').first()).toBeVisible();
  expect(await seriousViolations(page, 'drawer with the Related panel (phone)')).toEqual([]);
});
