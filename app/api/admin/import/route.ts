import { createReadStream } from 'node:fs';
import { getDb } from '@/lib/db';
import { adminFileRoute } from '@/lib/server/admin';
import { config } from '@/lib/server/config';
import { importWorkspaceStream } from '@/lib/server/export';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * `bullpen import FILE` while the server holds the embedded database: loads an export into a new
 * or empty workspace in one transaction (ALREADY_EXISTS when it holds data). The body is the
 * export file itself, as `bullpen import` streams it from disk (?workspace=SLUG&name=NAME choose
 * where), or, as earlier CLIs sent it, {export, workspace, name}. The body goes to a temporary
 * file as it arrives (up to BULLPEN_IMPORT_MAX_BYTES), and the import reads it from there piece by
 * piece: memory does not grow with the export. Authorised by the per-start admin token in server.json.
 */
export async function POST(req: Request): Promise<Response> {
  const q = new URL(req.url).searchParams;
  return adminFileRoute(
    req,
    async (file) =>
      importWorkspaceStream(await getDb(), createReadStream(file, { highWaterMark: 1024 * 1024 }), {
        slug: q.get('workspace') ?? undefined,
        name: q.get('name') ?? undefined,
      }),
    { maxBodyBytes: config.maxImportBytes() },
  );
}
