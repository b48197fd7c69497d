import { getSession } from '@/lib/console/auth';
import { getDb } from '@/lib/db';
import { authenticateRequest, doorResponse, runContextFrom } from '@/lib/server/auth';
import { handleUpload } from '@/lib/server/file-routes';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * Uploads a file and attaches it (agents with a bearer key, humans with a session). The door
 * applies the key's scopes (attach_add's), expiry, revocation and rate limits. See
 * lib/server/file-routes.ts.
 */
export async function POST(req: Request): Promise<Response> {
  const db = await getDb();
  const door = await authenticateRequest(req, { db, session: getSession, tool: 'attach_add', run: runContextFrom(req.headers) });
  if (!door.ok) return doorResponse(door.refusal);
  return handleUpload(req, { db, claims: door.caller.claims });
}
