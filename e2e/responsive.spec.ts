import { expect, test, type Page } from '@playwright/test';
import { agent, boardReady, card, column, server, signIn, uniqueKey } from './helpers';

/**
 * The console at the widths people use: a 1280 px laptop (every column reachable, the header stays
 * put) and a 390 px phone (the sidebar is a menu, one column at a time, inbox and drawer full width).
 */

/** A project with work in every open column, as a busy board has it. */
async function busyProject(title: string): Promise<{ key: string; refs: Record<string, string> }> {
  const key = uniqueKey('WIDE');
  const a = await agent(server().agent.key);
  await a.call('project_create', { title, key });
  const statuses = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done'] as const;
  await a.call('task_create_many', {
    project_id: key,
    tasks: statuses.map((s, i) => ({ title: `Card in ${s}`, status: s === 'backlog' ? 'backlog' : 'todo', priority: i % 5 })),
  });
  const refs: Record<string, string> = {};
  for (const [i, s] of statuses.entries()) {
    const ref = `${key}-${i + 1}`;
    refs[s] = ref;
    const path: Record<string, string[]> = { in_progress: ['in_progress'], in_review: ['in_progress', 'in_review'], blocked: ['blocked'], done: ['in_progress', 'done'] };
    for (const step of path[s] ?? []) expect((await a.call('task_update', { task_id: ref, patch: { status: step } })).ok).toBe(true);
  }
  await a.close();
  return { key, refs };
}

async function width(page: Page, testId: string): Promise<number> {
  return (await page.getByTestId(testId).boundingBox())!.width;
}

test.describe('at 1280 px', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('a board with work in every column names the columns out of view and scrolls to them; the header stays', async ({ page }) => {
    await signIn(page);
    const { key, refs } = await busyProject('Every column busy');
    await page.goto(`${server().url}/projects/${key}`);
    await boardReady(page);
    await expect(card(page, refs.todo)).toBeInViewport();
    // Done is out of view: an edge button says so, with its count, and takes you there
    const right = page.getByTestId('board-scroll-right');
    await expect(right).toBeVisible();
    await expect(right).toContainText('Done');
    await right.click();
    await expect(card(page, refs.done)).toBeInViewport();
    await expect(page.getByTestId('board-scroll-left')).toBeVisible();
    await expect(page.getByTestId('project-title')).toBeInViewport();
    await expect(page.getByTestId('filter-text')).toBeInViewport();
    // the same from the keyboard: the edge button is in the tab order
    await page.getByTestId('board-scroll-left').focus();
    await page.keyboard.press('Enter');
    await expect(card(page, refs.backlog)).toBeInViewport();
  });

  test('a finished project shows its Done column at once: empty columns collapse', async ({ page }) => {
    await signIn(page);
    const key = uniqueKey('FIN');
    const a = await agent(server().agent.key);
    await a.call('project_create', { title: 'Finished', key });
    await a.call('task_create_many', { project_id: key, tasks: [{ title: 'Shipped one' }, { title: 'Shipped two' }, { title: 'Someday', status: 'backlog' }] });
    for (const ref of [`${key}-1`, `${key}-2`]) {
      await a.call('task_update', { task_id: ref, patch: { status: 'in_progress' } });
      await a.call('task_update', { task_id: ref, patch: { status: 'done' } });
    }
    await a.close();
    await page.goto(`${server().url}/projects/${key}`);
    await boardReady(page);
    await expect(column(page, 'todo')).toHaveAttribute('data-collapsed', 'true');
    await expect(column(page, 'in_progress')).toHaveAttribute('data-collapsed', 'true');
    await expect(card(page, `${key}-1`)).toBeInViewport();
    await expect(card(page, `${key}-2`)).toBeInViewport();
    await expect(page.getByTestId('board-scroll-right')).toHaveCount(0);
    // a collapsed column still takes a card, and opens up with it
    await card(page, `${key}-3`).focus();
    await page.keyboard.press(']');
    await expect(column(page, 'todo').locator(`[data-ref="${key}-3"]`)).toBeVisible();
    await expect(column(page, 'todo')).not.toHaveAttribute('data-collapsed', 'true');
    await expect(column(page, 'backlog')).toHaveAttribute('data-collapsed', 'true');
  });

  test('the drawer is a side panel and the sidebar stays', async ({ page }) => {
    await signIn(page);
    const { key, refs } = await busyProject('Drawer wide');
    await page.goto(`${server().url}/projects/${key}?task=${refs.todo}`);
    await expect(page.getByTestId('drawer-ref')).toHaveText(refs.todo);
    expect(await width(page, 'task-drawer')).toBe(600);
    await expect(page.getByTestId('sidebar')).toBeVisible();
    await expect(page.getByTestId('open-menu')).toBeHidden();
  });
});

test.describe('at 390 px', () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

  test('the sidebar is a menu, the board shows one column with a switcher, the drawer takes the width', async ({ page }) => {
    await signIn(page);
    const { key, refs } = await busyProject('Phone board');
    await page.goto(`${server().url}/projects/${key}`);
    await boardReady(page);
    await expect(page.getByTestId('sidebar')).toBeHidden();

    // one column at a time: the first with work, then whichever the switcher picks
    const switcher = page.getByTestId('column-switcher');
    await expect(switcher).toBeVisible();
    await expect(column(page, 'backlog')).toBeVisible();
    await expect(column(page, 'done')).toBeHidden();
    expect((await column(page, 'backlog').boundingBox())!.width).toBeGreaterThan(330);
    await switcher.getByRole('tab', { name: /Done/ }).click();
    await expect(switcher.getByRole('tab', { name: /Done/ })).toHaveAttribute('aria-selected', 'true');
    await expect(column(page, 'done')).toBeVisible();
    await expect(column(page, 'backlog')).toBeHidden();
    await expect(card(page, refs.done)).toBeInViewport();

    // a card opens a drawer as wide as the screen
    await card(page, refs.done).click();
    await expect(page.getByTestId('drawer-ref')).toHaveText(refs.done);
    expect(await width(page, 'task-drawer')).toBe(390);
    await page.getByRole('button', { name: 'Close drawer' }).click();
    await expect(page.getByTestId('task-drawer')).toHaveCount(0);

    // a moved card is followed to its new column
    await switcher.getByRole('tab', { name: /Backlog/ }).click();
    await card(page, refs.backlog).focus();
    await page.keyboard.press(']');
    await expect(column(page, 'todo').locator(`[data-ref="${refs.backlog}"]`)).toBeVisible();
    await expect(switcher.getByRole('tab', { name: /Todo/ })).toHaveAttribute('aria-selected', 'true');
    await expect(card(page, refs.backlog)).toBeFocused();

    // the menu opens over the page, leads anywhere, and closes on the way
    await page.getByTestId('open-menu').click();
    await expect(page.getByTestId('sidebar')).toBeVisible();
    await page.getByTestId('sidebar').getByRole('link', { name: 'Inbox' }).click();
    await expect(page).toHaveURL(/\/inbox$/);
    await expect(page.getByTestId('sidebar')).toBeHidden();
    await expect(page.getByTestId('inbox-list')).toBeVisible();
    expect(await width(page, 'inbox-list')).toBeGreaterThan(380);
  });

  test('the menu works from the keyboard and Esc closes it', async ({ page }) => {
    await signIn(page);
    await page.getByTestId('open-menu').focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('sidebar')).toBeVisible();
    await expect(page.getByTestId('open-menu')).toHaveAttribute('aria-expanded', 'true');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('sidebar')).toBeHidden();
  });
});
