import { parseScopes, type Scopes } from '../core/scopes';
import type { Claims, Db } from '../db/types';
import { z } from 'zod';
import { execute } from '../core/execute';
import { registerActorInput } from '../core/identity';
import { forgetKeys } from './auth';
import { newApiKey } from './keys';

/**
 * Workspace administration that happens outside any actor's claims: first start, the CLI, the
 * console's key management after it has checked the human is an owner. Runs as the server role.
 */

export type Workspace = { id: string; slug: string; name: string };

export function slugify(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63) || 'workspace';
}

/** Finds the workspace by slug, creating it when new. */
export async function ensureWorkspace(db: Db, slug: string, name?: string): Promise<Workspace & { created: boolean }> {
  const clean = slugify(slug);
  const rows = await db.query<Workspace & { created: boolean }>(
    `with ins as (
       insert into public.tenants (slug, name) values ($1, $2) on conflict (slug) do nothing returning id, slug, name
     )
     select id, slug, name, true as created from ins
     union all
     select id, slug, name, false from public.tenants where slug = $1 and not exists (select 1 from ins)`,
    [clean, name ?? clean],
  );
  return rows[0];
}

/**
 * The fields every registration's result starts with (an agent added, a person invited): the
 * workspace it landed in (id, slug, name), the registered actor's id, and whether the registration
 * created the workspace.
 */
export function registeredIn(ws: Workspace & { created: boolean }, actorId: string): { workspace: Workspace; actor_id: string; created_workspace: boolean } {
  return { workspace: { id: ws.id, slug: ws.slug, name: ws.name }, actor_id: actorId, created_workspace: ws.created };
}

export async function listWorkspaces(db: Db): Promise<Workspace[]> {
  return db.query<Workspace>(`select id, slug, name from public.tenants order by created_at`);
}

/** The workspace a command names, else the first one, else a new "default"; created when new. */
export async function resolveWorkspace(db: Db, slug?: string): Promise<Workspace & { created: boolean }> {
  return ensureWorkspace(db, slug ?? (await listWorkspaces(db))[0]?.slug ?? 'default');
}

export type ActorRow = { id: string; kind: string; display_name: string; external_ref: string; is_owner: boolean };

/** Registers an actor by external_ref (idempotent) as the server. */
export async function ensureActor(
  db: Db,
  tenantId: string,
  a: { kind: 'agent' | 'human' | 'service'; external_ref: string; display_name: string; is_owner?: boolean; role?: string },
): Promise<ActorRow & { created: boolean }> {
  const rows = await db.query<ActorRow & { created: boolean }>(
    `insert into public.actors as a (tenant_id, kind, external_ref, display_name, is_owner, role)
     values ($1, $2, $3, $4, $5, $6)
     on conflict (tenant_id, external_ref) do update set display_name = a.display_name
     returning id, kind, display_name, external_ref, is_owner, (xmax = 0) as created`,
    [tenantId, a.kind, a.external_ref, a.display_name, a.is_owner ?? false, a.role ?? null],
  );
  if (rows[0].created) {
    await db.query(
      `insert into public.activity (tenant_id, actor_id, verb, object_type, object_id, summary)
       values ($1, $2, 'actor.registered', 'actor', $2, $3)`,
      [tenantId, rows[0].id, `${a.kind} ${a.display_name}`],
    );
  }
  return rows[0];
}

/** What a new key may do: its scopes (null: everything) and when it stops working (null: never). */
export type KeyLimits = { scopes?: Scopes; expiresInSeconds?: number | null };

/** A refusal shaped like the RPCs' own, so every surface maps it with mapDbError. */
function refusal(sqlstate: 'BPNTF' | 'BPVAL' | 'BPCNF' | 'BPDUP', message: string, hint?: string): Error {
  return Object.assign(new Error(message), { code: sqlstate, hint });
}

