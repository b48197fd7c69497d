import { availableParallelism } from 'node:os';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { UNDERLYING_DB } from '../core/change-feed';
import { toolError, type ToolError } from '../core/errors';
import type { Db } from '../db/types';
import { envNumber, type EnvName } from '../shared/env';

/**
 * Fair sharing. Two gates in front of every MCP call:
 *
 * 1. Rate limits (rate-limiter-flexible): a bucket per key and one per workspace, each refilled
 *    every window. On a Postgres server the buckets live in bullpen.rate_limits, so every instance
 *    on that database counts against the same numbers; on the embedded database (one process)
 *    they live in memory. Over the limit: HTTP 429, Retry-After, a RATE_LIMITED envelope.
 *    An instance takes calls from a shared bucket a tenth of the bucket at a time and hands them
 *    out from memory until they run out or the window ends, so a call costs a round trip to the
 *    store only once per tenth of a bucket. The shared count never exceeds the limit (what an
 *    instance holds is counted); an instance may be refused while another still holds unused
 *    calls, at most a tenth of the bucket per instance and window.
 * 2. A per-workspace concurrency cap in each process, below the connection pool's size, so one
 *    workspace can never hold every pooled connection. While other workspaces are active (a call in
 *    the last second) a workspace gets its fair share, half the machine's cores' worth of calls at
 *    once; alone it may use up to half the pool, so a single busy workspace loses no throughput.
 *    Inside a workspace the slots are shared the same way among its keys: one key alone may take
 *    them all, beside other active keys at most half, and waiting calls are served round-robin by
 *    key (FairSlots). Calls past the cap wait their turn for a bounded time, then get a retryable BUSY.
 */

/** A limit setting from the one environment list (lib/shared/env.ts); `fallback` where it is unset, computed or invalid. */
function setting(name: EnvName, fallback: number): number {
  const v = envNumber(name);
  return Number.isFinite(v) && v >= 0 ? v : fallback;
}

export type LimitSettings = {
  /** Sustained calls per second per key; 0 turns the key limit off. */
  keyPerSecond: number;
  /** Sustained calls per second per workspace; 0 turns the workspace limit off. */
  workspacePerSecond: number;
  /**
   * Sustained calls per second per client address that carry no key the server knows (missing,
   * malformed, unknown or revoked) and sign-in attempts; 0 turns it off.
   */
  addressPerSecond: number;
  /** Bucket window in seconds: a bucket holds rate × window calls. */
  windowSeconds: number;
  /** In-flight calls per workspace per process while other workspaces are active. */
  workspaceConcurrency: number;
  /** In-flight calls of a workspace that is the only one active. */
  workspaceConcurrencyAlone: number;
  /** How long a call waits for a workspace slot before BUSY. */
  queueTimeoutMs: number;
};

/** The limits the environment sets (README: Configuration). */
export function limitSettings(): LimitSettings {
  const pool = setting('BULLPEN_PG_POOL_MAX', 20);
  return {
    keyPerSecond: setting('BULLPEN_RATE_KEY_PER_SECOND', 30),
    workspacePerSecond: setting('BULLPEN_RATE_WORKSPACE_PER_SECOND', 100),
    addressPerSecond: setting('BULLPEN_RATE_ADDRESS_PER_SECOND', 20),
    windowSeconds: Math.max(1, setting('BULLPEN_RATE_WINDOW_SECONDS', 2)),
    // A workspace's queries compete for the CPU with everyone else's: while others are active it gets
    // half the machine's cores' worth at once (at least 1, at most half the pool), leaving the other
    // half to its neighbours (bench/fairness.ts: 2 cores → 1).
    workspaceConcurrency: Math.max(1, setting('BULLPEN_WORKSPACE_CONCURRENCY', Math.max(1, Math.min(Math.floor(pool / 2), Math.floor(availableParallelism() / 2))))),
    workspaceConcurrencyAlone: Math.max(1, setting('BULLPEN_WORKSPACE_CONCURRENCY_ALONE', Math.max(2, Math.floor(pool / 2)))),
    queueTimeoutMs: setting('BULLPEN_WORKSPACE_QUEUE_MS', 10_000),
  };
}

type Bucket = 'this key' | 'this workspace' | 'this address';

