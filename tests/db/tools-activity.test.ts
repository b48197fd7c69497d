import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';
import { asRun } from '../helpers/runs';

let db: TestDb;
let T: Tenant;
let other: Actor;
let taskId: string;

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'activity');
  other = await T.addAgent('other');
  ok(await T.agent.call('project_create', { title: 'Deploys', key: 'DEP' }));
  ok(await T.agent.call('project_create', { title: 'Elsewhere', key: 'ELS' }));
  taskId = ok(await T.agent.call('task_create', { project_id: 'DEP', title: 'Ship v2' })).task_id;
  ok(await other.call('task_create', { project_id: 'ELS', title: 'Unrelated' }));
});
afterAll(() => db.drop());

describe('activity_log', () => {
  it('appends a milestone on the current run by default, with severity, status and metadata', async () => {
    const a = asRun(T.agent, { run_id: 'deployer' });
    const env = ok(await a.call('activity_log', { verb: 'deploy.finished', summary: 'v2 is live', severity: 'info', status: 'succeeded', metadata: { version: '2.0.0', region: 'eu' } }));
    expect(env).toMatchObject({ deduplicated: false, activity: { verb: 'deploy.finished', summary: 'v2 is live', status: 'succeeded', object_type: 'run', run_id: 'deployer', actor_id: T.agent.id, metadata: { version: '2.0.0', region: 'eu' } } });
    const run = ok(await a.call('run_get', {}));
    expect(env.activity.object_id).toBe(run.run.id);
    const onTask = ok(await a.call('activity_log', { verb: 'tests.passed', summary: '412 green', object_type: 'task', object_id: 'DEP-1', severity: 'warn' }));
    expect(onTask.activity).toMatchObject({ object_type: 'task', object_id: taskId, severity: 'warn' });
    const t = ok(await T.human.call('task_get', { task_id: 'DEP-1' }));
    expect(t.activity[0]).toMatchObject({ verb: 'tests.passed', summary: '412 green' });
    expect(ok(await a.call('run_summary', {})).counts.by_verb).toMatchObject({ 'deploy.finished': 1, 'tests.passed': 1 });
  });

  it('deduplicates the same milestone retried (one row), while a changed one is new', async () => {
    const a = asRun(T.agent, { run_id: 'retrier' });
    const input = { verb: 'migration.applied', summary: '0042 applied', object_type: 'project', object_id: 'DEP', metadata: { b: 2, a: 1 } };
    const first = ok(await a.call('activity_log', input));
    const again = ok(await a.call('activity_log', { ...input, metadata: { a: 1, b: 2 } }));
    expect(again).toMatchObject({ deduplicated: true, seq: first.seq });
    const withKey = ok(await a.call('activity_log', { ...input, idempotency_key: 'mig-42' }));
    expect(withKey.seq).toBe(first.seq);
    expect(ok(await a.call('activity_log', { ...input, idempotency_key: 'mig-42' })).idempotent_replay).toBe(true);
    fails(await a.call('activity_log', { ...input, summary: 'another', idempotency_key: 'mig-42' }), 'IDEMPOTENCY_CONFLICT');
    const changed = ok(await a.call('activity_log', { ...input, summary: '0043 applied' }));
    expect(changed.seq).toBeGreaterThan(first.seq);
    // the same words from another actor, or another run, are their own milestone
    expect(ok(await asRun(other, { run_id: 'retrier-other' }).call('activity_log', input)).deduplicated).toBe(false);
    expect(ok(await asRun(T.agent, { run_id: 'retrier-2' }).call('activity_log', input)).deduplicated).toBe(false);
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.activity where tenant_id = $1 and verb = 'migration.applied'`, [T.id]);
    expect(n).toBe(4);
  });

  it('logs under a run the caller forked, never under someone else’s', async () => {
    const parent = asRun(T.agent, { run_id: 'parent-run' });
    const child = ok(await parent.call('run_fork', { label: 'child' }));
    const onChild = ok(await parent.call('activity_log', { verb: 'child.note', summary: 'logged for the child', run_id: child.run_key }));
    expect(onChild.activity).toMatchObject({ run_id: child.run_key, object_type: 'run', object_id: child.run.id });
    ok(await asRun(other, { run_id: 'their-run' }).call('run_heartbeat', {}));
    expect(fails(await parent.call('activity_log', { verb: 'x.y', summary: 'not mine', run_id: 'their-run' }), 'FORBIDDEN').message).toContain('another actor');
    fails(await parent.call('activity_log', { verb: 'x.y', summary: 'nowhere', run_id: 'no-such-run' }), 'NOT_FOUND');
    // the database refuses a forged run too: the policy admits only the caller's own runs
    const asWriter = (run: string) => db.session(async (s) => {
      await s.exec('begin');
      try {
        await s.exec(`set local role bullpen_writer; select set_config('request.jwt.claims', '${JSON.stringify(T.agent.claims)}', true)`);
        await s.exec(`insert into public.activity (tenant_id, actor_id, run_id, verb, object_type) values ('${T.id}', '${T.agent.id}', '${run}', 'x.y', 'run')`);
      } finally {
        await s.exec('rollback');
      }
    });
    // (the activity trigger refuses it before the policy is asked: a run belongs to its actor)
    await expect(asWriter('their-run')).rejects.toMatchObject({ message: expect.stringContaining('belongs to another actor') });
    await expect(asWriter(child.run_key)).resolves.toBeUndefined();
  });

  it('refuses Bullpen’s own verbs, bad verbs, unknown objects and oversized metadata', async () => {
    for (const verb of ['task.status_changed', 'run.ended', 'pr.merged', 'feature_request.filed']) {
      const e = fails(await T.agent.call('activity_log', { verb, summary: 'forged' }), 'VALIDATION_ERROR');
      expect(e.message).toContain('verb');
    }
    expect(fails(await T.agent.call('activity_log', { verb: 'Deploy Finished', summary: 'x' }), 'VALIDATION_ERROR').message).toContain('verb');
    expect(fails(await T.agent.call('activity_log', { verb: 'deploy', summary: 'x' }), 'VALIDATION_ERROR').message).toContain('verb');
    expect(fails(await T.agent.call('activity_log', { verb: 'deploy.done', summary: '  ' }), 'VALIDATION_ERROR').message).toContain('summary');
    expect(fails(await T.agent.call('activity_log', { verb: 'deploy.done', summary: 'x', severity: 'fatal' }), 'VALIDATION_ERROR').message).toContain('severity');
    expect(fails(await T.agent.call('activity_log', { verb: 'deploy.done', summary: 'x', metadata: { blob: 'x'.repeat(20_000) } }), 'VALIDATION_ERROR').message).toContain('metadata');
    expect(fails(await T.agent.call('activity_log', { verb: 'deploy.done', summary: 'x', object_type: 'task' }), 'VALIDATION_ERROR').message).toContain('object_id');
    fails(await T.agent.call('activity_log', { verb: 'deploy.done', summary: 'x', object_type: 'task', object_id: 'DEP-99' }), 'NOT_FOUND');
    fails(await T.agent.call('activity_log', { verb: 'deploy.done', summary: 'x', object_type: 'project', object_id: 'NOPE' }), 'NOT_FOUND');
  });

  it('stays append-only: nobody rewrites a milestone', async () => {
    await expect(db.query(`update public.activity set summary = 'rewritten' where tenant_id = $1 and verb = 'deploy.finished'`, [T.id])).rejects.toMatchObject({ code: 'BPFRB' });
  });
});

describe('activity_query', () => {
  it('filters by project, actor, object, verb family, run, severity and time window, newest first', async () => {
    const all = ok(await T.agent.call('activity_query', { limit: 200 }));
    expect(all.activity.every((e: { seq: number }, i: number, arr: { seq: number }[]) => i === 0 || arr[i - 1].seq > e.seq)).toBe(true);
    const dep = ok(await T.agent.call('activity_query', { project_id: 'DEP', limit: 200 }));
    expect(dep.activity.length).toBeGreaterThan(2);
    expect(dep.activity.every((e: { project_key: string }) => e.project_key === 'DEP')).toBe(true);
    const mine = ok(await other.call('activity_query', { actor_id: 'me', limit: 200 }));
    expect(mine.activity.every((e: { actor_id: string }) => e.actor_id === other.id)).toBe(true);
    expect(mine.activity.length).toBeGreaterThan(0);
    const onTask = ok(await T.agent.call('activity_query', { object_id: 'DEP-1' }));
    expect(onTask.activity.map((e: { verb: string }) => e.verb)).toEqual(['tests.passed', 'task.created']);
    expect(onTask.activity[1]).toMatchObject({ task_ref: 'DEP-1', task_title: 'Ship v2', actor_kind: 'agent' });
    expect(ok(await T.agent.call('activity_query', { object_id: taskId })).activity).toHaveLength(2);
    const family = ok(await T.agent.call('activity_query', { verb: 'task.*' }));
    expect(family.activity.every((e: { verb: string }) => e.verb.startsWith('task.'))).toBe(true);
    expect(family.activity.length).toBe(2);
    const exact = ok(await T.agent.call('activity_query', { verb: 'deploy.finished' }));
    expect(exact.activity).toHaveLength(1);
    const byRun = ok(await T.agent.call('activity_query', { run_id: 'deployer' }));
    expect(byRun.activity.map((e: { verb: string }) => e.verb)).toEqual(['tests.passed', 'deploy.finished']);
    const warn = ok(await T.agent.call('activity_query', { severity: 'warn' }));
    expect(warn.activity.map((e: { verb: string }) => e.verb)).toEqual(['tests.passed']);
    const future = ok(await T.agent.call('activity_query', { since: new Date(Date.now() + 60_000).toISOString() }));
    expect(future.activity).toEqual([]);
    const past = ok(await T.agent.call('activity_query', { until: '2000-01-01T00:00:00Z' }));
    expect(past.activity).toEqual([]);
    const window = ok(await T.agent.call('activity_query', { since: new Date(Date.now() - 3_600_000).toISOString(), until: new Date(Date.now() + 60_000).toISOString(), limit: 200 }));
    expect(window.activity.length).toBe(all.activity.length);
    // the coordination room's "an inbox changed" signals stay out of the log unless asked for
    ok(await T.agent.call('handoff_create', { to_actor_ids: [other.id], title: 'a ping' }));
    expect(ok(await T.agent.call('activity_query', { limit: 5 })).activity.some((e: { object_type: string }) => e.object_type === 'inbox')).toBe(false);
    expect(ok(await T.agent.call('activity_query', { verb: 'inbox.*' })).activity.map((e: { object_id: string }) => e.object_id)).toEqual([other.id]);
    const typed = ok(await T.agent.call('activity_query', { object_type: 'run' }));
    expect(typed.activity.every((e: { object_type: string }) => e.object_type === 'run')).toBe(true);
  });

  it('pages with a cursor and refuses bad filters, naming them', async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await T.agent.call('activity_query', { limit: 4, ...(cursor ? { cursor } : {}) }));
      seen.push(...page.activity.map((e: { seq: number }) => e.seq));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    const all = ok(await T.agent.call('activity_query', { limit: 200 }));
    expect(seen).toEqual(all.activity.map((e: { seq: number }) => e.seq));
    expect(fails(await T.agent.call('activity_query', { cursor: 'not base64 at all' }), 'VALIDATION_ERROR').message).toContain('cursor');
    expect(fails(await T.agent.call('activity_query', { since: 'yesterday' }), 'VALIDATION_ERROR').message).toContain('since');
    expect(fails(await T.agent.call('activity_query', { verb: 'Task.*' }), 'VALIDATION_ERROR').message).toContain('verb');
    expect(fails(await T.agent.call('activity_query', { limit: 0 }), 'VALIDATION_ERROR').message).toContain('limit');
    fails(await T.agent.call('activity_query', { project_id: 'NOPE' }), 'NOT_FOUND');
    fails(await T.agent.call('activity_query', { object_id: 'DEP-77' }), 'NOT_FOUND');
    fails(await T.agent.call('activity_query', { run_id: 'never-ran' }), 'NOT_FOUND');
    fails(await T.agent.call('activity_query', { actor_id: '00000000-0000-4000-8000-000000000000' }), 'NOT_FOUND');
  });
});
