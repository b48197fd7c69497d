import { z } from 'zod';
import { consoleDoor } from '@/lib/console/door';
import { runTool } from '@/lib/console/ops';
import { getTool } from '@/lib/core/registry';
import { toolError } from '@/lib/core/errors';
import { BodyTooLarge, readJsonBody, tooLargeResponse } from '@/lib/server/transport';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const body = z.strictObject({ tool: z.string().min(1).max(64), input: z.unknown().optional() });

/**
 * Read tools for the console's queries, run through the executor under the signed-in human's
 * claims. Reads live here (not in a server action) because the browser dispatches server actions
 * one at a time, and a board loads its columns in parallel. Writes go through the server action.
 * Console sessions only; the door charges the person's and the workspace's rate limits.
 */
export async function POST(req: Request): Promise<Response> {
  const door = await consoleDoor(req);
  if (door instanceof Response) return door;
  let raw: unknown;
  try {
    raw = await readJsonBody(req);
  } catch (err) {
    if (err instanceof BodyTooLarge) return tooLargeResponse(err.limit);
    throw err;
  }
  const parsed = body.safeParse(raw ?? null);
  if (!parsed.success) {
    return Response.json({ ok: false, error: toolError('VALIDATION_ERROR', 'send {tool, input}', 'POST JSON') }, { status: 400 });
  }
  const tool = getTool(parsed.data.tool);
  if (tool && tool.kind !== 'read') {
    return Response.json(
      { ok: false, error: toolError('FORBIDDEN', `${tool.name} is a write`, 'writes go through the console server action') },
      { status: 405 },
    );
  }
  const env = await runTool({ db: door.db, claims: door.session.claims }, parsed.data.tool, parsed.data.input ?? {});
  return Response.json(env, { headers: { 'cache-control': 'no-store' } });
}
