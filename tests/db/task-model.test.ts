import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, target, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * The richer task model (issue 20): metadata, skipped, priorities by name and list filters, a
 * caller-chosen task_id, locks without start, projects that stop offering work, notes on moves and
 * comment kinds, and the manual order. Each rule is tried with another workspace's ids too.
 */

let db: TestDb;
beforeAll(async () => {
  db = await freshDb();
});
afterAll(() => db.drop());

let n = 0;
async function workspace(): Promise<Tenant & { other: Actor; key: string }> {
  const t = await seedTenant(db);
  const key = `TM${++n}`;
  ok(await t.human.call('project_create', { title: 'Model', key }));
  return Object.assign(t, { other: await t.addAgent('other'), key });
}

describe('meta', () => {
  it('is set on create and create_many, returned on every row, merged by task_update (null removes a key), replaced with merge_meta:false', async () => {
    const t = await workspace();
    const c = ok(await t.agent.call('task_create', { project_id: t.key, title: 'm', meta: { team: 'infra', size: 3 } }));
    expect(c.task.meta).toEqual({ team: 'infra', size: 3 });
    const many = ok(await t.agent.call('task_create_many', { project_id: t.key, tasks: [{ title: 'a', meta: { team: 'web' } }, { title: 'b' }] }));
    const rows = ok(await t.agent.call('task_query', { project_id: t.key })).tasks;
    expect(Object.fromEntries(rows.map((r: any) => [r.id, r.meta]))).toEqual({
      [c.task_id]: { team: 'infra', size: 3 }, [many.task_ids[0]]: { team: 'web' }, [many.task_ids[1]]: {},
    });
    const u = ok(await t.agent.call('task_update', { task_id: c.task_id, patch: { meta: { size: null, owner: 'ana' } } }));
    expect(u.task.meta).toEqual({ team: 'infra', owner: 'ana' });
    expect(u.changed).toEqual(['meta']);
    const r = ok(await t.agent.call('task_update', { task_id: c.task_id, patch: { meta: { only: true } }, merge_meta: false }));
    expect(r.task.meta).toEqual({ only: true });
    const cleared = ok(await t.agent.call('task_update', { task_id: c.task_id, patch: { meta: null } }));
    expect(cleared.task.meta).toEqual({});
  });

  it('refuses more than 16 KB serialised, naming the field, on create and after a merge', async () => {
    const t = await workspace();
    const big = { blob: 'x'.repeat(17_000) };
    const e = fails(await t.agent.call('task_create', { project_id: t.key, title: 'big', meta: big }), 'VALIDATION_ERROR');
    expect(e.message).toContain('meta');
    const half = { a: 'x'.repeat(9_000) };
    const c = ok(await t.agent.call('task_create', { project_id: t.key, title: 'half', meta: half }));
    const m = fails(await t.agent.call('task_update', { task_id: c.task_id, patch: { meta: { b: 'y'.repeat(9_000) } } }), 'VALIDATION_ERROR');
    expect(m.message).toMatch(/^patch\.meta: \d+ bytes serialised; metadata holds at most 16384/);
    expect(ok(await t.agent.call('task_get', { task_id: c.task_id })).task.meta).toEqual(half);
    // an array is not an object (the schema says so before the database does)
    expect(fails(await t.agent.call('task_create', { project_id: t.key, title: 'arr', meta: [1] }), 'VALIDATION_ERROR').message).toContain('meta');
  });

  it('task_query filters by containment', async () => {
    const t = await workspace();
    const ids = ok(await t.agent.call('task_create_many', { project_id: t.key, tasks: [
      { title: 'i1', meta: { team: 'infra', tier: 1 } }, { title: 'i2', meta: { team: 'infra', tier: 2 } }, { title: 'w', meta: { team: 'web' } }, { title: 'none' },
    ] })).task_ids;
    const infra = ok(await t.agent.call('task_query', { meta: { team: 'infra' } })).tasks.map((r: any) => r.id);
    expect(infra.sort()).toEqual([ids[0], ids[1]].sort());
    expect(ok(await t.agent.call('task_query', { meta: { team: 'infra', tier: 2 } })).tasks.map((r: any) => r.id)).toEqual([ids[1]]);
    expect(ok(await t.agent.call('task_query', { meta: { team: 'ops' } })).tasks).toEqual([]);
  });

  it('the containment filter reads tasks_meta_idx at 10k tasks, not a sequential scan', async () => {
    const t = await workspace();
    const [pr] = await db.query<{ id: string; task_seq: number }>('select id, task_seq from public.projects where tenant_id = $1', [t.id]);
    await db.query(
      `insert into public.tasks (tenant_id, project_id, seq, title, meta)
       select $1, $2, g, 'bulk ' || g, jsonb_build_object('team', 'team-' || (g % 500), 'n', g) from generate_series(1, 10000) g`,
      [t.id, pr.id],
    );
    await db.query(`update public.projects set task_seq = 10000 where id = $1`, [pr.id]);
    await db.query('analyze public.tasks');
    // the statement task_query runs for a meta filter, as its dynamic SQL writes it
    const plan = (await db.query<{ 'QUERY PLAN': string }>(
      `explain select array(select t.id from public.tasks t where t.tenant_id = $1 and t.meta @> $2::jsonb
         order by t.priority, t.created_at, t.id limit 51)`,
      [t.id, JSON.stringify({ team: 'team-7' })],
    )).map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('tasks_meta_idx');
    expect(plan).not.toMatch(/Seq Scan on tasks/);
    const hits = ok(await t.agent.call('task_query', { meta: { team: 'team-7' }, limit: 500 })).tasks;
    expect(hits).toHaveLength(20);
  });
});