/** Mints a key for an actor. The plaintext is returned once and never stored. */
export async function mintKey(
  db: Db,
  tenantId: string,
  actorId: string,
  label?: string,
  limits: KeyLimits = {},
): Promise<{ key_id: string; api_key: string; prefix: string; scopes: Scopes; expires_at: string | null }> {
  const k = newApiKey();
  const [row] = await db.query<{ id: string; expires_at: Date | string | null }>(
    `insert into public.api_keys (tenant_id, actor_id, key_hash, prefix, label, scopes, expires_at)
     values ($1, $2, $3, $4, $5, $6, case when $7::int is null then null else now() + make_interval(secs => $7::int) end)
     returning id, expires_at`,
    [tenantId, actorId, k.hash, k.prefix, label ?? null, limits.scopes ?? null, limits.expiresInSeconds ?? null],
  );
  return { key_id: row.id, api_key: k.key, prefix: k.prefix, scopes: limits.scopes ?? null, expires_at: row.expires_at ? new Date(row.expires_at).toISOString() : null };
}

/** Revokes a key of the workspace; true when a live key was revoked. */
export async function revokeKey(db: Db, tenantId: string, keyId: string): Promise<boolean> {
  const rows = await db.query(
    `update public.api_keys set revoked_at = now() where tenant_id = $1 and id = $2 and revoked_at is null returning id`,
    [tenantId, keyId],
  );
  forgetKeys(keyId);
  return rows.length > 0;
}

export type KeyRow = {
  id: string;
  tenant_id: string;
  workspace: string;
  prefix: string;
  label: string | null;
  actor_id: string;
  actor: string;
  actor_kind: string;
  scopes: string[] | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  replaced_by: string | null;
  /** live · expired · revoked · rotating (replaced, working until its grace period ends) */
  state: 'live' | 'expired' | 'revoked' | 'rotating';
};

const KEY_SELECT = `
  select k.id, k.tenant_id, t.slug as workspace, k.prefix, k.label, k.actor_id, a.display_name as actor, a.kind as actor_kind,
         k.scopes, k.created_at, k.last_used_at, k.expires_at, k.revoked_at, k.replaced_by,
         case when k.revoked_at is not null then 'revoked'
              when k.expires_at is not null and k.expires_at <= now() then 'expired'
              when k.replaced_by is not null then 'rotating'
              else 'live' end as state
    from public.api_keys k
    join public.actors a on a.tenant_id = k.tenant_id and a.id = k.actor_id
    join public.tenants t on t.id = k.tenant_id`;

function keyRow(r: Record<string, unknown>): KeyRow {
  const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
  return {
    ...(r as KeyRow),
    created_at: iso(r.created_at)!,
    last_used_at: iso(r.last_used_at),
    expires_at: iso(r.expires_at),
    revoked_at: iso(r.revoked_at),
  };
}

/** Every key of a workspace (by slug; all workspaces when omitted), newest first, with its state. */
export async function listKeys(db: Db, opts: { workspace?: string; includeEnded?: boolean } = {}): Promise<KeyRow[]> {
  const rows = await db.query(
    `${KEY_SELECT}
      where ($1::text is null or t.slug = $1)
        and ($2 or (k.revoked_at is null and (k.expires_at is null or k.expires_at > now())))
      order by t.slug, k.created_at desc`,
    [opts.workspace ?? null, opts.includeEnded ?? false],
  );
  return rows.map(keyRow);
}

/**
 * Finds one key by id or by its printed prefix (`bp_live_AbCd`), optionally inside one workspace.
 * Refuses an unknown or ambiguous reference.
 */
export async function findKey(db: Db, ref: string, workspace?: string): Promise<KeyRow> {
  const byId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref);
  const rows = (
    await db.query(
      `${KEY_SELECT}
        where ($2::text is null or t.slug = $2) and ${byId ? 'k.id = $1::uuid' : 'k.prefix = $1'}
        order by k.created_at desc`,
      [ref, workspace ?? null],
    )
  ).map(keyRow);
  if (rows.length === 0) throw refusal('BPNTF', `no key ${ref}${workspace ? ` in workspace ${workspace}` : ''}`, 'bullpen key list shows every key with its id and prefix');
  if (rows.length > 1) throw refusal('BPVAL', `${rows.length} keys start with ${ref}`, 'name the key by its id (bullpen key list shows it)');
  return rows[0];
}

