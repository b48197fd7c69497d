// What every benchmark shares: its output format (one JSON line per record), percentiles, and a
// scratch database on the Postgres server DATABASE_URL names.
import { randomBytes } from 'node:crypto';

/** Prints one JSON line, stamped with the time. */
export function emit(record) {
  console.log(JSON.stringify({ at: new Date().toISOString(), ...record }));
}

/** The p-th percentile (nearest rank) of an ascending array, to 0.01. */
export function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[i] * 100) / 100;
}

/**
 * A new database, named `<prefix>_<random>`, on the Postgres server `serverUrl` names (the caller
 * checks it is set). Returns its URL and drop(), which removes it (connections and all).
 */
export async function scratchPgDatabase(serverUrl, prefix) {
  const pg = (await import('pg')).default;
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const run = async (sql) => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`create database ${name}`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return { name, url: u.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}
