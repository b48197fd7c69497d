import { expect, test } from '@playwright/test';
import { agent, agentKey, server, signIn } from './helpers';

/**
 * The Costs page in a real browser, in a workspace of its own: empty, it says what to do; after two
 * agents report usage on a task (one priced from the table, one with its own cost) and the owner
 * sets a project budget, it shows the spend over time, by agent and by model, the budget bar with
 * its warning line, the costliest task, and the project's brief shows the budget's state.
 */

const WS = 'costs-e2e';

test('the Costs page: an empty state, then spend by agent and model, a budget bar and the top task', async ({ page }) => {
  await signIn(page, 'Olive Owner', WS);
  await page.goto(`${server().url}/costs`);
  await expect(page.getByTestId('costs-empty')).toContainText('No spend recorded yet.');
  await expect(page.getByTestId('costs-empty')).toContainText('run_heartbeat');

  const ada = await agent((await agentKey('Ada', WS)).key, { toolsets: 'all' });
  const bob = await agent((await agentKey('Bob', WS)).key);
  expect((await ada.call('project_create', { title: 'Spend', key: 'SPD' })).ok).toBe(true);
  const task = await ada.call('task_create', { project_id: 'SPD', title: 'Expensive work' });
  expect(task.ok).toBe(true);
  const a = await ada.call('run_heartbeat', { task_id: task.task.ref, usage: { model: 'claude-sonnet-4-5', tokens_in: 100_000, tokens_out: 10_000 } });
  expect(a.ok, JSON.stringify(a.error)).toBe(true);
  const b = await bob.call('run_heartbeat', { task_id: task.task.ref, usage: { model: 'house-model', tokens_in: 500, cost_usd: 0.2 } });
  expect(b.ok, JSON.stringify(b.error)).toBe(true);

  // the owner caps the project from the page (budget_set); $0.65 of $0.80 is past the warning line at 80 %
  await page.reload();
  const form = page.getByTestId('costs-budget-form');
  await form.getByLabel('Budget project').fill('SPD');
  await form.getByLabel('Budget period').selectOption('month');
  await form.getByLabel('Budget limit in USD').fill('0.8');
  await form.getByRole('button', { name: 'Set budget' }).click();
  // 100k in × $3/M + 10k out × $15/M = $0.45, and Bob's reported $0.20
  await expect(page.getByTestId('costs-total')).toContainText('$0.65');
  await expect(page.getByTestId('costs-over-time').locator('svg.recharts-surface')).toBeVisible();
  // spend over time, stacked by agent and by model: each has a band named in the legend
  const overTime = page.getByTestId('costs-over-time');
  await overTime.getByRole('button', { name: 'By agent' }).click();
  await expect(overTime.locator('.recharts-legend-wrapper')).toContainText('Ada');
  await expect(overTime.locator('.recharts-legend-wrapper')).toContainText('Bob');
  await overTime.getByRole('button', { name: 'By model' }).click();
  await expect(overTime.locator('.recharts-legend-wrapper')).toContainText('claude-sonnet-4-5');
  await expect(overTime.locator('.recharts-legend-wrapper')).toContainText('house-model');
  await expect(page.getByTestId('costs-by-agent')).toContainText('Ada');
  await expect(page.getByTestId('costs-by-agent')).toContainText('Bob');
  await expect(page.getByTestId('costs-by-model')).toContainText('claude-sonnet-4-5');
  const budget = page.getByTestId('costs-budget');
  await expect(budget).toHaveCount(1);
  await expect(budget).toHaveAttribute('data-state', 'warning');
  await expect(budget).toContainText('project SPD month budget');
  await expect(budget.getByTestId('costs-warn-line')).toHaveAttribute('style', /left: 80%/);
  await expect(page.getByTestId('costs-task').first()).toContainText('SPD-1 Expensive work');
  await expect(page.getByTestId('costs-task').first()).toContainText('$0.65');

  await page.goto(`${server().url}/projects/SPD/brief`);
  await expect(page.getByTestId('brief-budgets')).toContainText('project SPD month budget');
  await expect(page.getByTestId('brief-budgets').locator('[data-state="warning"]')).toBeVisible();
  await ada.close();
  await bob.close();
});
