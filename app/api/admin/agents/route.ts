import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { getDb } from '@/lib/db';
import { addAgent, listWorkspaces } from '@/lib/server/workspace';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const body = z.strictObject({
  name: z.string().min(1).max(200),
  workspace: z.string().min(1).max(63).optional(),
  external_ref: z.string().min(1).max(200).optional(),
});

function adminAllowed(req: Request): boolean {
  const want = process.env.BULLPEN_ADMIN_TOKEN;
  const got = req.headers.get('x-bullpen-admin-token');
  if (!want || !got || want.length !== got.length) return false;
  return timingSafeEqual(Buffer.from(want), Buffer.from(got));
}

/**
 * Local administration for the CLI while the server holds the embedded database: register an agent
 * and mint its key. Authorised by the per-start admin token in .bullpen/server.json (mode 0600).
 */
export async function POST(req: Request): Promise<Response> {
  if (!adminAllowed(req)) return Response.json({ error: 'admin token required' }, { status: 401 });
  const parsed = body.safeParse(await req.json().catch(() => null));
  if (!parsed.success) {
    return Response.json({ error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') }, { status: 400 });
  }
  const db = await getDb();
  const workspace = parsed.data.workspace ?? (await listWorkspaces(db))[0]?.slug ?? 'default';
  return Response.json(await addAgent(db, { ...parsed.data, workspace }));
}
