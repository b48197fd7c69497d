import { z } from 'zod';
import { adminInput } from '@/lib/server/admin';
import { inviteHuman } from '@/lib/console/signin';
import { getDb } from '@/lib/db';

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
 * per-start admin token in server.json (mode 0600), like /api/admin/agents.
 */
export async function POST(req: Request): Promise<Response> {
  const parsed = await adminInput(req, body);
  if (!parsed.ok) return parsed.response;
  try {
    return Response.json(await inviteHuman(await getDb(), parsed.input));
  } catch (err) {
    return Response.json({ error: (err as Error).message }, { status: 409 });
  }
}
