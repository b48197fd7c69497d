import path from 'node:path';
import { migrate, type MigrateProgress } from './migrate';
import type { Db } from './types';
import { env } from '../shared/env';
import { processOnce, setProcessOnce } from '../shared/process-once';

export type { Claims, Db, ChangeEvent } from './types';
export type { MigrateProgress } from './migrate';

/** Where embedded data lives unless BULLPEN_DATA_DIR says otherwise. */
export function dataDir(): string {
  return path.resolve(/*turbopackIgnore: true*/ env('BULLPEN_DATA_DIR') ?? path.join(process.cwd(), '.bullpen', 'data'));
}

/**
 * Opens the database the environment names: DATABASE_URL → a pg Pool; otherwise embedded PGlite
 * in BULLPEN_DATA_DIR ("memory://" for a throwaway one). Runs pending migrations.
 */
export async function openDb(opts: { url?: string; dataDir?: string; onProgress?: (p: MigrateProgress) => void } = {}): Promise<Db> {
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
  await migrate(db, undefined, { onProgress: opts.onProgress });
  // files the migrations made that the database gave modes of its own
  await db.tighten?.();
  return db;
}

/**
 * The process-wide database. Route handlers, server actions and the server entry share it through
 * globalThis, since bundlers may load this module more than once.
 */
export function getDb(): Promise<Db> {
  return processOnce('bullpen.db', openDb);
}

/** Installs a database as the process-wide one (tests, the server entry). */
export function setDb(db: Db): void {
  setProcessOnce('bullpen.db', Promise.resolve(db));
}
