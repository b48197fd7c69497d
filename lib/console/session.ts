import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SignJWT, jwtVerify } from 'jose';
import { z } from 'zod';
import { dataDir } from '../db';
import type { Claims, Db } from '../db/types';
import { env, envNumber } from '../shared/env';
import { processOnce } from '../shared/process-once';

/**
 * Local console sessions: an httpOnly cookie holding a JWT (HS256) signed with a secret that lives
 * next to the data directory (or BULLPEN_SESSION_SECRET, which every instance behind a load balancer
 * must share). The claims have the shape every Bullpen caller has: {sub, role, tenant_id, actor_id,
 * kind, exp}, so the database sees a human exactly as it sees an agent, plus `sid`: the row in
 * bullpen.sessions that the server checks on every request, so signing out (or out everywhere)
 * ends the session on every instance, not only in this browser.
 */

export const SESSION_COOKIE = 'bullpen_session';
/** Over https the cookie takes the __Host- prefix: Secure, Path=/, no Domain, so no subdomain can plant one. */
export const SECURE_SESSION_COOKIE = '__Host-bullpen_session';

/** The cookie's name for a request over https (secure) or plain http. */
export function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}
export const SESSION_ISSUER = 'bullpen';
export const SESSION_AUDIENCE = 'bullpen-console';

/** How long a console session lasts, in seconds (BULLPEN_SESSION_TTL_SECONDS, default 14 days). */
export function sessionTtlSeconds(): number {
  const v = envNumber('BULLPEN_SESSION_TTL_SECONDS');
  return Number.isFinite(v) && v >= 60 ? Math.floor(v) : 14 * 24 * 3600;
}

export const sessionClaims = z.object({
  sub: z.string().min(1).max(200),
  role: z.literal('authenticated'),
  tenant_id: z.guid(),
  actor_id: z.guid(),
  kind: z.literal('human'),
  sid: z.guid(),
  exp: z.number().int(),
});
export type SessionClaims = z.infer<typeof sessionClaims>;

/** Where the generated session secret is kept: beside the data directory, like server.json. */
export function sessionSecretPath(): string {
  return path.join(path.dirname(dataDir()), 'session.secret');
}

