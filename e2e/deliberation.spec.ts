import { expect, test } from '@playwright/test';
import { agent, agentKey, server, signIn } from './helpers';

/**
 * Deliberation in a real browser, in a workspace of its own: two agents and a person debate where
 * background jobs live, the council (three models of the local stand-in started by global-setup)
 * weighs in and records its answer, and the person closes the debate on the winning option.
 */

const WS = 'deliberation-e2e';

test('two agents and a person debate, the council weighs in, and the decision is accepted', async ({ page }) => {
  const ada = await agentKey('Ada', WS);
  const bob = await agentKey('Bob', WS);
  // the council is an opt-in room: Ada's connection names it beside the default rooms
  const a = await agent(ada.key, { toolsets: 'all' });
  const b = await agent(bob.key);
  await signIn(page, 'Hana Human', WS);
  const hana = (await a.call('actor_query', { q: 'Hana Human' })).actors[0];

  const debate = await a.call('decision_log', {
    title: 'Where background jobs live',
    choice: 'Pick the job queue',
    options: [{ label: 'Postgres queue', pros: 'one database' }, { label: 'Redis streams', cons: 'another service' }],
    participants: ['me', bob.actorId, hana.id],
  });
  expect(debate.ok, JSON.stringify(debate.error)).toBe(true);
  expect((await a.call('debate_reply', { decision_id: debate.decision_id, position: 'Postgres queue', argument: 'We run Postgres already.' })).ok).toBe(true);
  expect((await b.call('debate_reply', { decision_id: debate.decision_id, position: 'Redis streams', argument: 'Streams take more load.' })).ok).toBe(true);

  const ask = await a.call('council_ask', { question: 'Should background jobs live in Postgres?', context_ids: [debate.decision_id], record_decision: true });
  expect(ask).toMatchObject({ ok: true, status: 'running' });
  const done = await a.call('council_get', { council_id: ask.council_id, wait_seconds: 30 });
  expect(done.status).toBe('done');

  // the council page: the question, three answers side by side, the ranking, the final answer, cost
  await page.goto(`${server().url}/council?c=${ask.council_id}`);
  const council = page.getByTestId('council');
  await expect(council.getByTestId('council-question')).toHaveText('Should background jobs live in Postgres?');
  await expect(council.getByTestId('council-answer')).toHaveCount(3);
  await expect(council.getByTestId('council-rank-row')).toHaveCount(3);
  await expect(council.getByTestId('council-final')).toContainText('Final: the council agrees');
  await expect(council.getByTestId('council-total')).toContainText('$');
  await expect(council.getByTestId('council-decision')).toBeVisible();

  // the decision page shows the debate; the person argues and closes it
  await page.goto(`${server().url}/decisions?d=${debate.decision_id}`);
  const card = page.locator(`[data-decision-id="${debate.decision_id}"]`);
  const panel = card.getByTestId('debate');
  await expect(panel.getByTestId('debate-waiting')).toContainText('Hana Human');
  await expect(panel.getByTestId('debate-argument')).toHaveCount(2);
  await panel.getByLabel('Your position').selectOption('Postgres queue');
  await panel.getByLabel('Your argument').fill('The council agrees, and we page on one database.');
  await panel.getByRole('button', { name: 'Argue' }).click();
  await expect(panel.getByTestId('debate-argument')).toHaveCount(3);
  await expect(panel.getByTestId('debate-waiting')).toHaveCount(0);
  await expect(panel.locator('[data-option="Postgres queue"]').getByTestId('debate-count')).toHaveText('2');
  await panel.getByLabel('Rationale').fill('Two to one, and the council agrees.');
  await panel.locator('[data-option="Postgres queue"]').getByTestId('debate-accept').click();
  await expect(card.getByTestId('decision-status')).toHaveText('accepted');
  await expect(panel.getByTestId('debate-winner')).toHaveText('Won: Postgres queue');
  const inbox = await b.call('handoff_query', { direction: 'to_me' });
  expect(inbox.handoffs.find((h: { title: string }) => h.title === 'Debate: Where background jobs live')).toMatchObject({ status: 'resolved' });
  await a.close();
  await b.close();
});
