import { ChangeRouter, changeFeed, Subscribers } from '../core/change-feed';
import type { ChangeEvent, Db } from '../db/types';
import { processOnce } from '../shared/process-once';

/**
 * The process's one change-feed subscription (shared with the waiting calls), fanned out to the
 * open live streams of the event's own workspace only. Streams of other workspaces never see the event: the filter is the
 * tenant_id the trigger put in the payload, matched against the session's tenant on the server.
 */

type Listener = (event: ChangeEvent) => void;

export class ChangeHub extends ChangeRouter {
  private readonly byTenant = new Subscribers<Listener>();
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

  protected route(event: ChangeEvent): void {
    for (const fn of this.byTenant.get(event.tenant_id) ?? []) {
      try {
        fn(event);
        this.delivered++;
      } catch {
        // one broken stream must not starve the others
      }
    }
  }

  subscribe(tenantId: string, fn: Listener): () => void {
    return this.byTenant.add(tenantId, fn);
  }

  subscribers(tenantId?: string): number {
    return this.byTenant.count(tenantId);
  }
}

/** The process-wide hub, listening on the given database from its first use on. */
export function getHub(db: Db): Promise<ChangeHub> {
  return processOnce('bullpen.change-hub', async () => {
    const hub = new ChangeHub();
    // Where the process already handles shutdown signals (bullpen start does), end the live streams
    // too: browsers reconnect to the next server and resume from Last-Event-ID. Default signal
    // behaviour is never changed where nobody handles the signal.
    for (const sig of ['SIGTERM', 'SIGINT'] as const) {
      if (process.listenerCount(sig) > 0) process.once(sig, () => hub.shutdown());
    }
    const feed = await changeFeed(db);
    feed.add((event) => hub.dispatch(event));
    return hub;
  });
}
