import type { Claims, Db } from '../db/types';
import { hashKey } from './keys';

export type KeyIdentity = {
  claims: Claims;
  key_id: string;
  display_name: string;
  tenant_slug: string;
  /** What the key may call (lib/core/scopes.ts); null: everything. */
  scopes: string[] | null;
  expires_at: string | null;
};

const RUN_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** Reads the run id an agent sends (X-Bullpen-Run); anything malformed is ignored. */
export function runIdFrom(headers: Headers): string | null {
  const v = headers.get('x-bullpen-run');
  return v && RUN_ID.test(v) ? v : null;
}

/** Resolves a bearer API key to claims; null when missing, unknown, revoked or expired. */
export async function authenticateKey(db: Db, key: string | null, runId: string | null): Promise<KeyIdentity | null> {
  if (!key || !key.startsWith('bp_') || key.length > 200) return null;
  const rows = await db.query<{
    tenant_id: string;
    actor_id: string;
    key_id: string;
    kind: 'agent' | 'human' | 'service';
    display_name: string;
    tenant_slug: string;
    scopes: string[] | null;
    expires_at: Date | string | null;
  }>(`select * from bullpen.authenticate_key($1)`, [hashKey(key)]);
  const r = rows[0];
  if (!r) return null;
  return {
    claims: { sub: r.actor_id, role: 'authenticated', tenant_id: r.tenant_id, actor_id: r.actor_id, run_id: runId, kind: r.kind },
    key_id: r.key_id,
    display_name: r.display_name,
    tenant_slug: r.tenant_slug,
    scopes: r.scopes ?? null,
    expires_at: r.expires_at ? new Date(r.expires_at).toISOString() : null,
  };
}

/** The bearer token of an Authorization header, or null. Query-string keys are never read. */
export function bearer(headers: Headers): string | null {
  const h = headers.get('authorization');
  const m = h?.match(/^Bearer\s+(\S+)$/i);
  return m ? m[1] : null;
}
