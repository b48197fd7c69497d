import type { Queryable } from './queue';
import { registerJob } from './registry';

/**
 * Recurring sweeps: tables that would otherwise grow forever. Each is one job kind with a unique
 * key, so across any number of instances one run is scheduled at a time; every run schedules the
 * next. They delete in batches, so no sweep holds many row locks or one long transaction.
 */

const BATCH = 5_000;

/** Days a job that ran out of attempts is kept for inspection. */
export const FAILED_JOB_RETENTION_DAYS = 30;

/** Deletes the rows of `table` matching `where` in batches; returns how many went. */
export async function deleteInBatches(q: Queryable, table: string, where: string, signal?: AbortSignal): Promise<number> {
  let total = 0;
  for (;;) {
    signal?.throwIfAborted();
    const [{ n }] = await q.query<{ n: number }>(
      `with gone as (
         delete from ${table} where ctid = any(array(select ctid from ${table} where ${where} limit ${BATCH}))
         returning 1)
       select count(*)::int as n from gone`,
    );
    total += n;
    if (n < BATCH) return total;
  }
}

/** Idempotency records past their expiry (explicit keys last 24 h, derived ones 2 min). */
export const sweepIdempotencyKeys = (q: Queryable, signal?: AbortSignal) =>
  deleteInBatches(q, 'public.idempotency_keys', 'expires_at < now()', signal);

/**
 * Sign-in links that expired or were spent. A spent link's only remaining meaning ("this person
 * has signed in") is kept by the activity log's actor.signed_in row.
 */
export const sweepSignInTokens = (q: Queryable, signal?: AbortSignal) =>
  deleteInBatches(q, 'bullpen.signin_tokens', 'expires_at < now() or used_at is not null or revoked_at is not null', signal);

/** Console sessions that ended: signed out (revoked) or past their expiry. A missing row is no session. */
export const sweepSessions = (q: Queryable, signal?: AbortSignal) =>
  deleteInBatches(q, 'bullpen.sessions', 'expires_at < now() or revoked_at is not null', signal);

/** Failed jobs older than the retention. */
export const sweepFailedJobs = (q: Queryable, signal?: AbortSignal) =>
  deleteInBatches(q, 'bullpen.jobs', `status = 'failed' and updated_at < now() - interval '${FAILED_JOB_RETENTION_DAYS} days'`, signal);

registerJob('sweep.idempotency_keys', async (_job, { db, signal }) => { await sweepIdempotencyKeys(db, signal); }, { everySeconds: 600 });
registerJob('sweep.signin_tokens', async (_job, { db, signal }) => { await sweepSignInTokens(db, signal); }, { everySeconds: 3600 });
registerJob('sweep.sessions', async (_job, { db, signal }) => { await sweepSessions(db, signal); }, { everySeconds: 3600 });
registerJob('sweep.failed_jobs', async (_job, { db, signal }) => { await sweepFailedJobs(db, signal); }, { everySeconds: 86_400 });