export type Refusal = {
  status: 429 | 503;
  retryAfterSeconds: number;
  error: ToolError;
  /** A rate refusal: when the bucket refills (ms from the refusal); Retry-After is this plus jitter. */
  refillMs?: number;
};

/** rate-limiter-flexible's Postgres store over our Db port (it only needs query({text, values})). */
function pgStore(db: Db) {
  return { query: async (q: { text: string; values?: unknown[] }) => ({ rows: await db.query(q.text, q.values) }) };
}

/**
 * A workspace's slots, shared fairly among its keys. A key that is the only one active in the
 * workspace may take every slot; while other keys of the workspace are active (a call in the last
 * second) each key holds at most half of them (at least one). Waiting calls queue per key and are
 * served round-robin, so a quiet key's call waits for the next free slot, not behind a flooding
 * key's queue.
 */
class FairSlots {
  active = 0;
  private readonly byKey = new Map<string, { active: number; waiting: (() => void)[]; last: number }>();
  /** Keys with waiting calls, in the order they are served (round-robin). */
  private readonly turn: string[] = [];
  /**
   * max() is read on every acquire and release: the cap may change with who else is active.
   * shared() caps what one key holds beside other active keys (with max/2, whichever is smaller).
   */
  constructor(
    private readonly max: () => number,
    private readonly shared: () => number = () => Infinity,
  ) {}

  private keyState(key: string) {
    let k = this.byKey.get(key);
    if (!k) {
      k = { active: 0, waiting: [], last: 0 };
      this.byKey.set(key, k);
    }
    return k;
  }

  /**
   * The most slots one key may hold now: all of them alone; beside other active keys half of them,
   * and no more than the workspace's fair share of the machine (shared()): a flooding key's calls
   * then queue in memory, not in the database beside its neighbours' calls.
   */
  keyCap(key: string): number {
    const max = this.max();
    const now = Date.now();
    for (const [other, k] of this.byKey) {
      if (other !== key && (k.active > 0 || k.waiting.length > 0 || now - k.last <= ACTIVE_MS)) return Math.max(1, Math.min(Math.floor(max / 2), this.shared()));
    }
    return max;
  }

  private release(key: string) {
    this.active--;
    const k = this.byKey.get(key);
    if (k) k.active--;
    this.drain();
    this.forget(key);
  }

  private forget(key: string) {
    const k = this.byKey.get(key);
    if (k && k.active === 0 && k.waiting.length === 0 && Date.now() - k.last > ACTIVE_MS) this.byKey.delete(key);
  }

  private drain() {
    let passes = this.turn.length;
    while (this.turn.length && this.active < this.max() && passes-- > 0) {
      const key = this.turn.shift()!;
      const k = this.byKey.get(key);
      if (!k || !k.waiting.length) continue;
      if (k.active < this.keyCap(key)) {
        this.active++;
        k.active++;
        k.waiting.shift()!();
        passes = this.turn.length + 1;
      }
      if (k.waiting.length) this.turn.push(key);
    }
  }

  /** Resolves to a release function, or null when no slot came within timeoutMs. */
  acquire(key: string, timeoutMs: number): Promise<(() => void) | null> {
    const k = this.keyState(key);
    k.last = Date.now();
    if (k.waiting.length === 0 && this.active < this.max() && k.active < this.keyCap(key)) {
      this.active++;
      k.active++;
      return Promise.resolve(once(() => this.release(key)));
    }
    return new Promise((resolve) => {
      const grant = () => {
        clearTimeout(timer);
        resolve(once(() => this.release(key)));
      };
      const timer = setTimeout(() => {
        const i = k.waiting.indexOf(grant);
        if (i >= 0) k.waiting.splice(i, 1);
        resolve(null);
      }, timeoutMs);
      k.waiting.push(grant);
      if (!this.turn.includes(key)) this.turn.push(key);
    });
  }

  get queued(): number {
    let n = 0;
    for (const k of this.byKey.values()) n += k.waiting.length;
    return n;
  }

  /** Calls of one key holding a slot (tests). */
  activeFor(key: string): number {
    return this.byKey.get(key)?.active ?? 0;
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      fn();
    }
  };
}

/** Calls an instance took from a shared bucket and has not handed out yet, for one window. */
type Held = { calls: number; until: number };

/** How many calls an instance takes from a shared bucket at once: a tenth of it, at least one. */
export function reserveSize(points: number): number {
  return Math.max(1, Math.floor(points / 10));
}

