import type { Db } from '../db/types';
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

/** Mints a key for an actor. The plaintext is returned once and never stored. */
export async function mintKey(
  db: Db,
  tenantId: string,
  actorId: string,
  label?: string,
): Promise<{ key_id: string; api_key: string; prefix: string }> {
  const k = newApiKey();
  const [row] = await db.query<{ id: string }>(
    `insert into public.api_keys (tenant_id, actor_id, key_hash, prefix, label) values ($1, $2, $3, $4, $5) returning id`,
    [tenantId, actorId, k.hash, k.prefix, label ?? null],
  );
  return { key_id: row.id, api_key: k.key, prefix: k.prefix };
}

/** Revokes a key of the workspace; true when a live key was revoked. */
export async function revokeKey(db: Db, tenantId: string, keyId: string): Promise<boolean> {
  const rows = await db.query(
    `update public.api_keys set revoked_at = now() where tenant_id = $1 and id = $2 and revoked_at is null returning id`,
    [tenantId, keyId],
  );
  return rows.length > 0;
}

/** Registers an agent in the workspace (creating the workspace if new; the first one when unnamed) and mints its key. */
export async function addAgent(
  db: Db,
  opts: { workspace?: string; name: string; external_ref?: string },
): Promise<{ workspace: Workspace; actor_id: string; api_key: string; key_id: string; created_workspace: boolean }> {
  const ws = await resolveWorkspace(db, opts.workspace);
  const actor = await ensureActor(db, ws.id, {
    kind: 'agent',
    external_ref: opts.external_ref ?? `agent:${slugify(opts.name)}`,
    display_name: opts.name,
  });
  const key = await mintKey(db, ws.id, actor.id, `${opts.name} key`);
  return {
    workspace: { id: ws.id, slug: ws.slug, name: ws.name },
    actor_id: actor.id,
    api_key: key.api_key,
    key_id: key.key_id,
    created_workspace: ws.created,
  };
}
