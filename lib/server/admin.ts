import { timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';

/**
 * The local administration endpoints (`bullpen agent add`, `bullpen human invite` while the server
 * holds the embedded database) are authorised by the per-start admin token in server.json (0600).
 */
export function adminAllowed(req: Request): boolean {
  const want = process.env.BULLPEN_ADMIN_TOKEN;
  const got = req.headers.get('x-bullpen-admin-token');
  if (!want || !got || want.length !== got.length) return false;
  return timingSafeEqual(Buffer.from(want), Buffer.from(got));
}

/**
 * Checks the token and parses the JSON body; returns the input, or the Response to send back.
 */
export async function adminInput<S extends z.ZodType>(req: Request, schema: S): Promise<{ ok: true; input: z.infer<S> } | { ok: false; response: Response }> {
  if (!adminAllowed(req)) return { ok: false, response: Response.json({ error: 'admin token required' }, { status: 401 }) };
  const parsed = schema.safeParse(await req.json().catch(() => null));
  if (!parsed.success) {
    return {
      ok: false,
      response: Response.json({ error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') }, { status: 400 }),
    };
  }
  return { ok: true, input: parsed.data };
}
