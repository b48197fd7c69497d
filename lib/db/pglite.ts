import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { mkdirPrivate, tightenTree, usePrivateUmask } from './private-fs';
import { callSql, claimsSql, sqlLiteral, type Claims, type Db, type Row, type Session } from './types';

/**
 * Embedded Postgres (WASM) in this process. `dataDir` undefined keeps everything in memory
 * (tests); otherwise the directory persists across restarts, and is created (parents too) when
 * missing. One connection, so calls queue. The directory is private: 0700, its files 0600.
 */
export async function openPglite(dataDir?: string): Promise<Db> {
  if (dataDir) {
    // files the database creates from now on are born owner-only; it creates no parent folders
    usePrivateUmask();
    await mkdirPrivate(dataDir);
  }
  const pg = await PGlite.create({ dataDir, extensions: { vector, pg_trgm, pgcrypto } });
  // the database writes its initial files 0666 whatever the umask
  if (dataDir) await tightenTree(dataDir);
  return wrapPglite(pg, dataDir);
}

/** Wraps an open PGlite; with its data directory, keeps that directory's modes private. */
export function wrapPglite(pg: PGlite, dataDir?: string): Db {
  const tighten = async () => {
    if (dataDir) await tightenTree(dataDir);
  };
  return {
    kind: 'pglite',
    vector: true,
    async call(claims: Claims, fn: string, args: unknown) {
      const results = await pg.exec(callSql(claims, fn, args, sqlLiteral));
      const last = results[results.length - 1];
      return (last.rows[0] as Row | undefined)?.r ?? null;
    },
    async withClaims<T extends Row = Row>(claims: Claims, sql: string) {
      const results = await pg.exec(claimsSql(claims, sql, sqlLiteral));
      return results[results.length - 1].rows as T[];
    },
    async query<T extends Row = Row>(sql: string, params?: unknown[]) {
      const res = await pg.query<T>(sql, params as never[]);
      return res.rows;
    },
    async exec(sql: string) {
      await pg.exec(sql);
    },
    async session<T>(fn: (s: Session) => Promise<T>) {
      return fn({
        query: async <R extends Row = Row>(sql: string, params?: unknown[]) => (await pg.query<R>(sql, params as never[])).rows,
        exec: async (sql: string) => {
          await pg.exec(sql);
        },
      });
    },
    async transaction<T>(fn: (s: Session) => Promise<T>) {
      return pg.transaction(async (tx) =>
        fn({
          query: async <R extends Row = Row>(sql: string, params?: unknown[]) => (await tx.query<R>(sql, params as never[])).rows,
          exec: async (sql: string) => {
            await tx.exec(sql);
          },
        }),
      );
    },
    async listen(channel: string, onPayload: (payload: string) => void) {
      const unsub = await pg.listen(channel, onPayload);
      return async () => unsub();
    },
    async dumpDataDir() {
      // a checkpoint first, so the copy needs little WAL replay when it is opened
      await pg.exec('checkpoint');
      await tighten();
      return pg.dumpDataDir('gzip');
    },
    async tighten() {
      await tighten();
    },
    async close() {
      await pg.close();
      await tighten();
    },
  };
}