export class Limits {
  private readonly perKey: RateLimiterAbstract | null;
  private readonly held = new Map<string, Held>();
  /** A reservation under way per bucket: calls arriving meanwhile wait for it instead of reserving too. */
  private readonly reserving = new Map<string, Promise<Refusal | null>>();
  private readonly perWorkspace: RateLimiterAbstract | null;
  private readonly perAddress: RateLimiterAbstract | null;
  /** Addresses whose failed attempts emptied their bucket, until it refills. */
  private readonly refusedAddresses = new Map<string, { until: number; refusal: Refusal }>();
  /**
   * Keys whose bucket this instance found empty, and when it refills (ms epoch): until then a call
   * of the key is refused at once, before the limiter, the store or the request's body.
   */
  private readonly refusedKeys = new Map<string, number>();
  private readonly slots = new Map<string, FairSlots>();
  /** When each workspace last started a call (ms): who counts as active. */
  private readonly lastCall = new Map<string, number>();
  /** Each workspace's gated database view (see gate). */
  private readonly gated = new Map<string, { db: Db; view: Db }>();

  constructor(
    readonly settings: LimitSettings,
    db: Db | null,
  ) {
    const make = (prefix: string, perSecond: number): RateLimiterAbstract | null => {
      if (perSecond <= 0) return null;
      const points = Math.max(1, Math.round(perSecond * settings.windowSeconds));
      const opts = { keyPrefix: prefix, points, duration: settings.windowSeconds };
      if (db?.kind !== 'pg') return new RateLimiterMemory(opts);
      return new RateLimiterPostgres({
        ...opts,
        storeClient: pgStore(db),
        storeType: 'pool',
        schemaName: 'bullpen',
        tableName: 'rate_limits',
        tableCreated: true,
        // once a bucket is empty, refuse from memory until it refills: a flood costs no queries
        inMemoryBlockOnConsumed: points,
        // if the store fails, count in memory rather than refuse or wave everything through
        insuranceLimiter: new RateLimiterMemory(opts),
      });
    };
    this.perKey = make('key', settings.keyPerSecond);
    this.perWorkspace = make('ws', settings.workspacePerSecond);
    this.perAddress = make('addr', settings.addressPerSecond);
  }

  /**
   * Takes one call from the key's bucket, then (only when the key had room) the workspace's. Null
   * when both had room, else the refusal (429, Retry-After, RATE_LIMITED). A call refused for its
   * key costs its workspace nothing, so one key cannot exhaust its neighbours' share.
   */
  async consume(keyId: string, tenantId: string): Promise<Refusal | null> {
    return (await this.consumeKey(keyId)) ?? (await this.consumeWorkspace(tenantId));
  }

  /**
   * The key's bucket alone (a signed-in person's is `h:<actor id>`). The door takes it before
   * looking the key up (by the key's hash), so a flood on one key is refused without a database
   * round trip per call.
   */
  consumeKey(keyId: string): Promise<Refusal | null> {
    const until = this.refusedKeys.get(keyId);
    if (until !== undefined && this.perKey) {
      const ms = until - Date.now();
      if (ms > 0) return Promise.resolve(rateRefusal('this key', this.perKey.points, this.perKey.duration, ms));
      this.refusedKeys.delete(keyId);
    }
    return this.take(this.perKey, keyId, 'this key').then((r) => {
      if (r?.refillMs) {
        if (this.refusedKeys.size >= 10_000) this.refusedKeys.clear();
        this.refusedKeys.set(keyId, Date.now() + r.refillMs);
      }
      return r;
    });
  }

  /**
   * A client address's bucket: calls with no key the server knows, and sign-in attempts. Taken
   * before any lookup, so random keys or tokens cost at most this many database reads.
   */
  consumeAddress(address: string): Promise<Refusal | null> {
    return this.take(this.perAddress, address, 'this address');
  }

  /**
   * Charges a failed attempt (an unknown, malformed, revoked or expired key) to the address's
   * bucket; once it is empty the address is refused until it refills (addressRefused), before any
   * lookup. A key that authenticates costs its address nothing, so a machine that starts many
   * agents at once is not throttled for it.
   */
  async chargeAddress(address: string): Promise<Refusal | null> {
    const r = await this.consumeAddress(address);
    if (r) {
      // a flood from many addresses must not grow the process without bound
      if (this.refusedAddresses.size >= 10_000) this.refusedAddresses.clear();
      this.refusedAddresses.set(address, { until: Date.now() + r.retryAfterSeconds * 1000, refusal: r });
    }
    return r;
  }