describe('skipped', () => {
  it('is reached from backlog and todo, leaves to backlog or todo, is terminal, and refused from in_progress naming the moves', async () => {
    const t = await workspace();
    const a = ok(await t.agent.call('task_create', { project_id: t.key, title: 'a' })).task_id;
    const b = ok(await t.agent.call('task_create', { project_id: t.key, title: 'b', status: 'backlog' })).task_id;
    const s = ok(await t.agent.call('task_update', { task_id: a, patch: { status: 'skipped' } }));
    expect(s.task).toMatchObject({ status: 'skipped', ready: false });
    expect(s.task.completed_at).not.toBeNull();
    ok(await t.agent.call('task_update', { task_id: b, patch: { status: 'skipped' } }));
    expect(ok(await t.agent.call('task_update', { task_id: a, patch: { status: 'todo' } })).task.completed_at).toBeNull();
    ok(await t.agent.call('task_update', { task_id: b, patch: { status: 'backlog' } }));
    const c = ok(await t.agent.call('task_create', { project_id: t.key, title: 'c' })).task_id;
    ok(await t.agent.call('task_claim', { task_id: c }));
    const e = fails(await t.agent.call('task_update', { task_id: c, patch: { status: 'skipped' } }), 'INVALID_TRANSITION');
    expect(e.message).toBe('cannot move a task from in_progress to skipped');
    const sk = ok(await t.agent.call('task_create', { project_id: t.key, title: 'd' })).task_id;
    ok(await t.agent.call('task_update', { task_id: sk, patch: { status: 'skipped' } }));
    expect(fails(await t.agent.call('task_update', { task_id: sk, patch: { status: 'in_progress' } }), 'INVALID_TRANSITION').details.allowed).toEqual(['backlog', 'todo']);
    expect(fails(await t.agent.call('task_claim', { task_id: sk }), 'NOT_CLAIMABLE').message).toBe('task is skipped');
  });

  it('dependents treat a skipped dependency as resolved, as they treat done', async () => {
    const t = await workspace();
    const [dep, next] = ok(await t.agent.call('task_create_many', { project_id: t.key, tasks: [{ title: 'dep' }, { title: 'next', depends_on: [{ batch_index: 0 }], assignee_actor_id: t.other.id }] })).task_ids;
    expect(fails(await t.other.call('task_claim', { task_id: next }), 'NOT_CLAIMABLE').message).toContain('unfinished dependenc');
    ok(await t.human.call('task_update', { task_id: dep, patch: { status: 'skipped' } }));
    const g = ok(await t.agent.call('task_get', { task_id: next }));
    expect(g.task).toMatchObject({ open_blockers: 0, ready: true });
    expect(ok(await t.agent.call('task_query', { project_id: t.key, state: 'ready' })).tasks.map((r: any) => r.id)).toEqual([next]);
    // the assignee hears it was unblocked
    const [note] = await db.query<{ title: string }>(`select title from public.notifications where tenant_id = $1 and kind = 'task.unblocked'`, [t.id]);
    expect(note.title).toMatch(/is unblocked: its last blocker .* is skipped/);
    expect(ok(await t.other.call('task_claim', {}))).toMatchObject({ claimed: true, task: { id: next } });
  });
});

