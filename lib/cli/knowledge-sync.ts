import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ToolCall } from './skills-sync';

/**
 * `bullpen knowledge sync PATH --source NAME [--project KEY]`: indexes a folder of Markdown and
 * text files (a repo's docs/, a notes vault) into the workspace's source documents. It runs where
 * the files are and talks to the server through source_sync: begin takes the source's lock and
 * answers the content hash of every live document, so only new and changed files travel (put, in
 * batches); finish names every file still there, and the server tombstones the rest. The server
 * cuts documents into chunks along their headings; the background embeds them.
 */

export const SOURCE_EXTENSIONS = ['.md', '.markdown', '.mdx', '.txt'];
/** Files larger than this are reported as errors and left out. */
export const MAX_FILE_BYTES = 1_000_000;
/** A put carries at most this many documents and about this many bytes. */
const BATCH_DOCS = 200;
const BATCH_BYTES = 2_000_000;
const SKIP_DIRS = new Set(['node_modules', '.git']);

export type SourceSyncResult = {
  source: string;
  files: number;
  written: number;
  unchanged: number;
  tombstoned: string[];
  errors: Record<string, string>;
};

/** The source files under dir, as POSIX paths relative to it, sorted. Dot folders and node_modules are skipped. */
export async function listSourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(rel: string): Promise<void> {
    const entries = await readdir(path.join(dir, rel), { withFileTypes: true });
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && !SKIP_DIRS.has(e.name)) await walk(child);
      } else if (e.isFile() && SOURCE_EXTENSIONS.includes(path.extname(e.name).toLowerCase())) {
        out.push(child);
      }
    }
  }
  await walk('');
  return out.sort();
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

function check(env: Awaited<ReturnType<ToolCall>>): Record<string, any> {
  if (!env.ok) throw new Error(`${env.error!.code}: ${env.error!.message}${env.error!.hint ? ` (${env.error!.hint})` : ''}`);
  return env;
}

/**
 * Syncs a folder once. Throws when the source is locked by another sync (CONFLICT, nothing
 * written) or a call fails; a file that cannot be read is reported in `errors` and kept out.
 */
export async function syncSource(opts: {
  dir: string;
  source: string;
  project?: string;
  /** Mark every document of the source sensitive (a key with the sensitive scope syncs it). */
  sensitive?: boolean;
  call: ToolCall;
  out?: Pick<Console, 'log' | 'error'>;
}): Promise<SourceSyncResult> {
  const out = opts.out ?? console;
  const dir = path.resolve(opts.dir);
  if (!(await stat(dir).catch(() => null))?.isDirectory()) throw new Error(`${opts.dir}: not a folder`);
  const files = await listSourceFiles(dir);
  const begin = check(
    await opts.call('source_sync', {
      action: 'begin',
      source: opts.source,
      ...(opts.project ? { project_id: opts.project } : {}),
      ...(opts.sensitive ? { sensitivity: 'sensitive' } : {}),
    }),
  );
  const syncId = begin.sync_id as string;
  const known = begin.documents as Record<string, string>;
  const errors: Record<string, string> = {};
  const present: string[] = [];
  const result: SourceSyncResult = { source: opts.source, files: 0, written: 0, unchanged: 0, tombstoned: [], errors };
  let batch: Record<string, string> = {};
  let batchDocs = 0;
  let batchBytes = 0;
  const flush = async () => {
    if (batchDocs === 0) return;
    const put = check(await opts.call('source_sync', { action: 'put', source: opts.source, sync_id: syncId, documents: batch }));
    result.written += (put.written as string[]).length;
    result.unchanged += put.unchanged as number;
    batch = {};
    batchDocs = 0;
    batchBytes = 0;
  };
  for (const rel of files) {
    let body: string;
    try {
      const size = (await stat(path.join(dir, rel))).size;
      if (size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
      body = await readFile(path.join(dir, rel), 'utf8');
    } catch (err) {
      errors[rel] = (err as Error).message.slice(0, 1000);
      out.error(`skipped ${rel}: ${errors[rel]}`);
      continue;
    }
    // an unreadable file keeps its last synced version: it is named in paths, not tombstoned
    present.push(rel);
    if (known[rel] === sha256(body)) {
      result.unchanged++;
      continue;
    }
    batch[rel] = body;
    batchDocs++;
    batchBytes += Buffer.byteLength(body);
    if (batchDocs >= BATCH_DOCS || batchBytes >= BATCH_BYTES) await flush();
  }
  await flush();
  for (const rel of Object.keys(errors)) if (known[rel]) present.push(rel);
  const fin = check(
    await opts.call('source_sync', { action: 'finish', source: opts.source, sync_id: syncId, paths: present,
      ...(Object.keys(errors).length ? { errors: Object.entries(errors).map(([p, m]) => `${p}: ${m}`) } : {}) }),
  );
  result.files = present.length;
  result.tombstoned = fin.tombstoned as string[];
  for (const p of result.tombstoned) out.log(`tombstoned ${p}`);
  out.log(
    `source ${opts.source}: ${result.files} files, ${result.written} written, ${result.unchanged} unchanged, ` +
      `${result.tombstoned.length} tombstoned, ${Object.keys(errors).length} errors ← ${dir}`,
  );
  return result;
}

/** `bullpen knowledge sources`: one line per source. */
export function formatSources(sources: Record<string, any>[]): string {
  if (sources.length === 0) return 'no sources yet: bullpen knowledge sync PATH --source NAME';
  return sources
    .map((s) => {
      const errs = (s.errors as { path: string; message: string }[]) ?? [];
      const state = s.syncing ? `syncing since ${s.sync_started_at}` : s.last_sync_at ? `last sync ${s.last_sync_at}` : 'never synced';
      return (
        `${s.name}${s.project_key ? ` (${s.project_key})` : ''}: ${s.documents} documents, ${s.tombstoned} tombstoned, ` +
        `${s.chunks} chunks (${s.chunks_embedded} embedded), ${state}, ${errs.length} errors` +
        errs.map((e) => `\n  ${e.path}: ${e.message}`).join('')
      );
    })
    .join('\n');
}
