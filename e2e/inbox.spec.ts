import { expect, test, type Page } from '@playwright/test';
import { agent, server, signIn, uniqueKey } from './helpers';

/**
 * The coordination room in the console: an agent asks a person over MCP and reads the answer, the
 * review flow end to end, and the bell. Each test signs in a person of its own, so the workspace
 * other specs use keeps its shape.
 */

async function actorId(a: Awaited<ReturnType<typeof agent>>, name: string): Promise<string> {
  const r = await a.call('actor_query', { q: name, kind: 'human' });
  expect(r.ok).toBe(true);
  const hit = r.actors.find((x: { display_name: string }) => x.display_name === name);
  expect(hit, `${name} is in the directory`).toBeTruthy();
  return hit.id;
}

function item(page: Page, id: string) {
  return page.locator(`[data-testid="handoff-item"][data-id="${id}"]`);
}

test.describe('inbox', () => {
  test('an agent asks the signed-in person over MCP; it appears live; the answer given in the console is what the agent reads', async ({ page }) => {
    const name = `Quinn ${uniqueKey('Q')}`;
    await signIn(page, name);
    await page.getByRole('link', { name: 'Inbox' }).click();
    await expect(page).toHaveURL(/\/inbox$/);
    await expect(page.getByTestId('inbox-empty')).toContainText('Nothing is waiting for you');

    const a = await agent(server().agent.key);
    const me = await actorId(a, name);
    const asked = await a.call('handoff_create', {
      to_actor_ids: [me],
      kind: 'question',
      title: 'Which region should the refunds service run in?',
      body: 'Latency matters more than cost.',
    });
    expect(asked.ok).toBe(true);

    // no reload: the live feed brings it in
    const card = item(page, asked.handoff_id);
    await expect(card).toBeVisible();
    await expect(card.getByTestId('handoff-title')).toHaveText('Which region should the refunds service run in?');
    await expect(card).toHaveAttribute('data-status', 'open');
    await expect(page.getByTestId('nav-inbox-count')).toHaveText('1');

    // a side discussion on the request, both ways, before the answer
    await card.getByTestId('handoff-discuss').click();
    const thread = card.getByTestId('thread');
    await expect(thread.getByTestId('thread-empty')).toBeVisible();
    expect((await a.call('comment_add', { object_type: 'work_request', object_id: asked.handoff_id, body: 'Both regions have capacity' })).ok).toBe(true);
    await expect(thread.getByTestId('comment')).toContainText('Both regions have capacity');
    await thread.getByTestId('comment-input').fill('Then latency decides');
    await thread.getByTestId('comment-send').click();
    await expect(thread.getByTestId('comment')).toHaveCount(2);
    const talk = await a.call('comment_query', { object_type: 'handoff', object_id: asked.handoff_id });
    expect(talk.comments.map((c: { body: string }) => c.body)).toEqual(['Both regions have capacity', 'Then latency decides']);

    await card.getByTestId('handoff-text').fill('eu-west-1, next to the payments database');
    await card.getByTestId('handoff-send').click();
    await expect(card).toHaveAttribute('data-status', 'responded');
    await expect(card.getByTestId('handoff-response')).toContainText('eu-west-1');
    await expect(page.getByTestId('nav-inbox-count')).toHaveCount(0);

    const answers = await a.call('handoff_query', { direction: 'from_me', status: ['responded'] });
    const mine = answers.handoffs.find((h: { id: string }) => h.id === asked.handoff_id);
    expect(mine.response).toEqual({ text: 'eu-west-1, next to the payments database' });
    expect(mine.responded_by).toMatchObject({ id: me, kind: 'human' });

    // the agent resolves it: it moves out of "Not resolved" in the person's inbox, live
    expect((await a.call('handoff_resolve', { handoff_id: asked.handoff_id, note: 'deployed to eu-west-1' })).ok).toBe(true);
    await expect(card).toHaveCount(0);
    await page.getByTestId('inbox-status').selectOption('resolved');
    await expect(item(page, asked.handoff_id)).toContainText('deployed to eu-west-1');
    await a.close();
  });

  test('approvals offer approve and reject; a sibling claim moves the item out of the others’ open list', async ({ page }) => {
    const name = `Rhea ${uniqueKey('R')}`;
    await signIn(page, name);
    await page.goto(`${server().url}/inbox`);
    const a = await agent(server().agent.key);
    const me = await actorId(a, name);
    const approval = await a.call('handoff_create', { to_actor_ids: [me], kind: 'approval', title: 'Ship the refunds service to production?' });
    const card = item(page, approval.handoff_id);
    await expect(card.getByTestId('handoff-option-approve')).toBeVisible();
    await expect(card.getByTestId('handoff-option-reject')).toBeVisible();
    await card.getByTestId('handoff-option-reject').click();
    await expect(card.getByTestId('handoff-response')).toContainText('Reject');
    const read = await a.call('handoff_query', { direction: 'from_me', type: ['approval'] });
    expect(read.handoffs.find((h: { id: string }) => h.id === approval.handoff_id).response).toEqual({ chosen_option: 'reject' });

    // shared with another agent, who claims it first: it leaves this person's open list
    const other = await agent(server().agent.key);
    const shared = await a.call('handoff_create', { to_actor_ids: [me, server().agent.actorId], title: 'Rotate the staging keys' });
    await page.getByTestId('inbox-status').selectOption('open');
    await expect(item(page, shared.handoff_id)).toBeVisible();
    expect((await other.call('handoff_claim', { handoff_id: shared.handoff_id })).ok).toBe(true);
    await expect(item(page, shared.handoff_id)).toHaveCount(0);
    await a.close();
    await other.close();
  });

  test('the review flow end to end: the reviewer gets the handoff, done is refused, the reviewer approves, done passes', async ({ page }) => {
    const name = `Rita ${uniqueKey('RV')}`;
    await signIn(page, name);
    const a = await agent(server().agent.key);
    const me = await actorId(a, name);
    const key = uniqueKey('REV');
    expect((await a.call('project_create', { title: 'Reviewed work', key })).ok).toBe(true);
    const t = await a.call('task_create', { project_id: key, title: 'Round refunds half-even', reviewer_actor_id: me });
    expect(t.ok).toBe(true);
    expect((await a.call('task_claim', { task_id: t.task_id })).ok).toBe(true);

    await page.goto(`${server().url}/inbox`);
    const review = page.locator('[data-testid="handoff-item"][data-kind="review"]', { hasText: `Review ${t.ref}` });
    await expect(review).toBeVisible();
    await expect(review.getByTestId('handoff-option-approve')).toBeVisible();

    const refused = await a.call('task_update', { task_id: t.task_id, patch: { status: 'done' } });
    expect(refused.ok).toBe(false);
    expect(refused.error!.code).toBe('GATE_UNMET');
    expect(refused.error!.message).toContain(name);
    expect(refused.error!.hint).toContain('handoff_respond');

    // the drawer says who the task waits for
    await page.goto(`${server().url}/projects/${key}?task=${t.ref}`);
    await expect(page.getByTestId('drawer-review')).toHaveText(`Waiting for ${name}`);
    await expect(page.getByTestId('drawer-handoff')).toHaveCount(1);

    await page.goto(`${server().url}/inbox`);
    await review.getByTestId('handoff-option-approve').click();
    await expect(review.getByTestId('handoff-response')).toContainText('Approve');

    const done = await a.call('task_update', { task_id: t.task_id, patch: { status: 'done' } });
    expect(done.ok).toBe(true);
    expect(done.gate.summary).toBe(`approved by ${name}`);
    await page.goto(`${server().url}/projects/${key}?task=${t.ref}`);
    await expect(page.getByTestId('drawer-review')).toHaveText(`Approved by ${name}`);
    await a.close();
  });

  test('request changes from the console sends the task back with the text as a comment', async ({ page }) => {
    const name = `Rory ${uniqueKey('RC')}`;
    await signIn(page, name);
    const a = await agent(server().agent.key);
    const me = await actorId(a, name);
    const key = uniqueKey('CHG');
    await a.call('project_create', { title: 'Changes', key });
    const t = await a.call('task_create', { project_id: key, title: 'Write the migration', reviewer_actor_id: me });
    await a.call('task_claim', { task_id: t.task_id });
    expect((await a.call('task_update', { task_id: t.task_id, patch: { status: 'in_review' } })).ok).toBe(true);

    await page.goto(`${server().url}/projects/${key}?task=${t.ref}`);
    await expect(page.getByTestId('drawer-review')).toHaveText(`Waiting for ${name}`);
    await page.goto(`${server().url}/inbox`);
    const review = page.locator('[data-testid="handoff-item"][data-kind="review"]', { hasText: `Review ${t.ref}` });
    await expect(review.getByTestId('handoff-option-request_changes')).toBeDisabled();
    await review.getByTestId('handoff-text').fill('Add a down migration.');
    await review.getByTestId('handoff-option-request_changes').click();
    await expect(review.getByTestId('handoff-response')).toContainText('Request changes');

    const got = await a.call('task_get', { task_id: t.task_id });
    expect(got.task.status).toBe('in_progress');
    expect(got.review.state).toBe('changes_requested');
    expect(got.comments.at(-1).body).toBe('Changes requested: Add a down migration.');
    await page.goto(`${server().url}/projects/${key}?task=${t.ref}`);
    await expect(page.getByTestId('drawer-review')).toHaveText(`Changes requested by ${name}`);
    await a.close();
  });

  test('the bell count rises and falls, live', async ({ page }) => {
    const name = `Bell ${uniqueKey('B')}`;
    await signIn(page, name);
    const count = page.getByTestId('bell-count');
    await expect(count).toHaveAttribute('data-count', '0');
    await expect(count).toBeHidden();

    const a = await agent(server().agent.key);
    const me = await actorId(a, name);
    const key = uniqueKey('BEL');
    await a.call('project_create', { title: 'Bell', key });
    const t = await a.call('task_create', { project_id: key, title: 'Ring it' });
    expect((await a.call('comment_add', { object_type: 'task', object_id: t.task_id, body: `@${name} can you look?` })).ok).toBe(true);
    await expect(count).toHaveAttribute('data-count', '1');
    await expect(count).toHaveText('1');
    expect((await a.call('task_assign', { task_id: t.task_id, actor_id: me })).ok).toBe(true);
    await expect(count).toHaveAttribute('data-count', '2');
    expect((await a.call('handoff_create', { to_actor_ids: [me], title: 'One more thing' })).ok).toBe(true);
    await expect(count).toHaveAttribute('data-count', '3');

    await page.getByTestId('bell').click();
    const items = page.getByTestId('bell-item');
    await expect(items).toHaveCount(3);
    await expect(items.first()).toContainText('One more thing');
    // opening one reads it
    await items.nth(2).click();
    await expect(count).toHaveAttribute('data-count', '2');
    await expect(page).toHaveURL(new RegExp(`/projects/${key}\\?task=${t.ref}`));
    await page.getByTestId('bell').click();
    await page.getByTestId('bell-mark-all').click();
    await expect(count).toHaveAttribute('data-count', '0');
    await expect(count).toBeHidden();
    // and it rises again with the next one
    expect((await a.call('comment_add', { object_type: 'task', object_id: t.task_id, body: `thanks @${name}` })).ok).toBe(true);
    await expect(count).toHaveAttribute('data-count', '1');
    await a.close();
  });
});