describe('priorities by name, list filters, max_priority', () => {
  it('accepts names on create and update; rows carry the number', async () => {
    const t = await workspace();
    const c = ok(await t.agent.call('task_create', { project_id: t.key, title: 'u', priority: 'urgent' }));
    expect(c.task.priority).toBe(0);
    expect(ok(await t.agent.call('task_update', { task_id: c.task_id, patch: { priority: 'low' } })).task.priority).toBe(3);
    const many = ok(await t.agent.call('task_create_many', { project_id: t.key, tasks: [{ title: 'h', priority: 'high' }, { title: 'n', priority: 'none' }] }));
    expect((await db.query<{ priority: number }>('select priority from public.tasks where id = any($1) order by seq', [many.task_ids])).map((r) => r.priority)).toEqual([1, 4]);
    const e = fails(await t.agent.call('task_create', { project_id: t.key, title: 'x', priority: 'asap' }), 'VALIDATION_ERROR');
    expect(e.message).toContain('priority');
  });

  it('task_query takes priority and status as lists, numbers or names', async () => {
    const t = await workspace();
    const ids = ok(await t.agent.call('task_create_many', { project_id: t.key, tasks: [
      { title: 'p0', priority: 0 }, { title: 'p1', priority: 1 }, { title: 'p2', priority: 2 }, { title: 'p3b', priority: 3, status: 'backlog' },
    ] })).task_ids;
    const q = async (input: Record<string, unknown>) => ok(await t.agent.call('task_query', { project_id: t.key, ...input })).tasks.map((r: any) => r.id);
    expect(await q({ priority: ['urgent', 'high'] })).toEqual([ids[0], ids[1]]);
    expect(await q({ priority: [0, 'low'] })).toEqual([ids[0], ids[3]]);
    expect(await q({ priority: [2, 3], status: ['backlog'] })).toEqual([ids[3]]);
    expect(await q({ status: ['todo', 'backlog'], priority: [3, 2] })).toEqual([ids[2], ids[3]]);
    expect(fails(await t.agent.call('task_query', { priority: ['soon'] }), 'VALIDATION_ERROR').message).toContain('priority');
  });

  it('claim-next with max_priority takes only work at least that urgent', async () => {
    const t = await workspace();
    const ids = ok(await t.agent.call('task_create_many', { project_id: t.key, tasks: [{ title: 'p2', priority: 2 }, { title: 'p1', priority: 1 }] })).task_ids;
    expect(ok(await t.agent.call('task_claim', { max_priority: 'high' }))).toMatchObject({ claimed: true, task: { id: ids[1] } });
    expect(ok(await t.agent.call('task_claim', { max_priority: 1 }))).toMatchObject({ claimed: false, reason: 'pool_empty' });
    expect(ok(await t.agent.call('task_claim', { max_priority: 'medium' }))).toMatchObject({ claimed: true, task: { id: ids[0] } });
  });
});

describe('task_id chosen by the caller', () => {
  it('creates under that id; the same content again returns it (created:false); other content is ALREADY_EXISTS naming task_id', async () => {
    const t = await workspace();
    const id = randomUUID();
    const input = { project_id: t.key, task_id: id, title: 'mine', body: 'b', priority: 'high', labels: ['x'], meta: { k: 1 } };
    const a = ok(await t.agent.call('task_create', input));
    expect(a).toMatchObject({ created: true, task_id: id, task: { id, priority: 1 } });
    // a fresh idempotency key, so this is a deliberate repeat, not a replay
    const b = ok(await t.agent.call('task_create', { ...input, idempotency_key: 'again' }));
    expect(b).toMatchObject({ created: false, task_id: id, seq: a.seq, ref: a.ref });
    expect(b.idempotent_replay).toBeUndefined();
    // work moving on (a claim) does not make the same create differ
    ok(await t.other.call('task_claim', { task_id: id }));
    expect(ok(await t.agent.call('task_create', { ...input, idempotency_key: 'third' })).created).toBe(false);
    const e = fails(await t.agent.call('task_create', { ...input, title: 'other', idempotency_key: 'x' }), 'ALREADY_EXISTS');
    expect(e.message).toBe(`task_id: task ${id} already exists with another title`);
    expect(e.details).toMatchObject({ task_id: id, field: 'title' });
    expect(fails(await t.agent.call('task_create', { ...input, meta: { k: 2 }, idempotency_key: 'y' }), 'ALREADY_EXISTS').details.field).toBe('meta');
    const [{ count }] = await db.query<{ count: number }>('select count(*)::int as count from public.tasks where tenant_id = $1', [t.id]);
    expect(count).toBe(1);
    expect(fails(await t.agent.call('task_create', { project_id: t.key, task_id: 'nope', title: 'x' }), 'VALIDATION_ERROR').message).toContain('task_id');
  });
});

