import { getSession } from '@/lib/console/auth';
import { bearerCaller, handleDownload } from '@/lib/server/file-routes';
import { getDb } from '@/lib/db';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** An attachment's file, served to members of its workspace only. */
export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await ctx.params;
  const viaKey = await bearerCaller(req);
  if (viaKey === 'invalid') return handleDownload(null, id);
  if (viaKey) return handleDownload(viaKey, id);
  const session = await getSession();
  return handleDownload(session ? { db: await getDb(), claims: session.claims } : null, id);
}
