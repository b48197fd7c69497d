import { expect, test } from '@playwright/test';
import { agent, agentKey, server, signIn, uniqueKey } from './helpers';

/**
 * Workflows in a real browser, in a workspace of its own: the empty page explains how a workflow
 * is made; an agent saves a three-step release and starts it; the page draws the step graph and
 * shows the run's progress; the person pauses it (the agent's claim is refused), resumes it, and
 * after one step is done cancels the rest.
 */

const WS = 'workflows-e2e';

test('a person watches a workflow run, pauses, resumes and cancels it', async ({ page }) => {
  test.setTimeout(180_000);
  const ada = await agentKey('Ada', WS);
  // workflows are an opt-in room: Ada's connection names it
  const a = await agent(ada.key, { toolsets: 'all' });
  await signIn(page, 'Hana Human', WS);

  await page.goto(`${server().url}/workflows`);
  await expect(page.getByTestId('workflows-empty')).toContainText('No workflow yet.');

  const key = uniqueKey('WF');
  expect((await a.call('project_create', { title: 'Releases', key })).ok).toBe(true);
  const w = await a.call('workflow_create', {
    name: 'Release',
    description: 'Build, test and ship a version.',
    definition: {
      inputs: [{ name: 'version' }],
      steps: [
        { key: 'build', title: 'Build {{version}}' },
        { key: 'test', title: 'Test {{version}}', depends_on: ['build'] },
        { key: 'docs', title: 'Docs for {{version}}', depends_on: ['build'] },
        { key: 'ship', title: 'Ship {{version}}', depends_on: ['test', 'docs'] },
      ],
    },
  });
  expect(w.ok, JSON.stringify(w.error)).toBe(true);

  // the definition and its graph, before any run
  await expect(page.getByTestId('workflow-item')).toHaveCount(1);
  await page.getByTestId('workflow-item').click();
  const detail = page.getByTestId('workflow');
  await expect(detail.getByTestId('workflow-name')).toHaveText('Release');
  const graph = detail.getByTestId('workflow-graph');
  await expect(graph).toHaveAttribute('data-nodes', '4');
  await expect(graph).toHaveAttribute('data-edges', '4');
  await expect(graph.locator('canvas').first()).toBeVisible();
  await expect(detail.getByTestId('workflow-instances-empty')).toBeVisible();

  const started = await a.call('workflow_start', { workflow_id: 'Release', project_id: key, inputs: { version: '2.0' } });
  expect(started.ok, JSON.stringify(started.error)).toBe(true);
  const run = detail.getByTestId('workflow-instance');
  await expect(run).toHaveCount(1);
  await expect(run.getByTestId('workflow-instance-status')).toHaveText('running');
  await expect(run.getByTestId('workflow-progress')).toHaveAttribute('aria-valuenow', '0');

  // paused from the console: the agent's claim of its first step is refused
  await run.getByTestId('workflow-pause').click();
  await expect(run.getByTestId('workflow-instance-status')).toHaveText('paused');
  const build = started.instance.steps[0].task_id;
  expect((await a.call('task_claim', { task_id: build })).error?.code).toBe('NOT_CLAIMABLE');
  await run.getByTestId('workflow-resume').click();
  await expect(run.getByTestId('workflow-instance-status')).toHaveText('running');

  // one step done: a quarter of the bar, live
  expect((await a.call('task_claim', { task_id: build })).claimed).toBe(true);
  expect((await a.call('task_update', { task_id: build, patch: { status: 'done' } })).ok).toBe(true);
  await expect(run.getByTestId('workflow-progress')).toHaveAttribute('aria-valuenow', '25');
  await expect(run.getByTestId('workflow-progress-text')).toContainText('1/4 done');

  page.once('dialog', (d) => void d.accept());
  await run.getByTestId('workflow-cancel').click();
  await expect(run.getByTestId('workflow-instance-status')).toHaveText('cancelled');
  await expect(run.getByTestId('workflow-pause')).toHaveCount(0);
  const after = await a.call('workflow_get', { instance_id: started.instance_id });
  expect(after.instance.progress).toMatchObject({ done: 1, cancelled: 3 });
});
