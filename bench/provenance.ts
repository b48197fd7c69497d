/**
 * Provenance under load, on one Postgres:
 *   run_heartbeat and activity_log throughput at 32 agents (executor in-process and MCP over HTTP,
 *   each beside the bare SQL statement it wraps), activity_log's dedup path (a retried milestone),
 *   and the reaper's sweep over 10,000 silent runs holding 2,000 leases among 10,000 live runs
 *   (plus its idle sweep, when nothing is silent).
 * Prints JSON lines (bench/_common.mjs format).
 */
import pg from 'pg';
import { execute } from '../lib/core/execute';
import { reapRuns } from '../lib/jobs/reaper';
import type { Db } from '../lib/db/types';
import { emit, mcpCall, percentile, scratchDatabase, seedWorkspace, startServer, runBench } from './lib';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 32);
const SILENT_RUNS = Number(process.env.BENCH_SILENT_RUNS ?? 10_000);

/** A workspace with n agents, each under its own run (`NAME-run-i`). */
async function seed(db: Db, name: string, n: number, withKeys: boolean) {
  return seedWorkspace(db, { name, agents: n, keys: withKeys, runId: (i) => `${name}-run-${i}` });
}

/** n loops calling `work` for SECONDS; returns calls/s and latency percentiles. */
async function drive(n: number, work: (i: number, k: number) => Promise<void>) {
  const samples: number[] = [];
  let errors = 0;
  let firstError = '';
  const deadline = Date.now() + SECONDS * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      for (let k = 0; Date.now() < deadline; k++) {
        const s = performance.now();
        try {
          await work(i, k);
          samples.push(performance.now() - s);
        } catch (err) {
          errors++;
          firstError ||= (err as Error).message;
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  samples.sort((a, b) => a - b);
  return {
    calls: samples.length,
    errors,
    ...(firstError ? { first_error: firstError.slice(0, 200) } : {}),
    calls_per_s: Math.round(samples.length / seconds),
    p50_ms: percentile(samples, 50),
    p99_ms: percentile(samples, 99),
  };
}

function ok(env: { ok: boolean; error?: { message: string } }) {
  if (!env.ok) throw new Error(env.error?.message ?? 'not ok');
}

async function main() {
  const scratch = await scratchDatabase({ prefix: 'bp_bench_prov' });
  const { db, url } = scratch;
  const server = await startServer({ DATABASE_URL: url, BULLPEN_JOBS: 'off' });
  const bare = new pg.Pool({ connectionString: url, max: 40 });
  const settle = () => bare.query('vacuum (analyze) runs, activity, tasks');
  emit({ bench: 'env', postgres: (await bare.query('show server_version')).rows[0].server_version, node: process.version, cores: (await import('node:os')).cpus().length, seconds_per_run: SECONDS });

  try {
    // ---------------------------------------------------------------- run_heartbeat
    const hb = await seed(db, 'hb', AGENTS, true);
    for (const a of hb.agents) ok(await execute({ db, claims: a.claims }, 'run_heartbeat', {}));
    const beat = (k: number) => ({ head_sha: (k % 4096).toString(16).padStart(7, '0'), branch: 'main', dirty: k % 2 === 0, counts: { step: k },
      usage: { model: 'm', tokens_in: 1000 * k, tokens_out: 100 * k, cost_usd: k / 1000 } });
    await settle();
    emit({ bench: 'run_heartbeat', mode: 'executor', concurrency: AGENTS,
      ...(await drive(AGENTS, async (i, k) => ok(await execute({ db, claims: hb.agents[i].claims }, 'run_heartbeat', beat(k))))) });
    await settle();
    emit({ bench: 'run_heartbeat', mode: 'http', concurrency: AGENTS,
      ...(await drive(AGENTS, async (i, k) => ok(await mcpCall(server.url, hb.agents[i].key, 'run_heartbeat', beat(k))))) });
    await settle();
    emit({ bench: 'run_heartbeat', mode: 'sql', concurrency: AGENTS,
      ...(await drive(AGENTS, async (i, k) => {
        await bare.query(`update runs set head_sha = $3, last_heartbeat_at = now(), last_active_at = now() where tenant_id = $1 and run_key = $2`,
          [hb.tenantId, hb.agents[i].claims.run_id, beat(k).head_sha]);
      })) });

    // ---------------------------------------------------------------- activity_log
    const al = await seed(db, 'al', AGENTS, true);
    await settle();
    emit({ bench: 'activity_log', mode: 'executor', concurrency: AGENTS,
      ...(await drive(AGENTS, async (i, k) => ok(await execute({ db, claims: al.agents[i].claims }, 'activity_log', { verb: 'bench.step', summary: `step ${k}`, metadata: { k } })))) });
    await settle();
    emit({ bench: 'activity_log', mode: 'http', concurrency: AGENTS,
      ...(await drive(AGENTS, async (i, k) => ok(await mcpCall(server.url, al.agents[i].key, 'activity_log', { verb: 'bench.http', summary: `step ${k}`, metadata: { k } })))) });
    await settle();
    // the same milestone retried: every call after the first finds its row by the content hash
    emit({ bench: 'activity_log', mode: 'executor_dedup', concurrency: AGENTS,
      ...(await drive(AGENTS, async (i) => ok(await execute({ db, claims: al.agents[i].claims }, 'activity_log', { verb: 'bench.retry', summary: 'the same milestone' })))) });
    await settle();
    emit({ bench: 'activity_log', mode: 'sql', concurrency: AGENTS,
      ...(await drive(AGENTS, async (i, k) => {
        await bare.query(`insert into activity (tenant_id, actor_id, verb, object_type, summary, metadata) values ($1, $2, 'bench.sql', 'actor', $3, $4)`,
          [al.tenantId, al.agents[i].id, `step ${k}`, JSON.stringify({ k })]);
      })) });

    // ---------------------------------------------------------------- the reaper
    const tenants = 10;
    const perTenant = Math.ceil(SILENT_RUNS / tenants);
    let leases = 0;
    const t0 = performance.now();
    for (let t = 0; t < tenants; t++) {
      const ws = await seed(db, `reap${t}`, 20, false);
      const [project] = (await bare.query(`insert into projects (tenant_id, key, title, task_seq) values ($1, 'RP', 'Reap', $2) returning id`, [ws.tenantId, perTenant])).rows;
      const actors = ws.agents.map((a) => a.id);
      // silent runs, then as many live ones; a fifth of the silent runs hold a lease
      await bare.query(
        `insert into runs (tenant_id, run_key, actor_id, last_active_at, started_at)
         select $1, 'silent-' || g, ($2::uuid[])[1 + g % 20], now() - interval '2 hours', now() - interval '3 hours' from generate_series(1, $3) g`,
        [ws.tenantId, actors, perTenant],
      );
      await bare.query(
        `insert into runs (tenant_id, run_key, actor_id) select $1, 'live-' || g, ($2::uuid[])[1 + g % 20] from generate_series(1, $3) g`,
        [ws.tenantId, actors, perTenant],
      );
      const held = Math.floor(perTenant / 5);
      await bare.query(
        `insert into tasks (tenant_id, project_id, seq, title, status, assignee_actor_id, lease_actor_id, lease_expires_at, lease_run_key)
         select $1, $2, g, 'held ' || g, 'in_progress', ($3::uuid[])[1 + (g * 5) % 20], ($3::uuid[])[1 + (g * 5) % 20], now() + interval '1 hour', 'silent-' || (g * 5)
           from generate_series(1, $4) g`,
        [ws.tenantId, project.id, actors, held],
      );
      leases += held;
    }
    emit({ bench: 'reaper_seed', silent_runs: tenants * perTenant, live_runs: tenants * perTenant, leases, seed_ms: Math.round(performance.now() - t0) });
    await settle();
    const s0 = performance.now();
    const sweep = await reapRuns(db, { afterSeconds: 1800 });
    const sweepMs = performance.now() - s0;
    const idle0 = performance.now();
    const idle = await reapRuns(db, { afterSeconds: 1800 });
    const idleMs = performance.now() - idle0;
    const left = (await bare.query(`select count(*)::int as n from tasks where status = 'in_progress' and lease_run_key like 'silent-%'`)).rows[0].n;
    const logged = (await bare.query(`select count(*)::int as n from activity where verb in ('run.abandoned', 'task.released')`)).rows[0].n;
    emit({ bench: 'reaper_sweep', ...sweep, sweep_ms: Math.round(sweepMs), runs_per_s: Math.round(sweep.abandoned / (sweepMs / 1000)), leases_left: left, activity_rows: logged });
    emit({ bench: 'reaper_idle_sweep', running_runs: tenants * perTenant + AGENTS * 2, ...idle, sweep_ms: Math.round(idleMs * 100) / 100 });
  } finally {
    await server.stop();
    await bare.end();
    await scratch.close();
  }
}

runBench(main);