async function loadOrCreateSecret(): Promise<Uint8Array> {
  const fromEnv = env('BULLPEN_SESSION_SECRET');
  if (fromEnv) {
    if (fromEnv.length < 32) throw new Error('BULLPEN_SESSION_SECRET must be at least 32 characters');
    return new TextEncoder().encode(fromEnv);
  }
  const file = sessionSecretPath();
  const read = async () => (await readFile(file, 'utf8')).trim();
  let value = await read().catch(() => '');
  if (!value) {
    await mkdir(path.dirname(file), { recursive: true });
    const fresh = randomBytes(32).toString('base64url');
    // 'wx': when two processes race, one writes and both read the winner
    await writeFile(file, `${fresh}\n`, { mode: 0o600, flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
    value = await read();
  }
  return new TextEncoder().encode(value);
}

/** The process's session secret (cached). */
export function sessionSecret(): Promise<Uint8Array> {
  return processOnce('bullpen.session-secret', loadOrCreateSecret);
}

/** Signs a session for a human actor and its session row. `sub` defaults to the actor id (local sign-in). */
export async function signSession(
  identity: { tenant_id: string; actor_id: string; sid: string; sub?: string },
  opts: { secret?: Uint8Array; ttlSeconds?: number; now?: number } = {},
): Promise<{ token: string; expires_at: Date }> {
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  const exp = now + (opts.ttlSeconds ?? sessionTtlSeconds());
  const token = await new SignJWT({
    role: 'authenticated',
    tenant_id: identity.tenant_id,
    actor_id: identity.actor_id,
    kind: 'human',
    sid: identity.sid,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(identity.sub ?? identity.actor_id)
    .setIssuer(SESSION_ISSUER)
    .setAudience(SESSION_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(exp)
    .sign(opts.secret ?? (await sessionSecret()));
  return { token, expires_at: new Date(exp * 1000) };
}

/**
 * Verifies a session cookie: signature (HS256 only), issuer, audience, expiry and claim shape.
 * Returns null for anything forged, expired, malformed or of another shape; never throws.
 */
export async function verifySession(
  token: string | undefined | null,
  opts: { secret?: Uint8Array; now?: number } = {},
): Promise<SessionClaims | null> {
  if (!token || token.length > 4096) return null;
  try {
    const { payload } = await jwtVerify(token, opts.secret ?? (await sessionSecret()), {
      algorithms: ['HS256'],
      issuer: SESSION_ISSUER,
      audience: SESSION_AUDIENCE,
      currentDate: opts.now === undefined ? undefined : new Date(opts.now),
    });
    const parsed = sessionClaims.safeParse(payload);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The claims a session runs under in the database (request.jwt.claims). */
export function toDbClaims(s: { sub: string; tenant_id: string; actor_id: string }): Claims {
  // people in the console see sensitive items (keys need the sensitive scope)
  return { sub: s.sub, role: 'authenticated', tenant_id: s.tenant_id, actor_id: s.actor_id, kind: 'human', sensitive: true };
}

/** Cookie attributes for the session: httpOnly, SameSite=Lax, Path=/, no Domain, Secure on https. */
export function sessionCookieOptions(secure: boolean, expires: Date) {
  return { httpOnly: true, sameSite: 'lax' as const, secure, path: '/', expires };
}

// ---------------------------------------------------------------------------------------------
// Session rows (bullpen.sessions), written by the server only
// ---------------------------------------------------------------------------------------------

/** Opens a session row for a human who just signed in; returns its id and expiry. */
export async function openSession(
  db: Db,
  who: { tenant_id: string; actor_id: string },
  opts: { userAgent?: string | null; ttlSeconds?: number } = {},
): Promise<{ sid: string; expires_at: Date }> {
  const ttl = opts.ttlSeconds ?? sessionTtlSeconds();
  const [row] = await db.query<{ id: string; expires_at: Date | string }>(
    `insert into bullpen.sessions (tenant_id, actor_id, user_agent, expires_at)
     select a.tenant_id, a.id, $3, now() + make_interval(secs => $4)
       from public.actors a where a.tenant_id = $1 and a.id = $2 and a.kind = 'human'
     returning id, expires_at`,
    [who.tenant_id, who.actor_id, opts.userAgent?.slice(0, 300) ?? null, ttl],
  );
  if (!row) throw new Error('sessions are for human actors of this workspace');
  return { sid: row.id, expires_at: new Date(row.expires_at) };
}

/** Whether the session row is live (not revoked, not expired, its human still there). */
export async function sessionLive(db: Db, s: { tenant_id: string; actor_id: string; sid: string }): Promise<boolean> {
  const [row] = await db.query<{ live: boolean }>(`select bullpen.session_live($1, $2, $3) as live`, [s.tenant_id, s.sid, s.actor_id]);
  return row?.live === true;
}

/**
 * Signs out: revokes this session, or every live session of the human ("sign out everywhere").
 * The sign-out is on the activity log, which also tells the human's open live streams at once.
 * Returns how many sessions ended.
 */
export async function revokeSessions(db: Db, s: { tenant_id: string; actor_id: string; sid: string }, everywhere: boolean): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `update bullpen.sessions set revoked_at = now()
      where tenant_id = $1 and actor_id = $2 and revoked_at is null and ($4 or id = $3)
      returning id`,
    [s.tenant_id, s.actor_id, s.sid, everywhere],
  );
  if (rows.length > 0) {
    await db.query(
      `insert into public.activity (tenant_id, actor_id, verb, object_type, object_id, summary, metadata)
       select $1, $2, 'actor.signed_out', 'actor', $2,
              a.display_name || case when $3 then ' signed out everywhere' else ' signed out' end,
              jsonb_build_object('sessions', $4::int, 'everywhere', $3)
         from public.actors a where a.tenant_id = $1 and a.id = $2`,
      [s.tenant_id, s.actor_id, everywhere, rows.length],
    );
  }
  return rows.length;
}
