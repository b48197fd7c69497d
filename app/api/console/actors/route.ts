import { getSession, signedOutResponse } from '@/lib/console/auth';
import { actorsOverview } from '@/lib/console/ops';
import { getDb } from '@/lib/db';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Agents and humans of the workspace with last seen, open tasks, current claim and keys. */
export async function GET(): Promise<Response> {
  const session = await getSession();
  if (!session) return signedOutResponse();
  const env = await actorsOverview({ db: await getDb(), claims: session.claims });
  return Response.json(env, { headers: { 'cache-control': 'no-store' } });
}
