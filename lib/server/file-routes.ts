import type { Envelope } from '../core/execute';
import { toolError } from '../core/errors';
import { requestOrigin } from './config';
import { downloadAttachment, fileStore, maxUploadBytes, uploadAndAttach, type FileStore, type Who } from './files';

/**
 * The HTTP side of attachment files, shared by the route handlers (app/api/files) and the tests:
 * callers are agents with a bearer key or humans with a console session (resolved by the route).
 */

const STATUS: Record<string, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  CONFLICT: 409,
  IDEMPOTENCY_CONFLICT: 409,
  BUSY: 503,
  UNAVAILABLE: 503,
};

function reply(env: Envelope, okStatus = 200): Response {
  const status = env.ok ? okStatus : (STATUS[env.error.code] ?? 500);
  return Response.json(env, { status, headers: { 'cache-control': 'no-store' } });
}

const signedOut: Envelope = {
  ok: false,
  error: toolError('UNAUTHENTICATED', 'sign in to the console, or send Authorization: Bearer bp_live_…', 'mint a key with `npx bullpen agent add NAME`'),
};

/**
 * POST /api/files?object_type=task&object_id=PAY-3[&filename=…][&title=…], the file as the raw
 * body (Content-Type its type; X-Filename may carry the name instead). Stores it and attaches it
 * in one request; 201 with the attach_add envelope, 413 naming the limit when it is too large.
 */
export async function handleUpload(req: Request, who: Who | null, store: FileStore = fileStore(), limit = maxUploadBytes()): Promise<Response> {
  if (!who) return reply(signedOut);
  const origin = req.headers.get('origin');
  if (origin && origin.replace(/\/$/, '') !== requestOrigin(req)) {
    return reply({ ok: false, error: toolError('FORBIDDEN', `origin not allowed: ${origin}`, 'upload from the console itself') });
  }
  const q = new URL(req.url).searchParams;
  const headerName = req.headers.get('x-filename');
  let filename = q.get('filename') ?? '';
  if (!filename && headerName) {
    try {
      filename = decodeURIComponent(headerName);
    } catch {
      filename = headerName;
    }
  }
  const declared = Number(req.headers.get('content-length') ?? NaN);
  const env = await uploadAndAttach(
    who,
    {
      object_type: q.get('object_type') ?? '',
      object_id: q.get('object_id') ?? '',
      filename: filename || 'file',
      content_type: req.headers.get('content-type'),
      title: q.get('title'),
      declared_bytes: Number.isFinite(declared) ? declared : null,
    },
    req.body,
    store,
    limit,
  );
  return reply(env, 201);
}

/** GET /api/files/<attachment id>: the file, to members of its workspace only (404 otherwise). */
export async function handleDownload(who: Who | null, attachmentId: string, store: FileStore = fileStore()): Promise<Response> {
  if (!who) return reply(signedOut);
  const res = await downloadAttachment(who, attachmentId, store);
  return res ?? reply({ ok: false, error: toolError('NOT_FOUND', `no file ${attachmentId} in this workspace`, 'list attachments with attachment_query') });
}
