/**
 * Claim-next throughput at 1, 8 and 32 concurrent agents, three ways, in one run on one Postgres:
 *   sql      — a bare FOR UPDATE SKIP LOCKED claim statement (the ceiling)
 *   executor — execute(ctx, 'task_claim') in-process (validation, claims, RPC, envelope)
 *   http     — MCP tools/call over HTTP against `bullpen start` (the product path)
 * then the cost HTTP adds to one call: the same task_claim, one client, calls one after another,
 * through the executor in this process and over HTTP (p50 of each and their difference, alternating
 * the two so drift on a shared machine lands on both), and p50/p99 latency of whoami, task_claim
 * and task_query over HTTP at 16 concurrent clients. Prints JSON lines.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { execute } from '../lib/core/execute';
import type { Claims, Db } from '../lib/db/types';
import { ensureActor, ensureWorkspace, mintKey } from '../lib/server/workspace';
import { readdirSync, readFileSync } from 'node:fs';
import { emit, mcpCall, percentile, runBench, scratchDatabase } from './lib';
import { spawnServer } from '../scripts/server-process.mjs';

/** CPU time (user + system, ms) a process has used, from its own accounting in /proc. */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the line, in clock ticks (100 per second on Linux)
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** CPU time of every process under a Postgres postmaster (its backends and workers), in ms. */
function postgresCpuMs(postmaster: number): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      // ppid is field 4 of the line
      if (Number(fields[1]) === postmaster) total += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      // a process that ended between the listing and the read
    }
  }
  return total;
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
// BENCH_RATE_LIMITS=off skips the check entirely, to measure what it costs
const UNLIMITED = process.env.BENCH_RATE_LIMITS === 'off'
  ? { BULLPEN_RATE_KEY_PER_SECOND: '0', BULLPEN_RATE_WORKSPACE_PER_SECOND: '0' }
  : { BULLPEN_RATE_KEY_PER_SECOND: '1000000', BULLPEN_RATE_WORKSPACE_PER_SECOND: '1000000' };
const LEVELS = (process.env.BENCH_LEVELS ?? '1,8,32').split(',').map(Number);
const MODES = new Set((process.env.BENCH_MODES ?? 'sql,executor,http,overhead,latency').split(','));
// serial calls per path in the overhead phase
const OVERHEAD_CALLS = Number(process.env.BENCH_OVERHEAD_CALLS ?? 1500);

type Agent = { claims: Claims; key: string; id: string };

async function seedWorkspace(db: Db, name: string, tasks: number, agents: number, withKeys: boolean) {
  const ws = await ensureWorkspace(db, `${name}-${randomBytes(3).toString('hex')}`);
  const owner = await ensureActor(db, ws.id, { kind: 'human', external_ref: 'human:bench', display_name: 'Bench owner', is_owner: true });
  const [project] = await db.query<{ id: string }>(
    `insert into projects (tenant_id, key, title, owner_actor_id, task_seq) values ($1, 'BENCH', 'Bench', $2, $3) returning id`,
    [ws.id, owner.id, tasks],
  );
  await db.query(
    `insert into tasks (tenant_id, project_id, seq, title, priority, created_by_actor_id, labels)
     select $1, $2, g, 'bench task ' || g, g % 5, $3, array['bench'] from generate_series(1, $4) g`,
    [ws.id, project.id, owner.id, tasks],
  );
  await db.query('analyze tasks');
  const list: Agent[] = [];
  for (let i = 0; i < agents; i++) {
    const a = await ensureActor(db, ws.id, { kind: 'agent', external_ref: `agent:bench-${i}`, display_name: `bench-${i}` });
    const key = withKeys ? (await mintKey(db, ws.id, a.id)).api_key : '';
    list.push({ id: a.id, key, claims: { sub: a.id, role: 'authenticated', tenant_id: ws.id, actor_id: a.id, run_id: `bench-${i}` } });
  }
  return { tenantId: ws.id, projectId: project.id, agents: list };
}

