import { toolError, type ToolError } from '../core/errors';
import { getTool } from '../core/registry';
import { normalizeRemote } from '../core/remote';
import { SENSITIVE_SCOPE, scopeFor, toolAllowed } from '../core/scopes';
import type { Claims, Db } from '../db/types';
import { hashKey } from './keys';
import { getLimits, type Limits, type Refusal } from './limits';
import { BodyTooLarge, checkTransport, clientAddress, readBodyText, tooLargeResponse, type HeaderSource } from './transport';
import { envNumber } from '../shared/env';

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
  const v = envNumber('BULLPEN_KEY_CACHE_MS');
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
  if (keyId === undefined) {
    keyCache.clear();
    knownKeys.clear();
  } else {
    for (const [hash, c] of keyCache) if (c.row.key_id === keyId) keyCache.delete(hash);
    for (const [hash, id] of knownKeys) if (id === keyId) knownKeys.delete(hash);
  }
}

/**
 * Forgets every cached key of one actor: a deactivation (register_actor status "deactivated", through
 * the core port forgetActorKeys) makes its keys fail on the very next call in this process; other
 * processes stop believing them within keyCacheMs(), as with a revocation.
 */
export function forgetActorKeys(actorId: string): void {
  for (const [hash, c] of keyCache) {
    if (c.row.actor_id === actorId) {
      keyCache.delete(hash);
      knownKeys.delete(hash);
    }
  }
}

/**
 * Hashes of keys that authenticated in this process (hash → key id), whatever the cache's time:
 * a call with one of them skips its address's bucket. Anything else (missing, malformed, unknown,
 * revoked) is charged to the caller's address before any lookup.
 */
const KNOWN = Symbol.for('bullpen.knownKeys');
const knownKeys: Map<string, string> = ((globalThis as { [KNOWN]?: Map<string, string> })[KNOWN] ??= new Map());

