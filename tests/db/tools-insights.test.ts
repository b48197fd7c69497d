import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * project_insights on a ledger whose timestamps are set by hand, so every figure below is worked
 * out on paper. T is today's UTC midnight; "T-2 10:00" is two days earlier at 10:00 UTC.
 *
 *   task  status       assignee  started     completed   notes
 *   INS-1 done         Ada       T-2 10:00   T-2 12:00   cycle 2 h
 *   INS-2 done         Ada       T-2 09:00   T-1 09:00   cycle 24 h; in progress at the end of T-2
 *   INS-3 done         Bo        T-5 01:00   T-1 01:00   cycle 96 h; in progress at the end of T-5…T-2
 *   INS-4 done         Bo        T-1 11:00   T-1 11:30   cycle 0.5 h
 *   INS-5 in_progress  Bo        T-1 12:00   —           in progress at the end of T-1 and now
 *   INS-6 done         Ada       T-60        T-40        outside the 7-day window
 *   INS-7 todo                                          ← INS-8 ← INS-9, and ← INS-10: chain 7, 8, 9
 *   INS-11 todo, depends on INS-1 (done): not blocked
 *   INS-12, INS-13, INS-14: in review by the human (claimed by Ada now, so in progress today)
 *     INS-12 review asked T-3 10:00 (the handoff; no later move to in_review), answered T-1 16:00: 54 h
 *     INS-13 handoff T-2 00:00, moved to in_review T-1 08:00, answered T-1 10:00: 2 h
 *     INS-14 waiting for its answer
 */
let db: TestDb;
let T: Tenant;
let ada: Actor;
let bo: Actor;
const DAY = 86_400_000;
const midnight = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
const at = (days: number, hours = 0) => new Date(midnight - days * DAY + hours * 3_600_000).toISOString();
const day = (days: number) => at(days).slice(0, 10);
const ids: Record<number, string> = {};

async function setTimes(seq: number, started: string | null, completed: string | null, assignee: string | null) {
  await db.query(`update public.tasks set started_at = $2, completed_at = $3, assignee_actor_id = $4 where tenant_id = $5 and id = $1`, [
    ids[seq],
    started,
    completed,
    assignee,
    T.id,
  ]);
}

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'insights');
  ada = await T.addAgent('Ada');
  bo = await T.addAgent('Bo');
  ok(await T.agent.call('project_create', { title: 'Insights', key: 'INS' }));
  for (let i = 1; i <= 14; i++) {
    const input: Record<string, unknown> = { project_id: 'INS', title: `Task ${i}` };
    if (i === 8) input.depends_on = ['INS-7'];
    if (i === 9) input.depends_on = ['INS-8'];
    if (i === 10) input.depends_on = ['INS-7'];
    if (i === 11) input.depends_on = ['INS-1'];
    if (i >= 12) input.reviewer_actor_id = T.human.id;
    ids[i] = ok(await T.agent.call('task_create', input)).task_id;
  }
  for (const i of [1, 2, 3, 4, 6]) {
    ok(await T.agent.call('task_update', { task_id: `INS-${i}`, patch: { status: 'in_progress' } }));
    ok(await T.agent.call('task_update', { task_id: `INS-${i}`, patch: { status: 'done' } }));
  }
  ok(await bo.call('task_claim', { task_id: 'INS-5' }));
  await setTimes(1, at(2, 10), at(2, 12), ada.id);
  await setTimes(2, at(2, 9), at(1, 9), ada.id);
  await setTimes(3, at(5, 1), at(1, 1), bo.id);
  await setTimes(4, at(1, 11), at(1, 11.5), bo.id);
  await db.query(`update public.tasks set started_at = $2 where tenant_id = $3 and id = $1`, [ids[5], at(1, 12), T.id]);
  await setTimes(6, at(60), at(40), ada.id);

  for (const i of [12, 13, 14]) {
    ok(await ada.call('task_claim', { task_id: `INS-${i}` }));
    ok(await ada.call('task_update', { task_id: `INS-${i}`, patch: { status: 'in_review' } }));
  }
  const reviews = await db.query<{ id: string; related_task_id: string }>(
    `select id, related_task_id from public.handoffs where tenant_id = $1 and kind = 'review'`,
    [T.id],
  );
  const review = (seq: number) => reviews.find((h) => h.related_task_id === ids[seq])!.id;
  for (const i of [12, 13]) {
    ok(await T.human.call('handoff_respond', { handoff_id: review(i), response: { chosen_option: 'approve' } }));
  }
  await db.query(`update public.handoffs set created_at = $2, responded_at = $3 where tenant_id = $4 and id = $1`, [review(12), at(3, 10), at(1, 16), T.id]);
  await db.query(`update public.handoffs set created_at = $2, responded_at = $3 where tenant_id = $4 and id = $1`, [review(13), at(2), at(1, 10), T.id]);
  // the move to in_review that this review answered (the real one is dated after the answer above)
  await db.query(
    `insert into public.activity (tenant_id, project_id, actor_id, verb, object_type, object_id, summary, metadata, at)
     select tenant_id, project_id, $3, 'task.status_changed', 'task', id, 'in_progress → in_review', '{"from":"in_progress","to":"in_review"}', $2
       from public.tasks where tenant_id = $4 and id = $1`,
    [ids[13], at(1, 8), ada.id, T.id],
  );
});
afterAll(() => db.drop());

