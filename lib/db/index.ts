import path from 'node:path';
import { migrate, type MigrateProgress } from './migrate';
import type { Db } from './types';

export type { Claims, Db, ChangeEvent } from './types';
export type { MigrateProgress } from './migrate';

/** Where embedded data lives unless BULLPEN_DATA_DIR says otherwise. */
export function dataDir(): string {
  return path.resolve(/*turbopackIgnore: true*/ process.env.BULLPEN_DATA_DIR ?? path.join(process.cwd(), '.bullpen', 'data'));
}

/**
 * Opens the database the environment names: DATABASE_URL → a pg Pool; otherwise embedded PGlite
 * in BULLPEN_DATA_DIR ("memory://" for a throwaway one). Runs pending migrations.
 */
export async function openDb(opts: { url?: string; dataDir?: string; onProgress?: (p: MigrateProgress) => void } = {}): Promise<Db> {
  const url = opts.url ?? process.env.DATABASE_URL;
  let db: Db;
  if (url) {
    const { openPg } = await import('./pg');
    db = await openPg(url);
  } else {
    const { openPglite } = await import('./pglite');
    const dir = opts.dataDir ?? dataDir();
    db = await openPglite(dir === 'memory://' ? undefined : dir);
  }
  await migrate(db, undefined, { onProgress: opts.onProgress });
  // files the migrations made that the database gave modes of its own
  await db.tighten?.();
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
