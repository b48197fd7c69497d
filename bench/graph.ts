/**
 * find_related over a graph of 10,000 typed links, on Postgres and on PGlite: the neighbourhood of an
 * object at depth 1, 2 and 3, called through the executor (validation, claims, one RPC) one call at a
 * time, beside task_get on the same workspace in the same run (the baseline every ratio divides by).
 *   sparse: 10,000 links among 4,000 objects (2,000 tasks and 2,000 notes, about 5 links each)
 *   dense:  10,000 links among 1,000 objects (about 20 links each: depth 3 reaches most of them)
 * Target (issue 21): p95 ≤ 50 ms at depth 3. Prints JSON lines (bench/_common.mjs format).
 *   npm run bench graph [-- --save]    (writes bench/results/graph.jsonl with --save)
 * BENCH_GRAPH_TARGETS pg,pglite (default both); BENCH_LINKS, BENCH_CALLS, BENCH_SHAPES as below.
 */
import { execute } from '../lib/core/execute';
import { migrate } from '../lib/db/migrate';
import { openPglite } from '../lib/db/pglite';
import type { Db } from '../lib/db/types';
import { emit, envFields, percentile, runBench, scratchDatabase, seedWorkspace, type SeededWorkspace } from './lib';

const LINKS = Number(process.env.BENCH_LINKS ?? 10_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const SHAPES = (process.env.BENCH_SHAPES ?? 'sparse,dense').split(',');
const TARGETS = (process.env.BENCH_GRAPH_TARGETS ?? 'pg,pglite').split(',');

/** A workspace with `objects` objects (half tasks, half notes) and LINKS random links among them. */
async function seedGraph(db: Db, name: string, objects: number) {
  const half = objects / 2;
  const ws = await seedWorkspace(db, { name, tasks: half, agents: 1 });
  await db.query(
    `insert into public.knowledge_notes (tenant_id, title, body, tags, author_actor_id, content_hash, embedding_status)
     select $1, 'bench note ' || g, 'body of note ' || g, array['bench', 'n' || (g % 7)], $2, md5(g::text), 'unavailable'
       from generate_series(1, $3) g`,
    [ws.tenantId, ws.ownerId, half],
  );
  // random pairs among every object, any relation but task-to-task depends_on; duplicates dropped
  await db.query(
    `with objs as (
       select row_number() over (order by id) - 1 as i, 'task' as type, id from public.tasks where tenant_id = $1
       union all
       select $3 + row_number() over (order by id) - 1, 'note', id from public.knowledge_notes where tenant_id = $1
     ), pairs as (
       select (random() * ($3 * 2 - 1))::int as a, (random() * ($3 * 2 - 1))::int as b,
              (array['relates_to', 'implements', 'extends', 'explains', 'supersedes'])[1 + (random() * 4)::int] as relation,
              round((0.2 + random() * 0.8)::numeric, 2)::real as strength
         from generate_series(1, $4 * 2)
     )
     insert into public.links (tenant_id, from_type, from_id, to_type, to_id, relation, strength, created_by_actor_id)
     select $1, fa.type, fa.id, fb.type, fb.id, p.relation, p.strength, $2
       from pairs p join objs fa on fa.i = p.a join objs fb on fb.i = p.b
      where p.a <> p.b
     on conflict do nothing`,
    [ws.tenantId, ws.ownerId, half, LINKS],
  );
  // keep exactly LINKS of them (counted with fresh statistics: a stale plan took minutes)
  await db.query('analyze public.links');
  await db.query(
    `delete from public.links where tenant_id = $1 and id in (
       select id from public.links where tenant_id = $1 order by id offset $2)`,
    [ws.tenantId, LINKS],
  );
  for (const t of ['links', 'knowledge_notes', 'tasks']) await db.query(`analyze public.${t}`);
  const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.links where tenant_id = $1`, [ws.tenantId]);
  const roots = await db.query<{ id: string }>(
    `select id from (select from_id as id from public.links where tenant_id = $1 and from_type = 'task'
                     group by from_id order by count(*) desc, from_id limit 50) x`,
    [ws.tenantId],
  );
  return { ws, links: n, roots: roots.map((r) => r.id) };
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

/** Every shape on one database: task_get, then find_related at depth 1–3, each line saying its db. */
async function measure(db: Db, dbName: 'pg' | 'pglite') {
  for (const [shape, objects] of ([['sparse', 4000], ['dense', 1000]] as const).filter(([s]) => SHAPES.includes(s))) {
    const { ws, links, roots } = await seedGraph(db, shape, objects);
    const agent: SeededWorkspace['agents'][number] = ws.agents[0];
    const ctx = { db, claims: agent.claims };
    const baseline = await time(CALLS, async (k) => check(await execute(ctx, 'task_get', { task_id: roots[k % roots.length] })));
    emit({ bench: 'graph', db: dbName, shape, objects, links, tool: 'task_get', ...baseline });
    for (const depth of [1, 2, 3]) {
      let reached = 0;
      const r = await time(CALLS, async (k) => {
        const out = check(await execute(ctx, 'find_related', { type: 'task', id: roots[k % roots.length], depth, limit: 50 }));
        reached = Math.max(reached, out.total as number);
      });
      emit({
        bench: 'graph', db: dbName, shape, objects, links, tool: 'find_related', depth, ...r, max_nodes_reached: reached,
        p95_vs_task_get: Math.round((r.p95_ms / baseline.p95_ms) * 100) / 100,
        target_p95_ms: depth === 3 ? 50 : undefined, met: depth === 3 ? r.p95_ms <= 50 : undefined,
      });
    }
  }
}

async function main() {
  const scratch = await scratchDatabase({ prefix: 'bp_bench_graph' });
  try {
    emit({ ...(await envFields('bench/graph.ts', scratch.admin)), links: LINKS, calls: CALLS, targets: TARGETS.join(',') });
    if (TARGETS.includes('pg')) await measure(scratch.db, 'pg');
  } finally {
    await scratch.close();
  }
  if (TARGETS.includes('pglite')) {
    const db = await openPglite();
    try {
      await migrate(db);
      await measure(db, 'pglite');
    } finally {
      await db.close();
    }
  }
}

runBench(main);
