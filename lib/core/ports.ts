import type { Claims } from '../shared/claims';

export type { ChangeEvent, Claims, Row } from '../shared/claims';

/**
 * What the contract needs of a database, and nothing more: run one RPC under the caller's claims
 * (one transaction), subscribe to the change feed, and say whether vectors exist. lib/db's Db
 * provides it; the outer layers hand it in through ToolContext, so lib/core never imports lib/db.
 */
export interface ToolDb {
  /** Whether pgvector is available (semantic search) or only lexical search. */
  readonly vector: boolean;
  /** Runs the RPC `public.<fn>(args)` under the claims; throws the database's error (see sql-errors.ts). */
  call(claims: Claims, fn: string, args: unknown): Promise<unknown>;
  /** Subscribes to a NOTIFY-style channel; resolves to an unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
}

/** Embeds one search query for recall by meaning; throws when the embedder cannot answer. */
export type QueryEmbedder = (text: string) => Promise<{ vector: number[]; model: string }>;

/** A task a task event made claimable, with what a claim filters on (bullpen.ready_after). */
export type ReadyTask = {
  id: string;
  ref: string;
  project_id: string;
  project_key: string;
  labels: string[];
  /** Who else may not claim it: null, anyone may. */
  assignee_actor_id: string | null;
  repository_ids: string[];
};

/**
 * Reads, on the server's own connection, which of these tasks and their dependents are claimable
 * now (lib/core/wait.ts wakes only the task_claim waiters they match).
 */
export type ReadyAfter = (db: ToolDb, tenantId: string, taskIds: string[]) => Promise<ReadyTask[]>;

/** The services the contract uses but does not implement; the wiring layer provides them once. */
export type CorePorts = {
  embedQuery: QueryEmbedder;
  readyAfter: ReadyAfter;
  /** Forgets this process's cached belief in an actor's keys (a deactivation must bite at once). */
  forgetActorKeys: (actorId: string) => void;
};

const KEY = Symbol.for('bullpen.core-ports');
type Holder = { [KEY]?: Partial<CorePorts> };

/**
 * Installs services for the contract to use (lib/server/wiring.ts does, for every server entry).
 * Process-wide through globalThis, since bundlers may load this module more than once.
 */
export function provideCorePorts(ports: Partial<CorePorts>): void {
  const g = globalThis as Holder;
  g[KEY] = { ...g[KEY], ...ports };
}

/** A provided service, or null when nothing provided it (the caller says what it does without). */
export function corePort<K extends keyof CorePorts>(name: K): CorePorts[K] | null {
  return (globalThis as Holder)[KEY]?.[name] ?? null;
}
