import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitRoom, type WaitRoom } from '../../lib/core/wait';
import { noteLapsedLeases } from '../../lib/jobs/leases';
import { freshDb, ok, seedTenant, type TestDb } from '../helpers/db';

/**
 * Waking task_claim waiters: a task event wakes only the waiters whose filters a task it made
 * claimable matches, one per such task (lib/core/wait.ts, bullpen.ready_after); a lapsed lease
 * writes task.lease_lapsed once (bullpen.note_lapsed_leases), which wakes them too.
 */

let db: TestDb;
let room: WaitRoom;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  db = await freshDb();
  room = await waitRoom(db);
});
afterAll(() => db.drop());

/** Waits until the room has `n` waiters (a call registers after its first, empty run). */
async function waiters(n: number): Promise<void> {
  for (let i = 0; i < 400 && room.size() !== n; i++) await sleep(10);
  expect(room.size()).toBe(n);
}

/** Lets the change feed deliver what was written (the Postgres poller reads the log on a timer), then the room's read. */
async function quiet(): Promise<void> {
  await sleep(400);
  await room.settled();
}

describe('waking task_claim waiters', () => {
  it('wakes only the waiters a new ready task matches, one per task, longest waiting first', async () => {
    const w = await seedTenant(db);
    ok(await w.human.call('project_create', { title: 'Wake', key: 'WK' }));
    ok(await w.human.call('project_create', { title: 'Other', key: 'WO' }));
    const [a1, a2, b1, other] = await Promise.all(['a1', 'a2', 'b1', 'other'].map((n) => w.addAgent(`wake-${n}`)));
    const base = room.size();
    const first = a1.call('task_claim', { wait_seconds: 20, label: 'a' });
    await waiters(base + 1);
    const second = a2.call('task_claim', { wait_seconds: 20, label: 'a' });
    const third = b1.call('task_claim', { wait_seconds: 20, label: 'b' });
    const fourth = other.call('task_claim', { wait_seconds: 20, project_id: 'WO' });
    await waiters(base + 4);

    // work nobody waits for wakes nobody (it did wake all four before)
    const woken0 = room.woken;
    ok(await w.human.call('task_create', { project_id: 'WK', title: 'for no one', labels: ['c'] }));
    // a task that is not claimable (it waits on an unfinished one) wakes nobody either
    const gate = ok(await w.human.call('task_create', { project_id: 'WK', title: 'gate' }));
    ok(await w.agent.call('task_claim', { task_id: gate.task_id }));
    ok(await w.human.call('task_create', { project_id: 'WK', title: 'blocked a', labels: ['a'], depends_on: [gate.task_id] }));
    await quiet();
    expect(room.woken - woken0).toBe(0);
    expect(room.size()).toBe(base + 4);

    // one task labelled a: one waiter, the one waiting longest
    const t = ok(await w.human.call('task_create', { project_id: 'WK', title: 'for a', labels: ['a'] }));
    expect(ok(await first)).toMatchObject({ claimed: true, task: { id: t.task_id } });
    await quiet();
    expect(room.woken - woken0).toBe(1);
    expect(room.size()).toBe(base + 3);

    // a task in another project wakes the waiter filtering on that project (by key), not the others
    const o = ok(await w.human.call('task_create', { project_id: 'WO', title: 'there' }));
    expect(ok(await fourth)).toMatchObject({ claimed: true, task: { id: o.task_id } });
    await quiet();
    expect(room.woken - woken0).toBe(2);

    // the blocker done readies its dependent: that wakes the other `a` waiter, and only it
    ok(await w.agent.call('task_update', { task_id: gate.task_id, patch: { status: 'done' } }));
    expect(ok(await second)).toMatchObject({ claimed: true, task: { title: 'blocked a' } });
    await quiet();
    expect(room.woken - woken0).toBe(3);

    // the `b` waiter is still waiting: nothing it matches arrived
    expect(room.size()).toBe(base + 1);
    const tb = ok(await w.human.call('task_create', { project_id: 'WK', title: 'for b', labels: ['b'] }));
    expect(ok(await third)).toMatchObject({ claimed: true, task: { id: tb.task_id } });
  });

  it('wakes no more waiters than there are new ready tasks', async () => {
    const w = await seedTenant(db);
    ok(await w.human.call('project_create', { title: 'Herd', key: 'HD' }));
    const agents = await Promise.all(Array.from({ length: 6 }, (_, i) => w.addAgent(`herd-${i}`)));
    const base = room.size();
    const calls = agents.map((a) => a.call('task_claim', { wait_seconds: 3 }));
    await waiters(base + 6);
    const woken0 = room.woken;
    ok(await w.human.call('task_create_many', { project_id: 'HD', tasks: [{ title: 'one' }, { title: 'two' }] }));
    const results = await Promise.all(calls);
    const claimed = results.map((r) => ok(r)).filter((r) => r.claimed);
    expect(claimed).toHaveLength(2);
    expect(new Set(claimed.map((r) => r.task.title))).toEqual(new Set(['one', 'two']));
    // two tasks, at most two waiters woken; the four others time out without running again. (A
    // waiter still on its first run when the tasks arrive takes one without a wake-up being spent on
    // it, so under load the count may be lower: the promise is the upper bound.)
    expect(room.woken - woken0).toBeLessThanOrEqual(2);
  });

  it('another workspace’s work wakes nobody here', async () => {
    const w = await seedTenant(db);
    const x = await seedTenant(db);
    ok(await w.human.call('project_create', { title: 'Mine', key: 'MI' }));
    ok(await x.human.call('project_create', { title: 'Theirs', key: 'MI' }));
    const base = room.size();
    const waiting = w.agent.call('task_claim', { wait_seconds: 1.5 });
    await waiters(base + 1);
    const woken0 = room.woken;
    ok(await x.human.call('task_create', { project_id: 'MI', title: 'theirs' }));
    const r = ok(await waiting);
    expect(r).toMatchObject({ claimed: false, reason: 'pool_empty' });
    expect(room.woken - woken0).toBe(0);
  });
});

