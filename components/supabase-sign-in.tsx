'use client';

import { useState } from 'react';

/** Supabase Auth sign-in by email (magic link); the link returns through /auth/callback. */
export function SupabaseSignIn({ url, anonKey }: { url: string; anonKey: string }) {
  const [email, setEmail] = useState('');
  const [state, setState] = useState<'idle' | 'sending' | 'sent' | 'error'>('idle');
  const [message, setMessage] = useState('');
  return (
    <form
      className="mt-4 space-y-2"
      onSubmit={async (e) => {
        e.preventDefault();
        setState('sending');
        const { createBrowserClient } = await import('@supabase/ssr');
        const supabase = createBrowserClient(url, anonKey);
        const { error } = await supabase.auth.signInWithOtp({
          email,
          options: { emailRedirectTo: `${window.location.origin}/auth/callback`, shouldCreateUser: false },
        });
        if (error) {
          setState('error');
          setMessage(error.message);
        } else setState('sent');
      }}
    >
      <input
        type="email"
        required
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        placeholder="you@company.com"
        aria-label="Email"
        className="h-9 w-full rounded-md border border-zinc-200 px-3 text-[13px] focus:border-indigo-400 focus:outline-none"
      />
      <button type="submit" disabled={state === 'sending'} className="h-9 w-full rounded-md bg-zinc-900 text-[13px] font-medium text-white hover:bg-zinc-800 disabled:opacity-50">
        {state === 'sending' ? 'Sending…' : 'Email me a sign-in link'}
      </button>
      {state === 'sent' && <p className="text-[13px] text-emerald-700">Check your inbox for the link.</p>}
      {state === 'error' && <p className="text-[13px] text-red-600">{message}</p>}
    </form>
  );
}
