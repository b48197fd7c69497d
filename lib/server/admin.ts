import { timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { z } from 'zod';
import { describeIssues } from '../core/execute';
import { toolError, type ErrorCode, type ToolError } from '../core/errors';
import { mapDbError } from '../core/sql-errors';
import { DataError } from './export';
import { BodyAborted, BodyTooLarge, readJsonBody, spoolBody } from './transport';
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
  if (!adminAllowed(req)) return unauthenticated();
  let raw: unknown;
  try {
    raw = await readJsonBody(req, opts.maxBodyBytes);
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    return tooLarge(err.limit);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const { message, fields } = describeIssues(parsed.error.issues);
    return adminErrorResponse(toolError('VALIDATION_ERROR', message, 'send a JSON object with the fields this route takes', { fields }));
  }
  return answer(() => run(parsed.data));
}

/**
 * An administration route whose body is too large to hold in memory (an import): the body is
 * written to a private temporary file as it arrives, up to `maxBodyBytes`, and `run` reads that
 * file; the file is removed afterwards. The body is spooled before `run` starts, so a slow upload
 * never holds the database.
 */
export async function adminFileRoute(req: Request, run: (file: string) => Promise<object>, opts: { maxBodyBytes: number }): Promise<Response> {
  if (!adminAllowed(req)) return unauthenticated();
  const dir = await mkdtemp(path.join(tmpdir(), 'bullpen-body-'));
  try {
    const file = path.join(dir, 'body');
    try {
      await spoolBody(req, opts.maxBodyBytes, file);
    } catch (err) {
      if (err instanceof BodyTooLarge) return tooLarge(err.limit);
      if (err instanceof BodyAborted) return adminErrorResponse(toolError('VALIDATION_ERROR', 'the request body ended early', 'send the whole file again'));
      throw err;
    }
    return await answer(() => run(file));
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}

const unauthenticated = () =>
  adminErrorResponse(toolError('UNAUTHENTICATED', 'admin token required', 'send x-bullpen-admin-token from the running server’s server.json; the bullpen CLI does this for you'));

const tooLarge = (limit: number) => adminErrorResponse(toolError('PAYLOAD_TOO_LARGE', `request body exceeds ${limit} bytes`, 'send a smaller request'));

/** `{ok: true, …result}`, or the envelope of what `run` threw (a database error is mapped once, by mapDbError). */
async function answer(run: () => Promise<object>): Promise<Response> {
  try {
    return Response.json({ ok: true, ...(await run()) }, { headers: { 'cache-control': 'no-store' } });
  } catch (err) {
    return adminErrorResponse(err instanceof DataError ? err.error : mapDbError(err));
  }
}
