import { z } from 'zod';
import { getDb } from '@/lib/db';
import { adminRoute } from '@/lib/server/admin';
import { exportWorkspace } from '@/lib/server/export';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const body = z.strictObject({ workspace: z.string().min(1).max(63) });

/**
 * `bullpen export --workspace SLUG` while the server holds the embedded database: every row of the
 * workspace, read in one snapshot, as {ok: true, export: {format, version, workspace, counts,
 * tables}}. Authorised by the per-start admin token in server.json.
 */
export async function POST(req: Request): Promise<Response> {
  return adminRoute(req, body, async (input) => ({ export: await exportWorkspace(await getDb(), input.workspace) }));
}
