import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { agent, boardReady, server, signIn, uniqueKey } from './helpers';

/**
 * Every console page passes axe-core with no serious or critical violations, at a laptop's width
 * and (for the board, the drawer and the inbox) a phone's. Pages are checked once their data is on
 * screen, so what is judged is what a person sees.
 */

/** The serious and critical violations on the page as it is now, one line each (empty when clean). */
async function seriousViolations(page: Page, what: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${what}: ${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join('\n    ')}`);
}

let key = '';
let ref = '';

test.beforeAll(async () => {
  key = uniqueKey('AXE');
  const a = await agent(server().agent.key);
  await a.call('project_create', { title: 'Accessible work', key, summary: 'A project to judge every page by.' });
  await a.call('task_create_many', {
    project_id: key,
    tasks: [
      { title: 'Write the plan', labels: ['docs'], acceptance_criteria: ['outline', 'review'], body: 'The **plan** in a few lines.' },
      { title: 'Build the thing', priority: 1, depends_on: [{ batch_index: 0 }] },
      { title: 'Someday maybe', status: 'backlog' },
    ],
  });
  await a.call('task_claim', { task_id: `${key}-1` });
  await a.call('task_update', { task_id: `${key}-1`, patch: { acceptance_criteria: [{ text: 'outline', met: true }, { text: 'review', met: false }] } });
  await a.call('comment_add', { object_type: 'task', object_id: `${key}-1`, body: 'Started on the outline.' });
  expect((await a.call('decision_log', { project_id: key, title: 'Plans live in the repo', choice: 'Keep the plan next to the code.', rationale: 'Reviewed with the code.', related_task_ids: [`${key}-1`] })).ok).toBe(true);
  await a.close();
  ref = `${key}-1`;
});

const PAGES: { path: () => string; ready: (page: Page) => Promise<void>; name: string }[] = [
  { name: 'projects', path: () => '/projects', ready: async (p) => void (await expect(p.getByTestId('project-title').or(p.getByText('Accessible work')).first()).toBeVisible()) },
  { name: 'board', path: () => `/projects/${key}`, ready: boardReady },
  { name: 'drawer', path: () => `/projects/${key}?task=${ref}`, ready: async (p) => void (await expect(p.getByTestId('drawer-ref')).toHaveText(ref)) },
  { name: 'insights', path: () => `/projects/${key}/insights`, ready: async (p) => void (await expect(p.getByTestId('insights').or(p.getByTestId('insights-empty')).first()).toBeVisible()) },
  { name: 'brief', path: () => `/projects/${key}/brief`, ready: async (p) => void (await expect(p.getByTestId('project-title')).toHaveText('Accessible work')) },
  { name: 'inbox', path: () => '/inbox', ready: async (p) => void (await expect(p.getByTestId('inbox-list')).toBeVisible()) },
  { name: 'activity', path: () => '/activity', ready: async (p) => void (await expect(p.getByTestId('activity-item').first()).toBeVisible()) },
  { name: 'actors', path: () => '/actors', ready: async (p) => void (await expect(p.getByText('e2e-agent').first()).toBeVisible()) },
  { name: 'decisions', path: () => '/decisions', ready: async (p) => void (await expect(p.locator('main h1').first()).toBeVisible()) },
  { name: 'knowledge', path: () => '/knowledge', ready: async (p) => void (await expect(p.locator('main h1').first()).toBeVisible()) },
  { name: 'skills', path: () => '/skills', ready: async (p) => void (await expect(p.locator('main h1').first()).toBeVisible()) },
  { name: 'feedback', path: () => '/feedback', ready: async (p) => void (await expect(p.locator('main h1').first()).toBeVisible()) },
  { name: 'runs', path: () => '/runs', ready: async (p) => void (await expect(p.locator('main h1').first()).toBeVisible()) },
];

test.describe('axe at 1280 px', () => {
  test.use({ viewport: { width: 1280, height: 800 } });
  test('every console page', async ({ page }) => {
    test.setTimeout(180_000);
    await signIn(page);
    const bad: string[] = [];
    for (const p of PAGES) {
      await page.goto(`${server().url}${p.path()}`);
      await p.ready(page);
      bad.push(...(await seriousViolations(page, p.name)));
    }
    expect(bad).toEqual([]);
  });
});

test.describe('axe at 390 px', () => {
  test.use({ viewport: { width: 390, height: 844 } });
  test('the board, the drawer, the inbox and the open menu', async ({ page }) => {
    test.setTimeout(120_000);
    await signIn(page);
    const bad: string[] = [];
    for (const p of PAGES.filter((x) => ['board', 'drawer', 'inbox', 'activity'].includes(x.name))) {
      await page.goto(`${server().url}${p.path()}`);
      await p.ready(page);
      bad.push(...(await seriousViolations(page, `${p.name} (phone)`)));
    }
    await page.getByTestId('open-menu').click();
    await expect(page.getByTestId('sidebar')).toBeVisible();
    bad.push(...(await seriousViolations(page, 'menu (phone)')));
    expect(bad).toEqual([]);
  });
});
