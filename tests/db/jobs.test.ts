import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeSignInToken, createSignInToken, hasSignedIn } from '../../lib/console/signin';
import type { Claims, Db } from '../../lib/db/types';
import { enqueue, JobRegistry, JobWorker, jobs as processJobs } from '../../lib/jobs';
import { claim, complete, jobStats } from '../../lib/jobs/queue';
import type { Job, JobOptions } from '../../lib/jobs/registry';
import { freshDb, reopenableDb, seedTenant, target, type Tenant, type TestDb } from '../helpers/db';

/**
 * Jobs: enqueued with the write that needs them, durable across restarts, run once across workers,
 * retried with backoff, kept when they run out of attempts; the sweeps; and the walls around the
 * jobs table. On PGlite and, in the pg project, on a real Postgres.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'jobs-a');
  B = await seedTenant(db, 'jobs-b');
});

afterAll(async () => {
  await db.drop();
});

const quiet = { log: () => {} };

/** A registry with one kind whose runs are recorded. */
function recorder(kind: string, run: (job: Job) => Promise<void> = async () => {}, opts?: JobOptions) {
  const ran: Job[] = [];
  const registry = new JobRegistry().register(
    kind,
    async (job) => {
      ran.push(job);
      await run(job);
    },
    opts,
  );
  return { ran, registry };
}

type JobRow = { id: string; tenant_id: string | null; kind: string; status: string; attempts: number; last_error: string | null; key: string | null; payload: Record<string, unknown> };

async function jobsOf(kind: string, q: Db = db): Promise<JobRow[]> {
  return q.query<JobRow>(`select id::text, tenant_id, kind, status, attempts, last_error, key, payload from bullpen.jobs where kind = $1 order by id`, [kind]);
}

/** Statements run as an RPC body runs: role bullpen_writer under the caller's claims, one transaction. */
function asWriter<T extends Record<string, unknown>>(claims: Claims, sql: string): Promise<T[]> {
  return db.withClaims<T>(claims, `set local role bullpen_writer; ${sql}`);
}

