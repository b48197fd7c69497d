import type { z } from 'zod';
import type { Claims, ToolDb } from './ports';
import type { WaitSpec } from './wait';

export type Room =
  | 'identity'
  | 'projects'
  | 'tasks'
  | 'comments'
  | 'handoffs'
  | 'decisions'
  | 'knowledge'
  | 'search'
  | 'runs'
  | 'repositories'
  | 'attachments'
  | 'activity'
  | 'feedback'
  | 'insights'
  | 'council'
  | 'costs'
  | 'workflows'
  | 'code_graph'
  | 'events'
  | 'sources'
  | 'guide';

/**
 * What a tool needs at run time besides its input. `scopes` narrows what the caller may call (a
 * scoped API key; absent or null: everything); signal ends a waiting call early (client gone).
 */
export type ToolContext = { db: ToolDb; claims: Claims; scopes?: readonly string[] | null; signal?: AbortSignal };

/** What a tool answered without the database (`run`) sees: the caller, and the registry itself. */
export type RunContext = Omit<ToolContext, 'db'> & { db?: ToolDb; registry: readonly ToolDef[] };

/**
 * One tool of the contract. Everything a surface shows (MCP tool, CLI command, console action,
 * docs) is derived from this; nothing re-describes it.
 *
 * Adding a tool: in its room's file, write `<name>Input` (strict, snake_case) and `<name>Output`
 * beside it, then `defineTool({ …, input, output })` and list the room in registry.ts.
 * - `output` is the `{ok: true}` body without `ok`: exactly the JSON the RPC returns. Build it
 *   from the shared shapes in rows.ts (taskRow, projectRow, actorRow, …), never a copy of their
 *   fields; a write's output is `writeResult({...})`, which adds `idempotent_replay`.
 * - Objects are strict, so a field the SQL adds or drops fails the db suite until the schema says
 *   so; use an open record only where the contract really is open (metadata, arguments).
 * - Several answers (claimed or not) are a `z.discriminatedUnion` of strict objects.
 * - The db suite validates every ok answer of every call against `output` (tests/helpers/db.ts),
 *   so a db test that calls the tool once is what proves the schema.
 */
export type ToolDef<S extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> = {
  name: string;
  room: Room;
  title: string;
  /** Written for a model: what it returns and when to call it. */
  description: string;
  input: S;
  /** The `{ok: true, …}` body, without `ok`. */
  output: O;
  /** read: no effect; write: changes the ledger (idempotency applies). */
  kind: 'read' | 'write';
  /** derived: retries within a short window replay; explicit: only a caller's idempotency_key does. */
  idempotency?: 'derived' | 'explicit';
  destructive?: boolean;
  /** Same input, same effect: safe to repeat. */
  idempotent?: boolean;
  /**
   * The tool takes wait_seconds: when its answer is empty it holds until the change feed reports
   * something relevant (see lib/core/wait.ts), instead of the caller polling.
   */
  wait?: WaitSpec;
  /**
   * Server-side work between validation and the RPC, for what SQL cannot do itself (embedding a
   * search query). Gets the validated input with "me" resolved; returns the RPC's arguments.
   */
  prepare?: (input: Record<string, unknown>, ctx: ToolContext) => Promise<Record<string, unknown>>;
  /**
   * Narrows the RPC's answer to what the caller may see, for what SQL cannot know (a key's scopes
   * live on the server): whoami's recent activity, for one.
   */
  narrow?: (output: Record<string, unknown>, ctx: ToolContext) => Record<string, unknown>;
  /** Tools answered without the database (guide). */
  run?: (input: z.infer<S>, ctx: RunContext) => z.input<O> | Promise<z.input<O>>;
};

/** Identity helper that keeps the schemas' types attached to the definition. */
export function defineTool<S extends z.ZodObject, O extends z.ZodType>(def: ToolDef<S, O>): ToolDef<S, O> {
  return def;
}
