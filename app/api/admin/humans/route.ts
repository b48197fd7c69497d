import { z } from 'zod';
import { inviteHuman } from '@/lib/console/signin';
import { getDb } from '@/lib/db';
import { adminRoute } from '@/lib/server/admin';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const body = z.strictObject({
  name: z.string().min(1).max(200),
  workspace: z.string().min(1).max(63).optional(),
  email: z.email().optional(),
});

/**
 * Local administration for `bullpen human invite` while the server holds the embedded database:
 * the human actor (and workspace when new) plus a one-time sign-in token. Authorised by the
 * per-start admin token in server.json (mode 0600), like /api/admin/agents. Answers {ok: true, …}
 * or the shared error envelope (a name that already belongs to an agent is ALREADY_EXISTS, 409).
 */
export async function POST(req: Request): Promise<Response> {
  return adminRoute(req, body, async (input) => inviteHuman(await getDb(), input));
}
