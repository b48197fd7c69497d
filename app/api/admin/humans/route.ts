import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { inviteHuman } from '@/lib/console/signin';
import { getDb } from '@/lib/db';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const body = z.strictObject({
  name: z.string().min(1).max(200),
  workspace: z.string().min(1).max(63).optional(),
  email: z.email().optional(),
});

function adminAllowed(req: Request): boolean {
  const want = process.env.BULLPEN_ADMIN_TOKEN;
  const got = req.headers.get('x-bullpen-admin-token');
  if (!want || !got || want.length !== got.length) return false;
  return timingSafeEqual(Buffer.from(want), Buffer.from(got));
}

/**
 * Local administration for `bullpen human invite` while the server holds the embedded database:
 * the human actor (and workspace when new) plus a one-time sign-in token. Authorised by the
 * per-start admin token in server.json (mode 0600), like /api/admin/agents.
 */
export async function POST(req: Request): Promise<Response> {
  if (!adminAllowed(req)) return Response.json({ error: 'admin token required' }, { status: 401 });
  const parsed = body.safeParse(await req.json().catch(() => null));
  if (!parsed.success) {
    return Response.json({ error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') }, { status: 400 });
  }
  try {
    return Response.json(await inviteHuman(await getDb(), parsed.data));
  } catch (err) {
    return Response.json({ error: (err as Error).message }, { status: 409 });
  }
}
