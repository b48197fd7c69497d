import { expect, test, type Page } from '@playwright/test';
import { agent, boardReady, card, column, server, signIn, uniqueKey } from './helpers';

/** The refs of a column's cards, top to bottom. */
async function refsIn(page: Page, status: string): Promise<string[]> {
  return column(page, status).locator('[data-testid="task-card"]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.ref ?? ''));
}

test.describe('manual order on the board', () => {
  test('dragging a card within its column reorders it with one write, and another viewer sees the new order live', async ({ page, browser }) => {
    await signIn(page);
    const key = uniqueKey('ORD');
    const a = await agent(server().agent.key);
    await a.call('project_create', { title: 'Ordered work', key });
    await a.call('task_create_many', { project_id: key, tasks: [{ title: 'First' }, { title: 'Second' }, { title: 'Third' }] });
    const before = await a.call('task_query', { project_id: key, order: 'manual' });
    const index = (rows: { ref: string; order_index: number }[]) => Object.fromEntries(rows.map((r) => [r.ref, r.order_index]));

    // a second viewer, in a browser context of its own
    const other = await (await browser.newContext()).newPage();
    await signIn(other);
    await other.goto(`${server().url}/projects/${key}`);
    await boardReady(other);

    await page.goto(`${server().url}/projects/${key}`);
    await boardReady(page);
    await expect.poll(() => refsIn(page, 'todo')).toEqual([`${key}-1`, `${key}-2`, `${key}-3`]);
    await other.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));

    // drop the third card on the top edge of the first: it lands above it
    await card(page, `${key}-3`).dragTo(card(page, `${key}-1`), { targetPosition: { x: 20, y: 3 } });
    await expect.poll(() => refsIn(page, 'todo')).toEqual([`${key}-3`, `${key}-1`, `${key}-2`]);
    // the other viewer sees it without a reload
    await expect.poll(() => refsIn(other, 'todo')).toEqual([`${key}-3`, `${key}-1`, `${key}-2`]);
    expect(await other.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);

    // persisted: the server's manual order agrees, and only the moved card was written
    await expect.poll(async () => (await a.call('task_query', { project_id: key, order: 'manual' })).tasks.map((t: { ref: string }) => t.ref)).toEqual([`${key}-3`, `${key}-1`, `${key}-2`]);
    const after = index((await a.call('task_query', { project_id: key, order: 'manual' })).tasks);
    const was = index(before.tasks);
    expect(after[`${key}-1`]).toBe(was[`${key}-1`]);
    expect(after[`${key}-2`]).toBe(was[`${key}-2`]);
    expect(after[`${key}-3`]).toBeLessThan(was[`${key}-1`]);

    // between two cards: the midpoint of its neighbours
    await card(page, `${key}-2`).dragTo(card(page, `${key}-1`), { targetPosition: { x: 20, y: 3 } });
    await expect.poll(() => refsIn(page, 'todo')).toEqual([`${key}-3`, `${key}-2`, `${key}-1`]);
    await expect.poll(() => refsIn(other, 'todo')).toEqual([`${key}-3`, `${key}-2`, `${key}-1`]);
    await expect.poll(async () => index((await a.call('task_query', { project_id: key, order: 'manual' })).tasks)[`${key}-2`]).toBe(
      (after[`${key}-3`] + after[`${key}-1`]) / 2,
    );
    // after a reload the order holds
    await page.reload();
    await boardReady(page);
    await expect.poll(() => refsIn(page, 'todo')).toEqual([`${key}-3`, `${key}-2`, `${key}-1`]);
    await other.context().close();
    await a.close();
  });

  test('a skipped task is folded with the closed columns and its drawer says dependents treat it as resolved', async ({ page }) => {
    await signIn(page);
    const key = uniqueKey('SKP');
    const a = await agent(server().agent.key);
    await a.call('project_create', { title: 'Skipping', key });
    await a.call('task_create', { project_id: key, title: 'Not needed', meta: { team: 'infra' } });
    await a.call('task_update', { task_id: `${key}-1`, patch: { status: 'skipped' }, note: 'covered by the vendor' });
    await page.goto(`${server().url}/projects/${key}`);
    await boardReady(page);
    const fold = page.locator('[data-testid="folded-column"][data-status="skipped"]');
    await expect(fold).toBeVisible();
    await fold.click();
    await card(page, `${key}-1`).click();
    await expect(page.getByTestId('drawer-skipped')).toContainText('dependents treat it as resolved');
    await expect(page.locator('[data-testid="comment"][data-kind="note"]')).toContainText('covered by the vendor');
    // metadata as a key/value list a person edits
    const meta = page.getByTestId('drawer-meta');
    await expect(meta.locator('[data-meta-key="team"]')).toContainText('infra');
    await page.getByLabel('Add metadata').fill('tier=2');
    await page.getByLabel('Add metadata').press('Enter');
    await expect(meta.locator('[data-meta-key="tier"]')).toContainText('2');
    await meta.getByRole('button', { name: 'Remove team' }).click();
    await expect(meta.locator('[data-meta-key="team"]')).toHaveCount(0);
    await expect.poll(async () => (await a.call('task_get', { task_id: `${key}-1` })).task.meta).toEqual({ tier: 2 });
    await a.close();
  });
});
