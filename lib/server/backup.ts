import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { toolError } from '../core/errors';
import { migrate } from '../db/migrate';
import { tightenTree, usePrivateUmask } from '../db/private-fs';
import type { Db } from '../db/types';
import { DataError } from './export';

/**
 * Backups of the embedded database. A backup is the data directory as a gzipped tarball, taken by
 * the process that holds it (the running server, through its admin route, or the CLI when no server
 * runs) between two statements, so it is crash-consistent: every transaction committed before it
 * is in, none that had not committed is. A Postgres server has its own tools (pg_dump, Supabase's
 * backups); `bullpen export` works on both.
 */

/** The tarball of an open embedded database. */
export async function backupEmbedded(db: Db): Promise<Buffer> {
  if (db.kind !== 'pglite' || !db.dumpDataDir) {
    throw new DataError(
      toolError('VALIDATION_ERROR', 'database: bullpen backup copies the embedded database; this server uses DATABASE_URL', 'back up a Postgres server with pg_dump (or your host\'s backups); `bullpen export --workspace SLUG` works on both', {
        fields: ['database'],
      }),
    );
  }
  return Buffer.from(await (await db.dumpDataDir()).arrayBuffer());
}

/** True for a gzip stream (a backup); anything else is refused before PGlite sees it. */
export function looksLikeBackup(archive: Buffer): boolean {
  return archive.length > 512 && archive[0] === 0x1f && archive[1] === 0x8b;
}

export type RestoreResult = { data_dir: string; workspaces: { slug: string; name: string; tasks: number }[]; migrations_applied: string[] };

/**
 * Unpacks a backup into `dataDir`, which must be missing or empty (a restore never overwrites a
 * database), brings it up to this release's schema, and reports what it holds. On failure the
 * directory is left as empty as it was found.
 */
export async function restoreEmbedded(archive: Buffer, dataDir: string): Promise<RestoreResult> {
  if (existsSync(dataDir) && (await readdir(dataDir)).length > 0) {
    throw new DataError(
      toolError('ALREADY_EXISTS', `data_dir: ${dataDir} is not empty; a restore only fills an empty directory`, 'move the current data directory aside (or pass --data-dir NEW_DIR), then restore', {
        fields: ['data_dir'],
      }),
    );
  }
  if (!looksLikeBackup(archive)) {
    throw new DataError(toolError('VALIDATION_ERROR', 'file: not a backup written by bullpen backup (a .tar.gz)', 'pass the file bullpen backup wrote', { fields: ['file'] }));
  }
  // files are private: the restored database is its owner's alone, like one the server made
  usePrivateUmask();
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const { PGlite } = await import('@electric-sql/pglite');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { pgcrypto } = await import('@electric-sql/pglite/contrib/pgcrypto');
  const { wrapPglite } = await import('../db/pglite');
  let pg: InstanceType<typeof PGlite> | null = null;
  try {
    pg = await PGlite.create({ dataDir, loadDataDir: new Blob([new Uint8Array(archive)]), extensions: { vector, pg_trgm, pgcrypto } });
    const db = wrapPglite(pg);
    const { applied } = await migrate(db);
    const workspaces = await db.query<{ slug: string; name: string; tasks: number }>(
      `select t.slug, t.name, (select count(*)::int from public.tasks k where k.tenant_id = t.id) as tasks from public.tenants t order by t.created_at`,
    );
    return { data_dir: dataDir, workspaces, migrations_applied: applied };
  } catch (err) {
    await pg?.close().catch(() => {});
    pg = null;
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    if (err instanceof DataError) throw err;
    throw new DataError(toolError('VALIDATION_ERROR', `file: the backup could not be opened (${(err as Error).message})`, 'pass the file bullpen backup wrote', { fields: ['file'] }));
  } finally {
    await pg?.close().catch(() => {});
    await tightenTree(dataDir);
  }
}
