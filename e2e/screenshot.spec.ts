import path from 'node:path';
import { expect, test } from '@playwright/test';
import { agent, agentKey, card, column, server, confirmLink } from './helpers';

/**
 * Where the pictures go: the test's own output folder (untracked) during `npm test`, so a test run
 * never rewrites tracked files; `npm run screenshots` sets BULLPEN_SCREENSHOTS=public/screenshots
 * to refresh the README's pictures on purpose.
 */
function shotPath(name: string): string {
  const dir = process.env.BULLPEN_SCREENSHOTS;
  return dir ? path.resolve(dir, name) : test.info().outputPath(name);
}

/** Seeds a realistic workspace and takes the README's board and drawer screenshots. */
test('the board, as the README shows it', async ({ page }) => {
  const ws = 'acme';
  const inv = await fetch(`${server().url}/api/admin/humans`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-bullpen-admin-token': server().adminToken },
    body: JSON.stringify({ name: 'Dana Reyes', workspace: ws }),
  }).then((r) => r.json() as Promise<{ token: string; actor_id: string }>);
  const backend = await agent((await agentKey('claude-backend', ws)).key);
  const frontend = await agent((await agentKey('codex-frontend', ws)).key);
  const reviewer = await agent((await agentKey('claude-reviewer', ws)).key);
  await backend.call('project_create', { title: 'Payments API', key: 'PAY', summary: 'Card payments for the storefront: intents, webhooks, refunds.' });
  await backend.call('project_create', { title: 'Storefront', key: 'WEB' });
  const plan = await backend.call('task_create_many', {
    project_id: 'PAY',
    tasks: [
      { title: 'Schema for payment intents and charges', priority: 1, labels: ['db'], acceptance_criteria: [{ text: 'migration applies', met: true }, { text: 'RLS forced', met: true }] },
      { title: 'Idempotent POST /payment-intents', priority: 1, labels: ['api'], depends_on: [{ batch_index: 0 }], acceptance_criteria: ['replays return the first result', 'validation names the field', 'p99 under 50 ms'] },
      {
        title: 'Verify webhook signatures',
        priority: 0,
        labels: ['api', 'security'],
        body: 'Providers sign each webhook with **HMAC-SHA256** over the raw body.\n\n- read the `signature` header\n- compare in constant time\n- allow 5 minutes of clock skew',
        acceptance_criteria: ['rejects a forged signature', 'tolerates clock skew'],
      },
      { title: 'Refunds: partial and full', priority: 2, labels: ['api'], depends_on: [{ batch_index: 1 }], acceptance_criteria: ['partial refund', 'full refund', 'refund of a refund refused'] },
      { title: 'Checkout form with card element', priority: 2, labels: ['ui'], acceptance_criteria: ['3DS challenge handled'] },
      { title: 'Receipt emails', priority: 3, labels: ['email'] },
      { title: 'Decide: store card fingerprints?', priority: 2, labels: ['decision'] },
      { title: 'Load test the intents endpoint', priority: 3, labels: ['perf'], depends_on: [{ batch_index: 1 }] },
      { title: 'Dispute evidence upload', priority: 4, labels: ['api'], status: 'backlog' },
      { title: 'Multi-currency display', priority: 3, labels: ['ui'], status: 'backlog' },
      { title: 'Document the payments API', priority: 3, labels: ['docs'] },
      { title: 'Retry failed webhooks with backoff', priority: 2, labels: ['api'] },
      { title: 'PCI scope review', priority: 1, labels: ['security'] },
    ],
  });
  expect(plan.ok).toBe(true);
  const ref = (i: number) => `PAY-${i + 1}`;
  // done: the schema
  await backend.call('task_claim', { task_id: ref(0) });
  await backend.call('task_update', { task_id: ref(0), patch: { status: 'done' } });
  // in review: the intents endpoint, claimed and handed to review
  await backend.call('task_claim', { task_id: ref(1) });
  await backend.call('task_update', { task_id: ref(1), patch: { status: 'in_review', reviewer_actor_id: (await reviewer.call('whoami')).actor.id, acceptance_criteria: [{ text: 'replays return the first result', met: true }, { text: 'validation names the field', met: true }, { text: 'p99 under 50 ms', met: false }] } });
  // in progress, under live leases
  await backend.call('task_claim', { task_id: ref(2), lease_seconds: 2700 });
  await backend.call('task_update', { task_id: ref(2), patch: { acceptance_criteria: [{ text: 'rejects a forged signature', met: true }, { text: 'tolerates clock skew', met: false }] } });
  await frontend.call('task_claim', { task_id: ref(4), lease_seconds: 5400 });
  await backend.call('task_assign', { task_id: ref(6), actor_id: inv.actor_id });
  await backend.call('task_update', { task_id: ref(6), patch: { status: 'in_progress' } });
  // blocked on a human decision
  await backend.call('task_update', { task_id: ref(12), patch: { status: 'blocked' } });
  await backend.call('task_assign', { task_id: ref(12), actor_id: inv.actor_id });
  // shipped
  await frontend.call('task_claim', { task_id: ref(10) });
  await frontend.call('task_update', { task_id: ref(10), patch: { status: 'done' } });
  await frontend.call('task_claim', { task_id: ref(11) });
  await frontend.call('task_update', { task_id: ref(11), patch: { status: 'done' } });
  await reviewer.call('task_create', { project_id: 'WEB', title: 'Product grid' });

  await confirmLink(page, `${server().url}/auth/link#token=${inv.token}`);
  await expect(page).toHaveURL(/\/projects$/);
  await page.goto(`${server().url}/projects/PAY`);
  await expect(page.getByTestId('board')).toHaveAttribute('data-board-ready', 'true');
  await expect(column(page, 'in_progress').getByTestId('task-card')).toHaveCount(3);
  await expect(card(page, 'PAY-3').getByTestId('lease')).toContainText('claude-backend');
  await expect(card(page, 'PAY-4').getByTestId('blocked-by')).toBeVisible();
  await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'live');
  await page.mouse.move(0, 0);
  await page.screenshot({ path: shotPath('board.png') });

  // and the drawer on a task an agent is working, for the tour
  await card(page, 'PAY-3').click();
  await expect(page.getByTestId('drawer-lease')).toContainText('claude-backend');
  await page.getByTestId('comment-input').fill('Use the raw body for the HMAC, not the parsed JSON.');
  await page.getByTestId('comment-send').click();
  await expect(page.getByTestId('comment')).toHaveCount(1);
  await page.screenshot({ path: shotPath('drawer.png') });
  for (const a of [backend, frontend, reviewer]) await a.close();
});
