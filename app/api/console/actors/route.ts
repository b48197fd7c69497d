import { getSession } from '@/lib/console/auth';
import { actorsOverview } from '@/lib/console/ops';
import { getDb } from '@/lib/db';
import { authenticateRequest, doorResponse } from '@/lib/server/auth';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Agents and humans of the workspace with last seen, open tasks, current claim and keys. Console sessions only, rate-limited at the door. */
export async function GET(req: Request): Promise<Response> {
  const db = await getDb();
  const door = await authenticateRequest(req, { db, session: getSession, keys: false });
  if (!door.ok) return doorResponse(door.refusal);
  const env = await actorsOverview({ db, claims: door.caller.claims });
  return Response.json(env, { headers: { 'cache-control': 'no-store' } });
}
