import { internalError } from '../core/errors';
import type { ChangeEvent } from '../db/types';
import type { ChangeHub } from './hub';
import { changeHead, changeReplay, type Who } from './ops';
import { SeqWindow } from './seq-window';
import { envNumber } from '../shared/env';

/**
 * The server side of the live feed as a Server-Sent Events stream.
 *
 * Order of work: subscribe to the hub first (live events are buffered), then read what the client
 * missed from the activity log under its own claims (seq > resume, plus the overlap window that
 * catches commits that landed out of seq order), send it, then flush the buffer and go live. A
 * SeqWindow drops every seq already sent, so replay and live never repeat each other inside one
 * connection; across a reconnect the client drops the overlap the same way.
 *
 * Each event's `id:` is the highest seq sent so far, which is what EventSource sends back as
 * Last-Event-ID when it reconnects.
 */

export type LiveStreamOptions = {
  who: Who;
  hub: ChangeHub;
  /** The Last-Event-ID (or ?after=) of a resuming client; null for a fresh connection. */
  resume: number | null;
  signal: AbortSignal;
  heartbeatMs?: number;
  replayLimit?: number;
  /**
   * Whether the session behind the stream is still live (not signed out on the server). Checked
   * every sessionCheckMs and at once when the human's own sign-out reaches the feed; when it
   * answers false the stream sends `event: signed_out` and ends.
   */
  sessionLive?: () => Promise<boolean>;
  sessionCheckMs?: number;
};

/** How often an open stream re-checks its session (BULLPEN_SESSION_CHECK_MS, default 2 s). */
export function sessionCheckMs(): number {
  const v = envNumber('BULLPEN_SESSION_CHECK_MS');
  return Number.isFinite(v) && v >= 100 ? v : 2000;
}

/** Parses Last-Event-ID / ?after= into a seq; null when absent or malformed. */
export function parseResume(lastEventId: string | null, after: string | null): number | null {
  for (const v of [lastEventId, after]) {
    if (v && /^\d{1,15}$/.test(v.trim())) return Number(v.trim());
  }
  return null;
}

export function liveStream(opts: LiveStreamOptions): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const sent = new SeqWindow();
  let unsubscribe: (() => void) | null = null;
  let unshutdown: (() => void) | null = null;
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  let sessionTimer: ReturnType<typeof setInterval> | null = null;
  let closed = false;

  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const write = (s: string) => {
        if (closed) return;
        try {
          controller.enqueue(enc.encode(s));
        } catch {
          cleanup();
        }
      };
      const cleanup = () => {
        if (closed) return;
        closed = true;
        unsubscribe?.();
        unshutdown?.();
        if (heartbeat) clearInterval(heartbeat);
        if (sessionTimer) clearInterval(sessionTimer);
        try {
          controller.close();
        } catch {
          // already closed by the client going away
        }
      };
      const send = (e: ChangeEvent) => {
        if (!sent.add(e.seq)) return;
        write(`id: ${sent.high}\nevent: change\ndata: ${JSON.stringify(e)}\n\n`);
      };
      opts.signal.addEventListener('abort', cleanup, { once: true });
      if (opts.signal.aborted) return cleanup();
      unshutdown = opts.hub.onShutdown(cleanup);

      let checking = false;
      const checkSession = async () => {
        if (!opts.sessionLive || checking || closed) return;
        checking = true;
        try {
          if (!(await opts.sessionLive())) {
            write(`event: signed_out\ndata: {}\n\n`);
            cleanup();
          }
        } catch {
          // a failed check is no sign-out; the next one decides
        } finally {
          checking = false;
        }
      };
      if (opts.sessionLive) sessionTimer = setInterval(() => void checkSession(), opts.sessionCheckMs ?? sessionCheckMs());

      let live = false;
      const buffer: ChangeEvent[] = [];
      unsubscribe = opts.hub.subscribe(opts.who.claims.tenant_id, (e) => {
        if (e.verb === 'actor.signed_out' && e.actor_id === opts.who.claims.actor_id) void checkSession();
        if (live) send(e);
        else buffer.push(e);
      });
      write('retry: 1000\n\n');
      try {
        let head = 0;
        let fresh = opts.resume === null;
        if (opts.resume !== null) {
          const { events, truncated } = await changeReplay(opts.who, opts.resume, opts.replayLimit);
          if (truncated) {
            // too much was missed to replay: the client reloads its data, as on a fresh start
            fresh = true;
          } else {
            for (const e of events) send(e);
            head = Math.max(opts.resume, sent.high);
          }
        }
        let known: number[] = [];
        if (fresh) {
          // A fresh client loads its data after this point, so everything visible now is in it.
          // It is told the seqs of the recent window too, so a later resume's overlap replay does
          // not hand it those again as news.
          head = await changeHead(opts.who);
          known = (await changeReplay(opts.who, head, opts.replayLimit)).events.filter((e) => e.seq <= head).map((e) => e.seq);
          for (const seq of known) sent.add(seq);
        }
        sent.high = Math.max(sent.high, head);
        const info = { head: sent.high, resumed: opts.resume !== null && !fresh, reset: opts.resume !== null && fresh, known };
        write(`id: ${sent.high}\nevent: ready\ndata: ${JSON.stringify(info)}\n\n`);
        live = true;
        for (const e of buffer.splice(0)) send(e);
      } catch (err) {
        const error = internalError(err, 'live stream replay');
        write(`event: failure\ndata: ${JSON.stringify({ message: error.message })}\n\n`);
        return cleanup();
      }
      heartbeat = setInterval(() => write(`: keep-alive ${Date.now()}\n\n`), opts.heartbeatMs ?? 15_000);
    },
    cancel() {
      closed = true;
      unsubscribe?.();
      unshutdown?.();
      if (heartbeat) clearInterval(heartbeat);
      if (sessionTimer) clearInterval(sessionTimer);
    },
  });
}
