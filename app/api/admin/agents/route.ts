import { z } from 'zod';
import { parseScopes, ScopeError } from '@/lib/core/scopes';
import { getDb } from '@/lib/db';
import { adminRoute } from '@/lib/server/admin';
import { addAgent } from '@/lib/server/workspace';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const body = z.strictObject({
  name: z.string().min(1).max(200),
  workspace: z.string().min(1).max(63).optional(),
  external_ref: z.string().min(1).max(200).optional(),
  /** `tasks:read,comments` or a list; omitted: every tool. */
  scopes: z.union([z.string().max(1000), z.array(z.string().max(64)).max(32)]).optional(),
  expires_in_seconds: z.int().min(1).max(10 * 365 * 86400).optional(),
  /** An agent that exists and has a live key gets another one only when this is true. */
  new_key: z.boolean().optional(),
});

/**
 * Local administration for the CLI while the server holds the embedded database: register an agent
 * and mint its key (optionally scoped and expiring); an existing agent with a live key is refused
 * ALREADY_EXISTS unless new_key is true. Authorised by the per-start admin token in
 * .bullpen/server.json (mode 0600). Answers {ok: true, …} or the shared error envelope.
 */
export async function POST(req: Request): Promise<Response> {
  return adminRoute(req, body, async ({ scopes, ...input }) => {
    let parsed;
    try {
      parsed = parseScopes(scopes);
    } catch (err) {
      if (err instanceof ScopeError) throw Object.assign(new Error(err.message), { code: 'BPVAL', hint: 'scopes: ROOM, ROOM:read, read or sensitive, comma-separated' });
      throw err;
    }
    return addAgent(await getDb(), { ...input, scopes: parsed });
  });
}

