import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { cache } from 'react';
import { getDb } from '../db';
import type { Claims } from '../db/types';
import { isSecureRequest } from '../server/config';
import { sessionCookieName, sessionLive, toDbClaims, verifySession } from './session';
import { humanForSupabaseUser, supabaseConfig, verifySupabaseJwt } from './supabase';
import { supabaseSessionCheck } from './supabase-live';
import { toolError } from '../core/errors';

/** A signed-in human, as every console page, action and route sees them. */
export type ConsoleSession = {
  claims: Claims;
  tenant_id: string;
  actor_id: string;
  via: 'local' | 'supabase';
  /** The local session row (bullpen.sessions); absent under Supabase Auth, which revokes its own. */
  sid?: string;
  /** Under Supabase Auth: whether the session still stands (a live stream asks it while open). */
  stillLive?: () => Promise<boolean>;
};

/** The workspace a multi-workspace Supabase user chose last. */
export const WORKSPACE_COOKIE = 'bullpen_workspace';

async function supabaseSession(): Promise<ConsoleSession | null> {
  const cfg = supabaseConfig();
  if (!cfg) return null;
  const store = await cookies();
  const { createServerClient } = await import('@supabase/ssr');
  const supabase = createServerClient(cfg.url, cfg.anonKey, {
    cookies: {
      getAll: () => store.getAll(),
      setAll: (list) => {
        try {
          for (const c of list) store.set(c.name, c.value, c.options);
        } catch {
          // Server Components cannot set cookies; the next action or route refreshes them
        }
      },
    },
  });
  const { data } = await supabase.auth.getSession();
  const token = data.session?.access_token;
  const user = await verifySupabaseJwt(token, cfg);
  if (!user) return null;
  const human = await humanForSupabaseUser(await getDb(), user, store.get(WORKSPACE_COOKIE)?.value, async () => {
    // the token did not say: ask the auth server whether the address was confirmed
    const { data } = await supabase.auth.getUser();
    return data.user?.id === user.sub && !!data.user.email_confirmed_at && data.user.email === user.email;
  });
  if (!human) return null;
  const claims = toDbClaims({ sub: user.sub, tenant_id: human.tenant_id, actor_id: human.actor_id });
  const stillLive = supabaseSessionCheck({
    token: token!,
    sub: user.sub,
    cfg,
    askServer: async (t) => (await supabase.auth.getUser(t)).data.user?.id ?? null,
  });
  return { claims, tenant_id: human.tenant_id, actor_id: human.actor_id, via: 'supabase', stillLive };
}

/** The session cookie's name for this request: `__Host-bullpen_session` over https. */
export async function currentCookieName(): Promise<string> {
  const h = await headers();
  const host = h.get('host') ?? 'localhost';
  return sessionCookieName(isSecureRequest({ url: `http://${host}/`, headers: h }));
}

/**
 * The session of this request, or null. A local session cookie (signed JWT) is checked first (its
 * signature, then its row: a revoked or expired row is no session), then Supabase Auth when it is
 * configured. Cached per request.
 */
export const getSession = cache(async (): Promise<ConsoleSession | null> => {
  const store = await cookies();
  const local = await verifySession(store.get(await currentCookieName())?.value);
  if (local && (await sessionLive(await getDb(), local))) {
    return { claims: toDbClaims(local), tenant_id: local.tenant_id, actor_id: local.actor_id, via: 'local', sid: local.sid };
  }
  return supabaseSession();
});

/** For pages: the session, or a redirect to the sign-in page. */
export async function requireSession(): Promise<ConsoleSession> {
  const s = await getSession();
  if (!s) redirect('/auth/signin');
  return s;
}

/** The envelope every console surface answers without a session. */
export const SIGNED_OUT = {
  ok: false as const,
  error: toolError('UNAUTHENTICATED', 'your console session has ended', 'sign in again with a fresh link'),
};

/** The same, as an HTTP 401 for the console's routes. */
export function signedOutResponse(): Response {
  return Response.json(SIGNED_OUT, { status: 401 });
}