const until = async (cond: () => Promise<boolean>, ms = 20_000) => {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('enqueue in the writing transaction', () => {
  it('commits with the write, in the caller’s workspace', async () => {
    const rows = await asWriter<{ id: string }>(
      A.agent.claims,
      `insert into public.projects (tenant_id, key, title) values ('${A.id}', 'JOBS', 'Jobs');
       select bullpen.job_enqueue('test.after_write', '{"project": "JOBS"}')::text as id`,
    );
    expect(Number(rows[0].id)).toBeGreaterThan(0);
    const [job] = await jobsOf('test.after_write');
    expect(job).toMatchObject({ tenant_id: A.id, status: 'pending', attempts: 0, payload: { project: 'JOBS' } });
  });

  it('rolls back with the write: a failing RPC leaves no job', async () => {
    await expect(
      asWriter(
        A.agent.claims,
        `insert into public.projects (tenant_id, key, title) values ('${A.id}', 'GONE', 'Gone');
         select bullpen.job_enqueue('test.rolled_back', '{}');
         select 1 / 0`,
      ),
    ).rejects.toMatchObject({ code: '22012' });
    expect(await jobsOf('test.rolled_back')).toEqual([]);
    expect(await db.query(`select 1 from public.projects where key = 'GONE'`)).toEqual([]);
  });

  it('server code enqueues inside its own transaction too: rolled back, no job', async () => {
    await db.session(async (s) => {
      await s.exec('begin');
      await enqueue(s, 'test.server_rollback', { n: 1 }, { tenantId: A.id });
      await s.exec('rollback');
    });
    expect(await jobsOf('test.server_rollback')).toEqual([]);
    const id = await enqueue(db, 'test.server_commit', { n: 2 }, { tenantId: B.id });
    expect(await jobsOf('test.server_commit')).toEqual([expect.objectContaining({ id: String(id), tenant_id: B.id, payload: { n: 2 } })]);
  });

  it('a key holds one pending job per workspace; once it runs, the key enqueues afresh', async () => {
    const enq = (t: Tenant, payload: string) =>
      asWriter<{ id: string }>(t.agent.claims, `select bullpen.job_enqueue('test.keyed', '${payload}', now(), 'note:1')::text as id`).then((r) => r[0].id);
    const first = await enq(A, '{"v": 1}');
    expect(await enq(A, '{"v": 2}')).toBe(first);
    // the same key in another workspace is another job: no workspace can hold back another's
    const other = await enq(B, '{"v": 1}');
    expect(other).not.toBe(first);
    expect((await jobsOf('test.keyed')).map((j) => [j.tenant_id, j.payload])).toEqual([
      [A.id, { v: 1 }],
      [B.id, { v: 1 }],
    ]);
    expect(await enqueue(db, 'test.keyed', { v: 3 }, { tenantId: A.id, key: 'note:1' })).toBe(Number(first));

    let again = '';
    const { ran, registry } = recorder('test.keyed', async (job) => {
      // a write arriving while the job runs must get its own run: the handler may have read too early
      if (job.tenant_id === A.id && !again) again = await enq(A, '{"v": 4}');
    });
    const w = new JobWorker(db, { registry, ...quiet });
    expect(await w.drain()).toBe(3);
    expect(ran.map((j) => j.payload)).toEqual([{ v: 1 }, { v: 1 }, { v: 4 }]);
    expect(again).not.toBe(first);
    expect(await jobsOf('test.keyed')).toEqual([]);
  });
});

describe('retries', () => {
  it('back off exponentially with jitter, then keep the job as failed with its last error', async () => {
    const { ran, registry } = recorder(
      'test.flaky',
      async (job) => {
        throw new Error(`boom ${job.attempts}`);
      },
      { backoff: { baseMs: 4_000, maxMs: 60_000 } },
    );
    await enqueue(db, 'test.flaky', {}, { tenantId: A.id, maxAttempts: 3 });
    const w = new JobWorker(db, { registry, ...quiet });
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(await w.runOnce()).toBe(true);
      const [row] = await db.query<{ status: string; attempts: number; last_error: string; wait: number; locked_by: string | null }>(
        `select status, attempts, last_error, locked_by, extract(epoch from run_at - now())::float8 as wait from bullpen.jobs where kind = 'test.flaky'`,
      );
      expect(row).toMatchObject({ attempts: attempt, locked_by: null });
      expect(row.last_error).toContain(`boom ${attempt}`);
      if (attempt < 3) {
        expect(row.status).toBe('pending');
        waits.push(row.wait);
        // not due yet: nothing runs until the backoff has passed
        expect(await w.runOnce()).toBe(false);
        await db.query(`update bullpen.jobs set run_at = now() where kind = 'test.flaky'`);
      } else {
        expect(row.status).toBe('failed');
      }
    }
    // attempt 1 waits 2–4 s, attempt 2 waits 4–8 s (equal jitter over a doubling step)
    expect(waits[0]).toBeGreaterThan(1.5);
    expect(waits[0]).toBeLessThanOrEqual(4.1);
    expect(waits[1]).toBeGreaterThan(3.5);
    expect(waits[1]).toBeLessThanOrEqual(8.1);
    expect(ran).toHaveLength(3);
    // a failed job stays out of the queue, visible to health and to whoever inspects it
    expect(await w.drain()).toBe(0);
    expect((await jobStats(db)).failed).toBeGreaterThanOrEqual(1);
  });

  it('a job that fails once and then succeeds is gone', async () => {
    let calls = 0;
    const { registry } = recorder('test.once_flaky', async () => {
      if (++calls === 1) throw new Error('first time');
    }, { backoff: { baseMs: 10, maxMs: 10 } });
    await enqueue(db, 'test.once_flaky', {});
    const w = new JobWorker(db, { registry, ...quiet });
    await w.runOnce();
    await new Promise((r) => setTimeout(r, 30));
    expect(await w.drain()).toBe(1);
    expect(calls).toBe(2);
    expect(await jobsOf('test.once_flaky')).toEqual([]);
  });
});

