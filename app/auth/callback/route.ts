import { NextResponse } from 'next/server';
import { cookies } from 'next/headers';
import { supabaseConfig } from '@/lib/console/supabase';
import { getDb } from '@/lib/db';
import { limitByAddress } from '@/lib/server/auth';
import { requestOrigin } from '@/lib/server/config';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Supabase Auth's return leg (magic link / OAuth, PKCE): exchanges the code for a session cookie. */
export async function GET(req: Request): Promise<Response> {
  // a sign-in's return leg: limited per client address like the sign-in itself
  const limited = await limitByAddress(req, await getDb());
  if (limited) return limited;
  const origin = requestOrigin(req);
  const cfg = supabaseConfig();
  const code = new URL(req.url).searchParams.get('code');
  if (!cfg || !code) return NextResponse.redirect(new URL('/auth/signin?error=callback', origin), 303);
  const store = await cookies();
  const { createServerClient } = await import('@supabase/ssr');
  const supabase = createServerClient(cfg.url, cfg.anonKey, {
    cookies: { getAll: () => store.getAll(), setAll: (list) => list.forEach((c) => store.set(c.name, c.value, c.options)) },
  });
  const { error } = await supabase.auth.exchangeCodeForSession(code);
  return NextResponse.redirect(new URL(error ? '/auth/signin?error=callback' : '/projects', origin), 303);
}