/**
 * Rotates a key: a new key for the same actor with the same label, scopes and expiry, while the old
 * one keeps working for the grace period (then it expires). Both authenticate until then, so an
 * agent can be redeployed with the new key without a gap. One statement: two rotations racing leave
 * one new key. The new key's plaintext is returned once.
 */
export async function rotateKey(
  db: Db,
  tenantId: string,
  keyId: string,
  graceSeconds: number,
): Promise<{ key_id: string; api_key: string; prefix: string; scopes: Scopes; expires_at: string | null; old_key_id: string; old_expires_at: string }> {
  const k = newApiKey();
  const [row] = await db.query<{ id: string; scopes: string[] | null; expires_at: Date | string | null; old_expires_at: Date | string }>(
    `with old as (
       select * from public.api_keys
        where tenant_id = $1 and id = $2 and revoked_at is null and replaced_by is null
          and (expires_at is null or expires_at > now())
        for update
     ), fresh as (
       insert into public.api_keys (tenant_id, actor_id, key_hash, prefix, label, scopes, expires_at)
       select tenant_id, actor_id, $3, $4, label, scopes, expires_at from old
       returning id, scopes, expires_at
     ), retired as (
       update public.api_keys k
          set replaced_by = fresh.id,
              expires_at = least(coalesce(k.expires_at, 'infinity'::timestamptz), now() + make_interval(secs => $5))
         from fresh, old
        where k.tenant_id = old.tenant_id and k.id = old.id
       returning k.expires_at
     )
     select fresh.id, fresh.scopes, fresh.expires_at, retired.expires_at as old_expires_at from fresh, retired`,
    [tenantId, keyId, k.hash, k.prefix, graceSeconds],
  );
  forgetKeys(keyId);
  if (!row) {
    const [state] = await db.query<{ state: string }>(`select case when revoked_at is not null then 'revoked' when replaced_by is not null then 'rotated already' else 'expired' end as state from public.api_keys where tenant_id = $1 and id = $2`, [tenantId, keyId]);
    if (!state) throw refusal('BPNTF', `no key ${keyId} in this workspace`);
    throw refusal('BPCNF', `key ${keyId} is ${state.state}: only a live key rotates`, 'rotate the key that replaced it, or mint a new one with bullpen agent add');
  }
  return {
    key_id: row.id,
    api_key: k.key,
    prefix: k.prefix,
    scopes: row.scopes,
    expires_at: row.expires_at ? new Date(row.expires_at).toISOString() : null,
    old_key_id: keyId,
    old_expires_at: new Date(row.old_expires_at).toISOString(),
  };
}

/** A command-line value that does not parse; the message names the flag. */
export class UsageError extends Error {}

/** Reads a duration for --expires / --grace: `90s`, `15m`, `12h`, `30d`, or plain seconds. Throws UsageError. */
export function parseDuration(flag: string, v: string): number {
  const m = v.trim().match(/^(\d+)\s*(s|m|h|d)?$/i);
  if (!m) throw new UsageError(`${flag}: write a duration like 90s, 15m, 12h or 30d, got ${v}`);
  const n = Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[(m[2] ?? 's').toLowerCase() as 's' | 'm' | 'h' | 'd'];
  if (n < 1 || n > 10 * 365 * 86400) throw new UsageError(`${flag}: between 1 second and 10 years, got ${v}`);
  return n;
}

export { parseScopes };

