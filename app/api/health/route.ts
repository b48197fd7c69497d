import { getDb } from '@/lib/db';
import { healthReport } from '@/lib/server/health';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * Liveness and backlog for load balancers and operators: no authentication, and nothing in it
 * names a workspace. 200 with ok:true, or 503 with ok:false when the database is down.
 */
export async function GET(): Promise<Response> {
  const { status, body } = await healthReport(getDb);
  return Response.json(body, { status, headers: { 'cache-control': 'no-store' } });
}
