import { getSession, signedOutResponse } from '@/lib/console/auth';
import { activityFeed } from '@/lib/console/ops';
import { getDb } from '@/lib/db';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The workspace activity feed (?project_id, ?actor_id, ?object_id, ?before, ?limit), newest first. */
export async function GET(req: Request): Promise<Response> {
  const session = await getSession();
  if (!session) return signedOutResponse();
  const input = Object.fromEntries(new URL(req.url).searchParams);
  const env = await activityFeed({ db: await getDb(), claims: session.claims }, input);
  return Response.json(env, { status: env.ok ? 200 : 400, headers: { 'cache-control': 'no-store' } });
}
