import { normalizeRemote } from '../core/remote';
import type { Claims, Db } from '../db/types';
import { hashKey } from './keys';
import type { HeaderSource } from './transport';

export type KeyIdentity = {
  claims: Claims;
  key_id: string;
  display_name: string;
  tenant_slug: string;
  /** What the key may call (lib/core/scopes.ts); null: everything. */
  scopes: string[] | null;
  expires_at: string | null;
};

const RUN_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** What a caller says about its run: the run, its parent, its series and where it stands. */
export type RunContext = { run_id: string | null; parent_run_id: string | null; run_group: string | null; repo: string | null };

function runKeyOf(v: string | null | undefined): string | null {
  return v && RUN_ID.test(v) ? v : null;
}

/**
 * The run headers of a request: X-Bullpen-Run, X-Bullpen-Parent-Run, X-Bullpen-Run-Group and
 * X-Bullpen-Repo (a git remote; kept only as its credential-free normalised URL). Malformed values
 * are ignored.
 */
export function runContextFrom(headers: HeaderSource): RunContext {
  return {
    run_id: runKeyOf(headers.get('x-bullpen-run')),
    parent_run_id: runKeyOf(headers.get('x-bullpen-parent-run')),
    run_group: runKeyOf(headers.get('x-bullpen-run-group')),
    repo: normalizeRemote(headers.get('x-bullpen-repo'))?.url ?? null,
  };
}

/**
 * The run of a caller that names none: one per MCP connection (the session id the server hands out
 * on initialize, which clients send back), else one per key and UTC day.
 */
export function derivedRunKey(keyId: string, sessionId: string | null, now = new Date()): string {
  if (sessionId && /^[A-Za-z0-9-]{8,100}$/.test(sessionId)) return `mcp-${sessionId}`;
  return `key-${keyId.replace(/-/g, '').slice(0, 12)}-${utcDay(now.getTime())}`;
}

/** The UTC day (YYYYMMDD) of a time; every call of a day asks, so the day's name is kept until it ends. */
let day = { from: 0, until: 0, name: '' };
function utcDay(t: number): string {
  if (t < day.from || t >= day.until) {
    const from = t - (t % 86_400_000);
    day = { from, until: from + 86_400_000, name: new Date(t).toISOString().slice(0, 10).replace(/-/g, '') };
  }
  return day.name;
}

type KeyRow = {
  tenant_id: string;
  actor_id: string;
  key_id: string;
  kind: 'agent' | 'human' | 'service';
  display_name: string;
  tenant_slug: string;
  scopes: string[] | null;
  expires_at: Date | string | null;
};

/** How long a looked-up key is believed without asking the database again (BULLPEN_KEY_CACHE_MS). */
export function keyCacheMs(): number {
  const v = Number(process.env.BULLPEN_KEY_CACHE_MS);
  return Number.isFinite(v) && v >= 0 ? v : 1000;
}

type Cached = { row: KeyRow; db: Db; checkedAt: number; expiresAt: number };
/**
 * Live keys by hash, as last read from the database; only ever holds keys that authenticated. One
 * per process through globalThis: Next's bundle (the admin and console routes that revoke keys) and
 * the server entry (which serves /api/mcp) load this module separately.
 */
const CACHE = Symbol.for('bullpen.keyCache');
const keyCache: Map<string, Cached> = ((globalThis as { [CACHE]?: Map<string, Cached> })[CACHE] ??= new Map());

/**
 * Forgets what this process believes about keys (all, or those of one key id), so the next call
 * looks them up. Revoking or rotating a key calls it: in the process that revoked it the key fails
 * on its very next call; other processes stop believing it within keyCacheMs().
 */
export function forgetKeys(keyId?: string): void {
  if (keyId === undefined) keyCache.clear();
  else for (const [hash, c] of keyCache) if (c.row.key_id === keyId) keyCache.delete(hash);
}

async function lookupKey(db: Db, hash: string, cached: boolean): Promise<KeyRow | null> {
  const ttl = cached ? keyCacheMs() : 0;
  const now = Date.now();
  const hit = keyCache.get(hash);
  if (hit && hit.db === db && now - hit.checkedAt < ttl && now < hit.expiresAt) return hit.row;
  const [row] = await db.query<KeyRow>(`select * from bullpen.authenticate_key($1)`, [hash]);
  if (!row) {
    keyCache.delete(hash);
    return null;
  }
  if (ttl > 0) {
    if (keyCache.size >= 10_000) keyCache.clear();
    keyCache.set(hash, { row, db, checkedAt: now, expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : Infinity });
  }
  return row;
}

/**
 * Resolves a bearer API key to claims; null when missing, unknown, revoked or expired. The run comes from
 * the run context (or a bare run id); without one it is derived for the connection.
 *
 * With `cached` (the MCP endpoint), a key that authenticated is believed for keyCacheMs() (1 s by
 * default) before the database is asked again, and never past its own expiry, so a call costs no
 * lookup. A revocation is seen at once by the process that made it (forgetKeys) and within that
 * time by every other instance on the database. Without it, every call asks the database.
 */
export async function authenticateKey(
  db: Db,
  key: string | null,
  run: RunContext | string | null = null,
  opts: { sessionId?: string | null; cached?: boolean; hash?: string | null } = {},
): Promise<KeyIdentity | null> {
  if (!key || !key.startsWith('bp_') || key.length > 200) return null;
  // the MCP endpoint has hashed the key already (for its rate-limit bucket)
  const r = await lookupKey(db, opts.hash ?? hashKey(key), opts.cached ?? false);
  if (!r) return null;
  const ctx: RunContext = typeof run === 'string' || run === null
    ? { run_id: runKeyOf(run), parent_run_id: null, run_group: null, repo: null }
    : run;
  const claims: Claims = {
    sub: r.actor_id,
    role: 'authenticated',
    tenant_id: r.tenant_id,
    actor_id: r.actor_id,
    run_id: ctx.run_id ?? derivedRunKey(r.key_id, opts.sessionId ?? null),
    kind: r.kind,
  };
  if (ctx.parent_run_id) claims.parent_run_id = ctx.parent_run_id;
  if (ctx.run_group) claims.run_group = ctx.run_group;
  if (ctx.repo) claims.repo = ctx.repo;
  return {
    claims,
    key_id: r.key_id,
    display_name: r.display_name,
    tenant_slug: r.tenant_slug,
    scopes: r.scopes ?? null,
    expires_at: r.expires_at ? new Date(r.expires_at).toISOString() : null,
  };
}

/** The bearer token of an Authorization header, or null. Query-string keys are never read. */
export function bearer(headers: HeaderSource): string | null {
  const h = headers.get('authorization');
  const m = h?.match(/^Bearer\s+(\S+)$/i);
  return m ? m[1] : null;
}
