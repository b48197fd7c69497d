import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpired } from '../../lib/memory/backfill';
import { fails, freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

let db: TestDb;
let T: Tenant;

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'comments');
  ok(await T.agent.call('project_create', { title: 'Threads', key: 'TH' }));
  ok(await T.agent.call('task_create', { project_id: 'TH', title: 'Discuss me' }));
});
afterAll(() => db.drop());

describe('comment_add', () => {
  it('adds to a task thread by KEY-N, resolves "me" in mentions, and task_get shows it', async () => {
    const env = ok(await T.agent.call('comment_add', { object_type: 'task', object_id: 'TH-1', body: 'Found the cause', mentions: ['me', T.human.id] }));
    expect(env.comment).toMatchObject({ body: 'Found the cause', author_actor_id: T.agent.id, author_kind: 'agent', mentions: [T.agent.id, T.human.id] });
    const task = ok(await T.human.call('task_get', { task_id: 'TH-1' }));
    expect(task.comments.map((c: { body: string }) => c.body)).toContain('Found the cause');
  });

  it('accepts camelCase and replays an identical retry in the same run', async () => {
    const one = ok(await T.agent.call('comment_add', { objectType: 'project', objectId: 'TH', body: 'kickoff' }));
    const two = ok(await T.agent.call('comment_add', { object_type: 'project', object_id: 'TH', body: 'kickoff' }));
    expect(two).toMatchObject({ comment_id: one.comment_id, idempotent_replay: true });
  });

  it('refuses empty bodies, unknown object types and unknown keys, naming the field', async () => {
    expect(fails(await T.agent.call('comment_add', { object_type: 'task', object_id: 'TH-1', body: '   ' }), 'VALIDATION_ERROR').message).toContain('body');
    expect(fails(await T.agent.call('comment_add', { object_type: 'repository', object_id: 'TH-1', body: 'x' }), 'VALIDATION_ERROR').message).toContain('object_type');
    // a decision, note or handoff is named by its uuid; a task reference names none of them
    expect(fails(await T.agent.call('comment_add', { object_type: 'decision', object_id: 'TH-1', body: 'x' }), 'VALIDATION_ERROR').message).toContain('object_id');
    expect(fails(await T.agent.call('comment_add', { object_type: 'task', object_id: 'TH-1', body: 'x', colour: 1 }), 'VALIDATION_ERROR').message).toContain('colour');
  });

  it('answers NOT_FOUND for an unknown task, project, parent or mentioned actor', async () => {
    fails(await T.agent.call('comment_add', { object_type: 'task', object_id: 'TH-99', body: 'x' }), 'NOT_FOUND');
    fails(await T.agent.call('comment_add', { object_type: 'project', object_id: 'NOPE', body: 'x' }), 'NOT_FOUND');
    fails(await T.agent.call('comment_add', { object_type: 'task', object_id: 'TH-1', body: 'x', parent_comment_id: '00000000-0000-4000-8000-000000000000' }), 'NOT_FOUND');
    fails(await T.agent.call('comment_add', { object_type: 'task', object_id: 'TH-1', body: 'x', mentions: ['00000000-0000-4000-8000-000000000000'] }), 'NOT_FOUND');
  });
});

describe('comment_query', () => {
  it('reads a thread oldest first, with replies and authors, and pages with a cursor', async () => {
    const root = ok(await T.human.call('comment_add', { object_type: 'task', object_id: 'TH-1', body: 'root question' }));
    ok(await T.agent.call('comment_add', { object_type: 'task', object_id: 'TH-1', body: 'answer', parent_comment_id: root.comment_id }));
    for (let i = 0; i < 5; i++) ok(await T.agent.call('comment_add', { object_type: 'task', object_id: 'TH-1', body: `note ${i}` }));
    const all = ok(await T.agent.call('comment_query', { object_type: 'task', object_id: 'TH-1' }));
    const bodies = all.comments.map((c: { body: string }) => c.body);
    expect(bodies.slice(0, 3)).toEqual(['Found the cause', 'root question', 'answer']);
    expect(all.comments[2]).toMatchObject({ parent_comment_id: root.comment_id, author_kind: 'agent' });
    expect(all.comments[1]).toMatchObject({ author_kind: 'human', author_actor_id: T.human.id });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await T.agent.call('comment_query', { object_type: 'task', object_id: 'TH-1', limit: 3, ...(cursor ? { cursor } : {}) }));
      seen.push(...page.comments.map((c: { body: string }) => c.body));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(bodies);
  });

  it('refuses a bad cursor and answers NOT_FOUND for an unknown object', async () => {
    expect(fails(await T.agent.call('comment_query', { object_type: 'task', object_id: 'TH-1', cursor: '////' }), 'VALIDATION_ERROR').message).toContain('cursor');
    fails(await T.agent.call('comment_query', { object_type: 'task', object_id: 'TH-404' }), 'NOT_FOUND');
    fails(await T.agent.call('comment_query', { object_type: 'project', object_id: 'NOPE' }), 'NOT_FOUND');
  });
});

