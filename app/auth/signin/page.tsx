import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { SupabaseSignIn } from '@/components/supabase-sign-in';
import { getSession } from '@/lib/console/auth';
import { supabaseConfig } from '@/lib/console/supabase';
import { SignInCard } from '../sign-in-card';

export const metadata: Metadata = { title: 'Sign in · Bullpen' };
export const dynamic = 'force-dynamic';

const MESSAGES: Record<string, string> = {
  link: 'That sign-in link was already used, replaced by a newer link, or has expired. Links work once, for a day.',
  session: 'Your session has ended. Sign in again.',
  callback: 'Sign-in did not complete. Try again.',
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  if (await getSession()) redirect('/projects');
  const sp = await searchParams;
  const sb = supabaseConfig();
  const error = sp.error ? (MESSAGES[sp.error] ?? 'Sign-in failed.') : null;
  return (
    <SignInCard>
      <h1 className="text-[18px] font-semibold">Sign in to the console</h1>
      {error && (
        <p role="alert" data-testid="signin-error" className="mt-3 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-[13px] text-red-700">
          {error}
        </p>
      )}
      {sp.signed_out && !error && (
        <p data-testid="signed-out" className="mt-3 rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2 text-[13px] text-zinc-600">
          {sp.signed_out === 'everywhere' ? 'You are signed out everywhere: every browser holding a session of yours is signed out too.' : 'You are signed out.'}
        </p>
      )}
      {sb && <SupabaseSignIn url={sb.url} anonKey={sb.anonKey} />}
      <div className="mt-4 space-y-3 text-[13px] leading-relaxed text-zinc-600">
        <p>{sb ? 'Or use' : 'Use'} a one-time sign-in link. The first start of the server prints one for the workspace owner:</p>
        <pre className="rounded-md bg-zinc-950 px-3 py-2 font-mono text-[12px] text-zinc-100">npm start</pre>
        <p>Anyone else gets theirs from an owner, who runs (or clicks “Invite a person” in the console):</p>
        <pre className="rounded-md bg-zinc-950 px-3 py-2 font-mono text-[12px] text-zinc-100">npx bullpen human invite &quot;Your Name&quot;</pre>
        <p className="text-[12px] text-zinc-400">Links work once and expire after a day; running the command again prints a fresh one.</p>
      </div>
    </SignInCard>
  );
}
