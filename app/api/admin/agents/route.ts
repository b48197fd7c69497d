import { z } from 'zod';
import { getDb } from '@/lib/db';
import { adminRoute } from '@/lib/server/admin';
import { addAgent } from '@/lib/server/workspace';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const body = z.strictObject({
  name: z.string().min(1).max(200),
  workspace: z.string().min(1).max(63).optional(),
  external_ref: z.string().min(1).max(200).optional(),
});

/**
 * Local administration for the CLI while the server holds the embedded database: register an agent
 * and mint its key. Authorised by the per-start admin token in .bullpen/server.json (mode 0600).
 * Answers {ok: true, …} or the shared error envelope.
 */
export async function POST(req: Request): Promise<Response> {
  return adminRoute(req, body, async (input) => addAgent(await getDb(), input));
}
