import type { Queryable } from './queue';
import { registerJob } from './registry';

/**
 * Lapsed leases, written down: a recurring job (lease.lapsed, every LAPSED_EVERY_SECONDS) that
 * writes one `task.lease_lapsed` activity row per lease that ran out (bullpen.note_lapsed_leases).
 * The task was claimable the moment its lease lapsed; the row tells the log who ran out of time and
 * is the change event that wakes a waiting task_claim (lib/core/wait.ts). A lapse is written once
 * however many instances sweep, so the job is safe everywhere.
 */
export const LAPSED_EVERY_SECONDS = 10;

/** One sweep, batch by batch until a batch comes back short; returns how many lapses it wrote. */
export async function noteLapsedLeases(q: Queryable, opts: { batch?: number; signal?: AbortSignal } = {}): Promise<number> {
  const batch = Math.max(1, Math.floor(opts.batch ?? 1000));
  let total = 0;
  for (;;) {
    opts.signal?.throwIfAborted();
    const [row] = await q.query<{ n: number }>(`select bullpen.note_lapsed_leases($1::int) as n`, [batch]);
    total += row.n;
    if (row.n < batch) return total;
  }
}

registerJob('lease.lapsed', async (_job, { db, signal }) => { await noteLapsedLeases(db, { signal }); }, { everySeconds: LAPSED_EVERY_SECONDS });
