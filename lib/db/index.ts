import path from 'node:path';
import { migrate } from './migrate';
import type { Db } from './types';
import { env } from '../shared/env';

export type { Claims, Db, ChangeEvent } from './types';

/** Where embedded data lives unless BULLPEN_DATA_DIR says otherwise. */
export function dataDir(): string {
  return path.resolve(/*turbopackIgnore: true*/ env('BULLPEN_DATA_DIR') ?? path.join(process.cwd(), '.bullpen', 'data'));
}

/**
 * Opens the database the environment names: DATABASE_URL → a pg Pool; otherwise embedded PGlite
 * in BULLPEN_DATA_DIR ("memory://" for a throwaway one). Runs pending migrations.
 */
export async function openDb(opts: { url?: string; dataDir?: string } = {}): Promise<Db> {
  const url = opts.url ?? env('DATABASE_URL');
  let db: Db;
  if (url) {
    const { openPg } = await import('./pg');
    db = await openPg(url);
  } else {
    const { openPglite } = await import('./pglite');
    const dir = opts.dataDir ?? dataDir();
    db = await openPglite(dir === 'memory://' ? undefined : dir);
  }
  await migrate(db);
  return db;
}

const KEY = Symbol.for('bullpen.db');
type Holder = { [KEY]?: Promise<Db> };

/**
 * The process-wide database. Route handlers, server actions and the server entry share it through
 * globalThis, since bundlers may load this module more than once.
 */
export function getDb(): Promise<Db> {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    g[KEY] = openDb().catch((err) => {
      delete g[KEY];
      throw err;
    });
  }
  return g[KEY]!;
}

/** Installs a database as the process-wide one (tests, the server entry). */
export function setDb(db: Db): void {
  (globalThis as Holder)[KEY] = Promise.resolve(db);
}
