import type { Metadata } from 'next';
import { SignInConfirm } from '@/components/signin-confirm';
import { peekSignInToken } from '@/lib/console/signin';
import { getDb } from '@/lib/db';

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
    <main className="flex min-h-screen items-center justify-center bg-zinc-50 p-6">
      <div className="w-full max-w-[420px] rounded-xl border border-zinc-200 bg-white p-7 shadow-sm">
        <div className="mb-5 flex items-center gap-2">
          <span className="inline-flex size-7 items-center justify-center rounded-md bg-zinc-900 text-[13px] font-bold text-white">B</span>
          <span className="text-[15px] font-semibold">Bullpen</span>
        </div>
        <SignInConfirm serverToken={legacy} serverWho={who} />
      </div>
    </main>
  );
}