describe('project_insights', () => {
  it('reads throughput, cycle time, WIP, the blocked chain and review turnaround from the ledger', async () => {
    const r = ok(await T.human.call('project_insights', { project_id: 'INS', days: 7 }));
    expect(r.project).toMatchObject({ key: 'INS', title: 'Insights' });
    expect(r.window).toMatchObject({ days: 7, since: day(6), until: day(0) });
    expect(r.totals).toEqual({ tasks: 14, open: 9, in_progress: 1, in_review: 3, done: 5, blocked: 3 });

    expect(r.throughput).toEqual([6, 5, 4, 3, 2, 1, 0].map((d) => ({ day: day(d), done: d === 2 ? 1 : d === 1 ? 3 : 0 })));

    // cycle hours 0.5, 2, 24, 96: median (2 + 24) / 2; p90 24 + 0.7 × 72; mean 122.5 / 4
    expect(r.cycle_time).toMatchObject({ count: 4, p50_hours: 13, p90_hours: 74.4, mean_hours: 30.63 });
    expect(r.cycle_time.buckets.map((b: any) => b.count)).toEqual([1, 1, 0, 1, 1, 0]);

    // Bo holds work on 6 day-ends (INS-3 on T-5…T-2, INS-5 on T-1 and today); Ada on T-2 (INS-2)
    // and today (INS-12, 13, 14 in review)
    expect(r.wip.actors).toEqual([
      { actor_id: bo.id, name: 'Bo' },
      { actor_id: ada.id, name: 'Ada' },
    ]);
    expect(r.wip.days.map((d: any) => [d.day, d.total, d.counts])).toEqual([
      [day(6), 0, [0, 0]],
      [day(5), 1, [1, 0]],
      [day(4), 1, [1, 0]],
      [day(3), 1, [1, 0]],
      [day(2), 2, [1, 1]],
      [day(1), 1, [1, 0]],
      [day(0), 4, [1, 3]],
    ]);

    expect(r.blocked_chain.length).toBe(3);
    expect(r.blocked_chain.tasks.map((t: any) => [t.ref, t.status])).toEqual([
      ['INS-7', 'todo'],
      ['INS-8', 'todo'],
      ['INS-9', 'todo'],
    ]);

    // 54 h and 2 h, both answered on T-1; INS-14 waits
    expect(r.review_turnaround).toMatchObject({ count: 2, p50_hours: 28, p90_hours: 48.8, waiting: 1 });
    expect(r.review_turnaround.oldest_waiting_hours).toBeLessThan(1);
    expect(r.review_turnaround.days.find((d: any) => d.day === day(1))).toEqual({ day: day(1), count: 2, p50_hours: 28 });
    expect(r.review_turnaround.days.filter((d: any) => d.count > 0)).toHaveLength(1);
  });

  it('moves with the ledger: finishing the chain’s first task shortens it and counts as done today', async () => {
    ok(await T.agent.call('task_update', { task_id: 'INS-7', patch: { status: 'in_progress' } }));
    ok(await T.agent.call('task_update', { task_id: 'INS-7', patch: { status: 'done' } }));
    const r = ok(await ada.call('project_insights', { project_id: 'INS', days: 7 }));
    expect(r.throughput.at(-1)).toEqual({ day: day(0), done: 1 });
    expect(r.blocked_chain.tasks.map((t: any) => t.ref)).toEqual(['INS-8', 'INS-9']);
    expect(r.totals.blocked).toBe(1);
  });

  it('follows the longest chain where it branches, not the older dependency', async () => {
    ok(await T.agent.call('project_create', { title: 'Branches', key: 'BR' }));
    const deps: Record<number, string[]> = { 2: ['BR-1'], 3: ['BR-1'], 4: ['BR-3'], 5: ['BR-2', 'BR-4'], 6: ['BR-5'] };
    for (let i = 1; i <= 6; i++) ok(await T.agent.call('task_create', { project_id: 'BR', title: `B${i}`, ...(deps[i] ? { depends_on: deps[i] } : {}) }));
    // BR-5 waits on BR-2 (older, one step from BR-1) and BR-4 (two steps): the longest path goes through BR-4
    const r = ok(await T.agent.call('project_insights', { project_id: 'BR' }));
    expect(r.blocked_chain.tasks.map((t: any) => t.ref)).toEqual(['BR-1', 'BR-3', 'BR-4', 'BR-5', 'BR-6']);
    expect(r.totals.blocked).toBe(5);
  });

  it('answers an empty project with zeros and empty series, one entry per day of the default 30', async () => {
    ok(await T.agent.call('project_create', { title: 'Empty', key: 'EMP' }));
    const r = ok(await T.agent.call('project_insights', { project_id: 'EMP' }));
    expect(r.window.days).toBe(30);
    expect(r.throughput).toHaveLength(30);
    expect(r.throughput.every((d: any) => d.done === 0)).toBe(true);
    expect(r.cycle_time).toMatchObject({ count: 0, p50_hours: null, p90_hours: null, mean_hours: null });
    expect(r.wip.actors).toEqual([]);
    expect(r.wip.days.every((d: any) => d.total === 0 && d.counts.length === 0)).toBe(true);
    expect(r.blocked_chain).toEqual({ length: 0, tasks: [] });
    expect(r.review_turnaround).toMatchObject({ count: 0, p50_hours: null, waiting: 0, oldest_waiting_hours: null });
  });

  it('refuses a window outside 1–365 days, naming the field', async () => {
    expect(fails(await T.agent.call('project_insights', { project_id: 'INS', days: 0 }), 'VALIDATION_ERROR').message).toContain('days');
    expect(fails(await T.agent.call('project_insights', { project_id: 'INS', days: 366 }), 'VALIDATION_ERROR').message).toContain('days');
  });

  it('reads another workspace’s project as NOT_FOUND, by key and by id', async () => {
    const U = await seedTenant(db, 'insights-other');
    const projectId = ok(await T.agent.call('project_query', {})).projects.find((p: any) => p.key === 'INS').id;
    fails(await U.agent.call('project_insights', { project_id: 'INS' }), 'NOT_FOUND');
    fails(await U.agent.call('project_insights', { project_id: projectId }), 'NOT_FOUND');
    // and the API role cannot reach around the RPC: the function is the only door, under the caller's tenant
    const [{ n }] = await db.query<{ n: number }>(
      `select count(*)::int as n from information_schema.role_routine_grants
        where routine_name = 'project_insights' and grantee in ('anon', 'PUBLIC')`,
    );
    expect(n).toBe(0);
  });
});