describe('locks without start, release keeping the status', () => {
  it('start:false takes the lease and leaves the status; others are kept off; keep_status gives the lease back without a move', async () => {
    const t = await workspace();
    const [a, b] = ok(await t.human.call('task_create_many', { project_id: t.key, tasks: [{ title: 'lock me', priority: 0 }, { title: 'next' }] })).task_ids;
    const l = ok(await t.agent.call('task_claim', { task_id: a, start: false }));
    expect(l.task).toMatchObject({ id: a, status: 'todo', lease: { actor_id: t.agent.id, live: true }, ready: false });
    const [log] = await db.query<{ verb: string; metadata: any }>('select verb, metadata from public.activity where object_id = $1 order by id desc limit 1', [a]);
    expect(log).toMatchObject({ verb: 'task.claimed', metadata: { start: false } });
    expect(fails(await t.other.call('task_claim', { task_id: a }), 'LEASE_HELD').code).toBe('LEASE_HELD');
    // claim-next passes the locked todo task by, though it ranks first
    expect(ok(await t.other.call('task_claim', {}))).toMatchObject({ claimed: true, task: { id: b } });
    expect(ok(await t.agent.call('task_query', { project_id: t.key, state: 'ready' })).tasks).toEqual([]);
    expect(ok(await t.agent.call('project_brief', { project: t.key })).tasks).toMatchObject({ ready: 0, total: 2 });
    // the holder claims it again with start (the default): the lease is extended and the task moves
    expect(ok(await t.agent.call('task_claim', { task_id: a }))).toMatchObject({ extended: true, task: { status: 'in_progress' } });
    const r = ok(await t.agent.call('task_release', { task_id: a, keep_status: true }));
    expect(r.task).toMatchObject({ status: 'in_progress', lease: null });
    // the other agent's claim releases normally (back to todo)
    expect(ok(await t.other.call('task_release', { task_id: b })).task.status).toBe('todo');
  });
});

describe('projects that stop', () => {
  it('a paused or archived project offers no work: claim-next skips it, a claim by id names its status, an archived one takes no new tasks', async () => {
    const t = await workspace();
    ok(await t.human.call('project_create', { title: 'Live', key: `${t.key}L` }));
    const stopped = ok(await t.human.call('task_create', { project_id: t.key, title: 'stopped', priority: 0 })).task_id;
    const live = ok(await t.human.call('task_create', { project_id: `${t.key}L`, title: 'live', priority: 3 })).task_id;
    ok(await t.human.call('project_update', { project_id: t.key, patch: { status: 'paused' } }));
    const e = fails(await t.agent.call('task_claim', { task_id: stopped }), 'NOT_CLAIMABLE');
    expect(e.message).toBe('project status is paused: a paused or archived project offers no work');
    expect(e.details).toEqual({ project_status: 'paused' });
    expect(ok(await t.agent.call('task_claim', {}))).toMatchObject({ claimed: true, task: { id: live } });
    ok(await t.agent.call('task_release', { task_id: live }));
    // the filtered path (project, label, max_priority) skips it too
    expect(ok(await t.agent.call('task_claim', { project_id: t.key }))).toMatchObject({ claimed: false, reason: 'pool_empty' });
    expect(ok(await t.agent.call('task_claim', { max_priority: 0 }))).toMatchObject({ claimed: false });
    // paused still takes new tasks; archived does not
    ok(await t.human.call('task_create', { project_id: t.key, title: 'paused but planned' }));
    ok(await t.human.call('project_update', { project_id: t.key, patch: { status: 'archived' } }));
    expect(fails(await t.agent.call('task_claim', { task_id: stopped }), 'NOT_CLAIMABLE').details).toEqual({ project_status: 'archived' });
    const a = fails(await t.agent.call('task_create', { project_id: t.key, title: 'late' }), 'CONFLICT');
    expect(a.message).toContain('project_id: project');
    expect(a.message).toContain('is archived');
    fails(await t.agent.call('task_create_many', { project_id: t.key, tasks: [{ title: 'late' }] }), 'CONFLICT');
    ok(await t.human.call('project_update', { project_id: t.key, patch: { status: 'active' } }));
    expect(ok(await t.agent.call('task_claim', { task_id: stopped })).claimed).toBe(true);
  });
});

