import { NextResponse } from 'next/server';
import { SESSION_COOKIE, sessionCookieOptions, signSession } from '@/lib/console/session';
import { consumeSignInToken } from '@/lib/console/signin';
import { getDb } from '@/lib/db';
import { requestOrigin } from '@/lib/server/config';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * Spends a one-time sign-in link: the token (single use, expiring) becomes a session cookie holding
 * a signed JWT for that human, then the browser lands on the console. A used, expired or unknown
 * link lands on the sign-in page with the reason.
 */
export async function GET(req: Request): Promise<Response> {
  const origin = requestOrigin(req);
  const token = new URL(req.url).searchParams.get('token');
  const who = await consumeSignInToken(await getDb(), token);
  if (!who) {
    return NextResponse.redirect(new URL('/auth/signin?error=link', origin), 303);
  }
  const session = await signSession({ tenant_id: who.tenant_id, actor_id: who.actor_id });
  const res = NextResponse.redirect(new URL('/projects', origin), 303);
  res.cookies.set(SESSION_COOKIE, session.token, sessionCookieOptions(origin.startsWith('https:'), session.expires_at));
  res.headers.set('cache-control', 'no-store');
  res.headers.set('referrer-policy', 'no-referrer');
  return res;
}
