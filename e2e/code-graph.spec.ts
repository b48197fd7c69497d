import { expect, test } from '@playwright/test';
import { agent, agentKey, server, signIn } from './helpers';

/**
 * The board's collision badge in a real browser: two agents hold tasks whose code refs touch files
 * one import apart in a repository with a code graph; both cards carry the badge, each naming the
 * other task, and the badge goes away live when one of them finishes.
 */

const WS = 'code-graph-e2e';

test('collision badges on both cards of tasks whose files are near each other, gone when one finishes', async ({ page }) => {
  await signIn(page, 'Olive Owner', WS);
  const ada = await agent((await agentKey('Ada', WS)).key, { toolsets: 'all' });
  const bob = await agent((await agentKey('Bob', WS)).key, { toolsets: 'all' });
  const ok = async (p: Promise<Record<string, unknown> & { ok: boolean; error?: unknown }>) => {
    const r = await p;
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    return r as Record<string, any>;
  };
  await ok(ada.call('project_create', { title: 'Web', key: 'WEB' }));
  const repo = (await ok(ada.call('repo_register', { slug: 'acme/web' }))).repository_id;
  // b.ts imports a.ts
  const up = await ok(ada.call('code_graph_upload', { repository_id: repo, commit_sha: 'abc1234', files: ['src/a.ts', 'src/b.ts'], dependents: [1, 0] }));
  await ok(ada.call('code_graph_upload', { repository_id: repo, upload_id: up.upload_id, imports: [1, 0], done: true }));
  const mine = (await ok(ada.call('task_create', { project_id: 'WEB', title: 'Change a' }))).task.ref;
  const theirs = (await ok(bob.call('task_create', { project_id: 'WEB', title: 'Change b' }))).task.ref;
  await ok(ada.call('task_code_ref', { task_id: mine, ref_type: 'branch', branch: 'a', repository_id: repo, files: ['src/a.ts'] }));
  await ok(bob.call('task_code_ref', { task_id: theirs, ref_type: 'branch', branch: 'b', repository_id: repo, files: ['src/b.ts'] }));
  await ok(bob.call('task_claim', { task_id: theirs }));

  await page.goto(`${server().url}/projects/WEB`);
  const card = (ref: string) => page.locator(`[data-testid="task-card"][data-ref="${ref}"]`);
  await expect(card(theirs)).toBeVisible();
  await expect(card(theirs).getByTestId('collision-badge')).toHaveCount(0);

  // Ada claims hers: now both are in progress near each other, and both cards say so, live
  const claimed = await ok(ada.call('task_claim', { task_id: mine }));
  expect(claimed.collisions[0].task).toBe(theirs);
  await expect(card(mine).getByTestId('collision-badge')).toContainText(theirs);
  await expect(card(theirs).getByTestId('collision-badge')).toContainText(mine);
  await expect(card(mine).getByTestId('collision-badge')).toHaveAttribute('title', /Bob/);

  // Bob finishes: nothing collides any more
  await ok(bob.call('task_update', { task_id: theirs, patch: { status: 'done' } }));
  await expect(card(mine).getByTestId('collision-badge')).toHaveCount(0);
});
