import type { ChangeEvent, ToolDb } from './ports';

/**
 * A database view (a workspace's or a key's gated database, lib/server/limits.ts) names the database
 * it wraps here, so the change feed and the wait room stay one per database and process, however
 * many views there are.
 */
export const UNDERLYING_DB = Symbol.for('bullpen.underlying-db');

/** The database a view wraps, or the database itself. */
export function underlyingDb<T extends object>(db: T): T {
  return ((db as { [UNDERLYING_DB]?: T })[UNDERLYING_DB] ?? db) as T;
}

/** The channel every write's change event is announced on (the activity trigger, or the log poller). */
export const CHANGE_CHANNEL = 'bullpen_changes';

/** One change-feed payload as an event; null when it is not one (malformed payloads are ignored). */
export function parseChange(payload: string): ChangeEvent | null {
  let event: ChangeEvent;
  try {
    event = JSON.parse(payload) as ChangeEvent;
  } catch {
    return null;
  }
  if (!event || typeof event.tenant_id !== 'string' || typeof event.seq !== 'number') return null;
  return event;
}

/**
 * Subscribers grouped by a key (a workspace, an actor in a workspace): an event reaches the group its
 * key names by one map lookup, and an empty group is dropped.
 */
export class Subscribers<T> {
  private readonly byKey = new Map<string, Set<T>>();

  /** Adds one subscriber under the key; returns its removal. */
  add(key: string, item: T): () => void {
    let set = this.byKey.get(key);
    if (!set) {
      set = new Set();
      this.byKey.set(key, set);
    }
    set.add(item);
    const owner = set;
    return () => {
      owner.delete(item);
      if (owner.size === 0 && this.byKey.get(key) === owner) this.byKey.delete(key);
    };
  }

  get(key: string): ReadonlySet<T> | undefined {
    return this.byKey.get(key);
  }

  /** How many subscribers the key has, or all keys together. */
  count(key?: string): number {
    if (key !== undefined) return this.byKey.get(key)?.size ?? 0;
    let n = 0;
    for (const s of this.byKey.values()) n += s.size;
    return n;
  }
}

/**
 * A consumer of the change feed: the live streams of the console (lib/console/hub.ts) and the
 * waiting calls (wait.ts) both route events this way, each by its own keys.
 */
export abstract class ChangeRouter {
  /** Feeds one change-feed payload (or an event already parsed) in; anything malformed is ignored. */
  dispatch(payload: string | ChangeEvent): void {
    const event = typeof payload === 'string' ? parseChange(payload) : payload;
    if (event) this.route(event);
  }

  protected abstract route(event: ChangeEvent): void;
}

type Feed = { add(fn: (event: ChangeEvent) => void): () => void };
const feeds = new WeakMap<object, Promise<Feed>>();

/**
 * The change feed of a database: one subscription per database and process, parsed once and shared
 * by every consumer (a consumer that throws does not starve the others).
 */
export function changeFeed(view: Pick<ToolDb, 'listen'>): Promise<Feed> {
  const db = underlyingDb(view);
  let feed = feeds.get(db);
  if (!feed) {
    const consumers = new Set<(event: ChangeEvent) => void>();
    const fanout: Feed = {
      add(fn) {
        consumers.add(fn);
        return () => consumers.delete(fn);
      },
    };
    feed = db
      .listen(CHANGE_CHANNEL, (payload) => {
        const event = parseChange(payload);
        if (!event) return;
        for (const fn of consumers) {
          try {
            fn(event);
          } catch {
            // one broken consumer must not starve the others
          }
        }
      })
      .then(() => fanout);
    feed.catch(() => feeds.delete(db));
    feeds.set(db, feed);
  }
  return feed;
}
