import pg from 'pg';
import { ActivityFeed } from './feed';
import { callSql, claimsSql, type Claims, type Db, type Row, type Session } from './types';
import { env, envNumber } from '../shared/env';

/** True when the connection itself failed (not the statement): the client must not be reused. */
function connectionLost(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return !code || code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03';
}

/**
 * Every pooled connection was busy for the whole acquire timeout: the server is saturated, not the
 * database gone. Maps to BUSY (retryable) with SQLSTATE-like code BPBSY (lib/core/sql-errors.ts).
 */
export class PoolBusyError extends Error {
  readonly code = 'BPBSY';
  constructor(max: number, waitedMs: number) {
    super(`all ${max} database connections of this server stayed busy for ${waitedMs} ms`);
    this.name = 'PoolBusyError';
  }
}

const CONNECT_TIMEOUT = /timeout exceeded when trying to connect/i;

/** How long a call waits for a pooled connection (BULLPEN_PG_ACQUIRE_TIMEOUT_MS, default 5 s). */
export function acquireTimeoutMs(): number {
  const v = envNumber('BULLPEN_PG_ACQUIRE_TIMEOUT_MS');
  return Number.isFinite(v) && v > 0 ? v : 5000;
}

/** A Postgres server (Supabase or any Postgres ≥ 15) through a pooled connection. */
export async function openPg(connectionString: string, opts: { max?: number; acquireTimeoutMs?: number } = {}): Promise<Db> {
  const max = opts.max ?? envNumber('BULLPEN_PG_POOL_MAX');
  const waitMs = opts.acquireTimeoutMs ?? acquireTimeoutMs();
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    // bounds both the wait for a free connection and the setup of a new one
    connectionTimeoutMillis: waitMs,
  });
  /**
   * pg-pool reports both kinds of timeout alike; a pool with every connection open and busy was
   * saturated (BUSY, retry soon), anything else could not reach the database (UNAVAILABLE).
   */
  const busyOr = (err: unknown): unknown =>
    CONNECT_TIMEOUT.test((err as Error)?.message ?? '') && pool.totalCount >= max ? new PoolBusyError(max, waitMs) : err;
  const connect = async () => {
    try {
      return await pool.connect();
    } catch (err) {
      throw busyOr(err);
    }
  };
  // A client whose server goes away emits 'error'; idle or checked out, that must not crash the
  // process: the failing query reports it, and release(err) below discards the client.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const vector = (
    await pool.query(`select exists(select 1 from pg_available_extensions where name = 'vector') as v`)
  ).rows[0].v as boolean;
  // NOTIFY takes a database-wide lock at commit, which serialised concurrent writers; here the
  // change feed polls the activity log instead (BULLPEN_CHANGE_FEED=notify restores NOTIFY)
  const quiet = env('BULLPEN_CHANGE_FEED') !== 'notify';
  let feed: ActivityFeed | null = null;
  const feedHandlers = new Set<(payload: string) => void>();
  let listener: pg.Client | null = null;
  const handlers = new Map<string, Set<(payload: string) => void>>();

  return {
    kind: 'pg',
    vector,
    async call(claims: Claims, fn: string, args: unknown) {
      const client = await connect();
      let broken: Error | undefined;
      try {
        // One simple-protocol batch: an implicit transaction, so set local scopes to this call.
        const res = (await client.query(callSql(claims, fn, args, (s) => client.escapeLiteral(s), quiet))) as unknown as pg.QueryResult[];
        const last = Array.isArray(res) ? res[res.length - 1] : (res as pg.QueryResult);
        return (last.rows[0] as Row | undefined)?.r ?? null;
      } catch (err) {
        broken = connectionLost(err) ? (err as Error) : undefined;
        throw err;
      } finally {
        client.release(broken);
      }
    },
    async withClaims<T extends Row = Row>(claims: Claims, sql: string) {
      const client = await connect();
      let broken: Error | undefined;
      try {
        const res = (await client.query(claimsSql(claims, sql, (s) => client.escapeLiteral(s)))) as unknown as pg.QueryResult[];
        const last = Array.isArray(res) ? res[res.length - 1] : (res as pg.QueryResult);
        return last.rows as T[];
      } catch (err) {
        broken = connectionLost(err) ? (err as Error) : undefined;
        throw err;
      } finally {
        client.release(broken);
      }
    },
    async query<T extends Row = Row>(sql: string, params?: unknown[]) {
      const res = await pool.query(sql, params).catch((err: unknown) => {
        throw busyOr(err);
      });
      return res.rows as T[];
    },
    async exec(sql: string) {
      await pool.query(sql).catch((err: unknown) => {
        throw busyOr(err);
      });
    },
    async session<T>(fn: (s: Session) => Promise<T>) {
      const client = await connect();
      let broken: Error | undefined;
      try {
        return await fn({
          query: async <R extends Row = Row>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as R[],
          exec: async (sql: string) => {
            await client.query(sql);
          },
        });
      } catch (err) {
        broken = connectionLost(err) ? (err as Error) : undefined;
        throw err;
      } finally {
        client.release(broken);
      }
    },
    async transaction<T>(fn: (s: Session) => Promise<T>) {
      const client = await connect();
      let broken: Error | undefined;
      try {
        await client.query('begin');
        try {
          const out = await fn({
            query: async <R extends Row = Row>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as R[],
            exec: async (sql: string) => {
              await client.query(sql);
            },
          });
          await client.query('commit');
          return out;
        } catch (err) {
          await client.query('rollback').catch(() => {});
          throw err;
        }
      } catch (err) {
        broken = connectionLost(err) ? (err as Error) : undefined;
        throw err;
      } finally {
        client.release(broken);
      }
    },
    async listen(channel: string, onPayload: (payload: string) => void) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel ${channel}`);
      if (channel === 'bullpen_changes' && quiet) {
        feed ??= new ActivityFeed(pool, (payload) => {
          for (const h of feedHandlers) h(payload);
        });
        feedHandlers.add(onPayload);
        feed.start();
        return async () => {
          feedHandlers.delete(onPayload);
          if (feedHandlers.size === 0) {
            feed?.stop();
            feed = null;
          }
        };
      }
      if (!listener) {
        listener = new pg.Client({ connectionString });
        listener.on('error', () => {});
        await listener.connect();
        listener.on('notification', (msg) => {
          for (const h of handlers.get(msg.channel) ?? []) h(msg.payload ?? '');
        });
      }
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        await listener.query(`listen ${channel}`);
      }
      set.add(onPayload);
      return async () => {
        set!.delete(onPayload);
      };
    },
    async close() {
      feed?.stop();
      await listener?.end().catch(() => {});
      await pool.end();
    },
  };
}
