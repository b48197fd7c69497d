import { consoleDoor } from '@/lib/console/door';
import { actorsOverview } from '@/lib/console/ops';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Agents and humans of the workspace with last seen, open tasks, current claim and keys. Console sessions only, rate-limited at the door. */
export async function GET(req: Request): Promise<Response> {
  const door = await consoleDoor(req);
  if (door instanceof Response) return door;
  const env = await actorsOverview({ db: door.db, claims: door.session.claims });
  return Response.json(env, { headers: { 'cache-control': 'no-store' } });
}