describe('a lapsed lease', () => {
  it('writes task.lease_lapsed once, and wakes a waiting claim that then takes the task', async () => {
    const w = await seedTenant(db);
    ok(await w.human.call('project_create', { title: 'Lapse', key: 'LP' }));
    const holder = await w.addAgent('lapse-holder');
    const waiter = await w.addAgent('lapse-waiter');
    const t = ok(await w.human.call('task_create', { project_id: 'LP', title: 'held' }));
    ok(await holder.call('task_claim', { task_id: t.task_id, lease_seconds: 60 }));
    // the events so far are delivered first (the Postgres poller is a moment behind): read after the
    // lease is forced to lapse below, task.created would rightly find the task claimable
    await quiet();

    const base = room.size();
    const waiting = waiter.call('task_claim', { wait_seconds: 20 });
    await waiters(base + 1);
    // the lease runs out: by itself that writes nothing, so the waiter sleeps on
    await db.query(`update public.tasks set lease_expires_at = now() - interval '1 second' where id = $1`, [t.task_id]);
    await quiet();
    expect(room.size()).toBe(base + 1);

    // the sweep writes the lapse once, however many instances run it at once
    const swept = await Promise.all([noteLapsedLeases(db), noteLapsedLeases(db)]);
    expect(swept[0] + swept[1]).toBe(1);
    expect(await noteLapsedLeases(db)).toBe(0);
    const r = ok(await waiting);
    expect(r).toMatchObject({ claimed: true, task: { id: t.task_id, assignee_actor_id: waiter.id } });

    const rows = await db.query<{ verb: string; project_id: string; metadata: Record<string, unknown>; summary: string }>(
      `select verb, project_id, metadata, summary from public.activity where tenant_id = $1 and object_id = $2 and verb = 'task.lease_lapsed'`,
      [w.id, t.task_id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].metadata).toMatchObject({ previous_actor_id: holder.id });
    expect(rows[0].summary).toContain('lease lapsed');
    // the log shows it to the workspace, like any task event
    const log = ok(await w.human.call('activity_query', { verb: 'task.lease_lapsed' }));
    expect(JSON.stringify(log)).toContain(t.task_id);

    // a new lease that lapses again is a new lapse
    await db.query(`update public.tasks set lease_expires_at = now() - interval '1 second' where id = $1`, [t.task_id]);
    expect(await noteLapsedLeases(db)).toBe(1);
  });

  it('is written into its own workspace only', async () => {
    const w = await seedTenant(db);
    const x = await seedTenant(db);
    ok(await w.human.call('project_create', { title: 'Own', key: 'OW' }));
    const t = ok(await w.human.call('task_create', { project_id: 'OW', title: 'held' }));
    ok(await w.agent.call('task_claim', { task_id: t.task_id }));
    await db.query(`update public.tasks set lease_expires_at = now() - interval '1 second' where id = $1`, [t.task_id]);
    await noteLapsedLeases(db);
    const [{ mine }] = await db.query<{ mine: number }>(
      `select count(*)::int as mine from public.activity where tenant_id = $1 and verb = 'task.lease_lapsed'`,
      [w.id],
    );
    const [{ theirs }] = await db.query<{ theirs: number }>(
      `select count(*)::int as theirs from public.activity where tenant_id = $1 and verb = 'task.lease_lapsed'`,
      [x.id],
    );
    expect({ mine, theirs }).toEqual({ mine: 1, theirs: 0 });
  });
});
