import type { Metadata } from 'next';
import { SignInConfirm } from '@/components/signin-confirm';
import { peekSignInToken } from '@/lib/console/signin';
import { getDb } from '@/lib/db';
import { SignInCard } from '../sign-in-card';

// same-origin: the form's POST carries a real Origin (no-referrer would send Origin: null, which is refused)
export const metadata: Metadata = { title: 'Sign in · Bullpen', referrer: 'same-origin', robots: { index: false } };
export const dynamic = 'force-dynamic';

/**
 * The page a sign-in link opens. Opening it spends nothing: a link preview or a prefetch may load
 * it freely. The token sits in the fragment (read by the browser only); links of an older form
 * carry it as ?token=. The button POSTs it to /auth/session, which spends it.
 */
export default async function SignInLinkPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const sp = await searchParams;
  const legacy = typeof sp.token === 'string' ? sp.token : null;
  const who = legacy ? await peekSignInToken(await getDb(), legacy) : null;
  return (
    <SignInCard>
      <SignInConfirm serverToken={legacy} serverWho={who} />
    </SignInCard>
  );
}
