// Memory search in milliseconds: the hybrid knowledge_search RPC and its two arms at 10,000 notes in
// the searched workspace and 20,000 in the table, on Postgres with pgvector and on PGlite, beside a
// same-run baseline (task_get, a plain keyed read through the same call path); over HTTP with the
// query vector cached (the embedder out of the measured path); and the backfill's notes per second
// with the bundled model.
//
// BENCH_MEMORY_NOTES      notes per workspace (default 10000; two workspaces). The scale variant:
//                         BENCH_MEMORY_NOTES=100000 BENCH_MEMORY_TARGETS=pg,http npm run bench memory-search
//                         (target there: the hybrid RPC's p95 <= 60 ms)
// BENCH_MEMORY_PROFILE=DIR  also writes auto_explain'd plans (nested statements, analyze) of the
//                         hybrid RPC and of each arm on Postgres into DIR
// BENCH_MEMORY_TARGETS    pg,pglite,http,backfill (default all)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { execute } from '../lib/core/execute';
import { migrate } from '../lib/db/migrate';
import { openPglite } from '../lib/db/pglite';
import { callSql, type Claims, type Db } from '../lib/db/types';
import { embedDue } from '../lib/memory/backfill';
import { localEmbedder, LOCAL_MODEL, setEmbedder } from '../lib/memory/embedder';
import { mintKey } from '../lib/server/workspace';
import { benchWorkspace, seedNotes, seedPendingNotes, set } from './_notes';
import { emit, envFields, mcpCall, percentile, runBench, scratchDatabase, startServer, unlimitedRates } from './lib';
import '../lib/server/wiring';

const N = Number(process.env.BENCH_MEMORY_NOTES ?? 10_000);
const targets = new Set((process.env.BENCH_MEMORY_TARGETS ?? 'pg,pglite,http,backfill').split(','));
const PROFILE = process.env.BENCH_MEMORY_PROFILE;
const ROUNDS = 3;

const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
const stats = (a: number[]) => ({ p50_ms: percentile(sorted(a), 50), p95_ms: percentile(sorted(a), 95) });

let docVectors: number[][] = [];
let queryVectors: number[][] = [];

/** n notes per workspace, two workspaces, each note two of the set's texts and the mean of their vectors (as bench/retrieval.ts). */
async function seed(db: Db, n: number, rebuildIndex: boolean): Promise<{ big: Claims; other: Claims; seconds: number }> {
  const other = await benchWorkspace(db, 'bench-other');
  const big = await benchWorkspace(db, 'bench-latency');
  const t0 = performance.now();
  if (rebuildIndex) await db.exec('drop index if exists public.memory_embeddings_hnsw_use_lite');
  for (const ws of [other, big]) await seedNotes(db, ws, n, docVectors);
  if (rebuildIndex) {
    // the migration's index, built once over the loaded rows (faster than 20,000 graph inserts)
    // with room for the graph in memory (at 200,000 vectors it is ~0.5 GB; spilled, the build takes
    // many times longer); one statement batch, so one connection
    await db.exec(`set maintenance_work_mem = '1GB'; create index memory_embeddings_hnsw_use_lite on public.memory_embeddings
      using hnsw ((embedding::public.vector(512)) public.vector_cosine_ops) where model = 'universal-sentence-encoder-lite'; reset maintenance_work_mem`);
  }
  await db.exec('analyze public.knowledge_notes; analyze public.memory_embeddings;');
  return { big, other, seconds: Math.round((performance.now() - t0) / 100) / 10 };
}

