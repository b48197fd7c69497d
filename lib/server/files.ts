import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execute, type Envelope } from '../core/execute';
import { dataDir } from '../db';
import { toolError } from '../core/errors';
import { MEDIA_TYPE, UNPRINTABLE } from '../core/attachments';
import type { Claims, Db, Row } from '../db/types';
import { readBody, type BodySource } from './transport';
import { env, envNumber } from '../shared/env';

/**
 * Where attachment files live. Embedded: a files directory beside the data directory
 * (BULLPEN_FILES_DIR to move it). With Supabase configured for the server
 * (NEXT_PUBLIC_SUPABASE_URL or SUPABASE_URL, plus SUPABASE_SERVICE_ROLE_KEY): Supabase Storage, in
 * the bucket BULLPEN_STORAGE_BUCKET (default "attachments", private). Either way a file is stored
 * under <tenant_id>/<uuid>/<name> and read back only through an attachment the caller may see.
 */
export interface FileStore {
  readonly kind: 'local' | 'supabase';
  put(storagePath: string, data: Uint8Array, contentType: string): Promise<void>;
  get(storagePath: string): Promise<{ data: Uint8Array; contentType: string } | null>;
  remove(storagePath: string): Promise<void>;
}

/** The largest upload accepted, in bytes (BULLPEN_MAX_UPLOAD_BYTES, default 25 MiB). */
export function maxUploadBytes(): number {
  const v = envNumber('BULLPEN_MAX_UPLOAD_BYTES');
  return Number.isFinite(v) && v >= 1 ? Math.floor(v) : 25 * 1024 * 1024;
}

/** The embedded store's directory: BULLPEN_FILES_DIR, else `files` beside the data directory. */
export function filesDir(): string {
  return path.resolve(/*turbopackIgnore: true*/ env('BULLPEN_FILES_DIR') ?? path.join(path.dirname(dataDir()), 'files'));
}

/** A name as people see it: control and bidirectional-formatting characters removed, trimmed. */
export function printableName(name: string): string {
  return name.replace(UNPRINTABLE, '').trim();
}

/** A media type safe to send as Content-Type: the stored one when it parses, else octet-stream. */
export function safeMediaType(type: string | null | undefined): string {
  return type && MEDIA_TYPE.test(type) ? type : 'application/octet-stream';
}

/** A file name safe on every filesystem and in a URL path; keeps the extension. */
export function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.normalize('NFKC').replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^[.-]+/, '').replace(/-+/g, '-').slice(-120);
  return clean || 'file';
}

const STORAGE_PATH = /^[0-9a-f-]{36}\/[0-9a-f-]{36}\/[^/\\]{1,200}$/;

