import type { Queryable } from './queue';
import { registerJob } from './registry';
import { envNumber } from '../shared/env';

/**
 * The run reaper: a recurring job (sweep.runs, every minute) that abandons runs gone silent and
 * releases the task leases they hold, with activity rows saying why (bullpen.reap_runs).
 */

/** How long a run may stay silent (no heartbeat, no write) before it is abandoned (BULLPEN_RUN_ABANDON_SECONDS, default 1800). */
export function abandonAfterSeconds(): number {
  const v = envNumber('BULLPEN_RUN_ABANDON_SECONDS');
  return Number.isFinite(v) && v >= 60 ? Math.floor(v) : 1800;
}

export type ReapResult = { abandoned: number; released: number; batches: number };

/**
 * One sweep, on the server's own connection: abandons runs silent for longer than afterSeconds
 * and releases their leases, batch by batch until a batch comes back short. Safe on several
 * instances at once: each batch skips the runs another sweep has locked.
 */
export async function reapRuns(q: Queryable, opts: { afterSeconds?: number; batch?: number; signal?: AbortSignal } = {}): Promise<ReapResult> {
  const after = opts.afterSeconds ?? abandonAfterSeconds();
  const batch = Math.max(1, Math.floor(opts.batch ?? 1000));
  const total: ReapResult = { abandoned: 0, released: 0, batches: 0 };
  for (;;) {
    opts.signal?.throwIfAborted();
    const [row] = await q.query<{ r: { abandoned: number; released: number } }>(
      `select bullpen.reap_runs(make_interval(secs => $1::int), $2::int) as r`,
      [after, batch],
    );
    total.batches++;
    total.abandoned += row.r.abandoned;
    total.released += row.r.released;
    if (row.r.abandoned < batch) return total;
  }
}

export const REAPER_EVERY_SECONDS = 60;

registerJob('sweep.runs', async (_job, { db, signal }) => { await reapRuns(db, { signal }); }, { everySeconds: REAPER_EVERY_SECONDS });
