import { z } from 'zod';
import { getDb } from '@/lib/db';
import { adminRoute } from '@/lib/server/admin';
import { findKey, listKeys, revokeKey, rotateKey } from '@/lib/server/workspace';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const body = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('list'), workspace: z.string().min(1).max(63).optional(), all: z.boolean().optional() }),
  z.strictObject({ action: z.literal('revoke'), key: z.string().min(4).max(64), workspace: z.string().min(1).max(63).optional() }),
  z.strictObject({
    action: z.literal('rotate'),
    key: z.string().min(4).max(64),
    workspace: z.string().min(1).max(63).optional(),
    grace_seconds: z.int().min(0).max(30 * 86400),
  }),
]);

/**
 * `bullpen key list | revoke | rotate` while the server holds the embedded database. Authorised by
 * the per-start admin token in server.json, like the other admin routes. Keys are named by id or
 * printed prefix; only hashes are stored, so a listing never shows a key.
 */
export async function POST(req: Request): Promise<Response> {
  return adminRoute(req, body, async (input) => {
    const db = await getDb();
    if (input.action === 'list') return { keys: await listKeys(db, { workspace: input.workspace, includeEnded: input.all }) };
    const key = await findKey(db, input.key, input.workspace);
    if (input.action === 'revoke') return { key_id: key.id, prefix: key.prefix, revoked: await revokeKey(db, key.tenant_id, key.id) };
    return { ...(await rotateKey(db, key.tenant_id, key.id, input.grace_seconds)), actor: key.actor, workspace: key.workspace };
  });
}
