import { timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import { describeIssues } from '../core/execute';
import { toolError, type ErrorCode, type ToolError } from '../core/errors';
import { mapDbError } from '../core/sql-errors';
import { DataError } from './export';
import { BodyTooLarge, readJsonBody } from './transport';
import { env } from '../shared/env';

/**
 * The local administration endpoints (`bullpen agent add`, `bullpen human invite` while the server
 * holds the embedded database) are authorised by the per-start admin token in server.json (0600).
 */
export function adminAllowed(req: Request): boolean {
  const want = env('BULLPEN_ADMIN_TOKEN');
  const got = req.headers.get('x-bullpen-admin-token');
  if (!want || !got || want.length !== got.length) return false;
  return timingSafeEqual(Buffer.from(want), Buffer.from(got));
}

const STATUS: Partial<Record<ErrorCode, number>> = {
  VALIDATION_ERROR: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  CONFLICT: 409,
  IDEMPOTENCY_CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  BUSY: 503,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** The HTTP status an administration error answers with (a refusal the caller can fix is a 4xx). */
export function adminStatus(code: ErrorCode): number {
  return STATUS[code] ?? 422;
}

/** `{ok: false, error}` with the status its code calls for. */
export function adminErrorResponse(error: ToolError): Response {
  return Response.json({ ok: false, error }, { status: adminStatus(error.code), headers: { 'cache-control': 'no-store' } });
}

/**
 * One administration route: checks the admin token, parses the JSON body with `schema`, runs `run`
 * and answers `{ok: true, …result}`, or the same `{ok: false, error: {code, message, hint,
 * retryable}}` envelope every other surface answers (a thrown database error is mapped once, by
 * mapDbError).
 */
export async function adminRoute<S extends z.ZodType>(
  req: Request,
  schema: S,
  run: (input: z.infer<S>) => Promise<object>,
  opts: { maxBodyBytes?: number } = {},
): Promise<Response> {
  if (!adminAllowed(req)) {
    return adminErrorResponse(
      toolError('UNAUTHENTICATED', 'admin token required', 'send x-bullpen-admin-token from the running server’s server.json; the bullpen CLI does this for you'),
    );
  }
  let raw: unknown;
  try {
    raw = await readJsonBody(req, opts.maxBodyBytes);
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    return adminErrorResponse(toolError('PAYLOAD_TOO_LARGE', `request body exceeds ${err.limit} bytes`, 'send a smaller request'));
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const { message, fields } = describeIssues(parsed.error.issues);
    return adminErrorResponse(toolError('VALIDATION_ERROR', message, 'send a JSON object with the fields this route takes', { fields }));
  }
  try {
    return Response.json({ ok: true, ...(await run(parsed.data)) }, { headers: { 'cache-control': 'no-store' } });
  } catch (err) {
    return adminErrorResponse(err instanceof DataError ? err.error : mapDbError(err));
  }
}