  /** The refusal an address earned with failed attempts (chargeAddress), while it lasts; else null. Costs no query. */
  addressRefused(address: string): Refusal | null {
    const hit = this.refusedAddresses.get(address);
    if (!hit) return null;
    if (hit.until > Date.now()) return hit.refusal;
    this.refusedAddresses.delete(address);
    return null;
  }

  /** The workspace's bucket alone (all its keys together). */
  consumeWorkspace(tenantId: string): Promise<Refusal | null> {
    return this.take(this.perWorkspace, tenantId, 'this workspace');
  }

  private async take(limiter: RateLimiterAbstract | null, id: string, what: Bucket): Promise<Refusal | null> {
    if (!limiter) return null;
    const slot = `${limiter.keyPrefix}:${id}`;
    const want = reserveSize(limiter.points);
    for (;;) {
      const mine = this.held.get(slot);
      if (mine && mine.calls > 0 && mine.until > Date.now()) {
        mine.calls--;
        return null;
      }
      // Calls that arrive together while nothing is held wait for one reservation and share it.
      // Each reserving on its own took a tenth of the bucket apiece: 32 agents starting at once
      // emptied a bucket after a few dozen calls and were refused with almost all of it unused.
      const inFlight = want > 1 ? this.reserving.get(slot) : undefined;
      if (!inFlight) break;
      await inFlight.catch(() => {});
    }
    if (want === 1) return this.reserve(limiter, slot, id, want, what);
    const reservation = this.reserve(limiter, slot, id, want, what).finally(() => this.reserving.delete(slot));
    this.reserving.set(slot, reservation);
    return reservation;
  }

  /** Takes `want` calls from the shared bucket: one for this call, the rest held for the next ones. */
  private async reserve(limiter: RateLimiterAbstract, slot: string, id: string, want: number, what: Bucket): Promise<Refusal | null> {
    try {
      const res = await limiter.consume(id, want);
      this.hold(slot, want - 1, Date.now() + res.msBeforeNext);
      return null;
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      // The bucket had fewer calls left than a reservation: take what was left (the store now reads
      // full for everyone, which is right while this instance holds the rest). A refusal from the
      // store's in-memory block (the bucket was already empty) counted nothing: its consumedPoints
      // is 0, so only a counted refusal can leave calls to take.
      const counted = res.consumedPoints > 0;
      const left = counted ? limiter.points - (res.consumedPoints - want) : 0;
      if (want > 1 && left >= 1) {
        this.hold(slot, Math.min(left, want) - 1, Date.now() + res.msBeforeNext);
        return null;
      }
      return rateRefusal(what, limiter.points, limiter.duration, res.msBeforeNext);
    }
  }

  private hold(slot: string, calls: number, until: number): void {
    if (calls <= 0) {
      this.held.delete(slot);
      return;
    }
    // bounded: windows are seconds long, so a full map is mostly stale entries
    if (this.held.size >= 50_000) this.held.clear();
    this.held.set(slot, { calls, until });
  }

  /**
   * Runs fn inside one of the workspace's slots in this process, charged to `keyId` (the API key,
   * or the signed-in person) for the fair share among the workspace's keys. Returns fn's result, or
   * the BUSY refusal when no slot freed up within the queue timeout.
   */
  async withSlot<T>(tenantId: string, fn: () => Promise<T>, keyId = ''): Promise<T | Refusal> {
    this.lastCall.set(tenantId, Date.now());
    let sem = this.slots.get(tenantId);
    if (!sem) {
      sem = new FairSlots(
        () => this.capFor(tenantId),
        () => this.settings.workspaceConcurrency,
      );
      this.slots.set(tenantId, sem);
    }
    const release = await sem.acquire(keyId, this.settings.queueTimeoutMs);
    if (!release) {
      return {
        status: 503,
        retryAfterSeconds: 1,
        error: toolError('BUSY', 'this workspace has too many calls in flight on this server', 'retry the same call in a moment; idempotency makes it safe', {
          retry_after_seconds: 1,
          concurrency: this.settings.workspaceConcurrency,
        }),
      };
    }
    try {
      return await fn();
    } finally {
      release();
      // kept while the key counts as active, so a neighbour key still sees it
      if (sem.active === 0 && sem.queued === 0 && Date.now() - (this.lastCall.get(tenantId) ?? 0) > ACTIVE_MS) this.slots.delete(tenantId);
    }
  }

