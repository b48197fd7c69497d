import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * Debates: a proposed decision with participants. Each participant gets a collab handoff with the
 * options as answers; debate_reply argues in the decision's thread and answers it; the tally shows
 * on the decision; decision_set_status closes the debate on a winning option and closes the
 * handoffs still open. Only a participant replies; another workspace's ids read NOT_FOUND.
 */

let db: TestDb;
let T: Tenant;
let ada: Actor;
let bob: Actor;
let eve: Actor;
const options = [
  { label: 'Postgres queue', pros: 'one database' },
  { label: 'Redis streams', cons: 'another service' },
];

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'debates');
  ada = await T.addAgent('Ada');
  bob = await T.addAgent('Bob');
  eve = await T.addAgent('Eve');
  ok(await T.human.call('project_create', { title: 'Jobs', key: 'JOB' }));
});
afterAll(() => db.drop());

async function openDebate(title: string, participants = [ada.id, bob.id, 'me']) {
  // the human opens it and takes part ("me")
  return ok(
    await T.human.call('decision_log', { title, choice: 'Pick the job queue', project_id: 'JOB', options, participants }),
  );
}

describe('a debate', () => {
  it('starts proposed, with one collab handoff per participant offering the options', async () => {
    const env = await openDebate('Job queue');
    expect(env.decision.status).toBe('proposed');
    expect(env.decision.debate).toMatchObject({
      open: true,
      winning_option: null,
      tally: [
        { option: 'Postgres queue', count: 0, supporters: [] },
        { option: 'Redis streams', count: 0, supporters: [] },
      ],
      arguments: [],
    });
    expect(env.decision.debate.waiting_on.map((w: { display_name: string }) => w.display_name).sort()).toEqual(['Ada', 'Bob', 'Human debates']);
    const inbox = ok(await ada.call('handoff_query', { direction: 'to_me' }));
    expect(env.decision.debate.participants.map((p: { actor_id: string }) => p.actor_id)).toContain(T.human.id);
    const h = inbox.handoffs.find((x: { title: string }) => x.title === 'Debate: Job queue');
    expect(h).toMatchObject({ kind: 'collab', options: ['Postgres queue', 'Redis streams'], status: 'open', related_project_id: expect.any(String) });
    expect(env.decision.debate.participants.find((p: { actor_id: string }) => p.actor_id === ada.id).handoff_id).toBe(h.id);
  });

  it('refuses a debate without two options, or logged as already settled', async () => {
    const one = fails(await T.agent.call('decision_log', { title: 'x', choice: 'x', options: [options[0]], participants: [ada.id] }), 'VALIDATION_ERROR');
    expect(one.message).toMatch(/^options: a debate needs at least two options/);
    const settled = fails(await T.agent.call('decision_log', { title: 'x', choice: 'x', options, participants: [ada.id], status: 'accepted' }), 'VALIDATION_ERROR');
    expect(settled.message).toMatch(/^status: a debate .* starts proposed/);
  });

  it('debate_reply argues in the thread, answers the handoff, and a second reply replaces the position', async () => {
    const d = await openDebate('Queue two');
    const r1 = ok(await ada.call('debate_reply', { decision_id: d.decision_id, position: 'Redis streams', argument: 'Fast and proven.' }));
    expect(r1).toMatchObject({ position: 'Redis streams', argument: { author: 'Ada', position: 'Redis streams', body: 'Fast and proven.' } });
    const h = ok(await T.human.call('handoff_query', { direction: 'from_me' })).handoffs.find((x: { id: string }) => x.id === r1.handoff_id);
    expect(h).toMatchObject({ status: 'responded', response: { chosen_option: 'Redis streams', text: 'Fast and proven.' } });
    const r2 = ok(await ada.call('debate_reply', { decision_id: d.decision_id, position: 'Postgres queue', argument: 'On reflection: one database to run.' }));
    ok(await bob.call('debate_reply', { decision_id: d.decision_id, position: 'Postgres queue', argument: 'Agreed, fewer moving parts.' }));
    expect(r2.decision.debate.tally).toEqual([
      { option: 'Postgres queue', count: 1, supporters: ['Ada'] },
      { option: 'Redis streams', count: 0, supporters: [] },
    ]);
    const got = ok(await T.human.call('decision_query', { q: 'Queue two' })).decisions[0];
    expect(got.debate.tally[0]).toEqual({ option: 'Postgres queue', count: 2, supporters: ['Ada', 'Bob'] });
    expect(got.debate.waiting_on.map((w: { display_name: string }) => w.display_name)).toEqual(['Human debates']);
    // the earlier argument stays in the thread, in order, each with its position
    expect(got.debate.arguments.map((a: { author: string; position: string }) => `${a.author}:${a.position}`)).toEqual([
      'Ada:Redis streams',
      'Ada:Postgres queue',
      'Bob:Postgres queue',
    ]);
    const thread = ok(await T.human.call('comment_query', { object_type: 'decision', object_id: d.decision_id }));
    expect(thread.comments.map((c: { kind?: string; position?: string }) => [c.kind, c.position])).toEqual([
      ['argument', 'Redis streams'],
      ['argument', 'Postgres queue'],
      ['argument', 'Postgres queue'],
    ]);
  });

  it('only a participant replies, with one of the options, while the debate is open', async () => {
    const d = await openDebate('Queue three', [ada.id]);
    const other = fails(await eve.call('debate_reply', { decision_id: d.decision_id, position: 'Redis streams', argument: 'me too' }), 'FORBIDDEN');
    expect(other.message).toMatch(/only a participant replies to a debate: .* has participants Ada/);
    const bad = fails(await ada.call('debate_reply', { decision_id: d.decision_id, position: 'Kafka', argument: 'scale' }), 'VALIDATION_ERROR');
    expect(bad.message).toBe('position: "Kafka" is not one of Postgres queue, Redis streams');
    const plain = ok(await T.agent.call('decision_log', { title: 'Plain', choice: 'x' }));
    expect(fails(await ada.call('debate_reply', { decision_id: plain.decision_id, argument: 'hm' }), 'FORBIDDEN').message).toMatch(/is not a debate/);
    expect(plain.decision.debate).toBeNull();
  });

  it('closing names the winning option, needs a rationale, and closes the open handoffs', async () => {
    const d = await openDebate('Queue four');
    ok(await ada.call('debate_reply', { decision_id: d.decision_id, position: 'Postgres queue', argument: 'One database.' }));
    ok(await bob.call('debate_reply', { decision_id: d.decision_id, position: 'Redis streams', argument: 'Throughput.' }));
    const tie = fails(await T.human.call('decision_set_status', { decision_id: d.decision_id, status: 'accepted', note: 'settled' }), 'VALIDATION_ERROR');
    expect(tie.message).toBe('winning_option: the tally is tied between Postgres queue, Redis streams; name the winning option');
    ok(await T.human.call('debate_reply', { decision_id: d.decision_id, position: 'Postgres queue', argument: 'We run Postgres already.' }));
    const noWhy = fails(await T.human.call('decision_set_status', { decision_id: d.decision_id, status: 'accepted' }), 'VALIDATION_ERROR');
    expect(noWhy.message).toBe('note: closing a debate needs a rationale');
    const closed = ok(await T.human.call('decision_set_status', { decision_id: d.decision_id, status: 'accepted', note: 'Two to one; fewer services.' }));
    expect(closed).toMatchObject({ changed: true, closed_handoffs: 3, decision: { status: 'accepted', winning_option: 'Postgres queue' } });
    expect(closed.decision.debate).toMatchObject({ open: false, winning_option: 'Postgres queue' });
    const hs = ok(await T.human.call('handoff_query', { direction: 'from_me', status: ['resolved'] })).handoffs.filter((h: { title: string }) => h.title === 'Debate: Queue four');
    expect(hs.map((h: { resolution: string }) => h.resolution).sort()).toEqual(['processed', 'processed', 'processed']);
    const late = fails(await bob.call('debate_reply', { decision_id: d.decision_id, position: 'Redis streams', argument: 'still' }), 'INVALID_TRANSITION');
    expect(late.message).toMatch(/the debate is closed: decision .* is accepted on Postgres queue/);
  });

  it('a participant who never answered is not left waiting: its handoff is cancelled', async () => {
    const d = await openDebate('Queue five', [ada.id, bob.id]);
    ok(await ada.call('debate_reply', { decision_id: d.decision_id, position: 'Redis streams', argument: 'Streams.' }));
    const closed = ok(await T.human.call('decision_set_status', { decision_id: d.decision_id, status: 'rejected', note: 'Not now.' }));
    expect(closed).toMatchObject({ closed_handoffs: 2, decision: { status: 'rejected', winning_option: null } });
    const bobs = ok(await bob.call('handoff_query', { direction: 'to_me' })).handoffs.find((h: { title: string }) => h.title === 'Debate: Queue five');
    expect(bobs).toMatchObject({ status: 'resolved', resolution: 'cancelled' });
    const inbox = ok(await bob.call('inbox', {}));
    expect(inbox.items.filter((i: { handoff?: { id: string } }) => i.handoff?.id === bobs.id)).toEqual([]);
  });

  it('accepting names an explicit winning_option that must be one of the options', async () => {
    const d = await openDebate('Queue six', [ada.id]);
    expect(fails(await T.human.call('decision_set_status', { decision_id: d.decision_id, status: 'accepted', note: 'x', winning_option: 'Kafka' }), 'VALIDATION_ERROR').message)
      .toMatch(/^winning_option: "Kafka" is not one of Postgres queue, Redis streams/);
    const ok1 = ok(await T.human.call('decision_set_status', { decision_id: d.decision_id, status: 'accepted', note: 'Owner call.', winning_option: 'Redis streams' }));
    expect(ok1.decision.winning_option).toBe('Redis streams');
  });

  it('replays a retried reply instead of arguing twice', async () => {
    const d = await openDebate('Queue seven', [ada.id]);
    const input = { decision_id: d.decision_id, position: 'Redis streams', argument: 'Once.', idempotency_key: 'reply-once' };
    const one = ok(await ada.call('debate_reply', input));
    const two = ok(await ada.call('debate_reply', input));
    expect(two).toMatchObject({ idempotent_replay: true, argument: { id: one.argument.id } });
    expect(fails(await ada.call('debate_reply', { ...input, argument: 'Twice.' }), 'IDEMPOTENCY_CONFLICT')).toBeTruthy();
  });
});
