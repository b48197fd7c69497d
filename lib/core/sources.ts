import { z } from 'zod';
import { defineTool } from './tool';
import { docs, idempotencyKey, projectRef, uuid } from './fields';
import { id, timestamp, writeResult } from './rows';

/**
 * Document sources: `bullpen knowledge sync PATH --source NAME` reads a folder of Markdown and text
 * files where they are and sends them here in three steps (begin, put, finish) under a per-source
 * lock. The server cuts each document into chunks along its headings (chunkDocument, below), so
 * the rule lives in one place; the chunks are embedded by the notes' background job and found by
 * knowledge_search {types: ["chunk"]}.
 */

/** A chunk never exceeds this many characters: a longer section is cut at paragraph breaks. */
export const CHUNK_MAX_CHARS = 4000;
/**
 * Consecutive small sections merge into one chunk up to this many characters. Each chunk costs one
 * embedding, and the bundled model reads only its first 128 tokens (about 500 characters) whatever
 * its length, so a chunk of a few small sections costs what one section did (bench/source-sync.ts).
 */
export const CHUNK_TARGET_CHARS = 3000;

export type Chunk = { heading: string | null; start_offset: number; end_offset: number; text: string };

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/;
const FENCE = /^(```|~~~)/;

/**
 * Cuts a document into chunks: at each Markdown heading outside a code fence (a text file has
 * none: it is one section). Consecutive sections then merge while the chunk stays within `target`
 * characters and the next section is not a higher heading than the chunk's first (a `##` section
 * joins the `#` one before it, its siblings join it; a new `#` starts a chunk after a `##` one).
 * A chunk's heading is its first section's (the first that has one). A section longer than `max`
 * is cut at blank lines (or hard, when a paragraph alone is longer). Whitespace-only pieces are
 * dropped. Offsets are in characters (code points) of the body, end exclusive; each chunk's text is
 * exactly that slice.
 */
export function chunkDocument(body: string, opts: { markdown?: boolean; max?: number; target?: number } = {}): Chunk[] {
  const max = opts.max ?? CHUNK_MAX_CHARS;
  const target = Math.min(max, opts.target ?? CHUNK_TARGET_CHARS);
  const markdown = opts.markdown ?? true;
  // sections: [start, end, heading, level] in UTF-16 indices (level 0: before the first heading)
  const sections: [number, number, string | null, number][] = [];
  let start = 0;
  let heading: string | null = null;
  let level = 0;
  let fenced = false;
  if (markdown) {
    let pos = 0;
    for (const line of body.split('\n')) {
      if (FENCE.test(line.trimStart())) fenced = !fenced;
      const m = fenced ? null : HEADING.exec(line);
      if (m && pos > start) {
        sections.push([start, pos, heading, level]);
        start = pos;
      }
      if (m) {
        heading = m[2].trim();
        level = m[1].length;
      }
      pos += line.length + 1;
    }
  }
  sections.push([start, body.length, heading, level]);
  const merged: [number, number, string | null][] = [];
  let cur: [number, number, string | null, number] | null = null;
  for (const sec of sections) {
    if (cur && sec[3] >= cur[3] && sec[1] - cur[0] <= target) {
      cur[1] = sec[1];
      cur[2] ??= sec[2];
      continue;
    }
    if (cur) merged.push([cur[0], cur[1], cur[2]]);
    cur = [...sec];
  }
  if (cur) merged.push([cur[0], cur[1], cur[2]]);
  const pieces: [number, number, string | null][] = [];
  for (const [s, e, h] of merged) {
    let a = s;
    while (e - a > max) {
      const window = body.slice(a, a + max);
      const brk = window.lastIndexOf('\n\n');
      const cut = brk > max / 4 ? a + brk + 2 : a + max;
      pieces.push([a, cut, h]);
      a = cut;
    }
    pieces.push([a, e, h]);
  }
  // code point offsets: a UTF-16 index minus the low surrogates before it
  const cp = codePointIndex(body);
  const out: Chunk[] = [];
  for (let [s, e, h] of pieces) {
    while (s < e && /\s/.test(body[s])) s++;
    while (e > s && /\s/.test(body[e - 1])) e--;
    if (e <= s) continue;
    out.push({ heading: h, start_offset: cp(s), end_offset: cp(e), text: body.slice(s, e) });
  }
  return out;
}

