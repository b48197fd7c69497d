import type { Row } from '../db/types';
import type { Job, JobKind } from './registry';

/** Anything that runs a parameterised statement: the Db, or a Session inside a transaction. */
export type Queryable = { query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]> };

export type EnqueueOptions = {
  /** The workspace the job belongs to; omit for the server's own work. */
  tenantId?: string | null;
  /** Not before this moment (default: now). */
  runAt?: Date;
  /** At most one pending job per key and workspace; enqueueing it again returns the waiting job's id. */
  key?: string | null;
  /** Tries before the job is kept as failed (default 8). */
  maxAttempts?: number;
};

/** Wakes this process's workers when server code enqueues (RPC enqueues are found by the poll). */
export const jobsEnqueued = new EventTarget();

/**
 * Enqueues a job from server code, with the same rules as bullpen.job_enqueue() (see
 * supabase/definitions/0007_jobs.sql). Pass a Session inside begin … commit to tie the job to a
 * write; the Db itself commits it at once. Returns the job's id (the waiting one's for a taken key).
 */
export async function enqueue(q: Queryable, kind: string, payload: Record<string, unknown> = {}, opts: EnqueueOptions = {}): Promise<number> {
  const params = [opts.tenantId ?? null, kind, JSON.stringify(payload), opts.runAt ?? null, opts.key ?? null, opts.maxAttempts ?? 8];
  const [row] = await q.query<{ id: string | number }>(
    `with ins as (
       insert into bullpen.jobs (tenant_id, kind, payload, run_at, key, max_attempts)
       values ($1::uuid, $2, $3::jsonb, coalesce($4::timestamptz, now()), $5, $6::int)
       on conflict (tenant_id, key) where status = 'pending' and key is not null do nothing
       returning id)
     select id from ins
     union all
     select id from bullpen.jobs
      where $5::text is not null and tenant_id is not distinct from $1::uuid and key = $5 and status = 'pending'
        and not exists (select 1 from ins)`,
    params,
  );
  jobsEnqueued.dispatchEvent(new Event('enqueued'));
  return Number(row?.id ?? 0);
}

type JobRow = Omit<Job, 'id'> & { id: string | number };

const jobCols = `j.id, j.tenant_id, j.kind, j.payload, j.key, j.attempts, j.max_attempts`;

/**
 * Claims one job of the given kinds that is due, or whose lease ran out (its worker died or hung):
 * one statement over two small partial indexes, rows locked by another claimer skipped. The lease
 * is the kind's leaseSeconds; attempts counts this run.
 */
export async function claim(q: Queryable, workerId: string, kinds: JobKind[]): Promise<Job | null> {
  if (!kinds.length) return null;
  const names = kinds.map((k) => k.kind);
  const leases = Object.fromEntries(kinds.map((k) => [k.kind, k.leaseSeconds]));
  const [row] = await q.query<JobRow>(
    `with due as (
       select id from bullpen.jobs
        where status = 'pending' and run_at <= now() and kind = any($2::text[])
        order by run_at limit 1 for update skip locked),
     lapsed as (
       select id from bullpen.jobs
        where status = 'running' and locked_until <= now() and kind = any($2::text[])
        order by locked_until limit 1 for update skip locked),
     pick as (select id from lapsed union all select id from due limit 1)
     update bullpen.jobs j
        set status = 'running', attempts = j.attempts + 1, locked_by = $1,
            locked_until = now() + make_interval(secs => coalesce(($3::jsonb ->> j.kind)::int, 300)),
            updated_at = now()
       from pick where j.id = pick.id
     returning ${jobCols}`,
    [workerId, names, JSON.stringify(leases)],
  );
  return row ? { ...row, id: Number(row.id) } : null;
}

/** The next run of a recurring kind, in the same statement that ends the current one. */
function nextRun(kind: JobKind | undefined, where = 'true'): string {
  return kind?.everySeconds
    ? `, next as (
         insert into bullpen.jobs (kind, key, run_at)
         select j.kind, j.kind, now() + make_interval(secs => ${Number(kind.everySeconds)}) from ended j where ${where}
         on conflict (tenant_id, key) where status = 'pending' and key is not null do nothing)`
    : '';
}