describe('once across workers', () => {
  it(target === 'pg' ? 'two app instances (two pools) racing run every job exactly once' : 'two worker loops on one database run every job exactly once', async () => {
    const n = target === 'pg' ? 200 : 60;
    const runs = new Map<number, string[]>();
    const registry = new JobRegistry().register('test.race', async (job, { workerId }) => {
      runs.set(job.id, [...(runs.get(job.id) ?? []), workerId]);
      await new Promise((r) => setTimeout(r, Math.random() * 3));
    });
    let second: Db = db;
    let reopen: Awaited<ReturnType<typeof reopenableDb>> | null = null;
    let first: Db = db;
    if (target === 'pg') {
      reopen = await reopenableDb();
      first = await reopen.open();
      second = await reopen.open();
    }
    try {
      const values = Array.from({ length: n }, (_, i) => `('test.race', '{"i": ${i}}'::jsonb)`).join(', ');
      await first.query(`insert into bullpen.jobs (kind, payload) values ${values}`);
      const w1 = await new JobWorker(first, { registry, pollMs: 20, concurrency: 4, id: 'one', ...quiet }).start();
      const w2 = await new JobWorker(second, { registry, pollMs: 20, concurrency: 4, id: 'two', ...quiet }).start();
      await until(async () => (await first.query(`select 1 from bullpen.jobs where kind = 'test.race' limit 1`)).length === 0);
      await Promise.all([w1.stop(), w2.stop()]);
      expect(runs.size).toBe(n);
      expect([...runs.values()].filter((w) => w.length !== 1)).toEqual([]);
      const by = [...runs.values()].map((w) => w[0]);
      console.log(`[jobs:${target}] ${n} jobs, two workers × 4 loops: ${by.filter((w) => w === 'one').length} + ${by.filter((w) => w === 'two').length}, each ran once`);
      expect(by.filter((w) => w === 'one').length, 'both workers took jobs').toBeGreaterThan(0);
      expect(by.filter((w) => w === 'two').length, 'both workers took jobs').toBeGreaterThan(0);
    } finally {
      if (reopen) {
        await first.close();
        await second.close();
        await reopen.drop();
      }
    }
  });

  it('a lease that ran out (its worker crashed) is taken over; the crashed worker’s late finish changes nothing', async () => {
    const { ran, registry } = recorder('test.lease');
    const kind = registry.get('test.lease')!;
    await enqueue(db, 'test.lease', { doc: 7 }, { tenantId: A.id });
    const taken = await claim(db, 'crashed-worker', [kind]);
    expect(taken).toMatchObject({ kind: 'test.lease', attempts: 1 });
    const w = new JobWorker(db, { registry, id: 'survivor', ...quiet });
    // a live lease is respected
    expect(await w.runOnce()).toBe(false);
    expect((await jobStats(db)).running).toBeGreaterThanOrEqual(1);
    await db.query(`update bullpen.jobs set locked_until = now() - interval '1 second' where kind = 'test.lease'`);
    expect((await jobStats(db)).due).toBeGreaterThanOrEqual(1);
    expect(await w.runOnce()).toBe(true);
    expect(ran).toEqual([expect.objectContaining({ id: taken!.id, attempts: 2, payload: { doc: 7 } })]);
    expect(await complete(db, taken!, 'crashed-worker')).toBe(false);
    expect(await jobsOf('test.lease')).toEqual([]);
  });

  it('a run that overstays its lease is aborted and retried', async () => {
    const { registry } = recorder(
      'test.slow',
      (_job) => new Promise<void>(() => {}),
      { leaseSeconds: 1, backoff: { baseMs: 60_000, maxMs: 60_000 } },
    );
    await enqueue(db, 'test.slow', {});
    const w = new JobWorker(db, { registry, ...quiet });
    expect(await w.runOnce()).toBe(true);
    const [row] = await jobsOf('test.slow');
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row.last_error).toMatch(/lease of 1s ran out/);
  });
});