describe('threads on decisions, notes and handoffs', () => {
  it('a decision, a note and a handoff (also as work_request) each carry their own thread, with replies and mentions', async () => {
    const decision = ok(await T.agent.call('decision_log', { title: 'Store money as integer cents', choice: 'cents', project_id: 'TH' })).decision_id;
    const note = ok(await T.agent.call('knowledge_write', { title: 'Rounding rules', body: 'Banker’s rounding at the edge.', project_id: 'TH' })).note_id;
    const handoff = ok(await T.agent.call('handoff_create', { to_actor_ids: [T.human.id], title: 'Check the rounding', related_task_id: 'TH-1' })).handoff_id;
    const onDecision = ok(await T.human.call('comment_add', { object_type: 'decision', object_id: decision, body: 'What about currencies without cents?' }));
    expect(onDecision.comment).toMatchObject({ object_type: 'decision', object_id: decision, author: 'Human comments', author_actor_id: T.human.id });
    ok(await T.agent.call('comment_add', { object_type: 'decision', object_id: decision, body: 'Minor units per currency.', parent_comment_id: onDecision.comment_id }));
    ok(await T.agent.call('comment_add', { object_type: 'note', object_id: note, body: 'Source: the finance team.' }));
    const onHandoff = ok(await T.human.call('comment_add', { object_type: 'work_request', object_id: handoff, body: '@Agent comments which file?' }));
    expect(onHandoff.comment).toMatchObject({ object_type: 'handoff', object_id: handoff });

    const d = ok(await T.agent.call('comment_query', { object_type: 'decision', object_id: decision }));
    expect(d).toMatchObject({ object_type: 'decision', object_id: decision });
    expect(d.comments.map((c: { body: string; parent_comment_id: string | null }) => [c.body, c.parent_comment_id])).toEqual([
      ['What about currencies without cents?', null],
      ['Minor units per currency.', onDecision.comment_id],
    ]);
    expect(ok(await T.agent.call('comment_query', { object_type: 'note', object_id: note })).comments.map((c: { body: string }) => c.body)).toEqual(['Source: the finance team.']);
    const h = ok(await T.agent.call('comment_query', { object_type: 'handoff', object_id: handoff }));
    expect(h).toMatchObject({ object_type: 'handoff', object_id: handoff });
    expect(h.comments).toHaveLength(1);
    // the same thread by either name; threads never mix
    expect(ok(await T.agent.call('comment_query', { object_type: 'work_request', object_id: handoff })).comments).toEqual(h.comments);
    expect(fails(await T.agent.call('comment_add', { object_type: 'note', object_id: note, body: 'x', parent_comment_id: onDecision.comment_id }), 'VALIDATION_ERROR').message).toContain('parent_comment_id');
    // the @mention on the handoff's thread reached the agent, named by the handoff
    const mention = ok(await T.agent.call('notification_query', {})).notifications.find((n: { kind: string }) => n.kind === 'comment.mentioned');
    expect(mention.title).toContain('handoff "Check the rounding"');
    // the activity log names the object
    const act = ok(await T.agent.call('activity_query', { verb: 'comment.added', object_id: decision })).activity;
    expect(act[0].summary).toContain('decision "Store money as integer cents"');
  });

  it('names the missing object: an unknown uuid is NOT_FOUND for each kind', async () => {
    const nil = '00000000-0000-4000-8000-000000000000';
    for (const object_type of ['decision', 'note', 'handoff', 'work_request']) {
      expect(fails(await T.agent.call('comment_add', { object_type, object_id: nil, body: 'x' }), 'NOT_FOUND').message).toContain('object_id');
      expect(fails(await T.agent.call('comment_query', { object_type, object_id: nil }), 'NOT_FOUND').message).toContain('object_id');
    }
  });

  it('an expired note takes no more comments, and its thread goes when the note is purged', async () => {
    const note = ok(await T.agent.call('knowledge_write', { title: 'Short-lived', body: 'Gone soon.', expires_at: new Date(Date.now() + 60_000).toISOString() })).note_id;
    ok(await T.agent.call('comment_add', { object_type: 'note', object_id: note, body: 'noted' }));
    await db.query(`update public.knowledge_notes set expires_at = now() - interval '1 second' where id = $1`, [note]);
    expect(fails(await T.agent.call('comment_add', { object_type: 'note', object_id: note, body: 'late' }), 'NOT_FOUND').message).toContain('expired');
    expect(await purgeExpired(db)).toBe(1);
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int n from public.comments where object_id = $1`, [note]);
    expect(n).toBe(0);
  });
});
