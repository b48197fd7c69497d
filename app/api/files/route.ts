import { getSession } from '@/lib/console/auth';
import { bearerCaller, handleUpload } from '@/lib/server/file-routes';
import { getDb } from '@/lib/db';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Uploads a file and attaches it (agents with a bearer key, humans with a session). See lib/server/file-routes.ts. */
export async function POST(req: Request): Promise<Response> {
  const viaKey = await bearerCaller(req);
  if (viaKey === 'invalid') return handleUpload(req, null);
  if (viaKey) return handleUpload(req, viaKey);
  const session = await getSession();
  return handleUpload(req, session ? { db: await getDb(), claims: session.claims } : null);
}
