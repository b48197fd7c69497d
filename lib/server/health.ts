import type { Db } from '../db/types';
import { jobStats, type JobStats } from '../jobs/queue';
import pkg from '../../package.json';
import { env } from '../shared/env';

export type Health = {
  ok: boolean;
  version: string;
  database: { kind: 'pglite' | 'pg'; ok: boolean; latency_ms: number | null };
  migrations: { applied: number; latest: string | null; definitions: number } | null;
  jobs: JobStats | null;
};

/**
 * What /api/health answers: whether the database answers and how fast, the schema it is at, and
 * the job backlog — counts across the whole installation, nothing that names a workspace. Status
 * 503 with ok:false when the database is unreachable or does not answer within timeoutMs.
 */
export async function healthReport(getDb: () => Promise<Db>, timeoutMs = 3_000): Promise<{ status: number; body: Health }> {
  const kind: 'pglite' | 'pg' = env('DATABASE_URL') ? 'pg' : 'pglite';
  const body: Health = { ok: false, version: pkg.version, database: { kind, ok: false, latency_ms: null }, migrations: null, jobs: null };
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
  });
  timeout.catch(() => {});
  try {
    await Promise.race([
      (async () => {
        const db = await getDb();
        body.database.kind = db.kind;
        const s0 = performance.now();
        await db.query('select 1');
        body.database.latency_ms = Math.round((performance.now() - s0) * 10) / 10;
        body.database.ok = true;
        const [m] = await db.query<{ applied: number; latest: string | null; definitions: number }>(
          `select count(*) filter (where kind = 'migration')::int as applied,
                  max(name) filter (where kind = 'migration') as latest,
                  count(*) filter (where kind = 'definition')::int as definitions
             from bullpen.migrations`,
        );
        body.migrations = m;
        body.jobs = await jobStats(db);
      })(),
      timeout,
    ]);
    body.ok = true;
  } catch {
    // no error text: it could name hosts or users. database.ok stays true when only the reads
    // after `select 1` failed (a database that answers but lacks its schema)
    if (body.database.latency_ms === null) body.database.latency_ms = Math.round(performance.now() - t0);
  } finally {
    clearTimeout(timer);
  }
  return { status: body.ok ? 200 : 503, body };
}
