import type { Queryable } from './queue';
import { registerJob } from './registry';
import { env } from '../shared/env';

/**
 * The run reaper: a recurring job (sweep.runs, every minute) that ends runs gone silent, with
 * activity rows saying why (bullpen.reap_runs): a run that holds task leases is abandoned and its
 * leases released; a run that holds nothing (a connection that went away) ends as idle.
 */

/**
 * How long a run may go without a call (heartbeat, write or whoami) before the reaper ends it:
 * BULLPEN_RUN_IDLE_SECONDS (the older name BULLPEN_RUN_ABANDON_SECONDS is still read), default
 * 1800, at least 60.
 */
export function idleAfterSeconds(): number {
  const v = Number(env('BULLPEN_RUN_IDLE_SECONDS') ?? env('BULLPEN_RUN_ABANDON_SECONDS') ?? 1800);
  return Number.isFinite(v) && v >= 60 ? Math.floor(v) : 1800;
}

/** The older name of idleAfterSeconds. */
export const abandonAfterSeconds = idleAfterSeconds;

export type ReapResult = { abandoned: number; idle: number; released: number; batches: number };

/**
 * One sweep, on the server's own connection: abandons runs silent for longer than afterSeconds
 * and releases their leases, batch by batch until a batch comes back short. Safe on several
 * instances at once: each batch skips the runs another sweep has locked.
 */
export async function reapRuns(q: Queryable, opts: { afterSeconds?: number; batch?: number; signal?: AbortSignal } = {}): Promise<ReapResult> {
  const after = opts.afterSeconds ?? idleAfterSeconds();
  const batch = Math.max(1, Math.floor(opts.batch ?? 1000));
  const total: ReapResult = { abandoned: 0, idle: 0, released: 0, batches: 0 };
  for (;;) {
    opts.signal?.throwIfAborted();
    const [row] = await q.query<{ r: { abandoned: number; idle: number; released: number } }>(
      `select bullpen.reap_runs(make_interval(secs => $1::int), $2::int) as r`,
      [after, batch],
    );
    total.batches++;
    total.abandoned += row.r.abandoned;
    total.idle += row.r.idle;
    total.released += row.r.released;
    if (row.r.abandoned + row.r.idle < batch) return total;
  }
}

export const REAPER_EVERY_SECONDS = 60;

registerJob('sweep.runs', async (_job, { db, signal }) => { await reapRuns(db, { signal }); }, { everySeconds: REAPER_EVERY_SECONDS });