/** CPU ticks (1/100 s) of every backend connected to this database, read from /proc (the bench runs beside its Postgres). */
async function backendTicks(db: Db): Promise<number> {
  const pids = await db.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database()`);
  let sum = 0;
  for (const { pid } of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      sum += Number(f[11]) + Number(f[12]);
    } catch {
      // a backend that ended meanwhile
    }
  }
  return sum;
}

/** The three RPC shapes, p50/p95 over ROUNDS passes of the 50 queries, with task_get's keyed read as the baseline. */
async function rpcLatency(db: Db, big: Claims, label: string) {
  const ctx = { db, claims: big };
  const { ok: _o, ...created } = (await execute(ctx, 'project_create', { title: 'Bench', key: 'BENCH' })) as Record<string, unknown>;
  void created;
  await execute(ctx, 'task_create', { project_id: 'BENCH', title: 'baseline' });
  const t = { hybrid: [] as number[], vector: [] as number[], lexical: [] as number[], baseline: [] as number[] };
  const cpu: Record<string, number | null> = {};
  const args = (i: number) => ({ q: set.queries[i].q, top_k: 10, query_embedding: queryVectors[i], embedding_model: LOCAL_MODEL });
  const shapes: Record<keyof typeof t, (i: number) => [string, unknown]> = {
    hybrid: (i) => ['knowledge_search', args(i)],
    vector: (i) => ['knowledge_search', { ...args(i), fusion: { vector_only: true } }],
    lexical: (i) => ['knowledge_search', { q: set.queries[i].q, top_k: 10, lexical_only: true }],
    baseline: () => ['task_get', { task_id: 'BENCH-1' }],
  };
  const modes = new Set<string>();
  for (const [name, shape] of Object.entries(shapes) as [keyof typeof t, (i: number) => [string, unknown]][]) {
    // warm: plans cached, pages read
    for (let i = 0; i < set.queries.length; i++) await db.call(big, ...shape(i));
    const c0 = label === 'pg' ? await backendTicks(db) : null;
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < set.queries.length; i++) {
        const t0 = performance.now();
        const res = (await db.call(big, ...shape(i))) as { mode?: string };
        t[name].push(performance.now() - t0);
        if (name === 'hybrid') modes.add(res.mode ?? '?');
      }
    }
    // the database's own CPU per call (every backend of this database, from /proc): what the
    // machine's other load does not inflate the way it inflates wall time
    cpu[name] = c0 === null ? null : Math.round((((await backendTicks(db)) - c0) * 10 * 100) / t[name].length) / 100;
  }
  const base = stats(t.baseline);
  const row = (name: string, a: number[]) => {
    const s = stats(a);
    return { [`${name}_p50_ms`]: s.p50_ms, [`${name}_p95_ms`]: s.p95_ms, [`${name}_p50_x_baseline`]: Math.round((s.p50_ms / base.p50_ms) * 100) / 100 };
  };
  emit({
    bench: 'memory.rpc',
    db: label,
    notes_in_workspace: N,
    notes_in_table: 2 * N,
    calls: t.hybrid.length,
    modes: [...modes],
    ...row('hybrid', t.hybrid),
    ...row('vector_arm', t.vector),
    ...row('lexical_arm', t.lexical),
    baseline_p50_ms: base.p50_ms,
    baseline_p95_ms: base.p95_ms,
    db_cpu_ms_per_call: label === 'pg' ? { hybrid: cpu.hybrid, vector_arm: cpu.vector, lexical_arm: cpu.lexical, baseline: cpu.baseline } : undefined,
    hybrid_cpu_x_baseline: label === 'pg' && cpu.hybrid && cpu.baseline ? Math.round((cpu.hybrid / cpu.baseline) * 100) / 100 : undefined,
    load_average_1m: (await import('node:os')).loadavg()[0],
    // issue 19: at 10,000 notes p50 <= 10 ms and p95 <= 25 ms; at 100,000 p95 <= 60 ms
    targets: label === 'pg' ? (N >= 100_000 ? { hybrid_p95_ms: 60 } : { hybrid_p50_ms: 10, hybrid_p95_ms: 25 }) : undefined,
    met: label === 'pg' ? (N >= 100_000 ? stats(t.hybrid).p95_ms <= 60 : stats(t.hybrid).p50_ms <= 10 && stats(t.hybrid).p95_ms <= 25) : undefined,
    note: 'the RPC alone through the product\'s pool (claims + call, one round trip), query vector given; baseline = task_get BENCH-1 through the same path',
  });
}

/** auto_explain of one hybrid call and one call per arm (nested statements, with analyze), into PROFILE. */
async function profile(url: string, big: Claims, dir: string) {
  mkdirSync(dir, { recursive: true });
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const notices: string[] = [];
  c.on('notice', (m) => notices.push(m.message ?? ''));
  await c.query(`load 'auto_explain'`);
  await c.query(`set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; set auto_explain.log_analyze = on;
                 set auto_explain.log_timing = on; set auto_explain.log_buffers = on; set client_min_messages = log`);
  const i = 0;
  const args = { q: set.queries[i].q, top_k: 10, query_embedding: queryVectors[i], embedding_model: LOCAL_MODEL };
  const shapes: Record<string, unknown> = {
    hybrid: args,
    vector_arm: { ...args, fusion: { vector_only: true } },
    lexical_arm: { q: set.queries[i].q, top_k: 10, lexical_only: true },
  };
  for (const [name, a] of Object.entries(shapes)) {
    await c.query(`set client_min_messages = warning`);
    await c.query(callSql(big, 'knowledge_search', a, (s) => c.escapeLiteral(s), true)); // warm
    await c.query(`set client_min_messages = log`);
    notices.length = 0;
    const t0 = performance.now();
    await c.query(callSql(big, 'knowledge_search', a, (s) => c.escapeLiteral(s), true));
    const ms = performance.now() - t0;
    const text = notices.filter((m) => m.startsWith('duration')).join('\n\n');
    writeFileSync(path.join(dir, `knowledge_search.${name}.explain.log`), `-- query: ${set.queries[i].q}\n-- ${N} notes in the workspace, ${2 * N} in the table; wall ${ms.toFixed(1)} ms (auto_explain's timing included)\n\n${text}\n`);
  }
  await c.end();
}

