import { getSession } from '@/lib/console/auth';
import { getDb } from '@/lib/db';
import { authenticateRequest, doorResponse, runContextFrom } from '@/lib/server/auth';
import { handleDownload } from '@/lib/server/file-routes';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** An attachment's file, served to members of its workspace only; a key needs attachment_query's scope. */
export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await ctx.params;
  const db = await getDb();
  const door = await authenticateRequest(req, { db, session: getSession, tool: 'attachment_query', run: runContextFrom(req.headers) });
  if (!door.ok) return doorResponse(door.refusal);
  return handleDownload({ db, claims: door.caller.claims }, id);
}