/** Registers an agent in the workspace (creating the workspace if new; the first one when unnamed) and mints its key. */
export async function addAgent(
  db: Db,
  opts: { workspace?: string; name: string; external_ref?: string; scopes?: Scopes; expires_in_seconds?: number | null; new_key?: boolean },
): Promise<{
  workspace: Workspace;
  actor_id: string;
  api_key: string;
  key_id: string;
  created_workspace: boolean;
  scopes: Scopes;
  expires_at: string | null;
  /** False when the agent was registered before (it then had no live key, or new_key was passed). */
  created_agent: boolean;
  /** The agent's live keys, this one included. */
  live_keys: number;
}> {
  const ws = await resolveWorkspace(db, opts.workspace);
  const actor = await ensureActor(db, ws.id, {
    kind: 'agent',
    external_ref: opts.external_ref ?? `agent:${slugify(opts.name)}`,
    display_name: opts.name,
  });
  if (actor.kind !== 'agent') throw refusal('BPDUP', `${actor.external_ref} already names a ${actor.kind}`, 'choose another name');
  const liveKeys = async () =>
    (
      await db.query<{ n: number }>(
        `select count(*)::int as n from public.api_keys
          where tenant_id = $1 and actor_id = $2 and revoked_at is null and (expires_at is null or expires_at > now())`,
        [ws.id, actor.id],
      )
    )[0].n;
  if (!actor.created && !opts.new_key) {
    // adding an agent that exists must not quietly hand out one more live key
    const live = await liveKeys();
    if (live > 0) {
      throw refusal(
        'BPDUP',
        `name: agent "${actor.display_name}" already exists in workspace ${ws.slug} with ${live} live key${live === 1 ? '' : 's'}; agent add mints a key for a new agent only`,
        `to mint one more live key for it pass --new-key; to replace a key use bullpen key rotate KEY (bullpen key list --workspace ${ws.slug} shows its keys)`,
      );
    }
  }
  // the result carries the minted key: its id, the key itself (shown once), its scopes and expiry
  const { prefix: _prefix, ...key } = await mintKey(db, ws.id, actor.id, `${opts.name} key`, { scopes: opts.scopes ?? null, expiresInSeconds: opts.expires_in_seconds ?? null });
  return { ...registeredIn(ws, actor.id), ...key, created_agent: actor.created, live_keys: actor.created ? 1 : await liveKeys() };
}

/** What `bullpen agent add|pause|resume|deactivate|activate` may change about an agent: register_actor's fields. */
export const agentProfileInput = registerActorInput.pick({
  capabilities: true,
  max_concurrent_tasks: true,
  default_model: true,
  model_provider: true,
  status: true,
});
export type AgentProfile = z.infer<typeof agentProfileInput>;

/**
 * Changes an agent's routing profile or status as the workspace's owner would: register_actor
 * under the first owner's claims, so the same rules and side effects apply as in the console (a
 * deactivation releases leases, marks handoffs and stops the agent's keys at once).
 */
export async function setAgentProfile(
  db: Db,
  opts: { workspace?: string; name: string } & AgentProfile,
): Promise<{ workspace: Workspace; actor: Record<string, unknown>; released_task_ids: string[]; marked_handoff_ids: string[] }> {
  const { workspace, name, ...profile } = opts;
  const ws = await resolveWorkspace(db, workspace);
  const [agent] = await db.query<{ id: string; external_ref: string; kind: string }>(
    `select id, external_ref, kind from public.actors
      where tenant_id = $1 and kind in ('agent', 'service') and (display_name = $2 or external_ref = $2 or external_ref = $3)
      order by (display_name = $2) desc limit 1`,
    [ws.id, name, `agent:${slugify(name)}`],
  );
  if (!agent) throw refusal('BPNTF', `name: no agent "${name}" in workspace ${ws.slug}`, 'bullpen agent add NAME registers one');
  const [owner] = await db.query<{ id: string }>(
    `select id from public.actors where tenant_id = $1 and is_owner and kind = 'human' order by created_at limit 1`,
    [ws.id],
  );
  if (!owner) throw refusal('BPCNF', `workspace ${ws.slug} has no owner to act as`, 'sign in to the console once to become its owner');
  const claims: Claims = { sub: owner.id, role: 'authenticated', tenant_id: ws.id, actor_id: owner.id, run_id: null, kind: 'human' };
  const env = await execute({ db, claims }, 'register_actor', { external_ref: agent.external_ref, kind: agent.kind, ...profile });
  if (!env.ok) {
    const state = env.error.code === 'NOT_FOUND' ? 'BPNTF' : env.error.code === 'VALIDATION_ERROR' ? 'BPVAL' : 'BPCNF';
    throw refusal(state, env.error.message, env.error.hint);
  }
  const out = env as unknown as { actor: Record<string, unknown>; released_task_ids?: string[]; marked_handoff_ids?: string[] };
  return { workspace: { id: ws.id, slug: ws.slug, name: ws.name }, actor: out.actor, released_task_ids: out.released_task_ids ?? [], marked_handoff_ids: out.marked_handoff_ids ?? [] };
}