/** Files on the local disk, one directory per workspace. */
export function localStore(dir = filesDir()): FileStore {
  const resolve = (p: string) => {
    if (!STORAGE_PATH.test(p) || p.includes('..')) throw new Error(`not a storage path: ${p}`);
    const base = path.resolve(/*turbopackIgnore: true*/ dir);
    const full = path.join(/*turbopackIgnore: true*/ base, p);
    if (!full.startsWith(base + path.sep)) throw new Error(`not a storage path: ${p}`);
    return full;
  };
  return {
    kind: 'local',
    async put(p, data, contentType) {
      const full = resolve(p);
      // files are private: 0700 folders, 0600 files, whatever the umask
      await mkdir(path.dirname(full), { recursive: true, mode: 0o700 });
      await writeFile(full, data, { flag: 'wx', mode: 0o600 });
      await writeFile(`${full}.type`, contentType, { mode: 0o600 });
    },
    async get(p) {
      let full: string;
      try {
        full = resolve(p);
      } catch {
        return null;
      }
      try {
        const [data, contentType] = await Promise.all([readFile(full), readFile(`${full}.type`, 'utf8').catch(() => 'application/octet-stream')]);
        return { data: new Uint8Array(data), contentType };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async remove(p) {
      const full = resolve(p);
      await rm(path.dirname(full), { recursive: true, force: true });
    },
  };
}

class NoRealtime {
  constructor() {
    throw new Error('the file store does not use Supabase Realtime');
  }
}

export type SupabaseStoreConfig = { url: string; serviceKey: string; bucket: string; fetch?: typeof fetch };

/** Supabase Storage through supabase-js, with the service role key (the server checks access itself). */
export function supabaseStore(cfg: SupabaseStoreConfig): FileStore {
  let client: Promise<ReturnType<typeof import('@supabase/supabase-js').createClient>> | null = null;
  let bucketReady = false;
  const storage = async () => {
    client ??= import('@supabase/supabase-js').then(({ createClient }) =>
      createClient(cfg.url, cfg.serviceKey, {
        auth: { persistSession: false, autoRefreshToken: false },
        // storage only: no socket is ever opened (Node 20 has no WebSocket for realtime-js to find)
        realtime: { transport: NoRealtime as never },
        ...(cfg.fetch ? { global: { fetch: cfg.fetch } } : {}),
      }),
    );
    return (await client).storage.from(cfg.bucket);
  };
  return {
    kind: 'supabase',
    async put(p, data, contentType) {
      let { error } = await (await storage()).upload(p, data, { contentType, upsert: false });
      if (error && !bucketReady && /bucket not found/i.test(error.message)) {
        // the first upload to a fresh project creates the (private) bucket
        const created = await (await client)!.storage.createBucket(cfg.bucket, { public: false });
        if (created.error && !/already exists/i.test(created.error.message)) throw new Error(`Supabase Storage bucket ${cfg.bucket}: ${created.error.message}`);
        bucketReady = true;
        ({ error } = await (await storage()).upload(p, data, { contentType, upsert: false }));
      }
      if (error) throw new Error(`Supabase Storage upload failed: ${error.message}`);
      bucketReady = true;
    },
    async get(p) {
      const { data, error } = await (await storage()).download(p);
      if (error || !data) {
        const status = (error as { status?: number; statusCode?: string } | null)?.status ?? Number((error as { statusCode?: string } | null)?.statusCode);
        if (status === 404 || status === 400 || /not found/i.test(error?.message ?? '')) return null;
        throw new Error(`Supabase Storage download failed: ${error?.message ?? 'no data'}`);
      }
      return { data: new Uint8Array(await data.arrayBuffer()), contentType: data.type || 'application/octet-stream' };
    },
    async remove(p) {
      const { error } = await (await storage()).remove([p]);
      if (error) throw new Error(`Supabase Storage remove failed: ${error.message}`);
    },
  };
}

const STORE = Symbol.for('bullpen.file-store');
type Holder = { [STORE]?: FileStore };

/** The process's file store: Supabase Storage when the server has a service key for it, else the disk. */
export function fileStore(): FileStore {
  const g = globalThis as Holder;
  if (!g[STORE]) {
    const url = env('SUPABASE_URL') ?? env('NEXT_PUBLIC_SUPABASE_URL');
    const serviceKey = env('SUPABASE_SERVICE_ROLE_KEY');
    g[STORE] = url && serviceKey
      ? supabaseStore({ url, serviceKey, bucket: env('BULLPEN_STORAGE_BUCKET') ?? 'attachments' })
      : localStore();
  }
  return g[STORE]!;
}

export type Who = { db: Db; claims: Claims };

export type UploadInput = {
  object_type: string;
  object_id: string;
  filename: string;
  content_type?: string | null;
  title?: string | null;
  /** Declared length (Content-Length), checked before reading. */
  declared_bytes?: number | null;
};

/** Reads a body up to `limit` bytes (through the one body loop, readBody); null when it is larger. */
export async function readLimited(body: ReadableStream<Uint8Array> | Uint8Array | null, limit: number): Promise<Uint8Array | null> {
  if (!body) return new Uint8Array();
  if (body instanceof Uint8Array) return body.byteLength > limit ? null : body;
  // a web stream is async-iterable on Node (the DOM typings do not say so)
  const read = await readBody(body as unknown as BodySource, { limit });
  return read.bytes && new Uint8Array(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength);
}

function humanBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / 1024 / 1024).toFixed(1)} MiB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

/** The envelope for an upload over the limit; it names the limit. */
export function tooLarge(limit = maxUploadBytes()): Envelope {
  return {
    ok: false,
    error: toolError('PAYLOAD_TOO_LARGE', `the file is larger than the upload limit of ${humanBytes(limit)} (${limit} bytes)`,
      'attach a link to where it is kept instead (attach_add kind "link"), or ask the operator to raise BULLPEN_MAX_UPLOAD_BYTES',
      { limit_bytes: limit }),
  };
}

/**
 * Stores an uploaded file and attaches it (attach_add, under the caller's own claims), in that
 * order; when the attachment is refused (no such object, bad input) the stored file is removed
 * again. Over the size limit nothing is stored: PAYLOAD_TOO_LARGE naming the limit.
 */
