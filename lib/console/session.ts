import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SignJWT, jwtVerify } from 'jose';
import { z } from 'zod';
import { dataDir } from '../db';
import type { Claims } from '../db/types';

/**
 * Local console sessions: an httpOnly cookie holding a JWT (HS256) signed with a secret that lives
 * next to the data directory (or BULLPEN_SESSION_SECRET, which every instance behind a load balancer
 * must share). The claims have the shape every Bullpen caller has: {sub, role, tenant_id, actor_id,
 * kind, exp}, so the database sees a human exactly as it sees an agent.
 */

export const SESSION_COOKIE = 'bullpen_session';
export const SESSION_ISSUER = 'bullpen';
export const SESSION_AUDIENCE = 'bullpen-console';

/** How long a console session lasts, in seconds (BULLPEN_SESSION_TTL_SECONDS, default 14 days). */
export function sessionTtlSeconds(): number {
  const v = Number(process.env.BULLPEN_SESSION_TTL_SECONDS ?? 14 * 24 * 3600);
  return Number.isFinite(v) && v >= 60 ? Math.floor(v) : 14 * 24 * 3600;
}

export const sessionClaims = z.object({
  sub: z.string().min(1).max(200),
  role: z.literal('authenticated'),
  tenant_id: z.guid(),
  actor_id: z.guid(),
  kind: z.literal('human'),
  exp: z.number().int(),
});
export type SessionClaims = z.infer<typeof sessionClaims>;

/** Where the generated session secret is kept: beside the data directory, like server.json. */
export function sessionSecretPath(): string {
  return path.join(path.dirname(dataDir()), 'session.secret');
}

const SECRET = Symbol.for('bullpen.session-secret');
type Holder = { [SECRET]?: Promise<Uint8Array> };

async function loadOrCreateSecret(): Promise<Uint8Array> {
  const fromEnv = process.env.BULLPEN_SESSION_SECRET;
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
  const g = globalThis as Holder;
  if (!g[SECRET]) {
    g[SECRET] = loadOrCreateSecret().catch((err) => {
      delete g[SECRET];
      throw err;
    });
  }
  return g[SECRET]!;
}

/** Signs a session for a human actor. `sub` defaults to the actor id (local sign-in). */
export async function signSession(
  identity: { tenant_id: string; actor_id: string; sub?: string },
  opts: { secret?: Uint8Array; ttlSeconds?: number; now?: number } = {},
): Promise<{ token: string; expires_at: Date }> {
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  const exp = now + (opts.ttlSeconds ?? sessionTtlSeconds());
  const token = await new SignJWT({
    role: 'authenticated',
    tenant_id: identity.tenant_id,
    actor_id: identity.actor_id,
    kind: 'human',
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
  return { sub: s.sub, role: 'authenticated', tenant_id: s.tenant_id, actor_id: s.actor_id, kind: 'human' };
}

/** Cookie attributes for the session: httpOnly, SameSite=Lax, Secure on https. */
export function sessionCookieOptions(secure: boolean, expires: Date) {
  return { httpOnly: true, sameSite: 'lax' as const, secure, path: '/', expires };
}