describe('notes on moves, comment kinds', () => {
  it('task_update, task_claim and task_release record a note: the activity row carries it, the thread shows it as a note in order', async () => {
    const t = await workspace();
    const id = ok(await t.human.call('task_create', { project_id: t.key, title: 'noted' })).task_id;
    ok(await t.agent.call('task_claim', { task_id: id, note: 'taking it: I know this code' }));
    ok(await t.agent.call('comment_add', { object_type: 'task', object_id: id, body: 'halfway' }));
    ok(await t.agent.call('task_update', { task_id: id, patch: { status: 'blocked' }, note: 'waiting on the vendor' }));
    ok(await t.agent.call('task_update', { task_id: id, patch: { status: 'todo' } }));
    ok(await t.agent.call('task_claim', { task_id: id }));
    ok(await t.agent.call('task_release', { task_id: id, note: 'giving it back' }));
    const g = ok(await t.agent.call('task_get', { task_id: id }));
    expect(g.comments.map((c: any) => [c.kind, c.body])).toEqual([
      ['note', 'taking it: I know this code'], ['message', 'halfway'], ['note', 'waiting on the vendor'], ['note', 'giving it back'],
    ]);
    const moves = await db.query<{ verb: string; note: string | null }>(
      `select verb, metadata ->> 'note' as note from public.activity where object_id = $1 and verb like 'task.%' order by id`, [id]);
    expect(moves.filter((m) => m.note)).toEqual([
      { verb: 'task.claimed', note: 'taking it: I know this code' },
      { verb: 'task.status_changed', note: 'waiting on the vendor' },
      { verb: 'task.released', note: 'giving it back' },
    ]);
    expect(fails(await t.agent.call('task_update', { task_id: id, patch: {}, note: 'x'.repeat(4001) }), 'VALIDATION_ERROR').message).toContain('note');
  });

  it('comment_add takes kind, tags and meta; comment_query filters by kind and tags', async () => {
    const t = await workspace();
    const id = ok(await t.human.call('task_create', { project_id: t.key, title: 'logged' })).task_id;
    const c = ok(await t.agent.call('comment_add', { object_type: 'task', object_id: id, body: 'build 41 failed', kind: 'log', tags: ['ci', 'build'], meta: { build: 41 } }));
    expect(c.comment).toMatchObject({ kind: 'log', tags: ['ci', 'build'], meta: { build: 41 } });
    ok(await t.agent.call('comment_add', { object_type: 'task', object_id: id, body: 'deploy ok', kind: 'log', tags: ['deploy'] }));
    ok(await t.agent.call('comment_add', { object_type: 'task', object_id: id, body: 'plain' }));
    const q = async (input: Record<string, unknown>) =>
      ok(await t.agent.call('comment_query', { object_type: 'task', object_id: id, ...input })).comments.map((x: any) => x.body);
    expect(await q({})).toEqual(['build 41 failed', 'deploy ok', 'plain']);
    expect(await q({ kind: 'log' })).toEqual(['build 41 failed', 'deploy ok']);
    expect(await q({ kind: 'message' })).toEqual(['plain']);
    expect(await q({ tags: ['ci'] })).toEqual(['build 41 failed']);
    expect(await q({ kind: 'log', tags: ['ci', 'deploy'] })).toEqual([]);
    expect(fails(await t.agent.call('comment_add', { object_type: 'task', object_id: id, body: 'x', kind: 'shout' }), 'VALIDATION_ERROR').message).toContain('kind');
    expect(fails(await t.agent.call('comment_add', { object_type: 'task', object_id: id, body: 'x', tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }), 'VALIDATION_ERROR').message).toContain('tags');
  });
});

