import type { z } from 'zod';
import type { Claims, Db } from '../db/types';

export type Room = 'identity' | 'projects' | 'tasks' | 'comments' | 'guide';

/**
 * What a tool needs at run time besides its input. `scopes` narrows what the caller may call (a
 * scoped API key); absent or null: everything.
 */
export type ToolContext = { db: Db; claims: Claims; scopes?: readonly string[] | null };

/**
 * One tool of the contract. Everything a surface shows (MCP tool, CLI command, console action,
 * docs) is derived from this; nothing re-describes it.
 */
export type ToolDef<S extends z.ZodObject = z.ZodObject> = {
  name: string;
  room: Room;
  title: string;
  /** Written for a model: what it returns and when to call it. */
  description: string;
  input: S;
  /** read: no effect; write: changes the ledger (idempotency applies). */
  kind: 'read' | 'write';
  /** derived: retries within a short window replay; explicit: only a caller's idempotency_key does. */
  idempotency?: 'derived' | 'explicit';
  destructive?: boolean;
  /** Same input, same effect: safe to repeat. */
  idempotent?: boolean;
  /** Tools answered without the database (guide). */
  run?: (input: z.infer<S>, ctx: Omit<ToolContext, 'db'> & { db?: Db }) => unknown;
};

/** Identity helper that keeps the schema's type attached to the definition. */
export function defineTool<S extends z.ZodObject>(def: ToolDef<S>): ToolDef<S> {
  return def;
}
