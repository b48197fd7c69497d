import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    expect(fails(await T.agent.call('comment_add', { object_type: 'decision', object_id: 'TH-1', body: 'x' }), 'VALIDATION_ERROR').message).toContain('object_type');
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