describe('manual order', () => {
  it('order_index on create and update; task_query order:"manual"; claim-next keeps priority first, then order_index, then age', async () => {
    const t = await workspace();
    const ids = ok(await t.human.call('task_create_many', { project_id: t.key, tasks: [
      { title: 'a', priority: 2 }, { title: 'b', priority: 2 }, { title: 'c', priority: 1 }, { title: 'd', priority: 2 },
    ] })).task_ids;
    const [a, b, c, d] = ids;
    const manual = async () => ok(await t.agent.call('task_query', { project_id: t.key, order: 'manual' })).tasks.map((r: any) => r.id);
    // untouched, the manual order is the age
    expect(await manual()).toEqual([a, b, c, d]);
    const rows = ok(await t.agent.call('task_query', { project_id: t.key, order: 'manual' })).tasks;
    // drop d between a and b: one write, the midpoint, no neighbour renumbered
    const mid = (rows[0].order_index + rows[1].order_index) / 2;
    const u = ok(await t.human.call('task_update', { task_id: d, patch: { order_index: mid } }));
    expect(u.changed).toEqual(['order_index']);
    expect(await manual()).toEqual([a, d, b, c]);
    const after = ok(await t.agent.call('task_query', { project_id: t.key, order: 'manual' })).tasks;
    expect(after.filter((r: any) => r.id !== d).map((r: any) => r.order_index)).toEqual(rows.filter((r: any) => r.id !== d).map((r: any) => r.order_index));
    // pages in manual order
    const p1 = ok(await t.agent.call('task_query', { project_id: t.key, order: 'manual', limit: 2 }));
    const p2 = ok(await t.agent.call('task_query', { project_id: t.key, order: 'manual', limit: 2, cursor: p1.next_cursor }));
    expect([...p1.tasks, ...p2.tasks].map((r: any) => r.id)).toEqual([a, d, b, c]);
    // claim-next: priority first (c), then the manual order (d before b), then age
    const claimed: string[] = [];
    for (let i = 0; i < 4; i++) claimed.push(ok(await t.agent.call('task_claim', {})).task.id);
    expect(claimed).toEqual([c, a, d, b]);
    const e = ok(await t.human.call('task_create', { project_id: t.key, title: 'first', order_index: -5 }));
    expect(e.task.order_index).toBe(-5);
  });
});

describe('tenant isolation of the new fields', () => {
  it('another workspace cannot read, filter, set or reuse them', async () => {
    const A = await workspace();
    const B = await workspace();
    const id = randomUUID();
    ok(await A.agent.call('task_create', { project_id: A.key, task_id: id, title: 'secret', meta: { secret: 'A' }, order_index: 1 }));
    ok(await A.agent.call('comment_add', { object_type: 'task', object_id: id, body: 'a log', kind: 'log', tags: ['a-only'] }));
    // containment finds nothing of A
    expect(ok(await B.agent.call('task_query', { meta: { secret: 'A' } })).tasks).toEqual([]);
    expect(ok(await B.agent.call('task_query', { priority: ['medium'], order: 'manual' })).tasks).toEqual([]);
    // A's task id reads NOT_FOUND through every tool that takes it
    fails(await B.agent.call('task_update', { task_id: id, patch: { meta: { secret: 'B' }, order_index: 0 }, note: 'x' }), 'NOT_FOUND');
    fails(await B.agent.call('task_claim', { task_id: id, start: false }), 'NOT_FOUND');
    fails(await B.agent.call('task_release', { task_id: id, keep_status: true }), 'NOT_FOUND');
    fails(await B.agent.call('comment_query', { object_type: 'task', object_id: id, kind: 'log', tags: ['a-only'] }), 'NOT_FOUND');
    fails(await B.agent.call('comment_add', { object_type: 'task', object_id: id, body: 'x', kind: 'note' }), 'NOT_FOUND');
    // the same uuid in B is B's own task: created, not ALREADY_EXISTS, and nothing of A shows
    const b = ok(await B.agent.call('task_create', { project_id: B.key, task_id: id, title: 'other content' }));
    expect(b).toMatchObject({ created: true, task: { id, meta: {}, title: 'other content' } });
    const [row] = await db.query<{ meta: any; title: string }>('select meta, title from public.tasks where tenant_id = $1 and id = $2', [A.id, id]);
    expect(row).toEqual({ meta: { secret: 'A' }, title: 'secret' });
    // a paused project of A does not stop B's work
    ok(await A.human.call('project_update', { project_id: A.key, patch: { status: 'paused' } }));
    ok(await B.human.call('task_create', { project_id: B.key, title: 'b work' }));
    expect(ok(await B.agent.call('task_claim', {})).claimed).toBe(true);
    console.log(`[task-model:${target}] isolation proofs for meta, order_index, skipped, priorities, task_id, start/keep_status, notes and comment kinds`);
  });
});
