import { NextResponse } from 'next/server';
import { cookies } from 'next/headers';
import { currentCookieName, getSession } from '@/lib/console/auth';
import { revokeSessions, sessionCookieOptions } from '@/lib/console/session';
import { supabaseConfig } from '@/lib/console/supabase';
import { getDb } from '@/lib/db';
import { signInForm } from '@/lib/server/auth';
import { requestOrigin } from '@/lib/server/config';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * Signs out on the server: revokes this session's row (`scope=everywhere`: every session of this
 * person, in every browser, on every instance), drops the cookie and, under Supabase Auth, the
 * Supabase session (globally for "everywhere"). Open live streams of a revoked session end within
 * seconds.
 */
export async function POST(req: Request): Promise<Response> {
  const form = await signInForm(req, await getDb(), 1024);
  if (form instanceof Response) return form;
  const everywhere = form.get('scope') === 'everywhere';
  const origin = requestOrigin(req);
  const store = await cookies();
  const session = await getSession();
  if (session?.sid) await revokeSessions(await getDb(), { tenant_id: session.tenant_id, actor_id: session.actor_id, sid: session.sid }, everywhere);
  const cfg = supabaseConfig();
  if (cfg) {
    const { createServerClient } = await import('@supabase/ssr');
    const supabase = createServerClient(cfg.url, cfg.anonKey, {
      cookies: { getAll: () => store.getAll(), setAll: (list) => list.forEach((c) => store.set(c.name, c.value, c.options)) },
    });
    await supabase.auth.signOut({ scope: everywhere ? 'global' : 'local' }).catch(() => {});
  }
  // a __Host- cookie is only replaced by one with the same attributes (Secure, Path=/)
  const name = await currentCookieName();
  store.set(name, '', { ...sessionCookieOptions(name.startsWith('__Host-'), new Date(0)), maxAge: 0 });
  return NextResponse.redirect(new URL(`/auth/signin?signed_out=${everywhere ? 'everywhere' : '1'}`, origin), 303);
}
