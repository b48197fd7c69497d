'use client';

import { useEffect, useState } from 'react';

type Who = { display_name: string; tenant_name: string; expires_at: string } | null;

/**
 * The confirm step of a sign-in link: reads the token from the fragment (or the server's ?token=),
 * removes it from the address bar, shows who it signs in as, and spends it only when the person
 * presses the button (a POST to /auth/session).
 */
export function SignInConfirm({ serverToken, serverWho }: { serverToken: string | null; serverWho: Who }) {
  const [token, setToken] = useState<string | null>(serverToken);
  const [who, setWho] = useState<Who>(serverWho);
  const [state, setState] = useState<'reading' | 'ready' | 'invalid'>(serverToken ? (serverWho ? 'ready' : 'invalid') : 'reading');

  useEffect(() => {
    if (serverToken) {
      window.history.replaceState(null, '', '/auth/link');
      return;
    }
    // read the fragment now, and again if another link is opened in this tab (a hash change)
    const read = () => {
      const t = new URLSearchParams(window.location.hash.slice(1)).get('token');
      if (!t) {
        if (!window.location.hash) setState((s) => (s === 'reading' ? 'invalid' : s));
        return;
      }
      window.history.replaceState(null, '', '/auth/link');
      setToken(t);
      setWho(null);
      setState('reading');
      const body = new URLSearchParams({ token: t, intent: 'peek' });
      fetch('/auth/session', { method: 'POST', body, headers: { accept: 'application/json' } })
        .then((r) => (r.ok ? r.json() : null))
        .then((j: { ok?: boolean; display_name?: string; tenant_name?: string; expires_at?: string } | null) => {
          if (j?.ok && j.display_name && j.tenant_name && j.expires_at) {
            setWho({ display_name: j.display_name, tenant_name: j.tenant_name, expires_at: j.expires_at });
            setState('ready');
          } else setState('invalid');
        })
        .catch(() => setState('invalid'));
    };
    read();
    window.addEventListener('hashchange', read);
    return () => window.removeEventListener('hashchange', read);
  }, [serverToken]);

  if (state === 'invalid') {
    return (
      <div data-testid="signin-confirm-invalid">
        <h1 className="text-[18px] font-semibold">This link does not work</h1>
        <p role="alert" className="mt-3 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-[13px] text-red-700">
          It was already used, replaced by a newer link, or has expired. Links work once, for a day.
        </p>
        <p className="mt-4 text-[13px] leading-relaxed text-zinc-600">
          Ask a workspace owner for a fresh one (they run <code className="font-mono">npx bullpen human invite &quot;Your Name&quot;</code> or
          use <em>Invite a person</em> in the console).
        </p>
      </div>
    );
  }
  return (
    <form method="post" action="/auth/session" data-testid="signin-confirm">
      <h1 className="text-[18px] font-semibold">Sign in to the console</h1>
      <p className="mt-3 text-[13px] leading-relaxed text-zinc-600" data-testid="signin-confirm-who">
        {who ? (
          <>
            Sign in as <strong className="text-zinc-900">{who.display_name}</strong> to <strong className="text-zinc-900">{who.tenant_name}</strong>.
          </>
        ) : (
          'Checking the link…'
        )}
      </p>
      <input type="hidden" name="token" value={token ?? ''} />
      <button
        type="submit"
        disabled={state !== 'ready'}
        className="mt-5 w-full rounded-md bg-zinc-900 px-3 py-2 text-[13px] font-medium text-white hover:bg-zinc-800 disabled:opacity-50"
      >
        Continue
      </button>
      <p className="mt-3 text-[12px] text-zinc-500">The link works once; pressing Continue uses it.</p>
    </form>
  );
}
