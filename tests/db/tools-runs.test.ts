import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRegistry } from '../../lib/jobs';
import { reapRuns } from '../../lib/jobs/reaper';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';
import { asRun } from '../helpers/runs';

let db: TestDb;
let T: Tenant;
let other: Actor;

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'runs');
  other = await T.addAgent('other');
  ok(await T.agent.call('project_create', { title: 'Runs', key: 'RN' }));
});
afterAll(() => db.drop());

async function waitFor(check: () => Promise<boolean>, ms = 10_000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function run(key: string) {
  const rows = await db.query<Record<string, any>>(`select * from public.runs where tenant_id = $1 and run_key = $2`, [T.id, key]);
  return rows[0];
}

/** Makes a run look silent for a while (as if its last heartbeat or write was long ago). */
async function silence(key: string, seconds: number) {
  await db.query(`update public.runs set last_active_at = now() - make_interval(secs => $3) where tenant_id = $1 and run_key = $2`, [T.id, key, seconds]);
}

describe('lazy registration', () => {
  it('registers a run at its first write, not at a read, as a session of the calling actor', async () => {
    const a = asRun(T.agent, { run_id: 'lazy-1' });
    ok(await a.call('task_query', {}));
    expect(await run('lazy-1')).toBeUndefined();
    ok(await a.call('task_create', { project_id: 'RN', title: 'first write' }));
    expect(await run('lazy-1')).toMatchObject({ actor_id: T.agent.id, kind: 'session', status: 'running', parent_run_id: null });
    ok(await a.call('task_create', { project_id: 'RN', title: 'second write' }));
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.runs where tenant_id = $1 and run_key = 'lazy-1'`, [T.id]);
    expect(n).toBe(1);
  });

  it('whoami registers the run too (the first call of every run)', async () => {
    ok(await asRun(T.agent, { run_id: 'who-first' }).call('whoami', {}));
    expect(await run('who-first')).toMatchObject({ kind: 'session', status: 'running' });
  });

  it('a parent run makes a subagent run; a child that came first is linked when the parent appears', async () => {
    const child = asRun(other, { run_id: 'child-early', parent_run_id: 'parent-late' });
    ok(await child.call('task_create', { project_id: 'RN', title: 'by the child' }));
    expect(await run('child-early')).toMatchObject({ kind: 'subagent', parent_run_key: 'parent-late', parent_run_id: null });
    ok(await asRun(T.agent, { run_id: 'parent-late' }).call('task_create', { project_id: 'RN', title: 'by the parent' }));
    const parent = await run('parent-late');
    expect(await run('child-early')).toMatchObject({ parent_run_id: parent.id });
    const tree = ok(await T.agent.call('run_get', { run_key: 'parent-late', include_children: true }));
    expect(tree.subtree.map((r: { run_key: string; depth: number }) => [r.run_key, r.depth])).toEqual([['child-early', 1]]);
  });

  it('a write revives a run the reaper ended', async () => {
    const a = asRun(T.agent, { run_id: 'revive-me' });
    ok(await a.call('task_create', { project_id: 'RN', title: 'alive' }));
    await silence('revive-me', 7200);
    await reapRuns(db, { afterSeconds: 1800 });
    // it held no lease: the connection went away, and the run ended idle
    expect(await run('revive-me')).toMatchObject({ status: 'idle', end_reason: expect.stringContaining('idle: no call since') });
    // A connection remembers the last run it saw for 30 s and skips the lookup meanwhile; in real
    // time a run the reaper abandons has been silent far longer. Another run's write moves it on.
    ok(await asRun(T.agent, { run_id: 'revive-other' }).call('task_create', { project_id: 'RN', title: 'meanwhile' }));
    ok(await a.call('comment_add', { object_type: 'project', object_id: 'RN', body: 'still here' }));
    expect(await run('revive-me')).toMatchObject({ status: 'running', ended_at: null });
  });
});

describe('a series of loop ticks', () => {
  it("seeds each tick's whoami cursor from the previous tick, so the delta is continuous", async () => {
    const tick1 = asRun(T.agent, { run_id: 'nightly-1', run_group: 'nightly' });
    const w1 = ok(await tick1.call('whoami', {}));
    expect(await run('nightly-1')).toMatchObject({ kind: 'loop_tick', run_series_key: 'nightly' });
    expect(w1.delta).toBeDefined();
    // between the ticks: someone else works, and the same agent (another run) looks around
    ok(await other.call('task_create', { project_id: 'RN', title: 'done while the loop slept' }));
    ok(await asRun(T.agent, { run_id: 'interactive' }).call('whoami', {}));
    const plain = ok(await asRun(T.agent, { run_id: 'interactive-2' }).call('whoami', {}));
    expect(plain.delta.recent.map((e: { summary: string }) => e.summary)).not.toContain('RN-' + '0');
    expect(JSON.stringify(plain.delta.recent)).not.toContain('done while the loop slept');
    const tick2 = asRun(T.agent, { run_id: 'nightly-2', run_group: 'nightly' });
    const w2 = ok(await tick2.call('whoami', {}));
    expect(JSON.stringify(w2.delta.recent)).toContain('done while the loop slept');
    expect(new Date(w2.delta.since).getTime()).toBe(new Date((await run('nightly-1')).seen_through).getTime());
    // the next tick starts after this one
    const w3 = ok(await asRun(T.agent, { run_id: 'nightly-3', run_group: 'nightly' }).call('whoami', {}));
    expect(JSON.stringify(w3.delta.recent)).not.toContain('done while the loop slept');
    const series = ok(await T.agent.call('run_query', { run_series_key: 'nightly' }));
    expect(series.runs.map((r: { run_key: string }) => r.run_key)).toEqual(['nightly-3', 'nightly-2', 'nightly-1']);
  });
});

describe('run_heartbeat', () => {
  it('records head, branch, dirty, counts and usage; usage is a running total per model', async () => {
    const a = asRun(T.agent, { run_id: 'beat' });
    const one = ok(await a.call('run_heartbeat', {
      head_sha: 'ABCDEF1234567', branch: 'feat/x', dirty: true, counts: { files_changed: 3 },
      usage: { model: 'm-large', tokens_in: 1000, tokens_out: 200, cost_usd: 0.5 },
    }));
    expect(one.run).toMatchObject({ run_key: 'beat', head_sha: 'abcdef1234567', branch: 'feat/x', dirty: true, counts: { files_changed: 3 },
      tokens_in: 1000, tokens_out: 200, cost_usd: 0.5, stale: false });
    expect(one.run.last_heartbeat_at).toBeTruthy();
    // a retried or later report for the same model replaces it; another model adds
    ok(await a.call('run_heartbeat', { usage: [{ model: 'm-large', tokens_in: 1500, tokens_out: 300, cost_usd: 0.75 }, { model: 'm-small', tokens_in: 10, tokens_out: 5, cost_usd: 0.01 }] }));
    const again = ok(await a.call('run_heartbeat', { usage: { model: 'm-large', tokens_in: 1500, tokens_out: 300, cost_usd: 0.75 } }));
    expect(again.run).toMatchObject({ tokens_in: 1510, tokens_out: 305, cost_usd: 0.76, head_sha: 'abcdef1234567', dirty: true });
    const s = ok(await a.call('run_summary', {}));
    expect(s.usage).toMatchObject({ tokens_in: 1510, tokens_out: 305, cost_usd: 0.76 });
    expect(s.usage.by_model.map((m: { model: string }) => m.model)).toEqual(['m-large', 'm-small']);
  });

  it('registers the repository a heartbeat reports', async () => {
    const a = asRun(T.agent, { run_id: 'beat-repo' });
    const hb = ok(await a.call('run_heartbeat', { remote_url: 'https://bot:tok@github.com/acme/beat.git', branch: 'main' }));
    expect(hb.run.repository).toBe('acme/beat');
    const repos = ok(await T.agent.call('repo_query', { slug: 'acme/beat' }));
    expect(repos.repositories[0].remote_url).toBe('https://github.com/acme/beat');
  });

  it('refuses another actor’s run, an ended run, an unknown run and bad input', async () => {
    ok(await asRun(T.agent, { run_id: 'mine-only' }).call('run_heartbeat', {}));
    expect(fails(await other.call('run_heartbeat', { run_key: 'mine-only' }), 'FORBIDDEN').message).toContain('another actor');
    const ended = asRun(T.agent, { run_id: 'finished' });
    ok(await ended.call('run_end', { status: 'succeeded' }));
    fails(await ended.call('run_heartbeat', {}), 'CONFLICT');
    fails(await T.agent.call('run_heartbeat', { run_key: 'no-such-run' }), 'NOT_FOUND');
    expect(fails(await T.agent.call('run_heartbeat', { head_sha: 'not a sha' }), 'VALIDATION_ERROR').message).toContain('head_sha');
    expect(fails(await T.agent.call('run_heartbeat', { usage: { tokens_in: -1 } }), 'VALIDATION_ERROR').message).toContain('usage');
    expect(fails(await T.agent.call('run_heartbeat', { run_key: 'has spaces' }), 'VALIDATION_ERROR').message).toContain('run_key');
    expect(fails(await T.agent.call('run_heartbeat', { remote_url: '/home/me/repo' }), 'VALIDATION_ERROR').message).toContain('remote_url');
  });

  it('brings an idle run back and says so in the log', async () => {
    const a = asRun(T.agent, { run_id: 'lazarus' });
    ok(await a.call('run_heartbeat', {}));
    await silence('lazarus', 7200);
    await reapRuns(db, { afterSeconds: 1800 });
    const back = ok(await a.call('run_heartbeat', {}));
    expect(back).toMatchObject({ revived: true, run: { status: 'running' } });
    const log = ok(await T.agent.call('activity_query', { object_type: 'run', object_id: back.run.id }));
    expect(log.activity.map((e: { verb: string }) => e.verb)).toEqual(['run.resumed', 'run.idle']);
  });
});

describe('run_end', () => {
  it('closes a run once; the same end again is a no-op, another status a CONFLICT', async () => {
    const a = asRun(T.agent, { run_id: 'ending' });
    ok(await a.call('task_create', { project_id: 'RN', title: 'work' }));
    const end = ok(await a.call('run_end', { status: 'failed', summary: 'ran out of ideas', usage: { model: 'm', tokens_in: 5, tokens_out: 1, cost_usd: 0.001 } }));
    expect(end.run).toMatchObject({ status: 'failed', summary: 'ran out of ideas', tokens_in: 5, cost_usd: 0.001 });
    expect(end.run.ended_at).toBeTruthy();
    expect(ok(await a.call('run_end', { status: 'failed', idempotency_key: 'end-again' })).already_ended).toBe(true);
    fails(await a.call('run_end', { status: 'succeeded' }), 'CONFLICT');
    fails(await other.call('run_end', { run_key: 'ending', status: 'failed' }), 'FORBIDDEN');
    fails(await other.call('run_end', { run_key: 'no-such-run', status: 'failed' }), 'NOT_FOUND');
    expect(fails(await a.call('run_end', { status: 'abandoned' }), 'VALIDATION_ERROR').message).toContain('status');
  });

  it('reports the tasks the run still holds, and releases them when asked', async () => {
    const a = asRun(T.agent, { run_id: 'holder' });
    const t = ok(await a.call('task_create', { project_id: 'RN', title: 'held' }));
    ok(await a.call('task_claim', { task_id: t.task_id }));
    const kept = asRun(T.agent, { run_id: 'holder-2' });
    const t2 = ok(await kept.call('task_create', { project_id: 'RN', title: 'held by my other run' }));
    ok(await kept.call('task_claim', { task_id: t2.task_id }));
    const end = ok(await a.call('run_end', { status: 'cancelled', release_leases: true }));
    expect(end.released).toEqual([{ task_id: t.task_id, status: 'todo' }]);
    expect(end.held_tasks).toEqual([]);
    const task = ok(await T.human.call('task_get', { task_id: t.task_id }));
    expect(task.task).toMatchObject({ status: 'todo', assignee_actor_id: null, lease: null });
    expect(task.activity[0]).toMatchObject({ verb: 'task.released' });
    expect(task.activity[0].summary).toContain('run holder ended');
    expect(ok(await T.human.call('task_get', { task_id: t2.task_id })).task.status).toBe('in_progress');
    const end2 = ok(await kept.call('run_end', { status: 'succeeded' }));
    expect(end2.held_tasks.map((x: { task_id: string }) => x.task_id)).toEqual([t2.task_id]);
  });
});

describe('run_fork', () => {
  it('registers a child under the current run and tells how to hand it over', async () => {
    const a = asRun(T.agent, { run_id: 'forker' });
    const f = ok(await a.call('run_fork', { label: 'write tests', goal: 'cover the parser', agent_role: 'test-writer' }));
    expect(f.run).toMatchObject({ kind: 'subagent', label: 'write tests', agent_role: 'test-writer', parent_run_key: 'forker', status: 'running' });
    expect(f.env).toEqual({ BULLPEN_RUN_ID: f.run_key, BULLPEN_PARENT_RUN_ID: 'forker' });
    expect(f.headers).toEqual({ 'X-Bullpen-Run': f.run_key, 'X-Bullpen-Parent-Run': 'forker' });
    expect(f.run_key).toMatch(/^forker\.f-[0-9a-f]{8}$/);
    // the child works under its key; the parent's summary with children rolls it up
    const child = asRun(T.agent, { run_id: f.run_key, parent_run_id: 'forker' });
    ok(await child.call('task_create', { project_id: 'RN', title: 'by the forked child' }));
    const sum = ok(await a.call('run_summary', { include_children: true }));
    expect(sum.counts.tasks_created).toBe(0);
    expect(sum.subtree).toMatchObject({ runs: 2, counts: { tasks_created: 1 } });
    const named = ok(await a.call('run_fork', { run_key: 'forker-named' }));
    expect(named.run_key).toBe('forker-named');
    fails(await a.call('run_fork', { run_key: 'forker-named', label: 'again' }), 'ALREADY_EXISTS');
    expect(fails(await asRun(T.agent, { run_id: null }).call('run_fork', { label: 'orphan' }), 'VALIDATION_ERROR').message).toContain('no current run');
    expect(fails(await a.call('run_fork', { agent_role: 'x'.repeat(101) }), 'VALIDATION_ERROR').message).toContain('agent_role');
  });
});

describe('run_query, run_get and run_summary', () => {
  it('filters by actor, status, kind and root, pages with a cursor, and adds counts on detail:full', async () => {
    const mine = ok(await T.agent.call('run_query', { actor_id: 'me', limit: 200 }));
    expect(mine.runs.length).toBeGreaterThan(5);
    expect(mine.runs.every((r: { actor_id: string }) => r.actor_id === T.agent.id)).toBe(true);
    const theirs = ok(await T.agent.call('run_query', { actor_id: other.id }));
    expect(theirs.runs.map((r: { run_key: string }) => r.run_key)).toContain('child-early');
    const failed = ok(await T.agent.call('run_query', { status: ['failed', 'cancelled'] }));
    expect(failed.runs.map((r: { run_key: string }) => r.run_key).sort()).toEqual(['ending', 'holder']);
    const subs = ok(await T.agent.call('run_query', { kind: 'subagent' }));
    expect(subs.runs.every((r: { kind: string }) => r.kind === 'subagent')).toBe(true);
    const tree = ok(await T.agent.call('run_query', { root_run_id: 'forker' }));
    const keys = tree.runs.map((r: { run_key: string }) => r.run_key).sort();
    expect(keys).toHaveLength(3);
    expect(keys.filter((k: string) => k === 'forker' || k === 'forker-named')).toHaveLength(2);
    expect(keys.find((k: string) => k.startsWith('forker.f-'))).toMatch(/^forker\.f-[0-9a-f]{8}$/);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await T.agent.call('run_query', { limit: 3, ...(cursor ? { cursor } : {}) }));
      seen.push(...page.runs.map((r: { run_key: string }) => r.run_key));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    const all = ok(await T.agent.call('run_query', { limit: 200 }));
    expect(seen).toEqual(all.runs.map((r: { run_key: string }) => r.run_key));
    const full = ok(await T.agent.call('run_query', { root_run_id: 'lazy-1', detail: 'full' }));
    expect(full.runs[0].produced).toMatchObject({ tasks_created: 2, activity: 2 });
    expect(fails(await T.agent.call('run_query', { cursor: 'nonsense!' }), 'VALIDATION_ERROR').message).toContain('cursor');
    expect(fails(await T.agent.call('run_query', { kind: 'daemon' }), 'VALIDATION_ERROR').message).toContain('kind');
    fails(await T.agent.call('run_query', { root_run_id: 'nowhere' }), 'NOT_FOUND');
    fails(await T.agent.call('run_query', { actor_id: '00000000-0000-4000-8000-000000000000' }), 'NOT_FOUND');
  });

  it('run_get reads by uuid or key, defaults to the current run, and refuses both or neither known', async () => {
    const byKey = ok(await T.agent.call('run_get', { run_key: 'forker' }));
    expect(byKey.children_count).toBe(2);
    const byId = ok(await T.agent.call('run_get', { run_id: byKey.run.id }));
    expect(byId.run.run_key).toBe('forker');
    const child = ok(await T.agent.call('run_get', { run_id: 'forker-named' }));
    expect(child.parent).toMatchObject({ run_key: 'forker' });
    expect(ok(await asRun(T.agent, { run_id: 'forker' }).call('run_get', {})).run.run_key).toBe('forker');
    expect(fails(await T.agent.call('run_get', { run_id: byKey.run.id, run_key: 'forker' }), 'VALIDATION_ERROR').message).toContain('run_key');
    fails(await T.agent.call('run_get', { run_key: 'never-was' }), 'NOT_FOUND');
    fails(await asRun(T.agent, { run_id: 'not-yet' }).call('run_get', {}), 'NOT_FOUND');
    fails(await asRun(T.agent, { run_id: null }).call('run_summary', {}), 'VALIDATION_ERROR');
  });

  it('run_summary counts tasks created and completed, comments, code refs, activity, tokens and cost', async () => {
    const a = asRun(T.agent, { run_id: 'standup' });
    const t = ok(await a.call('task_create', { project_id: 'RN', title: 'ship it' }));
    ok(await a.call('task_create', { project_id: 'RN', title: 'and this' }));
    ok(await a.call('task_claim', { task_id: t.task_id }));
    ok(await a.call('task_update', { task_id: t.task_id, patch: { status: 'done' } }));
    ok(await a.call('comment_add', { object_type: 'task', object_id: t.task_id, body: 'shipped' }));
    ok(await a.call('task_code_ref', { task_id: t.task_id, ref_type: 'pr', pr_number: 7, title: 'Ship it' }));
    ok(await a.call('run_heartbeat', { usage: { model: 'm', tokens_in: 100, tokens_out: 50, cost_usd: 0.02 } }));
    const s = ok(await a.call('run_summary', {}));
    expect(s.counts).toMatchObject({ tasks_created: 2, tasks_completed: 1, comments: 1, code_refs: 1, decisions: 0, notes: 0, handoffs: 0 });
    expect(s.counts.activity).toBe(6);
    expect(s.counts.by_verb).toMatchObject({ 'task.created': 2, 'task.claimed': 1, 'task.status_changed': 1, 'code_ref.added': 1 });
    expect(s.usage).toMatchObject({ tokens_in: 100, tokens_out: 50, cost_usd: 0.02 });
    expect(s.duration_seconds).toBeGreaterThanOrEqual(0);
    // another actor can read it by key
    expect(ok(await other.call('run_summary', { run_id: 'standup' })).counts.tasks_completed).toBe(1);
    fails(await other.call('run_summary', { run_id: 'no-standup' }), 'NOT_FOUND');
    expect(fails(await other.call('run_summary', { run_id: 'has space' }), 'VALIDATION_ERROR').message).toContain('run_id');
  });
});

describe('the reaper', () => {
  it('abandons a silent run, releases its leases with a reason, and the task is claimable again', async () => {
    const worker = await T.addAgent('worker');
    const w = asRun(worker, { run_id: 'worker-run' });
    const t = ok(await w.call('task_create', { project_id: 'RN', title: 'half done', labels: ['reap'] }));
    ok(await w.call('task_claim', { task_id: t.task_id }));
    // the same worker, another live run: its lease must survive
    const live = asRun(worker, { run_id: 'worker-live' });
    const t2 = ok(await live.call('task_create', { project_id: 'RN', title: 'in hand', labels: ['reap'] }));
    ok(await live.call('task_claim', { task_id: t2.task_id }));
    fails(await other.call('task_claim', { task_id: t.task_id }), 'LEASE_HELD');
    await silence('worker-run', 3600);
    const swept = await reapRuns(db, { afterSeconds: 1800 });
    expect(swept.abandoned).toBeGreaterThanOrEqual(1);
    expect(swept.released).toBeGreaterThanOrEqual(1);
    expect(await run('worker-run')).toMatchObject({ status: 'abandoned' });
    expect((await run('worker-run')).end_reason).toMatch(/^no heartbeat or write since /);
    expect((await run('worker-live')).status).toBe('running');
    const task = ok(await T.human.call('task_get', { task_id: t.task_id }));
    expect(task.task).toMatchObject({ status: 'todo', assignee_actor_id: null, lease: null });
    expect(task.activity[0]).toMatchObject({ verb: 'task.released', actor_id: null });
    expect(task.activity[0].summary).toMatch(/^lease released: run worker-run went silent/);
    expect(task.activity[0].metadata).toMatchObject({ reason: 'run_abandoned', run_key: 'worker-run', previous_actor_id: worker.id });
    expect(ok(await T.human.call('task_get', { task_id: t2.task_id })).task.status).toBe('in_progress');
    // claimable again, by anyone
    const claim = ok(await other.call('task_claim', { label: 'reap' }));
    expect(claim.task.id).toBe(t.task_id);
    const abandoned = ok(await T.agent.call('activity_query', { verb: 'run.abandoned', severity: 'warn' }));
    expect(abandoned.activity.some((e: { summary: string }) => e.summary.startsWith('worker-run went silent'))).toBe(true);
    // a second sweep finds nothing more to do
    expect(await reapRuns(db, { afterSeconds: 1800 })).toMatchObject({ abandoned: 0, released: 0 });
  });

  it('runs as the recurring job sweep.runs in every app process', async () => {
    const { JobWorker, jobs } = await import('../../lib/jobs');
    expect(jobs.get('sweep.runs')).toMatchObject({ everySeconds: 60 });
    const registry = new JobRegistry().register('sweep.runs', jobs.get('sweep.runs')!.run, { everySeconds: 60 });
    const w = new JobWorker(db, { registry, log: () => {} });
    const live = asRun(T.agent, { run_id: 'job-swept' });
    const t = ok(await live.call('task_create', { project_id: 'RN', title: 'held by a run that will go silent' }));
    ok(await live.call('task_claim', { task_id: t.task_id }));
    process.env.BULLPEN_RUN_IDLE_SECONDS = '600';
    try {
      await silence('job-swept', 700);
      // start() schedules the recurring kinds (due now); draining runs the sweep, which schedules its next run
      await w.start();
      await w.stop();
      await w.drain();
      await waitFor(async () => (await run('job-swept')).status === 'abandoned');
    } finally {
      delete process.env.BULLPEN_RUN_IDLE_SECONDS;
    }
    expect(ok(await T.human.call('task_get', { task_id: t.task_id })).task.status).toBe('todo');
    const next = await db.query<{ n: number }>(`select count(*)::int as n from bullpen.jobs where kind = 'sweep.runs' and status = 'pending' and run_at > now()`);
    expect(next[0].n).toBe(1);
  });

  it('sweeps in batches', async () => {
    for (let i = 0; i < 5; i++) ok(await asRun(T.agent, { run_id: `batch-${i}` }).call('run_heartbeat', {}));
    await db.query(`update public.runs set last_active_at = now() - interval '2 hours' where tenant_id = $1 and run_key like 'batch-%'`, [T.id]);
    const swept = await reapRuns(db, { afterSeconds: 1800, batch: 2 });
    // they held nothing: each ends idle
    expect(swept).toMatchObject({ abandoned: 0, idle: 5, batches: 3 });
    expect((await run('batch-0')).status).toBe('idle');
  });
});