  /** The workspace's cap right now: its fair share while others are active, more when alone. */
  capFor(tenantId: string): number {
    const now = Date.now();
    for (const [other, at] of this.lastCall) {
      if (now - at > ACTIVE_MS) {
        if (!this.slots.has(other)) this.lastCall.delete(other);
        continue;
      }
      if (other !== tenantId) return this.settings.workspaceConcurrency;
    }
    return Math.max(this.settings.workspaceConcurrency, this.settings.workspaceConcurrencyAlone);
  }

  /**
   * The database as one key's calls see it: every RPC and claims read takes one of the
   * workspace's slots for its duration, within the key's fair share. A call refused a slot fails
   * with a retryable BUSY.
   */
  gate(db: Db, tenantId: string, keyId = ''): Db {
    // one gated view per key, reused by every call: building it (an object and three closures)
    // per call was garbage on the hot path
    const slot = `${tenantId}:${keyId}`;
    const hit = this.gated.get(slot);
    if (hit && hit.db === db) return hit.view;
    const run = async <T>(fn: () => Promise<T>): Promise<T> => {
      const r = await this.withSlot(tenantId, fn, keyId);
      if (isRefusal(r)) throw new RefusedCall(r.error);
      return r;
    };
    const gated: Pick<Db, 'call' | 'withClaims'> = {
      call: (claims, fn, args) => run(() => db.call(claims, fn, args)),
      withClaims: (claims, sql) => run(() => db.withClaims(claims, sql)),
    };
    // the view names the database it wraps: the change feed and the wait room stay one per database
    const view = Object.assign(Object.create(db) as Db, gated, { [UNDERLYING_DB]: db });
    if (this.gated.size >= 10_000) this.gated.clear();
    this.gated.set(slot, { db, view });
    return view;
  }

  /** In-flight calls of a workspace in this process (tests and the health view); of one of its keys with keyId. */
  inFlight(tenantId: string, keyId?: string): number {
    const sem = this.slots.get(tenantId);
    if (!sem) return 0;
    return keyId === undefined ? sem.active : sem.activeFor(keyId);
  }
}

/** A call the gate refused; it carries its envelope error (lib/db/errors.ts passes it through). */
export class RefusedCall extends Error {
  constructor(readonly envelope: ToolError) {
    super(envelope.message);
  }
}

/** True for the refusal withSlot answers instead of fn's result. */
export function isRefusal(v: unknown): v is Refusal {
  return !!v && typeof v === 'object' && 'status' in v && 'error' in v && 'retryAfterSeconds' in v;
}

/**
 * A RATE_LIMITED refusal for a bucket that refills in `refillMs`. Retry-After is that, plus up to
 * a second of jitter drawn per call: clients that honour it do not all come back in the instant the
 * bucket refills and queue on the event loop together.
 */
function rateRefusal(what: Bucket, points: number, duration: number, refillMs: number): Refusal {
  const retryAfterSeconds = Math.max(1, Math.ceil((refillMs + Math.random() * 1000) / 1000));
  return {
    status: 429,
    retryAfterSeconds,
    refillMs,
    error: toolError(
      'RATE_LIMITED',
      `too many calls for ${what}: at most ${points} per ${duration} s`,
      `wait ${retryAfterSeconds} s (Retry-After), then send the same call again`,
      { retry_after_seconds: retryAfterSeconds, limit: points, window_seconds: duration, scope: what === 'this key' ? 'key' : what === 'this address' ? 'address' : 'workspace' },
    ),
  };
}

/** A workspace that started a call this recently counts as active. */
const ACTIVE_MS = 1000;

const KEY = Symbol.for('bullpen.limits');
type Holder = { [KEY]?: { db: Db; limits: Limits } };

/** The process-wide limits for this database (rebuilt when the database changes, e.g. in tests). */
export function getLimits(db: Db): Limits {
  const g = globalThis as Holder;
  if (!g[KEY] || g[KEY].db !== db) g[KEY] = { db, limits: new Limits(limitSettings(), db) };
  return g[KEY].limits;
}
