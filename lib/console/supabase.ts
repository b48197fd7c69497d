import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import type { Db } from '../db/types';
import type { SignedIn } from './signin';

/**
 * Supabase Auth for the console, used when NEXT_PUBLIC_SUPABASE_URL and the anon (publishable) key
 * are set. The access token @supabase/ssr keeps in cookies is verified here with jose (HS256 with
 * SUPABASE_JWT_SECRET, else the project's JWKS), never trusted as read; the auth user then maps to a
 * human actor through actors.auth_user_id.
 */

export type SupabaseConfig = { url: string; anonKey: string; jwtSecret: string | null };

export function supabaseConfig(env: Record<string, string | undefined> = process.env): SupabaseConfig | null {
  const url = env.NEXT_PUBLIC_SUPABASE_URL?.replace(/\/$/, '');
  const anonKey = env.NEXT_PUBLIC_SUPABASE_ANON_KEY ?? env.NEXT_PUBLIC_SUPABASE_PUBLISHABLE_KEY;
  if (!url || !anonKey) return null;
  return { url, anonKey, jwtSecret: env.SUPABASE_JWT_SECRET ?? null };
}

export const supabaseUser = z.object({
  sub: z.guid(),
  role: z.literal('authenticated'),
  email: z.string().optional(),
  exp: z.number().int(),
  is_anonymous: z.boolean().optional(),
  user_metadata: z.looseObject({ email_verified: z.boolean().optional() }).optional(),
});
export type SupabaseUser = z.infer<typeof supabaseUser>;

const JWKS = new Map<string, JWTVerifyGetKey>();
function projectJwks(url: string): JWTVerifyGetKey {
  let set = JWKS.get(url);
  if (!set) {
    set = createRemoteJWKSet(new URL(`${url}/auth/v1/.well-known/jwks.json`));
    JWKS.set(url, set);
  }
  return set;
}

/**
 * Verifies a Supabase access token: signature, issuer (<url>/auth/v1), audience "authenticated",
 * expiry, and that it is a signed-in user (role authenticated, sub a uuid). Null when it is not.
 */
export async function verifySupabaseJwt(
  token: string | null | undefined,
  cfg: Pick<SupabaseConfig, 'url' | 'jwtSecret'>,
  opts: { jwks?: JWTVerifyGetKey; now?: number } = {},
): Promise<SupabaseUser | null> {
  if (!token || token.length > 8192) return null;
  try {
    const options = {
      issuer: `${cfg.url}/auth/v1`,
      audience: 'authenticated',
      currentDate: opts.now === undefined ? undefined : new Date(opts.now),
    };
    const { payload } = cfg.jwtSecret
      ? await jwtVerify(token, new TextEncoder().encode(cfg.jwtSecret), { ...options, algorithms: ['HS256'] })
      : await jwtVerify(token, opts.jwks ?? projectJwks(cfg.url), { ...options, algorithms: ['RS256', 'ES256', 'EdDSA'] });
    const parsed = supabaseUser.safeParse(payload);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Whether the token itself says the email is verified (and the user is not anonymous). */
export function emailVerifiedInToken(user: SupabaseUser): boolean {
  return !!user.email && user.is_anonymous !== true && user.user_metadata?.email_verified === true;
}

/**
 * The human actor a Supabase user acts as. An invitation by email (external_ref email:<address>)
 * is linked to the auth user on first sign-in, and only when the email is verified: by the token
 * (user_metadata.email_verified) or, when the token does not say, by `confirmedEmail` (the auth
 * server's email_confirmed_at). Anyone could otherwise sign up with an invited person's address and
 * take their place. With several workspaces, `preferTenant` picks one (the workspace switcher's
 * choice); otherwise the oldest membership. Null: not invited anywhere, or not verified.
 */
export async function humanForSupabaseUser(
  db: Db,
  user: SupabaseUser,
  preferTenant?: string | null,
  confirmedEmail?: () => Promise<boolean>,
): Promise<(SignedIn & { sub: string }) | null> {
  const inToken = emailVerifiedInToken(user);
  const lookup = (email: string | null) => db.query<SignedIn>(`select * from bullpen.humans_for_auth_user($1, $2)`, [user.sub, email]);
  let rows = await lookup(inToken ? user.email! : null);
  // the token does not say: ask the auth server, but only when nothing is linked yet (once per person)
  if (rows.length === 0 && !inToken && user.email && user.is_anonymous !== true && confirmedEmail) {
    if (await confirmedEmail().catch(() => false)) rows = await lookup(user.email);
  }
  const pick = rows.find((r) => r.tenant_id === preferTenant) ?? rows[0];
  return pick ? { ...pick, sub: user.sub } : null;
}
