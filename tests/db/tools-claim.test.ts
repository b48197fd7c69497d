import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/** task_claim (claim-next and compare-and-swap) and task_release: happy paths and every error code. */

let db: TestDb;
beforeAll(async () => {
  db = await freshDb();
});
afterAll(() => db.drop());

/** Ends a lease as the server would see it after its time ran out. */
async function expireLease(taskId: string): Promise<void> {
  await db.query(`update public.tasks set lease_expires_at = now() - interval '1 second' where id = $1`, [taskId]);
}

/** Seconds from the database's now to the task's lease expiry. */
async function leaseSecondsLeft(taskId: string): Promise<number> {
  const [r] = await db.query<{ s: number }>('select extract(epoch from lease_expires_at - now())::float8 as s from public.tasks where id = $1', [taskId]);
  return r.s;
}

/** A workspace with one project, so the pool holds exactly what a test puts in it. */
async function workspace(key = 'CL'): Promise<Tenant & { other: Actor }> {
  const t = await seedTenant(db);
  ok(await t.human.call('project_create', { title: 'Claims', key }));
  return Object.assign(t, { other: await t.addAgent('other') });
}

async function make(t: Tenant, tasks: Record<string, unknown>[], project = 'CL'): Promise<string[]> {
  return ok(await t.human.call('task_create_many', { project_id: project, tasks })).task_ids;
}

