import type { Claims, Row } from '../shared/claims';

export type { ChangeEvent, Claims, Row } from '../shared/claims';

/**
 * The port every adapter uses. `call` runs one RPC under the caller's claims in one transaction and
 * one round trip; `query` runs as the server itself (migrations, key lookup, bootstrap).
 */
export interface Db {
  readonly kind: 'pglite' | 'pg';
  /** Whether pgvector is available (semantic search) or only lexical search. */
  readonly vector: boolean;
  call(claims: Claims, fn: string, args: unknown): Promise<unknown>;
  /**
   * Runs one SQL statement (no parameters) as the API role under the claims, in one transaction;
   * returns its rows. For reads that are not tools (the console's feeds) and for RLS proofs.
   */
  withClaims<T extends Row = Row>(claims: Claims, sql: string): Promise<T[]>;
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs statements without parameters (migration files). */
  exec(sql: string): Promise<void>;
  /**
   * Runs fn on one connection held for its whole duration (session-level advisory locks, several
   * transactions in a row). On the embedded database every call shares the one connection anyway.
   */
  session<T>(fn: (s: Session) => Promise<T>): Promise<T>;
  /**
   * Runs fn inside one transaction on one connection: committed when fn resolves, rolled back when
   * it throws. On the embedded database nothing else runs until it ends (long work such as an
   * import holds every other call meanwhile, so do slow reading before, not inside).
   */
  transaction<T>(fn: (s: Session) => Promise<T>): Promise<T>;
  /** Subscribes to a NOTIFY channel; resolves to an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * The embedded database only: its data directory as a gzipped tarball, taken between two
   * statements (no statement runs while it is read), so it is a crash-consistent copy.
   */
  dumpDataDir?(): Promise<Blob>;
  /** The embedded database only: takes group and other bits off its data directory's files. */
  tighten?(): Promise<void>;
  close(): Promise<void>;
}

/** One pinned connection, for work that must not hop between pooled connections. */
export type Session = {
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  exec(sql: string): Promise<void>;
};

const IDENT = /^[a-z_][a-z0-9_]*$/;

/**
 * Builds the one-round-trip statement batch for an RPC call. quiet skips the trigger's NOTIFY
 * (where the change feed reads the activity log instead, see feed.ts).
 */
export function callSql(claims: Claims, fn: string, args: unknown, literal: (s: string) => string, quiet = false): string {
  if (!IDENT.test(fn)) throw new Error(`not an RPC name: ${fn}`);
  const call = `select public.${fn}(${literal(JSON.stringify(args ?? {}))}::jsonb) as r`;
  return claimsSql(claims, call, literal, quiet ? [`set_config('bullpen.notify', 'off', true)`] : []);
}

/**
 * The statement batch that runs arbitrary SQL under claims (withClaims). The role, timeout and
 * claims are set by one statement (set_config is what SET LOCAL does), so a call is two statements
 * in one round trip: each statement of a simple-protocol batch is parsed, planned and run on its own.
 */
export function claimsSql(claims: Claims, sql: string, literal: (s: string) => string, extra: string[] = []): string {
  return (
    `select set_config('role', 'authenticated', true), set_config('statement_timeout', '30s', true), ` +
    [`set_config('request.jwt.claims', ${literal(JSON.stringify(claims))}, true)`, ...extra].join(', ') +
    `; ` +
    sql
  );
}

/** Standard SQL string literal; standard_conforming_strings is on everywhere we run. */
export function sqlLiteral(s: string): string {
  if (s.includes('\u0000')) throw new Error('NUL byte in SQL literal');
  return `'${s.replace(/'/g, "''")}'`;
}
