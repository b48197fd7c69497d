/**
 * cost_summary over a usage ledger of 100,000 reports (10 projects, 200 tasks, 8 agents, 6 models,
 * 60 days), through the executor in-process: with a project filter (the target: p95 ≤ 100 ms) and
 * over the whole workspace, for each grouping. Each is reported beside a bare statement measured in
 * the same run (the project's sum and count straight off the ledger), as a ratio, so a loaded
 * machine slows both. Prints JSON lines (bench/_common.mjs format).
 */
import pg from 'pg';
import { execute } from '../lib/core/execute';
import { emit, envFields, percentile, runBench, scratchDatabase, seedWorkspace } from './lib';

const ROWS = Number(process.env.COSTS_BENCH_ROWS ?? 100_000);
const CALLS = Number(process.env.COSTS_BENCH_CALLS ?? 40);
const TARGET_P95_MS = 100;

async function timed(n: number, fn: () => Promise<unknown>) {
  const out: number[] = [];
  for (let i = 0; i < 3; i++) await fn();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out.sort((a, b) => a - b);
}

async function main() {
  const scratch = await scratchDatabase({ prefix: 'bp_bench_costs' });
  const { db, url } = scratch;
  const bare = new pg.Pool({ connectionString: url, max: 4 });
  emit({ ...(await envFields('bench/costs.ts', bare)), rows: ROWS, calls: CALLS });
  try {
    const ws = await seedWorkspace(db, { name: 'costs', agents: 8, keys: false });
    const projects: string[] = [];
    for (let p = 0; p < 10; p++) {
      const [row] = (await bare.query(`insert into projects (tenant_id, key, title, task_seq) values ($1, $2, $3, 20) returning id`, [ws.tenantId, `C${p}`, `Costs ${p}`])).rows;
      projects.push(row.id);
      await bare.query(`insert into tasks (tenant_id, project_id, seq, title) select $1, $2, g, 'task ' || g from generate_series(1, 20) g`, [ws.tenantId, row.id]);
    }
    const t0 = performance.now();
    await bare.query(
      `with t as (select array_agg(id order by id) ids, array_agg(project_id order by id) pids from tasks where tenant_id = $1)
       insert into usage_events (tenant_id, actor_id, task_id, project_id, model, provider, tokens_in, tokens_out, tokens_cache_read,
                                 tokens_cache_write, cost_usd, priced, created_at)
       select $1, ($2::uuid[])[1 + g % 8], t.ids[1 + g % 200], t.pids[1 + g % 200],
              (array['claude-sonnet-4-5', 'claude-haiku-4-5', 'gpt-5', 'gpt-5-mini', 'o3', 'house'])[1 + g % 6], 'p',
              g % 9973, g % 997, g % 20011, g % 101, round(((g * 7919) % 100000)::numeric / 1000000, 6), 'table',
              now() - make_interval(mins => ((g::bigint * 104729) % (60 * 24 * 60))::int)
         from generate_series(1, $3) g, t`,
      [ws.tenantId, ws.agents.map((a) => a.id), ROWS],
    );
    await bare.query('vacuum (analyze) usage_events, tasks, projects');
    emit({ bench: 'costs_seed', rows: ROWS, seed_ms: Math.round(performance.now() - t0) });

    const claims = ws.agents[0].claims;
    const summary = (input: Record<string, unknown>) => async () => {
      const r = await execute({ db, claims }, 'cost_summary', input);
      if (!r.ok) throw new Error(r.error.message);
    };
    const project = projects[3];
    const base = await timed(CALLS, () => bare.query(
      `select sum(cost_usd), count(*) from usage_events where tenant_id = $1 and project_id = $2`, [ws.tenantId, project]));
    const baseP95 = percentile(base, 95);
    emit({ bench: 'cost_summary', mode: 'bare_sql', filter: 'project', p50_ms: percentile(base, 50), p95_ms: baseP95 });
    for (const filter of ['project', 'workspace'] as const) {
      for (const group_by of [undefined, 'agent', 'model', 'project', 'task', 'workflow', 'day'] as const) {
        const input = { period: 'all', ...(group_by ? { group_by } : {}), ...(filter === 'project' ? { project_id: project } : {}) };
        const s = await timed(CALLS, summary(input));
        const p95 = percentile(s, 95);
        emit({
          bench: 'cost_summary', mode: 'executor', filter, group_by: group_by ?? null, rows_read: filter === 'project' ? ROWS / 10 : ROWS,
          p50_ms: percentile(s, 50), p95_ms: p95, ratio_p95_to_bare: Math.round((p95 / baseP95) * 10) / 10,
          ...(filter === 'project' ? { target_p95_ms: TARGET_P95_MS, meets_target: p95 <= TARGET_P95_MS } : {}),
        });
      }
    }
  } finally {
    await bare.end();
    await scratch.close();
  }
}

runBench(main);
