/**
 * The code graph at scale, on Postgres: a generated TypeScript repository of 10,000 files and
 * 50,000 imports written to disk, indexed by `bullpen repo index`'s own code (the TypeScript
 * compiler reads and resolves every import) and uploaded in batches through the executor
 * (code_graph_upload); then code_impact at depth 3 one call at a time, beside the same walk as a
 * bare SQL statement (no executor, no tool, no JSON) in the same run, which every ratio divides by.
 * Targets (issue 17): indexing + upload ≤ 60 s; code_impact depth 3 p95 ≤ 50 ms.
 * Prints JSON lines (bench/_common.mjs format).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildCodeGraph, uploadCodeGraph } from '../lib/cli/code-graph';
import { execute } from '../lib/core/execute';
import { emit, envFields, percentile, runBench, scratchDatabase, seedWorkspace } from './lib';

const FILES = Number(process.env.BENCH_FILES ?? 10_000);
const IMPORTS = Number(process.env.BENCH_IMPORTS ?? 50_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);

/** A seeded PRNG (mulberry32), so every run generates the same repository. */
function prng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * 100 folders of FILES/100 files; each file imports files written before it (layered, as real code
 * is), skewed toward the low numbers (shared utilities with many dependents), and one import in 500
 * points forward, which makes cycles.
 */
function generate(root: string): number {
  const rand = prng(17);
  const name = (i: number) => `src/m${i % 100}/f${i}.ts`;
  const perFile = Math.round(IMPORTS / FILES);
  let edges = 0;
  for (let i = 0; i < FILES; i++) {
    const targets = new Set<number>();
    if (i > 0) {
      while (targets.size < Math.min(perFile, i)) {
        const forward = rand() < 0.002;
        const j = forward ? Math.floor(rand() * FILES) : Math.floor(Math.pow(rand(), 2) * i);
        if (j !== i) targets.add(j);
      }
    }
    const from = path.posix.dirname(name(i));
    const lines = [...targets].map((j, k) => {
      let rel = path.posix.relative(from, name(j)).replace(/\.ts$/, '');
      if (!rel.startsWith('.')) rel = `./${rel}`;
      return `import { v as v${k} } from '${rel}';`;
    });
    edges += targets.size;
    const file = path.join(root, name(i));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${lines.join('\n')}\nexport const v = ${i}${[...targets].map((_, k) => ` + v${k}`).join('')};\n`);
  }
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler' } }));
  return edges;
}

async function time(calls: number, work: (k: number) => Promise<unknown>) {
  for (let k = 0; k < 10; k++) await work(k); // warm: plans and caches
  const samples: number[] = [];
  for (let k = 0; k < calls; k++) {
    const s = performance.now();
    await work(k);
    samples.push(performance.now() - s);
  }
  samples.sort((a, b) => a - b);
  return { calls, p50_ms: percentile(samples, 50), p95_ms: percentile(samples, 95), p99_ms: percentile(samples, 99) };
}

function check(env: { ok: boolean; error?: { message: string } }) {
  if (!env.ok) throw new Error(env.error?.message ?? 'not ok');
  return env as unknown as Record<string, unknown>;
}

async function main() {
  const scratch = await scratchDatabase({ prefix: 'bp_bench_code_graph' });
  const { db } = scratch;
  const root = mkdtempSync(path.join(tmpdir(), 'bp-bench-repo-'));
  try {
    emit({ ...(await envFields('bench/code-graph.ts', scratch.admin)), files: FILES, imports: IMPORTS, calls: CALLS });
    const generated = generate(root);
    const ws = await seedWorkspace(db, { name: 'code', agents: 1 });
    const ctx = { db, claims: ws.agents[0].claims };
    const repo = check(await execute(ctx, 'repo_register', { slug: 'bench/generated' })).repository_id as string;

    const t0 = performance.now();
    const g = await buildCodeGraph(root);
    const t1 = performance.now();
    let batches = 0;
    const last = await uploadCodeGraph(
      async (tool, input) => {
        batches++;
        return execute(ctx, tool, input);
      },
      repo,
      g,
      'b0000000000000000000000000000000000000e5',
    );
    const t2 = performance.now();
    const graph = last.graph as { graph_id: string; files: number; imports: number; cycles: number };
    const totalS = (t2 - t0) / 1000;
    emit({
      bench: 'code-graph', step: 'index+upload', files: g.files.length, imports_written: generated, imports: graph.imports,
      cycles: graph.cycles, batches, build_ms: Math.round(t1 - t0), upload_ms: Math.round(t2 - t1),
      total_s: Math.round(totalS * 10) / 10, target_s: 60, met: totalS <= 60,
    });

    // the files with the most dependents, and a spread of others: 50 roots
    const ranked = g.files.map((f, i) => [g.dependents[i], f] as const).sort((a, b) => b[0] - a[0]);
    const roots = [...ranked.slice(0, 25), ...ranked.filter((_, k) => k % 400 === 7).slice(0, 25)].map(([, f]) => f);
    const ns = roots.map((f) => g.files.indexOf(f));
    // the same breadth-first walk as one bare statement: three levels of the imports' key
    const bare = await time(CALLS, (k) =>
      db.query(
        `with l1 as (select distinct from_n as n from public.code_graph_imports where tenant_id = $1 and graph_id = $2 and to_n = $3),
              l2 as (select distinct i.from_n as n from public.code_graph_imports i where i.tenant_id = $1 and i.graph_id = $2 and i.to_n in (select n from l1)),
              l3 as (select distinct i.from_n as n from public.code_graph_imports i where i.tenant_id = $1 and i.graph_id = $2 and i.to_n in (select n from l2))
         select count(*) from (select n from l1 union select n from l2 union select n from l3) x`,
        [ws.tenantId, graph.graph_id, ns[k % ns.length]],
      ),
    );
    emit({ bench: 'code-graph', tool: 'bare three-level walk statement', depth: 3, ...bare });
    let reached = 0;
    const impact = await time(CALLS, async (k) => {
      const out = check(await execute(ctx, 'code_impact', { repository_id: repo, file_path: roots[k % roots.length], max_depth: 3 }));
      reached = Math.max(reached, out.dependent_count as number);
    });
    emit({
      bench: 'code-graph', tool: 'code_impact', depth: 3, ...impact, max_dependents: reached,
      p95_vs_bare: Math.round((impact.p95_ms / bare.p95_ms) * 100) / 100, target_p95_ms: 50, met: impact.p95_ms <= 50,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
    await scratch.close();
  }
}

runBench(main);