/**
 * A run succeeded: the job is deleted (and a recurring kind's next run scheduled). Only while the
 * lease is still this worker's: a run that overstayed its lease and was taken over changes nothing.
 */
export async function complete(q: Queryable, job: Job, workerId: string, kind?: JobKind): Promise<boolean> {
  const rows = await q.query(
    `with ended as (delete from bullpen.jobs where id = $1 and locked_by = $2 and status = 'running' returning kind)${nextRun(kind)}
     select 1 from ended`,
    [job.id, workerId],
  );
  return rows.length > 0;
}

/**
 * A run failed: back to pending after `delayMs`, or kept as failed once it used its attempts (a
 * recurring kind then schedules its next run anyway). A retry whose key has meanwhile been
 * enqueued again is dropped: the newer pending job does the same work.
 */
export async function fail(q: Queryable, job: Job, workerId: string, error: string, delayMs: number, kind?: JobKind): Promise<'retry' | 'failed' | 'superseded' | 'lost'> {
  const [row] = await q.query<{ outcome: string }>(
    `with cur as (
       select id, attempts >= max_attempts as final,
              key is not null and exists (select 1 from bullpen.jobs p
                where p.tenant_id is not distinct from j.tenant_id and p.key = j.key and p.status = 'pending') as superseded
         from bullpen.jobs j where id = $1 and locked_by = $2 and status = 'running' for update),
     dropped as (delete from bullpen.jobs where id in (select id from cur where superseded and not final) returning id),
     ended as (
       update bullpen.jobs j
          set status = case when cur.final then 'failed' else 'pending' end,
              run_at = case when cur.final then j.run_at else now() + make_interval(secs => $4::double precision / 1000) end,
              locked_by = null, locked_until = null, last_error = $3, updated_at = now()
         from cur where j.id = cur.id and (cur.final or not cur.superseded)
       returning j.kind, j.status)${nextRun(kind, `j.status = 'failed'`)}
     select case when exists (select 1 from dropped) then 'superseded'
                 when exists (select 1 from ended where status = 'failed') then 'failed'
                 when exists (select 1 from ended) then 'retry' else 'lost' end as outcome`,
    [job.id, workerId, error.slice(0, 4000), delayMs],
  );
  return (row?.outcome ?? 'lost') as 'retry' | 'failed' | 'superseded' | 'lost';
}

/**
 * Schedules a recurring kind unless one is already pending or running, so N instances starting
 * together leave exactly one (the unique pending key settles a race).
 */
export async function ensureRecurring(q: Queryable, kind: JobKind): Promise<void> {
  await q.query(
    `insert into bullpen.jobs (kind, key)
     select $1, $1 where not exists (
       select 1 from bullpen.jobs where tenant_id is null and key = $1 and status in ('pending', 'running'))
     on conflict (tenant_id, key) where status = 'pending' and key is not null do nothing`,
    [kind.kind],
  );
}

export type JobStats = { due: number; running: number; failed: number; oldest_due_seconds: number };

/** The backlog across all workspaces, counts only (for /api/health). */
export async function jobStats(q: Queryable): Promise<JobStats> {
  const [r] = await q.query<{ due: number; lapsed: number; running: number; failed: number; oldest: number | null }>(
    `select (select count(*) from bullpen.jobs where status = 'pending' and run_at <= now())::int as due,
            (select count(*) from bullpen.jobs where status = 'running' and locked_until <= now())::int as lapsed,
            (select count(*) from bullpen.jobs where status = 'running' and locked_until > now())::int as running,
            (select count(*) from bullpen.jobs where status = 'failed')::int as failed,
            extract(epoch from now() - least(
              (select min(run_at) from bullpen.jobs where status = 'pending' and run_at <= now()),
              (select min(locked_until) from bullpen.jobs where status = 'running' and locked_until <= now())))::float8 as oldest`,
  );
  return {
    due: r.due + r.lapsed,
    running: r.running,
    failed: r.failed,
    oldest_due_seconds: r.oldest === null ? 0 : Math.max(0, Math.round(Number(r.oldest) * 10) / 10),
  };
}
