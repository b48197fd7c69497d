import { createHash } from 'node:crypto';
import { ChangeRouter, changeFeed, Subscribers, underlyingDb } from './change-feed';
import { corePort, type ChangeEvent, type ReadyTask, type ToolDb } from './ports';

/**
 * Waiting instead of polling. A call with wait_seconds runs once; when it comes back empty, it
 * registers a waiter here and holds — holding no database connection — until the change feed reports
 * an event that may change its answer, then runs again. One subscription to the feed per database
 * serves every waiter of the process; an event is routed by a map lookup, so hundreds of waiters
 * cost a few objects each, not a query each.
 *
 * Topics:
 * - inbox: events with object_type "inbox" and object_id = the waiting actor (the coordination
 *   room writes one whenever something lands in an actor's inbox);
 * - work: task events of the workspace that can make work claimable (anything but a claim). The
 *   room reads once, for the burst of events of a workspace, which tasks they made claimable (the
 *   tasks named and their dependents: bullpen.ready_after, through the readyAfter port), and wakes
 *   only the waiters whose filters one of them matches, one waiter per task, longest waiting first:
 *   never more waiters than there are new ready tasks. Without the port (or when the read fails)
 *   it wakes every waiter of the workspace, which is never wrong, only wasteful.
 * - events: any event of the workspace but an inbox's (event_poll filters types itself, and an
 *   answer that is still empty keeps waiting).
 */
export type WaitTopic = 'inbox' | 'work' | 'events';

/** How a tool waits (ToolDef.wait); the executor drives it. */
export type WaitSpec = {
  topic: WaitTopic;
  /** True when the answer holds nothing for the caller, so the call may keep waiting. */
  empty: (result: Record<string, unknown>) => boolean;
  /**
   * The input of the runs after the first (e.g. without acks the first run already applied, or
   * with the cursor the last empty answer returned).
   */
  rerun?: (args: Record<string, unknown>, last: Record<string, unknown>) => Record<string, unknown>;
  /**
   * Run again after this many ms even without an event (null: wait for one), for answers that
   * say something arrived but cannot be read yet (event_poll's held_back).
   */
  recheckMs?: (result: Record<string, unknown>) => number | null;
};

/** What a waiting task_claim filters on (its input, "me" resolved). */
export type WorkFilter = { task_id?: string; project_id?: string; label?: string; repository_ids?: string[] };

type Waiter = { version: number; notify: (() => void) | null; actorId: string; filter: WorkFilter };

/** Task verbs that never make work claimable. */
const NOT_WORK = new Set(['task.claimed', 'task.lease_extended']);

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Whether a waiter of this actor and filter could claim the task (what task_claim checks). */
export function claimMatches(actorId: string, f: WorkFilter, t: ReadyTask): boolean {
  if (t.assignee_actor_id && t.assignee_actor_id !== actorId) return false;
  if (f.task_id && !same(f.task_id, t.id) && !same(f.task_id, t.ref)) return false;
  if (f.project_id && !same(f.project_id, t.project_id) && !same(f.project_id, t.project_key)) return false;
  if (f.label && !t.labels.includes(f.label)) return false;
  if (f.repository_ids?.length && !f.repository_ids.some((r) => t.repository_ids.some((x) => same(x, r)))) return false;
  return true;
}

/** The waiters of one database in this process, fed by its change feed. */
export class WaitRoom extends ChangeRouter {
  private readonly inbox = new Subscribers<Waiter>();
  private readonly work = new Subscribers<Waiter>();
  private readonly events = new Subscribers<Waiter>();
  /** Task ids of each workspace's events not yet read, and the workspaces being read now. */
  private readonly pending = new Map<string, Set<string>>();
  private readonly reading = new Set<string>();
  /** Wake-ups delivered so far (for benchmarks and tests). */
  woken = 0;
  /** Reads of what task events made claimable (for benchmarks and tests). */
  reads = 0;

  /** readyAfter: what task events made claimable; null wakes every work waiter of the workspace. */
  constructor(private readonly readyAfter: ((tenantId: string, taskIds: string[]) => Promise<ReadyTask[]>) | null = null) {
    super();
  }

  protected route(event: ChangeEvent): void {
    if (event.object_type !== 'inbox') this.bump(this.events.get(event.tenant_id));
    if (event.object_type === 'inbox' && event.object_id) {
      this.bump(this.inbox.get(`${event.tenant_id}:${event.object_id}`));
    } else if (event.object_type === 'task' && !NOT_WORK.has(event.verb)) {
      if (!this.work.count(event.tenant_id)) return;
      if (!this.readyAfter || !event.object_id) return this.bump(this.work.get(event.tenant_id));
      let ids = this.pending.get(event.tenant_id);
      if (!ids) this.pending.set(event.tenant_id, (ids = new Set()));
      ids.add(event.object_id);
      if (!this.reading.has(event.tenant_id)) void this.read(event.tenant_id);
    }
  }

