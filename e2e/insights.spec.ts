import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { agent, server, signIn, uniqueKey } from './helpers';

/** Serious and critical axe violations on the whole page (shell, project header, Insights view), as "rule: target" lines. */
async function seriousViolations(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')} ${n.failureSummary}`));
}

test.describe('insights', () => {
  test('charts a seeded project at 1280 px and 390 px, passes axe, and updates live when an agent finishes a task', async ({ page }) => {
    const a = await agent(server().agent.key);
    const key = uniqueKey('INS');
    expect((await a.call('project_create', { title: 'Insights seeded', key })).ok).toBe(true);
    // a chain of three (1 ← 2 ← 3), and two tasks an agent finishes
    await a.call('task_create', { project_id: key, title: 'Lay the schema' });
    await a.call('task_create', { project_id: key, title: 'Write the API', depends_on: [`${key}-1`] });
    await a.call('task_create', { project_id: key, title: 'Ship the client', depends_on: [`${key}-2`] });
    await a.call('task_create', { project_id: key, title: 'First finished' });
    await a.call('task_create', { project_id: key, title: 'Second finished' });
    expect((await a.call('task_claim', { task_id: `${key}-4` })).claimed).toBe(true);
    expect((await a.call('task_update', { task_id: `${key}-4`, patch: { status: 'done' } })).ok).toBe(true);

    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page);
    await page.goto(`${server().url}/projects/${key}/insights`);
    await expect(page.getByTestId('project-title')).toHaveText('Insights seeded');
    await expect(page.getByRole('link', { name: 'Insights', exact: true })).toBeVisible();
    for (const title of ['Throughput', 'Cycle time', 'Work in progress', 'Review turnaround', 'Longest blocked chain']) {
      await expect(page.getByRole('region', { name: title })).toBeVisible();
    }
    await expect(page.getByTestId('insights-done')).toHaveText('1');
    // drawn charts: throughput, cycle time and WIP have data (reviews have none yet)
    await expect(page.getByRole('region', { name: 'Throughput' }).locator('.recharts-bar-rectangle').first()).toBeVisible();
    await expect(page.getByRole('region', { name: 'Cycle time' }).locator('svg.recharts-surface')).toBeVisible();
    await expect(page.getByTestId('insights-chain').getByRole('link')).toHaveText([
      new RegExp(`${key}-1`),
      new RegExp(`${key}-2`),
      new RegExp(`${key}-3`),
    ]);
    expect(await seriousViolations(page)).toEqual([]);

    // live: an agent finishes another task and the throughput moves without a reload
    expect((await a.call('task_claim', { task_id: `${key}-5` })).claimed).toBe(true);
    expect((await a.call('task_update', { task_id: `${key}-5`, patch: { status: 'done' } })).ok).toBe(true);
    await expect(page.getByTestId('insights-done')).toHaveText('2');

    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByRole('region', { name: 'Throughput' })).toBeVisible();
    await expect(page.getByTestId('insights-chain')).toBeVisible();
    // nothing in the view is wider than its column: no sideways scrolling of the charts
    const overflow = await page.getByTestId('insights').evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await seriousViolations(page)).toEqual([]);
    await a.close();
  });

  test('tells a person with an empty project what to do, and shows a loading state while another window loads', async ({ page }) => {
    const a = await agent(server().agent.key);
    const key = uniqueKey('EMP');
    await a.call('project_create', { title: 'Nothing yet', key });
    await a.close();
    await signIn(page);
    await page.goto(`${server().url}/projects/${key}/insights`);
    await expect(page.getByTestId('insights-empty')).toContainText('This project has no tasks');
    await expect(page.getByTestId('insights-empty').getByRole('link', { name: 'board' })).toHaveAttribute('href', `/projects/${key}`);
    expect(await seriousViolations(page)).toEqual([]);

    // another window is read on demand: until it arrives the view says so
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/api/console/tool', async (route) => {
      if (/"project_insights".*"days":7\b/.test(route.request().postData() ?? '')) await held;
      await route.continue();
    });
    await page.getByRole('button', { name: '7 days' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Loading the last 7 days' })).toBeVisible();
    await expect(page.getByTestId('insights')).toHaveAttribute('aria-busy', 'true');
    release();
    await expect(page.getByTestId('insights-refreshing')).toHaveCount(0);
    await expect(page.getByRole('button', { name: '7 days' })).toHaveAttribute('aria-pressed', 'true');
  });
});