describe('restarts', () => {
  it('a job enqueued before a restart runs after it', async () => {
    const store = await reopenableDb();
    try {
      const before = await store.open();
      const t = await seedTenant(before, 'jobs-restart');
      await enqueue(before, 'test.durable', { note: 'survives' }, { tenantId: t.id });
      await before.close();

      const after = await store.open();
      try {
        const { ran, registry } = recorder('test.durable');
        expect(await new JobWorker(after, { registry, ...quiet }).drain()).toBe(1);
        expect(ran).toEqual([expect.objectContaining({ tenant_id: t.id, payload: { note: 'survives' }, attempts: 1 })]);
        expect(await jobsOf('test.durable', after)).toEqual([]);
      } finally {
        await after.close();
      }
    } finally {
      await store.drop();
    }
  });
});

describe('sweeps', () => {
  it('delete expired idempotency keys and spent or expired sign-in links, keep live ones, and schedule themselves once', async () => {
    const idem = (key: string, expires: string) =>
      db.query(
        `insert into public.idempotency_keys (tenant_id, actor_id, key, tool, request_hash, expires_at)
         values ($1, $2, $3, 'task_create', 'h', now() + $4::interval)`,
        [A.id, A.agent.id, key, expires],
      );
    await idem('sweep-old', '-1 minute');
    await idem('sweep-older', '-2 days');
    await idem('sweep-live', '1 hour');

    const spent = await createSignInToken(db, { tenantId: A.id, actorId: A.human.id });
    expect(await consumeSignInToken(db, spent.token)).not.toBeNull();
    const expired = await createSignInToken(db, { tenantId: A.id, actorId: A.human.id });
    await db.query(
      `update bullpen.signin_tokens set created_at = now() - interval '2 days', expires_at = now() - interval '1 day'
        where token_hash = encode(sha256(convert_to($1, 'utf8')), 'hex')`,
      [expired.token],
    );
    const live = await createSignInToken(db, { tenantId: B.id, actorId: B.human.id });

    // two instances start together: one run of each sweep, each scheduling its next one
    const w1 = await new JobWorker(db, { registry: processJobs, pollMs: 20, ...quiet }).start();
    const w2 = await new JobWorker(db, { registry: processJobs, pollMs: 20, ...quiet }).start();
    const sweeps = processJobs.all().filter((k) => k.everySeconds && k.kind.startsWith('sweep.'));
    expect(sweeps.map((k) => k.kind).sort()).toEqual(['sweep.failed_jobs', 'sweep.idempotency_keys', 'sweep.runs', 'sweep.sessions', 'sweep.signin_tokens']);
    await until(async () => {
      const rows = await db.query<{ n: number }>(
        `select count(*)::int as n from bullpen.jobs where kind like 'sweep.%' and status = 'pending' and run_at > now() + interval '30 seconds'`,
      );
      return rows[0].n === sweeps.length;
    });
    await Promise.all([w1.stop(), w2.stop()]);
    const scheduled = await db.query<{ kind: string; key: string; status: string; tenant_id: string | null; every: number }>(
      `select kind, key, status, tenant_id, round(extract(epoch from run_at - now()))::int as every from bullpen.jobs where kind like 'sweep.%' order by kind`,
    );
    expect(scheduled.map((r) => [r.kind, r.key, r.status, r.tenant_id])).toEqual(sweeps.map((k) => k.kind).sort().map((k) => [k, k, 'pending', null]));
    for (const r of scheduled) {
      const every = sweeps.find((k) => k.kind === r.kind)!.everySeconds!;
      expect(r.every).toBeGreaterThan(every - 60);
      expect(r.every).toBeLessThanOrEqual(every);
    }

    const keys = await db.query<{ key: string }>(`select key from public.idempotency_keys where key like 'sweep-%' order by key`);
    expect(keys.map((k) => k.key)).toEqual(['sweep-live']);
    const tokens = await db.query<{ tenant_id: string; used: boolean; expired: boolean }>(
      `select tenant_id, used_at is not null as used, expires_at < now() as expired from bullpen.signin_tokens`,
    );
    expect(tokens).toEqual([{ tenant_id: B.id, used: false, expired: false }]);
    expect(live.token).toBeTruthy();
    // the sign-in is still known after its spent link was swept
    expect(await hasSignedIn(db, A.id, A.human.id)).toBe(true);
    expect(await hasSignedIn(db, B.id, B.human.id)).toBe(false);
  });

  it('drop failed jobs past their retention, keep recent ones', async () => {
    const { sweepFailedJobs } = await import('../../lib/jobs/sweeps');
    await db.query(
      `insert into bullpen.jobs (kind, status, attempts, last_error, updated_at)
       values ('test.old_failure', 'failed', 8, 'x', now() - interval '31 days'), ('test.new_failure', 'failed', 8, 'y', now() - interval '1 day')`,
    );
    expect(await sweepFailedJobs(db)).toBeGreaterThanOrEqual(1);
    expect(await jobsOf('test.old_failure')).toEqual([]);
    expect(await jobsOf('test.new_failure')).toHaveLength(1);
  });
});