  /** Reads what the pending events of a workspace made claimable, then wakes whom they match; again while events keep coming. */
  private async read(tenantId: string): Promise<void> {
    this.reading.add(tenantId);
    try {
      for (let ids = this.pending.get(tenantId); ids?.size; ids = this.pending.get(tenantId)) {
        this.pending.delete(tenantId);
        if (!this.work.count(tenantId)) continue;
        let ready: ReadyTask[] | null;
        try {
          this.reads++;
          ready = await this.readyAfter!(tenantId, [...ids]);
        } catch {
          ready = null;
        }
        const waiters = this.work.get(tenantId);
        if (!waiters) continue;
        if (ready === null) {
          this.bump(waiters);
          continue;
        }
        // one waiter per ready task, in claim order, longest waiting first (a Set keeps insertion
        // order). A waiter that is waiting is preferred; one that is running (woken a moment ago,
        // or on its first run) only takes a task no waiting one matches: its version moves, so it
        // runs again if this run comes back empty, and no wake-up is spent on it.
        const chosen = new Set<Waiter>();
        for (const task of ready) {
          let pick: Waiter | undefined;
          for (const w of waiters) {
            if (chosen.has(w) || !claimMatches(w.actorId, w.filter, task)) continue;
            if (w.notify) {
              pick = w;
              break;
            }
            pick ??= w;
          }
          if (pick) chosen.add(pick);
        }
        this.bump(chosen);
      }
    } finally {
      this.reading.delete(tenantId);
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

  /** Registers a waiter (a work waiter with what it filters on); close() it when the call returns. */
  subscribe(tenantId: string, actorId: string, topic: WaitTopic, filter: WorkFilter = {}): WaitSubscription {
    const waiter: Waiter = { version: 0, notify: null, actorId, filter };
    const remove =
      topic === 'inbox'
        ? this.inbox.add(`${tenantId}:${actorId}`, waiter)
        : topic === 'events'
          ? this.events.add(tenantId, waiter)
          : this.work.add(tenantId, waiter);
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
    return this.inbox.count() + this.work.count() + this.events.count();
  }

  /** Resolves once no read of what task events made claimable is running or pending (tests). */
  async settled(): Promise<void> {
    while (this.reading.size || this.pending.size) await new Promise((r) => setTimeout(r, 5));
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
export function waitRoom(view: Pick<ToolDb, 'listen'>): Promise<WaitRoom> {
  const db = underlyingDb(view);
  let room = rooms.get(db);
  if (!room) {
    const readyAfter = corePort('readyAfter');
    const r = new WaitRoom(readyAfter ? (tenantId, taskIds) => readyAfter(db as ToolDb, tenantId, taskIds) : null);
    room = changeFeed(db).then((feed) => {
      feed.add((event) => r.dispatch(event));
      return r;
    });
    room.catch(() => rooms.delete(db));
    rooms.set(db, room);
  }
  return room;
}

/** The filters of a waiting task_claim, from its input. */
function workFilter(args: Record<string, unknown>): WorkFilter {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const repos = Array.isArray(args.repository_ids) ? args.repository_ids.filter((r): r is string => typeof r === 'string') : undefined;
  return { task_id: str(args.task_id), project_id: str(args.project_id), label: str(args.label), repository_ids: repos };
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
  const sub = room.subscribe(who.tenant_id, who.actor_id, spec.topic, spec.topic === 'work' ? workFilter(args) : {});
  const key = typeof args.idempotency_key === 'string' ? args.idempotency_key : undefined;
  try {
    let input = args;
    for (let attempt = 0; ; attempt++) {
      const seen = sub.version;
      const result = await run(key === undefined ? input : { ...input, idempotency_key: attemptKey(key, attempt) });
      if (!spec.empty(result)) return { ...result, waited_ms: Date.now() - started };
      input = spec.rerun ? spec.rerun(args, result) : args;
      if (result.idempotent_replay === true) continue;
      const left = deadline - Date.now();
      const recheck = spec.recheckMs?.(result) ?? null;
      const woke = await sub.next(seen, recheck === null ? left : Math.min(left, recheck), signal);
      if (!woke && (recheck === null || recheck >= left || signal?.aborted)) {
        return { ...result, waited_ms: Date.now() - started };
      }
    }
  } finally {
    sub.close();
  }
}
