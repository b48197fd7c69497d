import type { Db } from '../db/types';

/** How long a run may stay silent (no heartbeat, no write) before the reaper abandons it. */
export function abandonAfterSeconds(): number {
  const v = Number(process.env.BULLPEN_RUN_ABANDON_SECONDS ?? 1800);
  return Number.isFinite(v) && v >= 60 ? Math.floor(v) : 1800;
}

export type ReapResult = { abandoned: number; released: number; batches: number };

/**
 * One sweep of the reaper, on the server's own connection: abandons runs silent for longer than
 * afterSeconds and releases the task leases they hold (bullpen.reap_runs), batch by batch until a
 * batch comes back short. Safe to run on several instances at once: each batch skips the runs
 * another sweep has locked.
 */
export async function reapRuns(db: Pick<Db, 'query'>, opts: { afterSeconds?: number; batch?: number } = {}): Promise<ReapResult> {
  const after = opts.afterSeconds ?? abandonAfterSeconds();
  const batch = Math.max(1, Math.floor(opts.batch ?? 1000));
  const total: ReapResult = { abandoned: 0, released: 0, batches: 0 };
  for (;;) {
    const [row] = await db.query<{ r: { abandoned: number; released: number } }>(
      `select bullpen.reap_runs(make_interval(secs => $1::int), $2::int) as r`,
      [after, batch],
    );
    total.batches++;
    total.abandoned += row.r.abandoned;
    total.released += row.r.released;
    if (row.r.abandoned < batch) return total;
  }
}