describe('the idle poll', () => {
  it('is one statement that an index answers', async () => {
    const plan = await db.session(async (s) => {
      await s.exec('begin; set local enable_seqscan = off');
      try {
        const rows = await s.query<{ 'QUERY PLAN': string }>(
          `explain select id from bullpen.jobs where status = 'pending' and run_at <= now() order by run_at limit 1 for update skip locked`,
        );
        const lapsed = await s.query<{ 'QUERY PLAN': string }>(
          `explain select id from bullpen.jobs where status = 'running' and locked_until <= now() order by locked_until limit 1 for update skip locked`,
        );
        return [...rows, ...lapsed].map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await s.exec('rollback');
      }
    });
    expect(plan).toContain('jobs_due_idx');
    expect(plan).toContain('jobs_lease_idx');
  });
});

describe('the jobs table', () => {
  it('has row-level security enabled and forced', async () => {
    const [t] = await db.query<{ rls: boolean; forced: boolean }>(
      `select relrowsecurity as rls, relforcerowsecurity as forced from pg_class where oid = 'bullpen.jobs'::regclass`,
    );
    expect(t).toEqual({ rls: true, forced: true });
  });

  it('is closed to the API roles: no read, no write, no enqueue', async () => {
    await enqueue(db, 'test.walled', {}, { tenantId: A.id });
    const stmts = [
      `select count(*) from bullpen.jobs`,
      `insert into bullpen.jobs (tenant_id, kind) values ('${A.id}', 'test.evil')`,
      `update bullpen.jobs set attempts = 0`,
      `delete from bullpen.jobs`,
      `select bullpen.job_enqueue('test.evil')`,
    ];
    for (const role of ['authenticated', 'anon']) {
      for (const sql of stmts) {
        await expect(db.withClaims(A.agent.claims, `set local role ${role}; ${sql}`), `${role}: ${sql}`).rejects.toMatchObject({ code: '42501' });
      }
    }
    expect(await jobsOf('test.walled')).toHaveLength(1);
    expect(await jobsOf('test.evil')).toEqual([]);
  });

  it('lets an RPC see and enqueue into its own workspace only', async () => {
    const [{ total }] = await db.query<{ total: number }>(`select count(*)::int as total from bullpen.jobs where tenant_id = $1`, [A.id]);
    expect(total).toBeGreaterThan(0);
    const seen = await asWriter<{ n: number }>(B.agent.claims, `select count(*)::int as n from bullpen.jobs where tenant_id = '${A.id}'`);
    expect(seen[0].n).toBe(0);
    const own = await asWriter<{ n: number }>(A.agent.claims, `select count(*)::int as n from bullpen.jobs`);
    expect(own[0].n).toBe(total);
    await expect(asWriter(B.agent.claims, `insert into bullpen.jobs (tenant_id, kind) values ('${A.id}', 'test.evil')`)).rejects.toMatchObject({ code: '42501' });
    await expect(asWriter(B.agent.claims, `update bullpen.jobs set attempts = 0`)).rejects.toMatchObject({ code: '42501' });
    await expect(asWriter(B.agent.claims, `delete from bullpen.jobs`)).rejects.toMatchObject({ code: '42501' });
    // without claims there is no workspace, and workspace-less work is the server's alone
    await expect(
      db.withClaims(A.agent.claims, `select set_config('request.jwt.claims', '', true); set local role bullpen_writer; select bullpen.job_enqueue('test.evil')`),
    ).rejects.toMatchObject({ code: '42501' });
    expect(await jobsOf('test.evil')).toEqual([]);
  });
});
