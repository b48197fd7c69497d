import { expect, test, type Page, type Route } from '@playwright/test';
import { agent, boardReady, card, column, server, signIn, uniqueKey } from './helpers';

async function newProject(page: Page, title: string, key: string) {
  await page.goto(`${server().url}/projects`);
  await page.getByTestId('new-project').click();
  await page.getByLabel('Project title').fill(title);
  await page.getByLabel('Project key').fill(key);
  await page.getByTestId('create-project').click();
  await expect(page).toHaveURL(new RegExp(`/projects/${key}$`));
  await expect(page.getByTestId('project-title')).toHaveText(title);
}

test.describe('the board', () => {
  test('a task created in the UI is claimed by an agent over MCP and moves to In progress without a reload', async ({ page }) => {
    await signIn(page);
    const key = uniqueKey('LIVE');
    await newProject(page, 'Live board', key);
    await page.keyboard.press('c');
    await page.getByLabel('Title').fill('Wire the payment webhook');
    await page.getByLabel('Labels').fill('backend, payments');
    await page.getByLabel('Acceptance criteria').fill('signature verified\nretries are idempotent');
    await page.getByTestId('create-task').click();
    const ref = `${key}-1`;
    await expect(column(page, 'todo').locator(`[data-ref="${ref}"]`)).toBeVisible();
    await boardReady(page);
    await expect(card(page, ref)).toContainText('0/2');
    await expect(card(page, ref)).toContainText('payments');
    await page.getByRole('button', { name: 'Close drawer' }).click();

    // nothing below reloads the page: a marker on window survives only without navigation
    await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
    const a = await agent(server().agent.key);
    const claim = await a.call('task_claim', { task_id: ref, lease_seconds: 1800 });
    expect(claim).toMatchObject({ ok: true, claimed: true });
    await expect(column(page, 'in_progress').locator(`[data-ref="${ref}"]`)).toBeVisible();
    await expect(column(page, 'todo').locator(`[data-ref="${ref}"]`)).toHaveCount(0);
    await expect(card(page, ref).getByTestId('lease')).toContainText('e2e-agent');
    await expect(card(page, ref).locator('[data-actor-kind="agent"]')).toBeVisible();

    // the agent ticks a criterion and comments: the card and the open drawer follow
    await card(page, ref).click();
    await expect(page.getByTestId('drawer-ref')).toHaveText(ref);
    await a.call('task_update', { task_id: ref, patch: { acceptance_criteria: [{ text: 'signature verified', met: true }, { text: 'retries are idempotent', met: false }] } });
    await expect(card(page, ref).getByTestId('criteria')).toHaveText('1/2');
    await expect(page.getByTestId('criterion').first()).toBeChecked();
    await a.call('task_release', { task_id: ref, note: 'handing back: need the webhook secret' });
    await expect(page.getByTestId('comment')).toContainText('need the webhook secret');
    await expect(column(page, 'todo').locator(`[data-ref="${ref}"]`)).toBeVisible();
    expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    await a.close();
  });

  test('dragging to Done with an unmet criterion is refused with the message, and the card snaps back', async ({ page }) => {
    await signIn(page);
    const key = uniqueKey('GATE');
    const a = await agent(server().agent.key);
    await a.call('project_create', { title: 'Gated work', key });
    await a.call('task_create', { project_id: key, title: 'Ship the migration', acceptance_criteria: ['migration applies cleanly'] });
    await a.call('task_claim', { task_id: `${key}-1` });
    await page.goto(`${server().url}/projects/${key}`);
    await boardReady(page);
    const ref = `${key}-1`;
    await expect(column(page, 'in_progress').locator(`[data-ref="${ref}"]`)).toBeVisible();

    await card(page, ref).dragTo(column(page, 'done'));
    // a person reads a sentence written for them; the agent's hint (field names, tools) stays in the envelope
    const toast = page.getByTestId('toast').filter({ hasText: 'Not done yet' });
    await expect(toast).toBeVisible();
    await expect(toast).toContainText('“migration applies cleanly” is not checked off');
    await expect(toast).toContainText('Tick the criteria in the task’s checklist');
    await expect(toast).not.toContainText('patch.acceptance_criteria');
    await expect(toast).toContainText('GATE_UNMET');
    const refused = await a.call('task_update', { task_id: ref, patch: { status: 'done' } });
    expect(refused.error).toMatchObject({ code: 'GATE_UNMET', hint: expect.stringContaining('patch.acceptance_criteria') });
    await expect(column(page, 'in_progress').locator(`[data-ref="${ref}"]`)).toBeVisible();
    await expect(column(page, 'done').locator(`[data-ref="${ref}"]`)).toHaveCount(0);
    expect((await a.call('task_get', { task_id: ref })).task.status).toBe('in_progress');

    // an illegal transition is refused the same way: in_progress → backlog is not a move
    await card(page, ref).dragTo(column(page, 'backlog'));
    await expect(page.getByTestId('toast').filter({ hasText: 'A task can’t go from In progress straight to Backlog' })).toBeVisible();
    await expect(column(page, 'in_progress').locator(`[data-ref="${ref}"]`)).toBeVisible();

    // meet the criterion in the drawer, then the same drag lands
    await card(page, ref).click();
    // the checkbox follows the saved task, so click it and wait for the round trip rather than
    // expecting its state to flip within the click
    await page.getByTestId('criterion').click();
    await expect(page.getByTestId('criterion')).toBeChecked({ timeout: 15_000 });
    await expect(card(page, ref).getByTestId('criteria')).toHaveText('1/1');
    await page.getByRole('button', { name: 'Close drawer' }).click();
    await card(page, ref).dragTo(column(page, 'done'));
    await expect(column(page, 'done').locator(`[data-ref="${ref}"]`)).toBeVisible();
    await expect.poll(async () => (await a.call('task_get', { task_id: ref })).task.status).toBe('done');
    await a.close();
  });

  test('cards move from the keyboard, and filters narrow the board', async ({ page }) => {
    await signIn(page);
    const key = uniqueKey('KEYS');
    const a = await agent(server().agent.key);
    await a.call('project_create', { title: 'Keyboard', key });
    await a.call('task_create_many', {
      project_id: key,
      tasks: [
        { title: 'Alpha', labels: ['ui'], priority: 1 },
        { title: 'Beta', labels: ['api'], priority: 2 },
        { title: 'Gamma', labels: ['api'], priority: 3, depends_on: [{ batch_index: 1 }] },
      ],
    });
    await page.goto(`${server().url}/projects/${key}`);
    await boardReady(page);
    await expect(card(page, `${key}-3`)).toBeVisible();
    await expect(card(page, `${key}-3`).getByTestId('blocked-by')).toHaveText('1');

    await card(page, `${key}-1`).focus();
    await page.keyboard.press(']');
    await expect(column(page, 'in_progress').locator(`[data-ref="${key}-1"]`)).toBeVisible();
    await expect(card(page, `${key}-1`)).toBeFocused();
    await page.keyboard.press('[');
    await expect(column(page, 'todo').locator(`[data-ref="${key}-1"]`)).toBeVisible();
    await expect(card(page, `${key}-1`)).toBeFocused();
    await page.keyboard.press('Shift+ArrowRight');
    await expect(column(page, 'in_progress').locator(`[data-ref="${key}-1"]`)).toBeVisible();
    await expect.poll(async () => (await a.call('task_get', { task_id: `${key}-1` })).task.status).toBe('in_progress');
    // three moves of one card in a burst reach the server in order: it ends where the last one put it
    await page.keyboard.press('[');
    await page.keyboard.press(']');
    await page.keyboard.press('[');
    await expect(column(page, 'todo').locator(`[data-ref="${key}-1"]`)).toBeVisible();
    // all three answered: six status changes in all, and the card never drawn anywhere but todo meanwhile
    const moves = async () => (await a.call('activity_query', { object_id: `${key}-1`, verb: 'task.status_changed' })).activity.length;
    await expect.poll(moves).toBe(6);
    expect((await a.call('task_get', { task_id: `${key}-1` })).task.status).toBe('todo');
    await expect(column(page, 'todo').locator(`[data-ref="${key}-1"]`)).toBeVisible();
    await expect(card(page, `${key}-1`)).toBeFocused();
    // a key pressed while a chain is still on its way moves the card from where the chain leaves it,
    // not from an answer in between: with each console call held 300 ms, ] [ ] answers in_progress,
    // todo, in_progress, and the [ pressed after 700 ms (the second answer back) must go to todo
    const slow = async (route: Route) => {
      if (route.request().method() === 'POST' && route.request().headers()['next-action']) await new Promise((r) => setTimeout(r, 300));
      await route.continue();
    };
    await page.route('**/*', slow);
    await page.keyboard.press(']');
    await page.keyboard.press('[');
    await page.keyboard.press(']');
    await page.waitForTimeout(700);
    await page.keyboard.press('[');
    await expect.poll(moves, { timeout: 20_000 }).toBe(10);
    expect((await a.call('task_get', { task_id: `${key}-1` })).task.status).toBe('todo');
    await expect(column(page, 'todo').locator(`[data-ref="${key}-1"]`)).toBeVisible();
    await page.unroute('**/*', slow);
    await page.keyboard.press(']');
    await expect.poll(async () => (await a.call('task_get', { task_id: `${key}-1` })).task.status).toBe('in_progress');
    await expect(page.getByText(/conflict/i)).toHaveCount(0);
    await expect(column(page, 'in_progress').locator(`[data-ref="${key}-1"]`)).toBeVisible();
    await expect(card(page, `${key}-1`)).toBeFocused();
    // arrows move focus between cards; Enter opens the drawer
    await page.keyboard.press('ArrowLeft');
    await expect(card(page, `${key}-2`)).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('drawer-ref')).toHaveText(`${key}-2`);
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('task-drawer')).toHaveCount(0);

    await page.getByTestId('filter-label').selectOption('api');
    await expect(page.getByTestId('task-card')).toHaveCount(2);
    await page.getByTestId('filter-ready').click();
    await expect(page.getByTestId('task-card')).toHaveCount(1);
    await expect(card(page, `${key}-2`)).toBeVisible();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByTestId('filter-text').fill('gamm');
    await expect(page.getByTestId('task-card')).toHaveCount(1);
    await page.getByTestId('filter-text').fill('');
    await page.getByTestId('filter-assignee').selectOption('unassigned');
    await expect(page.getByTestId('task-card')).toHaveCount(3);
    await a.call('task_claim', { task_id: `${key}-2` });
    await expect(page.getByTestId('task-card')).toHaveCount(2);
    await page.getByTestId('filter-assignee').selectOption(server().agent.actorId);
    await expect(page.getByTestId('task-card')).toHaveCount(1);
    await a.close();
  });

  test('the drawer edits a task, comments on it, and wires a dependency from the new-task form', async ({ page }) => {
    await signIn(page);
    const key = uniqueKey('DRAW');
    const a = await agent(server().agent.key);
    await a.call('project_create', { title: 'Drawer', key });
    await a.call('task_create', { project_id: key, title: 'Foundation', body: '## Plan\n\n- **first** the schema\n- then `the API`' });
    await page.goto(`${server().url}/projects/${key}?task=${key}-1`);
    const drawer = page.getByTestId('task-drawer');
    await expect(drawer.getByRole('heading', { name: 'Plan' })).toBeVisible();
    // the body's Markdown: **first** is bold (the Related panel's empty state has bold words of its own)
    await expect(drawer.locator('strong').filter({ hasText: /^first$/ })).toHaveCount(1);
    await drawer.getByTestId('drawer-title').click();
    await drawer.getByLabel('Title').fill('Foundation work');
    await drawer.getByLabel('Title').press('Enter');
    await expect(card(page, `${key}-1`)).toContainText('Foundation work');
    await drawer.getByLabel('Priority').selectOption('0');
    await drawer.getByLabel('Add label').fill('infra');
    await drawer.getByLabel('Add label').press('Enter');
    await expect(card(page, `${key}-1`)).toContainText('infra');
    await drawer.getByTestId('comment-input').fill('Looks good — start with **tenants**');
    await drawer.getByTestId('comment-send').click();
    await expect(drawer.getByTestId('comment')).toContainText('Looks good');
    const seen = await a.call('task_get', { task_id: `${key}-1` });
    expect(seen.task).toMatchObject({ title: 'Foundation work', priority: 0, labels: ['infra'] });
    expect(seen.comments.map((c: { body: string; author_kind: string }) => [c.body, c.author_kind])).toEqual([['Looks good — start with **tenants**', 'human']]);
    await page.getByRole('button', { name: 'Close drawer' }).click();

    await page.getByTestId('new-task').click();
    await page.getByLabel('Title').fill('Build on it');
    await page.getByTestId('depends-on-input').fill('Foundation');
    await page.getByRole('option', { name: new RegExp(`${key}-1`) }).click();
    await page.getByTestId('create-task').click();
    await expect(card(page, `${key}-2`).getByTestId('blocked-by')).toHaveText('1');
    await expect(page.getByTestId('drawer-blockers')).toContainText(`${key}-1`);
    // the blocker finishing unblocks the dependent card live
    await a.call('task_claim', { task_id: `${key}-1` });
    await a.call('task_update', { task_id: `${key}-1`, patch: { status: 'done' } });
    await expect(card(page, `${key}-2`).getByTestId('blocked-by')).toHaveCount(0);
    await a.close();
  });
});
