import { normalizeRemote } from '../core/remote';
import type { Claims, Db } from '../db/types';
import { hashKey } from './keys';

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

/** Reads the run id an agent sends (X-Bullpen-Run); anything malformed is ignored. */
export function runIdFrom(headers: Headers): string | null {
  return runKeyOf(headers.get('x-bullpen-run'));
}

/**
 * The run headers of a request: X-Bullpen-Run, X-Bullpen-Parent-Run, X-Bullpen-Run-Group and
 * X-Bullpen-Repo (a git remote; kept only as its credential-free normalised URL). Malformed values
 * are ignored.
 */
export function runContextFrom(headers: Headers): RunContext {
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
  return `key-${keyId.replace(/-/g, '').slice(0, 12)}-${now.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/**
 * Resolves a bearer API key to claims; null when missing, unknown, revoked or expired. The run comes from
 * the run context (or a bare run id); without one it is derived for the connection.
 */
export async function authenticateKey(
  db: Db,
  key: string | null,
  run: RunContext | string | null = null,
  opts: { sessionId?: string | null } = {},
): Promise<KeyIdentity | null> {
  if (!key || !key.startsWith('bp_') || key.length > 200) return null;
  const rows = await db.query<{
    tenant_id: string;
    actor_id: string;
    key_id: string;
    kind: 'agent' | 'human' | 'service';
    display_name: string;
    tenant_slug: string;
    scopes: string[] | null;
    expires_at: Date | string | null;
  }>(`select * from bullpen.authenticate_key($1)`, [hashKey(key)]);
  const r = rows[0];
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
export function bearer(headers: Headers): string | null {
  const h = headers.get('authorization');
  const m = h?.match(/^Bearer\s+(\S+)$/i);
  return m ? m[1] : null;
}
