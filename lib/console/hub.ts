import type { ChangeEvent, Db } from '../db/types';

/**
 * One LISTEN per server process on 'bullpen_changes', fanned out to the open live streams of the
 * event's own workspace only. Streams of other workspaces never see the event: the filter is the
 * tenant_id the trigger put in the payload, matched against the session's tenant on the server.
 */

type Listener = (event: ChangeEvent) => void;

export class ChangeHub {
  private readonly byTenant = new Map<string, Set<Listener>>();
  private readonly closers = new Set<() => void>();
  delivered = 0;

  /** Registers what to do when the server shuts down (end an open stream); returns the undo. */
  onShutdown(fn: () => void): () => void {
    this.closers.add(fn);
    return () => this.closers.delete(fn);
  }

  /** True once the server is shutting down: no new streams are opened. */
  closed = false;

  /** Ends every open stream, so a graceful server close is not held open by live browsers. */
  shutdown(): void {
    this.closed = true;
    for (const fn of [...this.closers]) {
      try {
        fn();
      } catch {
        // closing is best effort
      }
    }
    this.closers.clear();
  }

  /** Feeds one NOTIFY payload in; malformed payloads are ignored. */
  dispatch(payload: string): void {
    let event: ChangeEvent;
    try {
      event = JSON.parse(payload) as ChangeEvent;
    } catch {
      return;
    }
    if (!event || typeof event.tenant_id !== 'string' || typeof event.seq !== 'number') return;
    const set = this.byTenant.get(event.tenant_id);
    if (!set) return;
    for (const fn of set) {
      try {
        fn(event);
        this.delivered++;
      } catch {
        // one broken stream must not starve the others
      }
    }
  }

  subscribe(tenantId: string, fn: Listener): () => void {
    let set = this.byTenant.get(tenantId);
    if (!set) {
      set = new Set();
      this.byTenant.set(tenantId, set);
    }
    set.add(fn);
    return () => {
      set!.delete(fn);
      if (set!.size === 0 && this.byTenant.get(tenantId) === set) this.byTenant.delete(tenantId);
    };
  }

  subscribers(tenantId?: string): number {
    if (tenantId) return this.byTenant.get(tenantId)?.size ?? 0;
    let n = 0;
    for (const s of this.byTenant.values()) n += s.size;
    return n;
  }
}

const KEY = Symbol.for('bullpen.change-hub');
type Holder = { [KEY]?: Promise<ChangeHub> };

/** The process-wide hub, listening on the given database from its first use on. */
export function getHub(db: Db): Promise<ChangeHub> {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    const hub = new ChangeHub();
    // Where the process already handles shutdown signals (bullpen start does), end the live streams
    // too: browsers reconnect to the next server and resume from Last-Event-ID. Default signal
    // behaviour is never changed where nobody handles the signal.
    for (const sig of ['SIGTERM', 'SIGINT'] as const) {
      if (process.listenerCount(sig) > 0) process.once(sig, () => hub.shutdown());
    }
    g[KEY] = db
      .listen('bullpen_changes', (payload) => hub.dispatch(payload))
      .then(() => hub)
      .catch((err) => {
        delete g[KEY];
        throw err;
      });
  }
  return g[KEY]!;
}
