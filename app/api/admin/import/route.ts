import { z } from 'zod';
import { getDb } from '@/lib/db';
import { adminRoute } from '@/lib/server/admin';
import { config } from '@/lib/server/config';
import { DataError, importWorkspace } from '@/lib/server/export';
import { toolError } from '@/lib/core/errors';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const options = z.strictObject({
  workspace: z.string().min(1).max(63).optional(),
  name: z.string().min(1).max(200).optional(),
});

/**
 * `bullpen import FILE` while the server holds the embedded database: loads an export into a new
 * or empty workspace in one transaction (ALREADY_EXISTS when it holds data). The body is the
 * export file itself, as `bullpen import` streams it from disk (?workspace=SLUG&name=NAME choose
 * where), or, as earlier CLIs sent it, {export, workspace, name}. Read chunk by chunk up to
 * BULLPEN_IMPORT_MAX_BYTES. Authorised by the per-start admin token in server.json.
 */
export async function POST(req: Request): Promise<Response> {
  const q = new URL(req.url).searchParams;
  return adminRoute(
    req,
    z.record(z.string(), z.unknown()),
    async (body) => {
      const wrapped = !('format' in body) && 'export' in body;
      const raw = wrapped ? { workspace: body.workspace, name: body.name } : { workspace: q.get('workspace') ?? undefined, name: q.get('name') ?? undefined };
      const opts = options.safeParse(raw);
      if (!opts.success) {
        const field = opts.error.issues[0].path.map(String).join('.') || 'workspace';
        throw new DataError(toolError('VALIDATION_ERROR', `${field}: ${opts.error.issues[0].message}`, 'workspace is a slug of up to 63 characters, name up to 200', { fields: [field] }));
      }
      return importWorkspace(await getDb(), wrapped ? body.export : body, { slug: opts.data.workspace, name: opts.data.name });
    },
    { maxBodyBytes: config.maxImportBytes() },
  );
}