describe('task_claim without task_id (claim the next ready task)', () => {
  it('claims the highest priority first, then the oldest, until the pool is empty', async () => {
    const t = await workspace();
    const [oldP2, newP0, oldP0, p1] = await make(t, [{ title: 'old p2' }, { title: 'new p0', priority: 0 }, { title: 'old p0', priority: 0 }, { title: 'p1', priority: 1 }]);
    // the same batch shares a created_at; give each its own age (and the manual order that age gives)
    for (const [id, minutes] of [[oldP2, 40], [newP0, 10], [oldP0, 30], [p1, 20]] as const) {
      await db.query(`update public.tasks set created_at = now() - make_interval(mins => $2),
                        order_index = extract(epoch from now() - make_interval(mins => $2)) where id = $1`, [id, minutes]);
    }
    const order: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = ok(await t.agent.call('task_claim', {}));
      expect(r.claimed).toBe(true);
      order.push(r.task.id);
    }
    expect(order).toEqual([oldP0, newP0, p1, oldP2]);
    const empty = ok(await t.agent.call('task_claim', {}));
    expect(empty).toMatchObject({ claimed: false, reason: 'pool_empty', hint: expect.stringContaining('task_query') });
  });

  it('returns the task in progress, assigned and leased to the caller, with its project context', async () => {
    const t = await workspace();
    const [id] = await make(t, [{ title: 'only' }]);
    const r = ok(await t.agent.call('task_claim'));
    expect(r).toMatchObject({ claimed: true, extended: false, project_context: { key: 'CL', title: 'Claims' } });
    expect(r.task).toMatchObject({ id, status: 'in_progress', assignee_actor_id: t.agent.id, body: '', lease: { actor_id: t.agent.id, live: true } });
    expect(r.task.started_at).not.toBeNull();
    expect(r.lease_expires_at).toBe(r.task.lease.expires_at);
    const left = await leaseSecondsLeft(id);
    expect(left).toBeGreaterThan(3000);
    expect(left).toBeLessThanOrEqual(3600);
    const [log] = await db.query<{ verb: string; actor_id: string }>('select verb, actor_id from public.activity where object_id = $1 order by id desc limit 1', [id]);
    expect(log).toEqual({ verb: 'task.claimed', actor_id: t.agent.id });
  });

  it('filters by project (key or uuid) and by label', async () => {
    const t = await workspace();
    const other = ok(await t.human.call('project_create', { title: 'Elsewhere', key: 'EL' }));
    const [urgent] = await make(t, [{ title: 'urgent here', priority: 0 }]);
    const [there] = await make(t, [{ title: 'there', priority: 3 }], 'EL');
    const [labelled] = await make(t, [{ title: 'labelled', priority: 4, labels: ['db', 'slow'] }]);
    expect(ok(await t.agent.call('task_claim', { project_id: 'el' })).task.id).toBe(there);
    expect(ok(await t.agent.call('task_claim', { project_id: other.project_id })).reason).toBe('pool_empty');
    expect(ok(await t.agent.call('task_claim', { label: 'slow' })).task.id).toBe(labelled);
    expect(ok(await t.agent.call('task_claim', { label: 'nothing' })).reason).toBe('pool_empty');
    expect(ok(await t.agent.call('task_claim', { project_id: 'CL' })).task.id).toBe(urgent);
  });

  it('skips tasks whose dependencies are unfinished until they are done', async () => {
    const t = await workspace();
    const [first, second] = await make(t, [{ title: 'first', priority: 4 }, { title: 'second', priority: 0, depends_on: [{ batch_index: 0 }] }]);
    expect(ok(await t.agent.call('task_claim', {})).task.id).toBe(first);
    expect(ok(await t.other.call('task_claim', {})).reason).toBe('pool_empty');
    ok(await t.agent.call('task_update', { task_id: first, patch: { status: 'done' } }));
    expect(ok(await t.other.call('task_claim', {})).task.id).toBe(second);
  });

  it('skips tasks under another actor’s live lease, and takes them once the lease expires', async () => {
    const t = await workspace();
    const [held] = await make(t, [{ title: 'held' }]);
    ok(await t.other.call('task_claim', { task_id: held }));
    expect(ok(await t.agent.call('task_claim', {})).reason).toBe('pool_empty');
    await expireLease(held);
    const r = ok(await t.agent.call('task_claim', {}));
    expect(r.task).toMatchObject({ id: held, assignee_actor_id: t.agent.id, lease: { actor_id: t.agent.id, live: true } });
  });

  it('ranks a task whose lease lapsed among todo work by the same order', async () => {
    const t = await workspace();
    const [p0, lapsed, p2] = await make(t, [{ title: 'p0', priority: 0 }, { title: 'lapsed p1', priority: 1 }, { title: 'p2', priority: 2 }]);
    ok(await t.other.call('task_claim', { task_id: lapsed }));
    await expireLease(lapsed);
    const order: string[] = [];
    for (let i = 0; i < 3; i++) order.push(ok(await t.agent.call('task_claim', {})).task.id);
    expect(order).toEqual([p0, lapsed, p2]);
    expect(ok(await t.agent.call('task_claim', {})).reason).toBe('pool_empty');
  });

  it('skips tasks assigned to someone else but takes tasks assigned to the caller', async () => {
    const t = await workspace();
    const [, mine] = await make(t, [
      { title: 'theirs', priority: 0, assignee_actor_id: t.human.id },
      { title: 'mine', priority: 4, assignee_actor_id: t.agent.id },
    ]);
    expect(ok(await t.agent.call('task_claim', {})).task.id).toBe(mine);
    expect(ok(await t.agent.call('task_claim', {})).reason).toBe('pool_empty');
  });

  it('skips tasks that are not open: backlog, blocked, in_review, done, failed, cancelled', async () => {
    const t = await workspace();
    const ids = await make(t, [{ title: 'backlog', status: 'backlog' }, { title: 'b' }, { title: 'r' }, { title: 'd' }, { title: 'f' }, { title: 'c' }]);
    ok(await t.human.call('task_update', { task_id: ids[1], patch: { status: 'blocked' } }));
    for (const [i, s] of [[2, 'in_review'], [3, 'done'], [4, 'failed']] as const) {
      ok(await t.human.call('task_update', { task_id: ids[i], patch: { status: 'in_progress' } }));
      ok(await t.human.call('task_update', { task_id: ids[i], patch: { status: s, assignee_actor_id: null } }));
    }
    ok(await t.human.call('task_update', { task_id: ids[5], patch: { status: 'cancelled' } }));
    expect(ok(await t.agent.call('task_claim', {})).reason).toBe('pool_empty');
  });

  it('claims two different tasks when called twice without a key', async () => {
    const t = await workspace();
    await make(t, [{ title: 'one' }, { title: 'two' }]);
    const a = ok(await t.agent.call('task_claim', {}));
    const b = ok(await t.agent.call('task_claim', {}));
    expect(b.idempotent_replay).toBeUndefined();
    expect(new Set([a.task.id, b.task.id]).size).toBe(2);
  });

  it('replays the same claim for a repeated explicit idempotency_key', async () => {
    const t = await workspace();
    await make(t, [{ title: 'one' }, { title: 'two' }]);
    const a = ok(await t.agent.call('task_claim', { idempotency_key: 'claim-1' }));
    const b = ok(await t.agent.call('task_claim', { idempotency_key: 'claim-1' }));
    expect(b).toMatchObject({ idempotent_replay: true, claimed: true });
    expect(b.task.id).toBe(a.task.id);
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.tasks where assignee_actor_id = $1`, [t.agent.id]);
    expect(n).toBe(1);
    fails(await t.agent.call('task_claim', { idempotency_key: 'claim-1', label: 'x' }), 'IDEMPOTENCY_CONFLICT');
  });

  it('finds nothing for repository_ids while no project is linked to a repository', async () => {
    const t = await workspace();
    await make(t, [{ title: 'one' }]);
    expect(ok(await t.agent.call('task_claim', { repository_ids: [randomUUID()] }))).toMatchObject({ claimed: false, reason: 'no_match' });
  });

  it('refuses an unknown project (NOT_FOUND)', async () => {
    const t = await workspace();
    expect(fails(await t.agent.call('task_claim', { project_id: 'NOPE' }), 'NOT_FOUND').message).toContain('project_id');
  });

  it.each([
    [59, 'below 60'],
    [86401, 'above 86400'],
    [90.5, 'not whole'],
  ])('refuses lease_seconds %s (%s) with VALIDATION_ERROR', async (lease_seconds) => {
    const t = await workspace();
    await make(t, [{ title: 'one' }]);
    const e = fails(await t.agent.call('task_claim', { lease_seconds }), 'VALIDATION_ERROR');
    expect(e.message).toContain('lease_seconds');
    expect(ok(await t.agent.call('task_query', { state: 'ready' })).tasks).toHaveLength(1);
  });

  it.each([60, 86400])('accepts lease_seconds %s and leases for that long', async (lease_seconds) => {
    const t = await workspace();
    const [id] = await make(t, [{ title: 'one' }]);
    ok(await t.agent.call('task_claim', { lease_seconds }));
    const left = await leaseSecondsLeft(id);
    expect(left).toBeLessThanOrEqual(lease_seconds);
    expect(left).toBeGreaterThan(lease_seconds - 50);
  });
});

describe('task_claim with task_id (compare-and-swap)', () => {
  let t: Tenant & { other: Actor };
  beforeAll(async () => {
    t = await workspace('CAS');
  });
  const one = async (input: Record<string, unknown> = {}) => (await make(t, [{ title: `cas ${randomUUID().slice(0, 8)}`, ...input }], 'CAS'))[0];

  it('claims exactly that task, by uuid or reference, even when higher-priority work waits', async () => {
    await one({ priority: 0 });
    const id = await one({ priority: 4 });
    const r = ok(await t.agent.call('task_claim', { task_id: id }));
    expect(r).toMatchObject({ claimed: true, extended: false, task: { id, status: 'in_progress', assignee_actor_id: t.agent.id } });
    const byRef = await make(t, [{ title: 'by ref' }], 'CAS');
    const seq = (await db.query<{ seq: number }>('select seq from public.tasks where id = $1', [byRef[0]]))[0].seq;
    expect(ok(await t.agent.call('task_claim', { task_id: `cas-${seq}` })).task.id).toBe(byRef[0]);
  });

  it('claims a backlog task straight into progress', async () => {
    const id = await one({ status: 'backlog' });
    expect(ok(await t.agent.call('task_claim', { task_id: id })).task.status).toBe('in_progress');
  });

  it('claims a task assigned to the caller', async () => {
    const id = await one({ assignee_actor_id: t.agent.id });
    expect(ok(await t.agent.call('task_claim', { task_id: id })).claimed).toBe(true);
  });

  it('refuses a task under another actor’s live lease (LEASE_HELD) and leaves it alone', async () => {
    const id = await one();
    const held = ok(await t.other.call('task_claim', { task_id: id }));
    const e = fails(await t.agent.call('task_claim', { task_id: id }), 'LEASE_HELD');
    expect(e.details).toEqual({ lease_actor_id: t.other.id, lease_expires_at: expect.any(String) });
    expect(new Date(e.details.lease_expires_at).getTime()).toBe(new Date(held.lease_expires_at).getTime());
    expect(e.retryable).toBe(true);
    const g = ok(await t.agent.call('task_get', { task_id: id }));
    expect(g.task).toMatchObject({ assignee_actor_id: t.other.id, lease: { actor_id: t.other.id } });
  });

  it('extends the caller’s own lease on a re-claim (extended: true)', async () => {
    const id = await one();
    ok(await t.agent.call('task_claim', { task_id: id, lease_seconds: 60 }));
    expect(await leaseSecondsLeft(id)).toBeLessThanOrEqual(60);
    const r = ok(await t.agent.call('task_claim', { task_id: id, lease_seconds: 7200 }));
    expect(r).toMatchObject({ claimed: true, extended: true, task: { status: 'in_progress', lease: { actor_id: t.agent.id, live: true } } });
    expect(await leaseSecondsLeft(id)).toBeGreaterThan(3600);
    const [log] = await db.query<{ verb: string }>('select verb from public.activity where object_id = $1 order by id desc limit 1', [id]);
    expect(log.verb).toBe('task.lease_extended');
  });

  it('extends the caller’s own lease even after it expired, if nobody took the task', async () => {
    const id = await one();
    ok(await t.agent.call('task_claim', { task_id: id }));
    await expireLease(id);
    const r = ok(await t.agent.call('task_claim', { task_id: id, lease_seconds: 600 }));
    expect(r.extended).toBe(true);
    expect(r.task.lease.live).toBe(true);
  });

  it('lets another actor claim a task at once when its lease expired', async () => {
    const id = await one();
    ok(await t.other.call('task_claim', { task_id: id }));
    await expireLease(id);
    const r = ok(await t.agent.call('task_claim', { task_id: id }));
    expect(r).toMatchObject({ claimed: true, extended: false, task: { assignee_actor_id: t.agent.id, lease: { actor_id: t.agent.id, live: true } } });
    fails(await t.other.call('task_claim', { task_id: id }), 'LEASE_HELD');
  });

  it.each([
    ['done', ['in_progress', 'done'], 'allow_reopen'],
    ['cancelled', ['cancelled'], 'allow_reopen'],
    ['failed', ['in_progress', 'failed'], 'todo'],
    ['in_review', ['in_progress', 'in_review'], 'todo'],
    ['blocked', ['blocked'], 'todo'],
  ])('refuses a %s task (NOT_CLAIMABLE)', async (status, path, hint) => {
    const id = await one();
    for (const s of path) ok(await t.human.call('task_update', { task_id: id, patch: { status: s } }));
    const e = fails(await t.agent.call('task_claim', { task_id: id }), 'NOT_CLAIMABLE');
    expect(e.message).toBe(`task is ${status}`);
    expect(e.details).toEqual({ status });
    expect(e.hint).toContain(hint);
    expect(e.retryable).toBe(false);
    expect(ok(await t.agent.call('task_get', { task_id: id })).task.status).toBe(status);
  });

  it('refuses a task with unfinished dependencies (NOT_CLAIMABLE with open_blockers)', async () => {
    const [a, b, c] = await make(t, [{ title: 'dep a' }, { title: 'dep b' }, { title: 'waits', depends_on: [{ batch_index: 0 }, { batch_index: 1 }] }], 'CAS');
    const e = fails(await t.agent.call('task_claim', { task_id: c }), 'NOT_CLAIMABLE');
    expect(e.message).toContain('2 unfinished dependencies');
    expect(e.details).toEqual({ open_blockers: 2 });
    for (const d of [a, b]) ok(await t.human.call('task_update', { task_id: d, patch: { status: 'in_progress' } }));
    ok(await t.human.call('task_update', { task_id: a, patch: { status: 'done' } }));
    expect(fails(await t.agent.call('task_claim', { task_id: c }), 'NOT_CLAIMABLE').message).toContain('1 unfinished dependency');
    ok(await t.human.call('task_update', { task_id: b, patch: { status: 'done' } }));
    expect(ok(await t.agent.call('task_claim', { task_id: c })).claimed).toBe(true);
  });

  it('refuses a task assigned to another actor (NOT_CLAIMABLE with the assignee)', async () => {
    const id = await one({ assignee_actor_id: t.human.id });
    const e = fails(await t.agent.call('task_claim', { task_id: id }), 'NOT_CLAIMABLE');
    expect(e.details).toEqual({ assignee_actor_id: t.human.id });
    expect(e.hint).toContain('task_assign');
  });

  it('refuses an unknown task (NOT_FOUND)', async () => {
    expect(fails(await t.agent.call('task_claim', { task_id: randomUUID() }), 'NOT_FOUND').message).toContain('task_id');
    fails(await t.agent.call('task_claim', { task_id: 'CAS-9999' }), 'NOT_FOUND');
    const o = await seedTenant(db);
    fails(await o.agent.call('task_claim', { task_id: await one() }), 'NOT_FOUND');
  });

  it('refuses a malformed task_id or repository id (VALIDATION_ERROR)', async () => {
    expect(fails(await t.agent.call('task_claim', { task_id: 'next' }), 'VALIDATION_ERROR').message).toContain('task_id');
    expect(fails(await t.agent.call('task_claim', { repository_ids: ['repo'] }), 'VALIDATION_ERROR').message).toContain('repository_ids[0]');
  });
});

describe('task_release', () => {
  let t: Tenant & { other: Actor };
  beforeAll(async () => {
    t = await workspace('REL');
  });
  const one = async (input: Record<string, unknown> = {}) => (await make(t, [{ title: `rel ${randomUUID().slice(0, 8)}`, ...input }], 'REL'))[0];

  it('gives a claimed task back: todo, unassigned, no lease, the note kept as a comment', async () => {
    const id = await one();
    ok(await t.agent.call('task_claim', { task_id: id }));
    const r = ok(await t.agent.call('task_release', { task_id: id, note: 'stuck on credentials; see the vault' }));
    expect(r.released).toBe(true);
    expect(r.task).toMatchObject({ id, status: 'todo', assignee_actor_id: null, lease: null, ready: true });
    const g = ok(await t.human.call('task_get', { task_id: id }));
    expect(g.comments).toEqual([
      expect.objectContaining({ body: 'stuck on credentials; see the vault', author_actor_id: t.agent.id, author_kind: 'agent' }),
    ]);
    expect(g.activity[0]).toMatchObject({ verb: 'task.released', actor_id: t.agent.id, summary: 'stuck on credentials; see the vault' });
  });

  it('leaves no comment without a note', async () => {
    const id = await one();
    ok(await t.agent.call('task_claim', { task_id: id }));
    ok(await t.agent.call('task_release', { task_id: id }));
    expect(ok(await t.agent.call('task_get', { task_id: id })).comments).toEqual([]);
  });

  it('makes the task claimable by another actor at once', async () => {
    const id = await one();
    ok(await t.agent.call('task_claim', { task_id: id }));
    ok(await t.agent.call('task_release', { task_id: id }));
    expect(ok(await t.other.call('task_claim', { task_id: id })).task.assignee_actor_id).toBe(t.other.id);
  });

  it('lets the assignee release a task that was never claimed, keeping its status', async () => {
    const id = await one({ assignee_actor_id: t.agent.id });
    const r = ok(await t.agent.call('task_release', { task_id: id }));
    expect(r.task).toMatchObject({ status: 'todo', assignee_actor_id: null });
    const review = await one();
    ok(await t.agent.call('task_claim', { task_id: review }));
    ok(await t.agent.call('task_update', { task_id: review, patch: { status: 'in_review' } }));
    expect(ok(await t.agent.call('task_release', { task_id: review })).task).toMatchObject({ status: 'in_review', assignee_actor_id: null });
  });

  it('lets the holder of an expired lease release', async () => {
    const id = await one();
    ok(await t.agent.call('task_claim', { task_id: id }));
    await expireLease(id);
    expect(ok(await t.agent.call('task_release', { task_id: id })).task.status).toBe('todo');
  });

  it('refuses anyone who neither holds nor is assigned the task (CONFLICT) and changes nothing', async () => {
    const id = await one();
    ok(await t.other.call('task_claim', { task_id: id }));
    // a live lease answers LEASE_HELD (tests/db/ledger-rules.test.ts); once it lapsed, the assignee still holds the task
    await expireLease(id);
    const e = fails(await t.agent.call('task_release', { task_id: id, note: 'not mine' }), 'CONFLICT');
    expect(e.details).toEqual({ lease_actor_id: t.other.id, assignee_actor_id: t.other.id });
    expect(e.hint).toContain('task_assign');
    const g = ok(await t.agent.call('task_get', { task_id: id }));
    expect(g.task).toMatchObject({ status: 'in_progress', assignee_actor_id: t.other.id });
    expect(g.comments).toEqual([]);
    const unassigned = await one();
    fails(await t.agent.call('task_release', { task_id: unassigned }), 'CONFLICT');
  });

  it('replays an identical retry instead of failing on the second call', async () => {
    const id = await one();
    ok(await t.agent.call('task_claim', { task_id: id }));
    const a = ok(await t.agent.call('task_release', { task_id: id, note: 'once' }));
    const b = ok(await t.agent.call('task_release', { task_id: id, note: 'once' }));
    expect(b).toMatchObject({ idempotent_replay: true, released: true });
    expect(b.task.id).toBe(a.task.id);
    expect(ok(await t.agent.call('task_get', { task_id: id })).comments).toHaveLength(1);
  });

  it('refuses an unknown task (NOT_FOUND)', async () => {
    expect(fails(await t.agent.call('task_release', { task_id: randomUUID() }), 'NOT_FOUND').message).toContain('task_id');
    fails(await t.agent.call('task_release', { task_id: 'REL-999' }), 'NOT_FOUND');
  });

  it.each([
    ['an empty note', { note: '' }, 'note'],
    ['a note over 20000 characters', { note: 'x'.repeat(20_001) }, 'note'],
    ['an unknown key', { reason: 'x' }, 'reason'],
  ])('refuses %s (VALIDATION_ERROR)', async (_what, input, field) => {
    expect(fails(await t.agent.call('task_release', { task_id: 'REL-1', ...input }), 'VALIDATION_ERROR').message).toContain(field);
  });

  it('refuses a reused idempotency_key with another note (IDEMPOTENCY_CONFLICT)', async () => {
    const id = await one();
    ok(await t.agent.call('task_claim', { task_id: id }));
    ok(await t.agent.call('task_release', { task_id: id, note: 'first', idempotency_key: 'rel-1' }));
    fails(await t.agent.call('task_release', { task_id: id, note: 'second', idempotency_key: 'rel-1' }), 'IDEMPOTENCY_CONFLICT');
  });
});
