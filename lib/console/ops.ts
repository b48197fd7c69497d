import { z } from 'zod';
import { describeIssues, execute, type Envelope } from '../core/execute';
import { parseScopes, ScopeError, type Scopes } from '../core/scopes';
import { toolError } from '../core/errors';
import { mapDbError } from '../core/sql-errors';
import { sqlLiteral, type ChangeEvent, type Claims, type Db, type Row } from '../db/types';
import { getLimits, type Limits } from '../server/limits';
import { ensureActor, mintKey, revokeKey, slugify } from '../server/workspace';
import { inviteHuman } from './signin';
import '../server/wiring';

/**
 * Everything the console does, for one signed-in human, as plain functions of (db, claims): the
 * server actions and route handlers are one-line adapters over these, and the db tests call them
 * directly. Tools go through the one executor; feeds are read with the human's own claims, so RLS
 * is the only wall; administration checks actors.is_owner before acting as the server.
 */

export type Who = { db: Db; claims: Claims };

/**
 * The console's writes are rate-limited as a key's calls are: the person's own bucket first
 * (`h:<actor id>`, the same one the door charges their console routes), then, only when that had
 * room, the workspace's. Null when the call may go on, else the RATE_LIMITED envelope.
 */
export async function admitPerson(db: Db, person: { actor_id: string; tenant_id: string }, limits: Limits = getLimits(db)): Promise<Envelope | null> {
  const r = await limits.consume(`h:${person.actor_id}`, person.tenant_id);
  return r && { ok: false, error: r.error };
}

/** Runs any registry tool as the human. */
export function runTool(who: Who, name: string, input: unknown): Promise<Envelope> {
  return execute(who, name, input);
}

async function readJson<T>(who: Who, sql: string): Promise<T> {
  const rows = await who.db.withClaims<Row>(who.claims, sql);
  return rows[0]?.r as T;
}

async function guarded(fn: () => Promise<Record<string, unknown>>): Promise<Envelope> {
  try {
    return { ok: true, ...(await fn()) };
  } catch (err) {
    if (err instanceof EnvelopeError) return { ok: false, error: err.error };
    return { ok: false, error: mapDbError(err) };
  }
}

class EnvelopeError extends Error {
  constructor(readonly error: ReturnType<typeof toolError>) {
    super(error.message);
  }
}

function parse<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const r = schema.safeParse(input ?? {});
  if (!r.success) {
    const { message, fields } = describeIssues(r.error.issues);
    throw new EnvelopeError(toolError('VALIDATION_ERROR', message, `check the ${what} form`, { fields }));
  }
  return r.data;
}

// ---------------------------------------------------------------------------------------------
// Comments (the drawer's thread): public.comment_add under the human's claims
// ---------------------------------------------------------------------------------------------

/** Adds a comment through the comment_add tool, as the agents do. */
export function addComment(who: Who, input: unknown): Promise<Envelope> {
  return execute(who, 'comment_add', input);
}

// ---------------------------------------------------------------------------------------------
// Feeds
// ---------------------------------------------------------------------------------------------

/**
 * Agents and humans with last seen, open tasks, current claim and keys: the actor_query tool with
 * include ["work", "keys"], every page of it, grouped by kind as the page shows them.
 */
export async function actorsOverview(who: Who): Promise<Envelope> {
  const actors: { kind: string; display_name: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = await execute(who, 'actor_query', { include: ['work', 'keys'], limit: 200, ...(cursor ? { cursor } : {}) });
    if (!page.ok) return page;
    actors.push(...(page.actors as typeof actors));
    cursor = (page.next_cursor as string | null) ?? undefined;
  } while (cursor);
  const name = (a: { display_name: string }) => a.display_name.toLowerCase();
  actors.sort((a, b) => (a.kind === b.kind ? (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0) : a.kind < b.kind ? -1 : 1));
  return { ok: true, actors };
}

/** The newest change seq visible to the caller (where a fresh live stream starts). */
export async function changeHead(who: Who): Promise<number> {
  const rows = await who.db.withClaims<{ head: string | number }>(who.claims, `select bullpen.change_head() as head`);
  return Number(rows[0]?.head ?? 0);
}

export type ReplayEvent = ChangeEvent;

/**
 * Events after `after` plus the out-of-order overlap window (see bullpen.change_replay), oldest
 * first. `truncated` means more than `limit` are missing: the client should reload instead.
 */
export async function changeReplay(who: Who, after: number, limit = 5000): Promise<{ events: ReplayEvent[]; truncated: boolean }> {
  if (!Number.isSafeInteger(after) || after < 0) throw new Error('after must be a non-negative integer');
  const rows = await who.db.withClaims<Row>(
    who.claims,
    `select seq, tenant_id, project_id, object_type, object_id, verb, actor_id, at from bullpen.change_replay(${after}, ${Math.floor(limit)})`,
  );
  const events = rows.map((r) => ({
    seq: Number(r.seq),
    tenant_id: String(r.tenant_id),
    project_id: (r.project_id as string | null) ?? null,
    object_type: String(r.object_type),
    object_id: (r.object_id as string | null) ?? null,
    verb: String(r.verb),
    actor_id: (r.actor_id as string | null) ?? null,
    at: new Date(r.at as string).toISOString(),
  }));
  const truncated = events.length > limit;
  return { events: truncated ? events.slice(0, limit) : events, truncated };
}

// ---------------------------------------------------------------------------------------------
// Administration: owners only, then as the server inside the owner's own workspace
// ---------------------------------------------------------------------------------------------

