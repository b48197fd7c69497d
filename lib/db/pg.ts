import pg from 'pg';
import { callSql, claimsSql, type Claims, type Db, type Row } from './types';

/** A Postgres server (Supabase or any Postgres ≥ 15) through a pooled connection. */
export async function openPg(connectionString: string, opts: { max?: number } = {}): Promise<Db> {
  const pool = new pg.Pool({
    connectionString,
    max: opts.max ?? Number(process.env.BULLPEN_PG_POOL_MAX ?? 20),
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
  });
  // an idle client that loses its server must not crash the process
  pool.on('error', () => {});
  const vector = (
    await pool.query(`select exists(select 1 from pg_available_extensions where name = 'vector') as v`)
  ).rows[0].v as boolean;
  let listener: pg.Client | null = null;
  const handlers = new Map<string, Set<(payload: string) => void>>();

  return {
    kind: 'pg',
    vector,
    async call(claims: Claims, fn: string, args: unknown) {
      const client = await pool.connect();
      try {
        // One simple-protocol batch: an implicit transaction, so set local scopes to this call.
        const res = (await client.query(callSql(claims, fn, args, (s) => client.escapeLiteral(s)))) as unknown as pg.QueryResult[];
        const last = Array.isArray(res) ? res[res.length - 1] : (res as pg.QueryResult);
        return (last.rows[0] as Row | undefined)?.r ?? null;
      } finally {
        client.release();
      }
    },
    async withClaims<T extends Row = Row>(claims: Claims, sql: string) {
      const client = await pool.connect();
      try {
        const res = (await client.query(claimsSql(claims, sql, (s) => client.escapeLiteral(s)))) as unknown as pg.QueryResult[];
        const last = Array.isArray(res) ? res[res.length - 1] : (res as pg.QueryResult);
        return last.rows as T[];
      } finally {
        client.release();
      }
    },
    async query<T extends Row = Row>(sql: string, params?: unknown[]) {
      const res = await pool.query(sql, params);
      return res.rows as T[];
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async listen(channel: string, onPayload: (payload: string) => void) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel ${channel}`);
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
      await listener?.end().catch(() => {});
      await pool.end();
    },
  };
}