function codePointIndex(body: string): (i: number) => number {
  const lows: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) lows.push(i);
  }
  if (lows.length === 0) return (i) => i;
  return (i) => {
    let lo = 0;
    let hi = lows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (lows[mid] < i) lo = mid + 1;
      else hi = mid;
    }
    return i - lo;
  };
}

/** A document's title: its first `# ` heading, else a `title:` in front matter, else the file name. */
export function documentTitle(path: string, body: string): string {
  const fm = /^---\n[\s\S]*?^title:[ \t]*["']?(.+?)["']?[ \t]*$[\s\S]*?^---$/m.exec(body);
  if (body.startsWith('---\n') && fm) return fm[1].slice(0, 500);
  const h1 = /^#[ \t]+(.+?)[ \t#]*$/m.exec(body);
  if (h1) return h1[1].slice(0, 500);
  const name = path.split('/').pop() ?? path;
  return name.replace(/\.(md|markdown|mdx|txt)$/i, '').slice(0, 500) || path.slice(0, 500);
}

const sourceName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, . _ -; at most 64');
const docPath = z.string().min(1).max(1000);

export const sourceSyncInput = z.strictObject({
  action: z.enum(['begin', 'put', 'finish']),
  source: sourceName,
  project_id: projectRef.optional().meta(docs('begin: the project the source belongs to')),
  sensitivity: z.enum(['normal', 'sensitive']).optional().meta(docs('begin: of every document')),
  sync_id: uuid.optional().meta(docs("begin's answer; put and finish name it")),
  documents: z
    .record(docPath, z.string().max(1_000_000))
    .refine((r) => Object.keys(r).length <= 500, 'at most 500 documents per put')
    .optional()
    .meta(docs('put: body by path, changed files only; at most 500')),
  paths: z.array(docPath).max(100_000).optional().meta(docs('finish: every path still there; the others are tombstoned')),
  errors: z.array(z.string().min(1).max(2000)).max(1000).optional().meta(docs('finish: "path: message" of files it could not read')),
  idempotency_key: idempotencyKey.optional(),
});
export type SourceSyncInput = z.infer<typeof sourceSyncInput>;

const sourceErrors = z.array(z.strictObject({ path: z.string(), message: z.string() }));

export const sourceRow = z
  .strictObject({
    id,
    name: z.string(),
    project_id: id.nullable(),
    project_key: z.string().nullable(),
    sensitivity: z.enum(['normal', 'sensitive']),
    documents: z.number().int(),
    tombstoned: z.number().int(),
    chunks: z.number().int(),
    chunks_embedded: z.number().int(),
    syncing: z.boolean(),
    sync_started_at: timestamp.nullable(),
    last_sync_at: timestamp.nullable(),
    last_sync: z.record(z.string(), z.unknown()),
    errors: sourceErrors,
    created_at: timestamp,
  })
  .meta({ id: 'Source' });
export type SourceRow = z.infer<typeof sourceRow>;

export const sourceSyncOutput = writeResult({
  sync_id: id.nullable().optional(),
  source: sourceRow.optional(),
  documents: z.record(z.string(), z.string()).optional().describe('begin: content hash by path of the live documents'),
  written: z.array(z.string()).optional().describe('put: paths written'),
  unchanged: z.number().int().optional().describe('put: documents whose hash had not changed'),
  tombstoned: z.array(z.string()).optional().describe('finish: paths that vanished'),
});
export type SourceSyncOutput = z.infer<typeof sourceSyncOutput>;

export const sourceDocumentRow = z
  .strictObject({
    id,
    source_id: id,
    source: z.string(),
    project_id: id.nullable(),
    path: z.string(),
    title: z.string(),
    bytes: z.number().int(),
    content_hash: z.string(),
    tombstoned_at: timestamp.nullable().describe('the file vanished from its folder'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'SourceDocument' });

export const sourceChunkRow = z
  .strictObject({
    id,
    document_id: id,
    ord: z.number().int(),
    heading: z.string().nullable(),
    start_offset: z.number().int(),
    end_offset: z.number().int().describe('exclusive; offsets in characters of the document'),
    text: z.string(),
    embedding_status: z.enum(['pending', 'ready', 'failed', 'unavailable']),
  })
  .meta({ id: 'SourceChunk' });

/** A source chunk as a knowledge_search hit. */
export const chunkHit = z
  .strictObject({
    type: z.literal('chunk'),
    id,
    document_id: id,
    project_id: id.nullable(),
    source: z.string(),
    path: z.string(),
    title: z.string(),
    heading: z.string().nullable(),
    text: z.string(),
    start_offset: z.number().int(),
    end_offset: z.number().int(),
    similarity: z.number().nullable().optional(),
    lexical_rank: z.number().nullable().optional(),
    score: z.number().optional(),
  })
  .meta({ id: 'ChunkHit' });

export type ChunkHit = z.infer<typeof chunkHit>;

export const sourceListInput = z.strictObject({ project_id: projectRef.optional() });
export const sourceListOutput = z.strictObject({ sources: z.array(sourceRow) });

export const sourceGetInput = z.strictObject({ document_id: uuid });
export const sourceGetOutput = z.strictObject({ document: sourceDocumentRow, chunks: z.array(sourceChunkRow).describe('in order') });
export type SourceGetOutput = z.infer<typeof sourceGetOutput>;

export const chunkGetInput = z.strictObject({
  chunk_id: uuid,
  context_chunks: z.number().int().min(0).max(10).optional().meta(docs('neighbours each side; default 0')),
});
export const chunkGetOutput = z.strictObject({
  chunk: sourceChunkRow,
  document: sourceDocumentRow,
  before: z.array(sourceChunkRow),
  after: z.array(sourceChunkRow),
});

/**
 * put: each document is cut into chunks here (the database cannot) and titled. A put names at most
 * 500 documents; the chunks travel to the RPC as an array.
 */
async function withChunks(input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const docsIn = input.documents as Record<string, string> | undefined;
  const out: Record<string, unknown> = { ...input };
  if (docsIn) {
    out.documents = Object.entries(docsIn).map(([path, body]) => ({
      path,
      body,
      title: documentTitle(path, body),
      chunks: chunkDocument(body, { markdown: !/\.txt$/i.test(path) }),
    }));
  }
  if (input.errors) {
    out.errors = (input.errors as string[]).map((e) => {
      const at = e.indexOf(': ');
      return at > 0 ? { path: e.slice(0, at), message: e.slice(at + 2) } : { path: '', message: e };
    });
  }
  return out;
}

export const sourceTools = [
  defineTool({
    name: 'source_sync',
    room: 'sources',
    title: 'Sync a source',
    description:
      'Returns hashes by path on begin, then counts. Use when running `bullpen knowledge sync`.',
    input: sourceSyncInput,
    output: sourceSyncOutput,
    kind: 'write',
    idempotency: 'derived',
    prepare: async (input) => withChunks(input),
  }),
  defineTool({
    name: 'source_list',
    room: 'sources',
    title: 'List document sources',
    description: 'Returns each source with its documents, chunks, last sync and errors. Use when checking what is indexed.',
    input: sourceListInput,
    output: sourceListOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'source_get',
    room: 'sources',
    title: 'Get a source document',
    description: 'Returns a synced document and its chunks with character offsets. Use when a chunk hit needs its whole file.',
    input: sourceGetInput,
    output: sourceGetOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'chunk_get',
    room: 'sources',
    title: 'Get a source chunk',
    description: 'Returns a chunk with up to 10 neighbours each side and its document. Use when a chunk hit needs context.',
    input: chunkGetInput,
    output: chunkGetOutput,
    kind: 'read',
    idempotent: true,
  }),
];
