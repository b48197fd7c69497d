import { z } from 'zod';
import { getDb } from '@/lib/db';
import { adminRoute } from '@/lib/server/admin';
import { config } from '@/lib/server/config';
import { importWorkspace } from '@/lib/server/export';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const body = z.strictObject({
  export: z.unknown(),
  workspace: z.string().min(1).max(63).optional(),
  name: z.string().min(1).max(200).optional(),
});

/**
 * `bullpen import FILE` while the server holds the embedded database: loads an export into a new
 * or empty workspace in one transaction (ALREADY_EXISTS when it holds data). Authorised by the
 * per-start admin token in server.json.
 */
export async function POST(req: Request): Promise<Response> {
  // an export is a whole workspace: this route reads up to BULLPEN_IMPORT_MAX_BYTES (64 MB), not the routes' usual limit
  return adminRoute(req, body, async (input) => importWorkspace(await getDb(), input.export, { slug: input.workspace, name: input.name }), {
    maxBodyBytes: config.maxImportBytes(),
  });
}
