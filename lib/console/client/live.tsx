'use client';

import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { SeqWindow } from '../seq-window';
import type { LiveEvent } from '../types';
import { LiveCacheBridge } from './cache';
import { sessionEnded } from './signing-out';

/**
 * The browser end of the live feed. One connection per tab: Supabase Realtime's private channel
 * tenant:<id> when the console is configured for Supabase, else the SSE route (EventSource, which
 * resumes with Last-Event-ID by itself). Every event passes a SeqWindow, so the replay overlap after
 * a reconnect never reaches a subscriber twice; then React Query caches are patched (LiveCacheBridge)
 * and subscribers of useLiveChanges() are called.
 */

export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

export { markSigningOut } from './signing-out';
type Listener = (e: LiveEvent) => void;

type LiveContextValue = {
  status: LiveStatus;
  /** True once the first connection is subscribed: queries started after this miss nothing. */
  ready: boolean;
  subscribe: (fn: Listener) => () => void;
  lastSeq: () => number;
};

const LiveContext = createContext<LiveContextValue | null>(null);

export type SupabaseLive = { url: string; anonKey: string } | null;

export function LiveProvider({ tenantId, supabase, children }: { tenantId: string; supabase: SupabaseLive; children: ReactNode }) {
  const qc = useQueryClient();
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const [ready, setReady] = useState(false);
  const listeners = useRef(new Set<Listener>());
  const seen = useRef(new SeqWindow());

  useEffect(() => {
    const bridge = new LiveCacheBridge(qc);
    const deliver = (e: LiveEvent) => {
      if (e.tenant_id !== tenantId || !seen.current.add(e.seq)) return;
      bridge.handle(e);
      for (const fn of listeners.current) fn(e);
    };
    // if the stream never comes up (a proxy that strips SSE), load data anyway
    const fallback = window.setTimeout(() => setReady(true), 2000);
    let stop: () => void;

    if (supabase) {
      stop = connectSupabase(supabase, tenantId, seen.current, deliver, (s) => {
        setStatus(s);
        if (s === 'live') setReady(true);
      });
    } else {
      let es: EventSource | null = null;
      let retry: number | null = null;
      let connectedOnce = false;
      const open = () => {
        const after = seen.current.high;
        es = new EventSource(after > 0 ? `/api/events?after=${after}` : '/api/events');
        es.addEventListener('change', (m) => deliver(JSON.parse((m as MessageEvent).data) as LiveEvent));
        es.addEventListener('ready', (m) => {
          const info = JSON.parse((m as MessageEvent).data) as { head: number; resumed: boolean; reset: boolean; known: number[] };
          // what a fresh stream says is already in the data this tab loads next: never news later
          for (const seq of info.known) seen.current.add(seq);
          if (info.head > seen.current.high) seen.current.high = info.head;
          if (info.reset || (connectedOnce && !info.resumed)) bridge.resync();
          connectedOnce = true;
          setStatus('live');
          setReady(true);
        });
        // the server ended the session (signed out elsewhere, or everywhere): leave for the sign-in page
        es.addEventListener('signed_out', () => {
          es?.close();
          es = null;
          sessionEnded();
        });
        es.onerror = () => {
          setStatus('reconnecting');
          // EventSource retries on its own with Last-Event-ID; a refused stream (401/5xx) closes it
          if (es && es.readyState === EventSource.CLOSED) {
            es = null;
            retry = window.setTimeout(open, 3000);
          }
        };
      };
      open();
      stop = () => {
        if (retry) clearTimeout(retry);
        es?.close();
      };
    }
    return () => {
      clearTimeout(fallback);
      stop();
      bridge.dispose();
    };
  }, [qc, tenantId, supabase]);

  const value = useMemo<LiveContextValue>(
    () => ({
      status,
      ready,
      subscribe: (fn) => {
        listeners.current.add(fn);
        return () => listeners.current.delete(fn);
      },
      lastSeq: () => seen.current.high,
    }),
    [status, ready],
  );
  return <LiveContext.Provider value={value}>{children}</LiveContext.Provider>;
}

function connectSupabase(
  cfg: { url: string; anonKey: string },
  tenantId: string,
  seen: SeqWindow,
  deliver: (e: LiveEvent) => void,
  onStatus: (s: LiveStatus) => void,
): () => void {
  let cancelled = false;
  let cleanup = () => {};
  void (async () => {
    const { createBrowserClient } = await import('@supabase/ssr');
    if (cancelled) return;
    const client = createBrowserClient(cfg.url, cfg.anonKey);
    const { data } = await client.auth.getSession();
    if (data.session) await client.realtime.setAuth(data.session.access_token);
    let subscribedOnce = false;
    const channel = client
      .channel(`tenant:${tenantId}`, { config: { private: true } })
      .on('broadcast', { event: 'change' }, (msg) => deliver(msg.payload as LiveEvent))
      .subscribe(async (state) => {
        if (state === 'SUBSCRIBED') {
          const first = !subscribedOnce;
          subscribedOnce = true;
          // broadcasts are not stored: what was missed while away comes from the activity log
          if (!first && seen.high > 0) {
            const res = await fetch(`/api/events?after=${seen.high}`, { headers: { accept: 'application/json' } });
            if (res.ok) for (const e of ((await res.json()) as { events: LiveEvent[] }).events) deliver(e);
          }
          onStatus('live');
        } else if (state === 'CHANNEL_ERROR' || state === 'TIMED_OUT' || state === 'CLOSED') {
          onStatus('reconnecting');
        }
      });
    cleanup = () => void client.removeChannel(channel);
  })();
  return () => {
    cancelled = true;
    cleanup();
  };
}

function useLive(): LiveContextValue {
  const ctx = useContext(LiveContext);
  if (!ctx) throw new Error('useLiveChanges must be used inside <LiveProvider>');
  return ctx;
}

/**
 * Calls `onEvent` for every change in the workspace (each seq once, in arrival order) while the
 * component is mounted. Caches are already patched when it runs; use it for side effects such as
 * highlighting a card. Returns the connection status and whether the feed is ready.
 */
export function useLiveChanges(onEvent?: (e: LiveEvent) => void): { status: LiveStatus; ready: boolean } {
  const ctx = useLive();
  const ref = useRef(onEvent);
  ref.current = onEvent;
  useEffect(() => ctx.subscribe((e) => ref.current?.(e)), [ctx]);
  return { status: ctx.status, ready: ctx.ready };
}