async function lookupKey(db: Db, hash: string, cached: boolean): Promise<KeyRow | null> {
  const ttl = cached ? keyCacheMs() : 0;
  const now = Date.now();
  const hit = keyCache.get(hash);
  if (hit && hit.db === db && now - hit.checkedAt < ttl && now < hit.expiresAt) return hit.row;
  const [row] = await db.query<KeyRow>(`select * from bullpen.authenticate_key($1)`, [hash]);
  if (!row) {
    keyCache.delete(hash);
    knownKeys.delete(hash);
    return null;
  }
  if (knownKeys.size >= 50_000) knownKeys.clear();
  knownKeys.set(hash, row.key_id);
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
  if (r.scopes?.includes(SENSITIVE_SCOPE)) claims.sensitive = true;
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

/** A door refusal: the status, the headers it needs (Retry-After) and the envelope's error. */
export type DoorRefusal = { status: 401 | 403 | 429 | 503; headers: Record<string, string>; error: ToolError };

/** Who a request is, once the door let it in. */
export type Caller<S> =
  | { via: 'key'; db: Db; claims: Claims; scopes: string[] | null; identity: KeyIdentity }
  | { via: 'session'; db: Db; claims: Claims; scopes: null; session: S };

export type DoorOptions<S> = {
  db: Db;
  /**
   * The console session resolver, for routes a signed-in person may call too (without it, only a
   * key gets in). A request that carries a key is never taken as a person's.
   */
  session?: () => Promise<S | null>;
  /** Whether an API key may call this route (default true); false: a console-only route, Authorization is not read. */
  keys?: boolean;
  /** The tool whose scope a key needs for this route (e.g. attach_add for an upload). */
  tool?: string;
  /** The client's address when the server has it (Node's socket; or the request's `address`); else the front door's stamp. */
  address?: string | null;
  /** Charge the workspace later, through admit(), once the route's own checks passed (MCP: the scopes of the body's calls). */
  deferWorkspace?: boolean;
  /** Believe a key that authenticated within keyCacheMs() (the MCP endpoint). */
  cached?: boolean;
  run?: RunContext;
  sessionId?: string | null;
  limits?: Limits;
};

export type DoorResult<S> =
  | { ok: true; caller: Caller<S>; admit: () => Promise<DoorRefusal | null> }
  | { ok: false; refusal: DoorRefusal };

function fromLimit(r: Refusal): DoorRefusal {
  return { status: r.status, headers: { 'retry-after': String(r.retryAfterSeconds) }, error: r.error };
}

const KEY_SHAPE = /^bp_[A-Za-z0-9_-]{8,190}$/;

/**
 * The one door for every route that takes an API key (and, where a route allows it, a console
 * session). In this order:
 *
 * 1. A client address whose failed attempts (missing, malformed, unknown, revoked or expired
 *    keys, each charged to its bucket) emptied it is refused before any lookup, until the bucket
 *    refills; a key that authenticates costs its address nothing. A person's failed session check
 *    is charged likewise.
 * 2. The key's own bucket (a person's: `h:<actor>`); a call refused here costs its workspace nothing.
 * 3. The lookup: revoked or expired keys are 401, as unknown ones.
 * 4. Scopes: a key whose scopes do not cover `tool` is 403 insufficient_scope.
 * 5. The workspace's bucket, now or (deferWorkspace) when the route calls admit().
 */
export async function authenticateRequest<S extends { claims: Claims; actor_id: string }>(
  req: { headers: HeaderSource; address?: string | null },
  opts: DoorOptions<S>,
): Promise<DoorResult<S>> {
  const limits = opts.limits ?? getLimits(opts.db);
  const byAddress = async (): Promise<DoorRefusal | null> => {
    const r = await limits.chargeAddress(clientAddress(req.headers, opts.address ?? req.address));
    return r && fromLimit(r);
  };
  const admitWorkspace = (tenantId: string) => async () => {
    const r = await limits.consumeWorkspace(tenantId);
    return r && fromLimit(r);
  };
  const admitted = async <C extends Caller<S>>(caller: C, tenantId: string): Promise<DoorResult<S>> => {
    const admit = admitWorkspace(tenantId);
    if (opts.deferWorkspace) return { ok: true, caller, admit };
    const r = await admit();
    return r ? { ok: false, refusal: r } : { ok: true, caller, admit: async () => null };
  };

  const keys = opts.keys ?? true;
  if (!keys && !opts.session) throw new Error('the door needs keys or a session resolver');
  if (opts.session && (!keys || !req.headers.get('authorization'))) {
    const session = await opts.session();
    if (!session) {
      const limited = await byAddress();
      return { ok: false, refusal: limited ?? { status: 401, headers: {}, error: keys ? SIGNED_OUT : SESSION_ENDED } };
    }
    const limited = await limits.consumeKey(`h:${session.actor_id}`);
    if (limited) return { ok: false, refusal: fromLimit(limited) };
    const tenantId = session.claims.tenant_id as string;
    return admitted({ via: 'session', db: opts.db, claims: session.claims, scopes: null, session }, tenantId);
  }

  const key = bearer(req.headers);
  const wellFormed = !!key && KEY_SHAPE.test(key);
  const hash = wellFormed ? hashKey(key!) : null;
  const address = clientAddress(req.headers, opts.address ?? req.address);
  // an address whose failed attempts emptied its bucket is refused before any lookup
  const refusedHere = !hash || !knownKeys.has(hash) ? limits.addressRefused(address) : null;
  if (refusedHere) return { ok: false, refusal: fromLimit(refusedHere) };
  const failed = async (): Promise<DoorResult<S>> => {
    const limited = await limits.chargeAddress(address);
    return { ok: false, refusal: limited ? fromLimit(limited) : { status: 401, headers: {}, error: NO_KEY } };
  };
  if (!hash) return failed();
  const keyLimited = await limits.consumeKey(hash);
  if (keyLimited) return { ok: false, refusal: fromLimit(keyLimited) };
  const identity = await authenticateKey(opts.db, key, opts.run ?? null, { sessionId: opts.sessionId, cached: opts.cached, hash });
  if (!identity) return failed();
  const tool = opts.tool ? getTool(opts.tool) : undefined;
  if (tool && !toolAllowed(tool, identity.scopes)) {
    const scope = scopeFor(tool);
    return {
      ok: false,
      refusal: {
        status: 403,
        headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
        error: toolError(
          'FORBIDDEN',
          `this key may not call ${tool.name}: its scopes are ${identity.scopes!.join(',')}`,
          `${tool.name} needs the scope ${scope}; ask an owner for a key with that scope`,
          { required_scope: scope },
        ),
      },
    };
  }
  return admitted({ via: 'key', db: opts.db, claims: identity.claims, scopes: identity.scopes, identity }, identity.claims.tenant_id as string);
}

const NO_KEY = toolError(
  'UNAUTHENTICATED',
  'missing, unknown, revoked or expired API key: send Authorization: Bearer bp_live_…',
  'mint a key with `npx bullpen agent add NAME`, or ask an owner for a new one',
);
const SESSION_ENDED = toolError('UNAUTHENTICATED', 'your console session has ended', 'sign in again with a fresh link');
const SIGNED_OUT = toolError('UNAUTHENTICATED', 'sign in to the console, or send Authorization: Bearer bp_live_…', 'sign in again with a fresh link');

/** A door refusal as the JSON envelope answer of an ordinary route. */
export function doorResponse(r: DoorRefusal): Response {
  return Response.json({ ok: false, error: r.error }, { status: r.status, headers: { 'cache-control': 'no-store', ...r.headers } });
}

/**
 * The rate limit of the routes that take no key or session yet (sign-in, its callback, sign-out):
 * the client address's bucket. Null when the request may go on.
 */
export async function limitByAddress(req: { headers: HeaderSource }, db: Db, address?: string | null): Promise<Response | null> {
  const r = await getLimits(db).consumeAddress(clientAddress(req.headers, address));
  return r && doorResponse(fromLimit(r));
}

/**
 * The front of a sign-in route's POST (spending a link, signing out): the transport check, the
 * client address's bucket (sign-in tokens are secrets to guess, so every attempt costs it), then
 * the form body within `limit` bytes. The form, or the Response that refuses the request.
 */
export async function signInForm(req: Request, db: Db, limit: number): Promise<URLSearchParams | Response> {
  const refused = checkTransport(req);
  if (refused) return refused;
  const limited = await limitByAddress(req, db);
  if (limited) return limited;
  try {
    return new URLSearchParams(await readBodyText(req, limit));
  } catch (err) {
    if (err instanceof BodyTooLarge) return tooLargeResponse(limit);
    throw err;
  }
}
