import { createHash } from 'node:crypto';
import { ChangeRouter, changeFeed, Subscribers } from './change-feed';
import type { ChangeEvent, ToolDb } from './ports';

/**
 * Waiting instead of polling. A call with wait_seconds runs once; when it comes back empty, it
 * registers a waiter here and holds — holding no database connection — until the change feed
 * reports an event that may change its answer, then runs again. One subscription to the feed per
 * database serves every waiter of the process; an event is routed by a map lookup, so hundreds of
 * waiters cost a few objects each, not a query each.
 *
 * Topics:
 * - inbox: events with object_type "inbox" and object_id = the waiting actor (the coordination
 *   room writes one whenever something lands in an actor's inbox);
 * - work: task events of the workspace that can make work claimable (anything but a claim).
 */
export type WaitTopic = 'inbox' | 'work';

/** How a tool waits (ToolDef.wait); the executor drives it. */
export type WaitSpec = {
  topic: WaitTopic;
  /** True when the answer holds nothing for the caller, so the call may keep waiting. */
  empty: (result: Record<string, unknown>) => boolean;
  /** The input of the runs after the first (e.g. without acks the first run already applied). */
  rerun?: (args: Record<string, unknown>) => Record<string, unknown>;
};

type Waiter = { version: number; notify: (() => void) | null };

/** Task verbs that never make work claimable. */
const NOT_WORK = new Set(['task.claimed', 'task.lease_extended']);

/** The waiters of one database in this process, fed by its change feed. */
export class WaitRoom extends ChangeRouter {
  private readonly inbox = new Subscribers<Waiter>();
  private readonly work = new Subscribers<Waiter>();
  /** Wake-ups delivered so far (for benchmarks and tests). */
  woken = 0;

  protected route(event: ChangeEvent): void {
    if (event.object_type === 'inbox' && event.object_id) {
      this.bump(this.inbox.get(`${event.tenant_id}:${event.object_id}`));
    } else if (event.object_type === 'task' && !NOT_WORK.has(event.verb)) {
      this.bump(this.work.get(event.tenant_id));
    }
  }

  private bump(set: ReadonlySet<Waiter> | undefined): void {
    if (!set) return;
    for (const w of set) {
      w.version++;
      const fn = w.notify;
      w.notify = null;
      if (fn) {
        this.woken++;
        fn();
      }
    }
  }

  /** Registers a waiter; close() it when the call returns. */
  subscribe(tenantId: string, actorId: string, topic: WaitTopic): WaitSubscription {
    const waiter: Waiter = { version: 0, notify: null };
    const remove = topic === 'inbox' ? this.inbox.add(`${tenantId}:${actorId}`, waiter) : this.work.add(tenantId, waiter);
    return {
      get version() {
        return waiter.version;
      },
      next(since: number, ms: number, signal?: AbortSignal): Promise<boolean> {
        if (waiter.version !== since) return Promise.resolve(true);
        if (ms <= 0 || signal?.aborted) return Promise.resolve(false);
        return new Promise<boolean>((resolve) => {
          const done = (woke: boolean) => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            waiter.notify = null;
            resolve(woke);
          };
          const onAbort = () => done(false);
          const timer = setTimeout(() => done(false), ms);
          signal?.addEventListener('abort', onAbort, { once: true });
          waiter.notify = () => done(true);
        });
      },
      close: () => {
        waiter.notify = null;
        remove();
      },
    };
  }

  /** How many calls are waiting right now. */
  size(): number {
    return this.inbox.count() + this.work.count();
  }
}

export type WaitSubscription = {
  /** Counts the relevant events seen since the subscription began. */
  readonly version: number;
  /** Resolves true once an event arrived after `since`, false at the timeout or on abort. */
  next(since: number, ms: number, signal?: AbortSignal): Promise<boolean>;
  close(): void;
};

const rooms = new WeakMap<object, Promise<WaitRoom>>();

/** The wait room of a database: fed by its one change-feed subscription in this process. */
export function waitRoom(db: Pick<ToolDb, 'listen'>): Promise<WaitRoom> {
  let room = rooms.get(db);
  if (!room) {
    const r = new WaitRoom();
    room = changeFeed(db).then((feed) => {
      feed.add((event) => r.dispatch(event));
      return r;
    });
    room.catch(() => rooms.delete(db));
    rooms.set(db, room);
  }
  return room;
}

/** The idempotency key of the n-th run of a waiting call (see waitingCall). */
function attemptKey(key: string, attempt: number): string {
  if (attempt === 0) return key;
  const base = key.length > 180 ? createHash('sha256').update(key).digest('hex').slice(0, 40) : key;
  return `${base}~wait${attempt}`;
}

/**
 * Runs a waiting call: run; if empty, hold until a relevant event, run again; until the answer is
 * not empty or the time is up (then the last, empty answer is returned). Adds waited_ms.
 *
 * With an explicit idempotency_key, run n uses the key, then key~wait1, key~wait2…: every run's
 * answer is kept under its own key, so a retry of the whole call walks the same sequence —
 * replayed empties are passed over without waiting — and replays the run that found something,
 * instead of performing it twice.
 */
export async function waitingCall(
  db: Pick<ToolDb, 'listen'>,
  who: { tenant_id: string; actor_id: string },
  spec: WaitSpec,
  seconds: number,
  args: Record<string, unknown>,
  run: (args: Record<string, unknown>) => Promise<Record<string, unknown>>,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const started = Date.now();
  const deadline = started + seconds * 1000;
  const room = await waitRoom(db);
  // subscribe before the first run, so a write that lands while it runs is not missed
  const sub = room.subscribe(who.tenant_id, who.actor_id, spec.topic);
  const key = typeof args.idempotency_key === 'string' ? args.idempotency_key : undefined;
  try {
    let input = args;
    for (let attempt = 0; ; attempt++) {
      const seen = sub.version;
      const result = await run(key === undefined ? input : { ...input, idempotency_key: attemptKey(key, attempt) });
      if (!spec.empty(result)) return { ...result, waited_ms: Date.now() - started };
      input = spec.rerun ? spec.rerun(args) : args;
      if (result.idempotent_replay === true) continue;
      if (!(await sub.next(seen, deadline - Date.now(), signal))) {
        return { ...result, waited_ms: Date.now() - started };
      }
    }
  } finally {
    sub.close();
  }
}