/** Over HTTP against `bullpen start`: the first pass embeds each query, the next ones find it cached. */
async function httpLatency(url: string, db: Db, big: Claims) {
  const key = (await mintKey(db, big.tenant_id, big.actor_id)).api_key;
  const server = await startServer({ DATABASE_URL: url, ...unlimitedRates() });
  try {
    const first: number[] = [];
    const cached: number[] = [];
    const baseline: number[] = [];
    for (let r = 0; r <= ROUNDS; r++) {
      for (const q of set.queries) {
        const t0 = performance.now();
        const res = await mcpCall(server.url, key, 'knowledge_search', { q: q.q, top_k: 10 });
        (r === 0 ? first : cached).push(performance.now() - t0);
        if (res.ok !== true || res.mode !== 'hybrid') throw new Error(`knowledge_search over HTTP: ${JSON.stringify(res).slice(0, 300)}`);
        if (r > 0) {
          const t1 = performance.now();
          await mcpCall(server.url, key, 'task_get', { task_id: 'BENCH-1' });
          baseline.push(performance.now() - t1);
        }
      }
    }
    const c = stats(cached);
    const b = stats(baseline);
    emit({
      bench: 'memory.http',
      db: 'pg',
      notes_in_workspace: N,
      notes_in_table: 2 * N,
      first_call_p50_ms: stats(first).p50_ms,
      first_call_p95_ms: stats(first).p95_ms,
      cached_p50_ms: c.p50_ms,
      cached_p95_ms: c.p95_ms,
      baseline_p50_ms: b.p50_ms,
      baseline_p95_ms: b.p95_ms,
      cached_p50_x_baseline: Math.round((c.p50_ms / b.p50_ms) * 100) / 100,
      target_cached_p95_ms: 30,
      met: c.p95_ms <= 30,
      note: 'MCP tools/call over HTTP, one client; first = the query embedded by the bundled model in the server, cached = the same text again (the query-vector cache); baseline = task_get over the same transport',
    });
  } finally {
    await server.stop();
  }
}

/** The backfill with the bundled model: 400 pending notes in a fresh workspace, through embedDue. */
async function backfill(db: Db, label: string) {
  const ws = await benchWorkspace(db, `bench-backfill-${label}`);
  const n = 400;
  const rows = await seedPendingNotes(db, ws, n);
  const embedder = localEmbedder();
  await embedder.embed(['warm up']);
  // the model alone on the same texts, for the share of the time that is the model's
  const texts = rows.slice(0, 64).map((r) => `${r.title}\n\n${r.body}`);
  const m0 = process.cpuUsage();
  const tm = performance.now();
  for (let i = 0; i < texts.length; i += 32) await embedder.embed(texts.slice(i, i + 32));
  const modelWall = (performance.now() - tm) / 1000;
  const mc = process.cpuUsage(m0);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const report = await embedDue(db, embedder, { tenantId: ws.tenant_id, maxBatches: 1000 });
  const s = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6;
  emit({
    bench: 'memory.backfill',
    db: label,
    model: LOCAL_MODEL,
    notes: report.embedded,
    failed: report.failed,
    seconds: Math.round(s * 100) / 100,
    notes_per_second: Math.round((report.embedded / s) * 10) / 10,
    notes_per_cpu_second: Math.round((report.embedded / cpu) * 10) / 10,
    model_alone_texts_per_second: Math.round((texts.length / modelWall) * 10) / 10,
    model_alone_texts_per_cpu_second: Math.round((texts.length / ((mc.user + mc.system) / 1e6)) * 10) / 10,
    target_notes_per_second: 200,
    load_average_1m: (await import('node:os')).loadavg()[0],
    note: 'embedDue over 400 pending notes (batches of 32, 4 batches per read, each written in one statement while the next embeds); per cpu-second = this process\'s CPU time, which the machine\'s other load does not inflate',
  });
}

async function main() {
  const embedder = localEmbedder();
  setEmbedder(embedder);
  docVectors = await embedder.embed(set.docs.map((d) => `${d.title}\n\n${d.text}`));
  queryVectors = await embedder.embed(set.queries.map((q) => q.q));

  if (targets.has('pg') || targets.has('http') || targets.has('backfill')) {
    const scratch = await scratchDatabase({ prefix: 'bench_memory', pool: { max: 10 } });
    try {
      emit({ ...(await envFields('bench/memory-search.ts', scratch.admin)), notes_in_workspace: N });
      if (!scratch.db.vector) {
        emit({ bench: 'memory.skipped', db: 'pg', reason: 'this Postgres has no pgvector: node scripts/pgvector.mjs (as root) installs it' });
      } else {
        const { big, seconds } = await seed(scratch.db, N, true);
        emit({ bench: 'memory.load', db: 'pg', notes_in_table: 2 * N, seconds });
        if (targets.has('pg')) await rpcLatency(scratch.db, big, 'pg');
        if (PROFILE) await profile(scratch.url, big, PROFILE);
        if (targets.has('http')) await httpLatency(scratch.url, scratch.db, big);
        if (targets.has('backfill')) await backfill(scratch.db, 'pg');
      }
    } finally {
      await scratch.close();
    }
  }
  if (targets.has('pglite')) {
    const db = await openPglite();
    await migrate(db);
    const { big, seconds } = await seed(db, N, true);
    emit({ bench: 'memory.load', db: 'pglite', notes_in_table: 2 * N, seconds });
    await rpcLatency(db, big, 'pglite');
    await db.close();
  }
}

runBench(main);