async function requireOwner(who: Who): Promise<void> {
  const rows = await who.db.withClaims<{ is_owner: boolean }>(
    who.claims,
    `select is_owner from public.actors where id = ${sqlLiteral(who.claims.actor_id)}::uuid and kind = 'human'`,
  );
  if (!rows[0]?.is_owner) {
    throw new EnvelopeError(toolError('FORBIDDEN', 'only a workspace owner manages agents, keys and invitations', 'ask an owner of this workspace'));
  }
}

async function agentInWorkspace(who: Who, actorId: string): Promise<{ id: string; display_name: string }> {
  const rows = await who.db.withClaims<{ id: string; display_name: string; kind: string }>(
    who.claims,
    `select id, display_name, kind from public.actors where id = ${sqlLiteral(actorId)}::uuid`,
  );
  if (!rows[0]) throw new EnvelopeError(toolError('NOT_FOUND', `no actor ${actorId} in this workspace`));
  if (rows[0].kind === 'human') throw new EnvelopeError(toolError('VALIDATION_ERROR', 'humans sign in with a link, not an API key', 'invite them instead'));
  return rows[0];
}

export const createAgentInput = z.strictObject({
  name: z.string().trim().min(1, 'name the agent').max(200),
  label: z.string().trim().min(1).max(200).optional(),
  /** `tasks:read,comments`; omitted: every tool. */
  scopes: z.string().trim().max(1000).optional(),
  expires_in_days: z.int().min(1).max(3650).optional(),
});

/** Registers an agent (idempotent by name) and mints its API key, returned once. */
export function createAgent(who: Who, input: unknown): Promise<Envelope> {
  return guarded(async () => {
    const args = parse(createAgentInput, input, 'agent');
    await requireOwner(who);
    const actor = await ensureActor(who.db, who.claims.tenant_id, { kind: 'agent', external_ref: `agent:${slugify(args.name)}`, display_name: args.name });
    if (actor.kind === 'human') throw new EnvelopeError(toolError('ALREADY_EXISTS', `${args.name} is a human in this workspace`, 'choose another name'));
    let scopes: Scopes;
    try {
      scopes = parseScopes(args.scopes);
    } catch (err) {
      if (!(err instanceof ScopeError)) throw err;
      throw new EnvelopeError(toolError('VALIDATION_ERROR', `scopes: ${err.message}`, 'a room, a room:read, read, or sensitive (also sees sensitive notes), comma-separated', { fields: ['scopes'] }));
    }
    const key = await mintKey(who.db, who.claims.tenant_id, actor.id, args.label ?? `${args.name} key (console)`, {
      scopes,
      expiresInSeconds: args.expires_in_days ? args.expires_in_days * 86400 : null,
    });
    return {
      actor_id: actor.id,
      display_name: actor.display_name,
      created: actor.created,
      api_key: key.api_key,
      key_id: key.key_id,
      prefix: key.prefix,
      scopes: key.scopes,
      expires_at: key.expires_at,
    };
  });
}

/** Mints another key for an existing agent (rotation). */
export function mintAgentKey(who: Who, input: unknown): Promise<Envelope> {
  return guarded(async () => {
    const args = parse(z.strictObject({ actor_id: z.guid() }), input, 'key');
    await requireOwner(who);
    const agent = await agentInWorkspace(who, args.actor_id);
    const key = await mintKey(who.db, who.claims.tenant_id, agent.id, `${agent.display_name} key (console)`);
    return { actor_id: agent.id, display_name: agent.display_name, api_key: key.api_key, key_id: key.key_id, prefix: key.prefix };
  });
}

/** Revokes a key of this workspace; the next MCP call with it gets 401. */
export function revokeAgentKey(who: Who, input: unknown): Promise<Envelope> {
  return guarded(async () => {
    const args = parse(z.strictObject({ key_id: z.guid() }), input, 'key');
    await requireOwner(who);
    const visible = await who.db.withClaims<{ id: string; revoked_at: string | null }>(
      who.claims,
      `select id, revoked_at from public.api_keys where id = ${sqlLiteral(args.key_id)}::uuid`,
    );
    if (!visible[0]) throw new EnvelopeError(toolError('NOT_FOUND', `no key ${args.key_id} in this workspace`));
    const revoked = await revokeKey(who.db, who.claims.tenant_id, args.key_id);
    return { key_id: args.key_id, revoked, already_revoked: !revoked };
  });
}

export const inviteInput = z.strictObject({
  name: z.string().trim().min(1, 'name the person').max(200),
  email: z.email().optional(),
});

/** Invites a human into this workspace; returns the one-time sign-in token. */
export function inviteHumanAs(who: Who, input: unknown): Promise<Envelope> {
  return guarded(async () => {
    const args = parse(inviteInput, input, 'invite');
    await requireOwner(who);
    const inv = await inviteHuman(who.db, {
      name: args.name,
      email: args.email,
      tenantId: who.claims.tenant_id,
      mintedBy: { via: 'console', actorId: who.claims.actor_id },
    });
    return { actor_id: inv.actor_id, display_name: inv.display_name, token: inv.token, expires_at: inv.expires_at, created: inv.created_actor };
  });
}

// ---------------------------------------------------------------------------------------------
// Feedback triage: owners move a feature request's status (checked in SQL); the filer is told
// ---------------------------------------------------------------------------------------------

export const triageInput = z.strictObject({
  id: z.guid(),
  status: z.enum(['open', 'accepted', 'in_progress', 'shipped', 'declined']),
  resolution: z.string().trim().max(4000).optional(),
});

/** Moves a feature request (owners only); returns {feature_request, changed, notified}. */
export function triageFeatureRequest(who: Who, input: unknown): Promise<Envelope> {
  return guarded(async () => {
    const args = parse(triageInput, input, 'triage');
    return readJson(who, `select bullpen.feature_request_triage(${sqlLiteral(JSON.stringify(args))}::jsonb) as r`);
  });
}