/**
 * Each phase leaves thousands of updated rows behind; vacuum them before the next phase starts, so
 * autovacuum catching up does not land on (and get charged to) whichever phase runs next.
 */
let settle: () => Promise<void> = async () => {};
/** The bench database's postmaster, when it runs on this machine (its processes' CPU is read from /proc). */
let postmasterPid: number | null = null;

/** Runs `work` in `n` loops for SECONDS (or until a loop reports the pool empty); counts successes. */
async function drive(n: number, work: (i: number) => Promise<'ok' | 'empty'>) {
  await settle();
  const pg0 = postmasterPid ? postgresCpuMs(postmasterPid) : 0;
  let count = 0;
  let firstError: string | undefined;
  let errors = 0;
  const deadline = Date.now() + SECONDS * 1000;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      while (Date.now() < deadline) {
        try {
          if ((await work(i)) === 'empty') return;
          count++;
        } catch (err) {
          errors++;
          firstError ??= String((err as Error)?.message ?? err).slice(0, 300);
        }
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  // Postgres's own CPU over the phase (all its processes: other phases are idle then)
  const pgMs = postmasterPid ? postgresCpuMs(postmasterPid) - pg0 : null;
  return {
    claims: count,
    errors,
    seconds: Math.round(seconds * 1000) / 1000,
    claims_per_s: Math.round(count / seconds),
    ...(firstError ? { first_error: firstError } : {}),
    ...(pgMs === null ? {} : { postgres_cpu_ms_per_claim: count ? Math.round((pgMs / count) * 1000) / 1000 : null, postgres_cores: Math.round((pgMs / 1000 / seconds) * 100) / 100 }),
  };
}

async function main() {
  // the same pool size the server uses, so executor and HTTP numbers compare like for like
  const scratch = await scratchDatabase({ prefix: 'bp_bench' });
  const { db, url } = scratch;
  // buckets too large to empty: every call still pays for its rate-limit check, none is refused
  // (bench/fairness.ts measures the limits themselves)
  // the server only for the modes that call it (BENCH_MODES=executor,sql runs without a build)
  const needServer = ['http', 'overhead', 'latency'].some((m) => MODES.has(m));
  const server = needServer
    ? await spawnServer({ label: 'bench', env: { DATABASE_URL: url.toString(), ...UNLIMITED } })
    : (null as unknown as Awaited<ReturnType<typeof spawnServer>>);
  const bare = new pg.Pool({ connectionString: url.toString(), max: 40 });
  settle = async () => {
    await bare.query('vacuum (analyze) tasks, activity');
  };
  const [{ server_version }] = (await bare.query('show server_version')).rows;
  try {
    const [{ pid }] = (await bare.query('select pg_backend_pid() as pid')).rows;
    postmasterPid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
  } catch {
    postmasterPid = null; // a Postgres on another machine
  }
  emit({
    bench: 'env',
    postgres: server_version,
    node: process.version,
    cores: (await import('node:os')).cpus().length,
    seconds_per_run: SECONDS,
    // the server's per-workspace cap (one workspace runs at a time here, so the "alone" cap applies)
    // and its pool: HTTP claim-next at 32 agents runs at most that many database calls at once
    pg_pool_max: Number(process.env.BULLPEN_PG_POOL_MAX ?? 20),
    workspace_concurrency_alone: process.env.BULLPEN_WORKSPACE_CONCURRENCY_ALONE ? Number(process.env.BULLPEN_WORKSPACE_CONCURRENCY_ALONE) : 'half the pool',
  });

  const ceiling: Record<number, number> = {};
  try {
    for (const n of LEVELS) {
      const pool = Math.max(2000, n * 1500);
      // the ceiling runs last at each level: its churn (vacuum debt on the shared table) must not
      // be charged to the product paths measured after it
      const rates: { executor?: number; http?: number } = {};
      // executor
      if (MODES.has('executor')) {
        const ws = await seedWorkspace(db, 'bench-exec', pool, n, false);
        const r = await drive(n, async (i) => {
          const env = await execute({ db, claims: ws.agents[i].claims }, 'task_claim', {});
          if (!env.ok) throw new Error(env.error.message);
          return env.claimed ? 'ok' : 'empty';
        });
        rates.executor = r.claims_per_s;
        emit({ bench: 'claim_next', mode: 'executor', concurrency: n, ...r });
      }
      // http
      if (MODES.has('http')) {
        const ws = await seedWorkspace(db, 'bench-http', pool, n, true);
        // where the CPU goes under load: the server process and this one (the agents' HTTP clients),
        // from their own accounting, per claim and as a share of one core
        const server0 = processCpuMs(server.pid!);
        const client0 = process.cpuUsage();
        const r = await drive(n, async (i) => {
          const env = await mcpCall(server.url, ws.agents[i].key, 'task_claim', {});
          if (!env.ok) throw new Error(JSON.stringify(env));
          return env.claimed ? 'ok' : 'empty';
        });
        const serverMs = processCpuMs(server.pid!) - server0;
        const clientUsed = process.cpuUsage(client0);
        const clientMs = (clientUsed.user + clientUsed.system) / 1000;
        rates.http = r.claims_per_s;
        emit({
          bench: 'claim_next',
          mode: 'http',
          concurrency: n,
          ...r,
          server_cpu_ms_per_claim: r.claims ? Math.round((serverMs / r.claims) * 1000) / 1000 : null,
          server_cores: Math.round((serverMs / 1000 / r.seconds) * 100) / 100,
          client_cpu_ms_per_claim: r.claims ? Math.round((clientMs / r.claims) * 1000) / 1000 : null,
          client_cores: Math.round((clientMs / 1000 / r.seconds) * 100) / 100,
        });
      }
      // sql: the ceiling
      if (MODES.has('sql')) {
        const ws = await seedWorkspace(db, 'bench-sql', pool, n, false);
        const r = await drive(n, async (i) => {
          const res = await bare.query(
            `with c as (
               select id from tasks
                where tenant_id = $1 and status = 'todo'
                  and (assignee_actor_id is null or assignee_actor_id = $2)
                order by priority, created_at, id limit 1 for update skip locked)
             update tasks t set status = 'in_progress', assignee_actor_id = $2, lease_actor_id = $2,
                    lease_expires_at = now() + interval '1 hour'
               from c where t.tenant_id = $1 and t.id = c.id returning t.id`,
            [ws.tenantId, ws.agents[i].id],
          );
          return res.rowCount ? 'ok' : 'empty';
        });
        ceiling[n] = r.claims_per_s;
        emit({ bench: 'claim_next', mode: 'sql', concurrency: n, ...r });
        emit({
          bench: 'claim_next_vs_sql',
          concurrency: n,
          executor_pct: rates.executor ? Math.round((rates.executor / r.claims_per_s) * 100) : null,
          http_pct: rates.http ? Math.round((rates.http / r.claims_per_s) * 100) : null,
        });
      }
    }

    // what HTTP adds to one call at 1 client: the same tool, serially, alternating in blocks so a
    // load spike from another process lands on both paths
    if (MODES.has('overhead')) {
      await settle();
      const ws = await seedWorkspace(db, 'bench-over', OVERHEAD_CALLS * 2 + 200, 1, true);
      const agent = ws.agents[0];
      const claims = { ...agent.claims, run_id: `bench-over` };
      const exec = async () => {
        const env = await execute({ db, claims }, 'task_claim', {});
        if (!env.ok || !env.claimed) throw new Error(JSON.stringify(env).slice(0, 200));
      };
      const http = async () => {
        const env = await mcpCall(server.url, agent.key, 'task_claim', {});
        if (!env.ok || !env.claimed) throw new Error(JSON.stringify(env).slice(0, 200));
      };
      const samples: Record<'executor' | 'http', number[]> = { executor: [], http: [] };
      for (let i = 0; i < 50; i++) {
        await exec();
        await http();
      }
      for (let block = 0; block < OVERHEAD_CALLS / 50; block++) {
        for (const [mode, fn] of [['executor', exec], ['http', http]] as const) {
          for (let i = 0; i < 25; i++) {
            const t0 = performance.now();
            await fn();
            samples[mode].push(performance.now() - t0);
          }
        }
      }
      for (const s of Object.values(samples)) s.sort((a, b) => a - b);
      const p50 = (m: 'executor' | 'http') => percentile(samples[m], 50);
      // CPU per call from the processes' own accounting, which a loaded machine's run queue does not
      // inflate: this process for the executor, the server's /proc for HTTP, less what the server
      // burns idle over as long (its change-feed poller and job worker)
      const cpuCalls = Math.max(200, Math.floor(OVERHEAD_CALLS / 2));
      const before = process.cpuUsage();
      for (let i = 0; i < cpuCalls; i++) await exec();
      const used = process.cpuUsage(before);
      const executorCpu = (used.user + used.system) / 1000 / cpuCalls;
      let cpu0 = processCpuMs(server.pid!);
      let t0 = performance.now();
      for (let i = 0; i < cpuCalls; i++) await http();
      const httpMs = performance.now() - t0;
      const serverBusy = processCpuMs(server.pid!) - cpu0;
      cpu0 = processCpuMs(server.pid!);
      t0 = performance.now();
      await new Promise((r) => setTimeout(r, httpMs));
      const serverIdle = ((processCpuMs(server.pid!) - cpu0) * httpMs) / (performance.now() - t0);
      const serverCpu = (serverBusy - serverIdle) / cpuCalls;
      emit({
        bench: 'http_overhead',
        tool: 'task_claim',
        concurrency: 1,
        calls: samples.http.length,
        executor_p50_ms: p50('executor'),
        http_p50_ms: p50('http'),
        http_added_p50_ms: Math.round((p50('http') - p50('executor')) * 100) / 100,
        http_over_executor: Math.round((p50('http') / p50('executor')) * 100) / 100,
        executor_p99_ms: percentile(samples.executor, 99),
        http_p99_ms: percentile(samples.http, 99),
        cpu_calls: cpuCalls,
        executor_cpu_ms_per_call: Math.round(executorCpu * 1000) / 1000,
        server_cpu_ms_per_http_call: Math.round(serverCpu * 1000) / 1000,
        http_added_cpu_ms_per_call: Math.round((serverCpu - executorCpu) * 1000) / 1000,
      });
    }

    if (!MODES.has('latency')) return;
    // latency over HTTP at 16 concurrent clients
    const clients = 16;
    const ws = await seedWorkspace(db, 'bench-lat', 20_000, clients, true);
    const calls: [string, Record<string, unknown>][] = [
      ['whoami', {}],
      ['task_claim', {}],
      ['task_query', { project_id: 'BENCH', state: 'ready', limit: 20 }],
    ];
    for (const [tool, args] of calls) {
      const samples: number[] = [];
      let errors = 0;
      const deadline = Date.now() + SECONDS * 1000;
      await Promise.all(
        Array.from({ length: clients }, async (_, i) => {
          while (Date.now() < deadline) {
            const t0 = performance.now();
            try {
              const env = await mcpCall(server.url, ws.agents[i].key, tool, args);
              if (!env.ok) throw new Error('not ok');
              samples.push(performance.now() - t0);
            } catch {
              errors++;
            }
          }
        }),
      );
      samples.sort((a, b) => a - b);
      emit({
        bench: 'latency_http',
        tool,
        concurrency: clients,
        calls: samples.length,
        errors,
        calls_per_s: Math.round(samples.length / SECONDS),
        p50_ms: percentile(samples, 50),
        p99_ms: percentile(samples, 99),
      });
    }
  } finally {
    if (needServer) await server.stop();
    await bare.end();
    await scratch.close();
  }
}

runBench(main);
