import { NextResponse } from 'next/server';
import { cookies } from 'next/headers';
import { SESSION_COOKIE } from '@/lib/console/session';
import { supabaseConfig } from '@/lib/console/supabase';
import { requestOrigin } from '@/lib/server/config';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Signs out: drops the local session cookie and, under Supabase Auth, the Supabase session. */
export async function POST(req: Request): Promise<Response> {
  const origin = requestOrigin(req);
  const store = await cookies();
  const cfg = supabaseConfig();
  if (cfg) {
    const { createServerClient } = await import('@supabase/ssr');
    const supabase = createServerClient(cfg.url, cfg.anonKey, {
      cookies: { getAll: () => store.getAll(), setAll: (list) => list.forEach((c) => store.set(c.name, c.value, c.options)) },
    });
    await supabase.auth.signOut().catch(() => {});
  }
  store.delete(SESSION_COOKIE);
  return NextResponse.redirect(new URL('/auth/signin?signed_out=1', origin), 303);
}