export async function uploadAndAttach(
  who: Who,
  input: UploadInput,
  body: ReadableStream<Uint8Array> | Uint8Array | null,
  store: FileStore = fileStore(),
  limit = maxUploadBytes(),
): Promise<Envelope> {
  if (input.declared_bytes != null && input.declared_bytes > limit) return tooLarge(limit);
  if (!input.object_type || !input.object_id) {
    return { ok: false, error: toolError('VALIDATION_ERROR', 'object_type and object_id: name what the file is attached to', 'e.g. ?object_type=task&object_id=PAY-3', { fields: ['object_type', 'object_id'].filter((f) => !input[f as 'object_type' | 'object_id']) }) };
  }
  const data = await readLimited(body, limit);
  if (!data) return tooLarge(limit);
  if (data.byteLength === 0) return { ok: false, error: toolError('VALIDATION_ERROR', 'file: the upload is empty', 'send the file as the request body', { fields: ['file'] }) };
  const filename = safeFilename(input.filename || 'file');
  const declaredType = (input.content_type || 'application/octet-stream').split(';')[0].trim().toLowerCase() || 'application/octet-stream';
  if (!MEDIA_TYPE.test(declaredType)) {
    return { ok: false, error: toolError('VALIDATION_ERROR', 'content_type: not a media type (type/subtype, RFC 6838)', 'send the file\'s type as Content-Type, e.g. image/png, or application/octet-stream', { fields: ['content_type'] }) };
  }
  const contentType = declaredType;
  const storagePath = `${who.claims.tenant_id}/${randomUUID()}/${filename}`;
  await store.put(storagePath, data, contentType);
  // the server's record that these bytes exist: attach_add accepts only paths recorded here
  await recordStoredFile(who.db, { tenant_id: who.claims.tenant_id, storage_path: storagePath, data, mime_type: contentType, actor_id: who.claims.actor_id });
  const shown = printableName(input.filename?.split(/[\\/]/).pop() ?? '').slice(0, 255);
  const title = input.title ? printableName(input.title).slice(0, 500) : '';
  const env = await execute(who, 'attach_add', {
    object_type: input.object_type,
    object_id: input.object_id,
    kind: 'file',
    storage_path: storagePath,
    filename: shown || filename,
    mime_type: contentType,
    size_bytes: data.byteLength,
    ...(title ? { title } : {}),
  });
  if (!env.ok) {
    await who.db.query(`delete from public.stored_files where tenant_id = $1 and storage_path = $2`, [who.claims.tenant_id, storagePath]).catch(() => {});
    await store.remove(storagePath).catch(() => {});
  }
  return env;
}

/**
 * Records bytes the server stored (the upload route, an import) in public.stored_files, as the
 * server: the only way a storage path becomes attachable.
 */
export async function recordStoredFile(
  db: Db,
  f: { tenant_id: string; storage_path: string; data: Uint8Array; mime_type: string; actor_id: string | null; created_at?: string },
): Promise<void> {
  await db.query(
    `insert into public.stored_files (tenant_id, storage_path, size_bytes, sha256, mime_type, created_by_actor_id, created_at)
     values ($1, $2, $3, $4, $5, $6, coalesce($7::timestamptz, now()))
     on conflict (tenant_id, storage_path) do nothing`,
    [f.tenant_id, f.storage_path, f.data.byteLength, sha256Hex(f.data), f.mime_type, f.actor_id, f.created_at ?? null],
  );
}

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Types a browser may show inline; anything else downloads. */
const INLINE = /^(image\/(png|jpeg|gif|webp|avif)|application\/pdf|text\/plain)$/;

/**
 * A stored file by attachment id, if the caller may see that attachment (same workspace, not
 * removed): the response to send, or null for "no such file" (also for other workspaces' ids).
 */
export async function downloadAttachment(who: Who, attachmentId: string, store: FileStore = fileStore()): Promise<Response | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(attachmentId)) return null;
  const rows = await who.db.withClaims<Row>(who.claims, `select bullpen.attachment_file('${attachmentId}'::uuid) as r`);
  const att = rows[0]?.r as { storage_path: string; filename: string | null; mime_type: string | null; tenant_id: string } | null;
  if (!att || !att.storage_path.startsWith(`${who.claims.tenant_id}/`)) return null;
  const file = await store.get(att.storage_path);
  if (!file) return null;
  // a type recorded before types were checked may hold anything: it never reaches a header unless it parses
  const type = safeMediaType(att.mime_type || file.contentType);
  const name = printableName(att.filename || 'file').replace(/["\\]/g, '_') || 'file';
  return new Response(new Blob([file.data as BlobPart]), {
    headers: {
      'content-type': type,
      'content-length': String(file.data.byteLength),
      'content-disposition': `${INLINE.test(type) ? 'inline' : 'attachment'}; filename="${name.replace(/[^\x20-\x7e]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'private, max-age=300',
    },
  });
}
