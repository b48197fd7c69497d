import { getDb } from '@/lib/db';
import { adminAllowed, adminErrorResponse } from '@/lib/server/admin';
import { backupEmbedded } from '@/lib/server/backup';
import { DataError } from '@/lib/server/export';
import { toolError } from '@/lib/core/errors';
import { mapDbError } from '@/lib/core/sql-errors';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * `bullpen backup` while the server holds the embedded database: the data directory as a gzipped
 * tarball, taken between two statements (crash-consistent, the server keeps serving). Authorised
 * by the per-start admin token in server.json (mode 0600). A Postgres server answers
 * VALIDATION_ERROR: pg_dump is the tool there.
 */
export async function POST(req: Request): Promise<Response> {
  if (!adminAllowed(req)) {
    return adminErrorResponse(toolError('UNAUTHENTICATED', 'admin token required', 'send x-bullpen-admin-token from the running server’s server.json; the bullpen CLI does this for you'));
  }
  try {
    const tarball = await backupEmbedded(await getDb());
    return new Response(new Uint8Array(tarball), {
      headers: {
        'content-type': 'application/gzip',
        'content-length': String(tarball.length),
        'content-disposition': 'attachment; filename="bullpen-backup.tar.gz"',
        'cache-control': 'no-store',
      },
    });
  } catch (err) {
    return adminErrorResponse(err instanceof DataError ? err.error : mapDbError(err));
  }
}
