import { NextResponse } from 'next/server';
import { openSession, sessionCookieName, sessionCookieOptions, signSession } from '@/lib/console/session';
import { consumeSignInToken, peekSignInToken } from '@/lib/console/signin';
import { getDb } from '@/lib/db';
import { signInForm } from '@/lib/server/auth';
import { isSecureRequest, requestOrigin } from '@/lib/server/config';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const LIMIT = 4096;

/**
 * Spends a sign-in link: the confirm page POSTs its token here (a form, or `intent=peek` from the
 * page's script to show who the link is for without spending it). The token (single use, expiring,
 * revoked by a newer link) becomes a session row and a cookie holding a signed JWT that names the
 * row; the browser lands on the console. A used, revoked, expired or unknown token lands on the
 * sign-in page with the reason.
 */
export async function POST(req: Request): Promise<Response> {
  const form = await signInForm(req, await getDb(), LIMIT);
  if (form instanceof Response) return form;
  const db = await getDb();
  const token = form.get('token');
  if (form.get('intent') === 'peek') {
    const who = await peekSignInToken(db, token);
    return Response.json(who ? { ok: true, ...who } : { ok: false }, { headers: { 'cache-control': 'no-store' } });
  }
  const origin = requestOrigin(req);
  const who = await consumeSignInToken(db, token);
  if (!who) return NextResponse.redirect(new URL('/auth/signin?error=link', origin), 303);
  const row = await openSession(db, who, { userAgent: req.headers.get('user-agent') });
  const session = await signSession({ tenant_id: who.tenant_id, actor_id: who.actor_id, sid: row.sid });
  const secure = isSecureRequest(req);
  const res = NextResponse.redirect(new URL('/projects', origin), 303);
  res.cookies.set(sessionCookieName(secure), session.token, sessionCookieOptions(secure, session.expires_at));
  res.headers.set('cache-control', 'no-store');
  res.headers.set('referrer-policy', 'no-referrer');
  return res;
}
