/**
 * Where one call's time goes, per hot tool, serially at 1 client on Postgres with a workspace of
 * 5,000 tasks and 50 agents:
 *
 *   planning       Postgres planning per call: every statement of the call, top level and nested
 *                  (inside the RPC and its triggers), from pg_stat_statements (track = all,
 *                  track_planning = on)
 *   execution      Postgres execution per call: the top-level statements' execution time, less the
 *                  nested statements' planning that happens inside it
 *   Node executor  the in-process execute() time less the two above: validation, the claims, the
 *                  pg driver and the round trip (and what Postgres does outside planning and
 *                  execution: parsing, commit)
 *   MCP/HTTP       an MCP tools/call over HTTP against `bullpen start`, less the in-process call
 *                  made just before it: the median of those differences
 *
 * The first three are means over the same calls (pg_stat_statements gives no percentiles), so
 * they add up to the executor's mean; each tool's p50 is printed as a ratio to
 * the bare FOR UPDATE SKIP LOCKED claim statement measured in the same run. Without
 * pg_stat_statements (a DATABASE_URL whose server does not preload it) the planning and execution
 * columns are null and the output says why. Env: BENCH_BREAKDOWN_CALLS (per tool, default 200).
 * Prints JSON lines.
 */
import pg from 'pg';
import { execute } from '../lib/core/execute';
import { BARE_CLAIM_SQL, clockTicks, emit, postmasterPid, processTree, ticksOf, treeTicks, mcpCall, percentile, scratchDatabase, seedWorkspace, startServer, unlimitedRates, type BenchAgent, envFields, runBench } from './lib';

const N = Number(process.env.BENCH_BREAKDOWN_CALLS ?? 200);
// a slow tool (project_brief takes ~150 ms today) gets fewer calls, so the run stays short
const BUDGET_MS = Number(process.env.BENCH_BREAKDOWN_SECONDS ?? 3) * 1000;
const WARM = 20;
const TASKS = 5000;
const ACTORS = 50;
const TOOLS = ['whoami', 'task_claim', 'task_query', 'task_update', 'task_get', 'project_brief', 'inbox', 'handoff_claim'];

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const r3 = (x: number | null) => (x === null || !Number.isFinite(x) ? null : Math.round(x * 1000) / 1000);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

async function main() {
  const scratch = await scratchDatabase({
    prefix: 'bp_breakdown',
    // a cluster of our own (no DATABASE_URL) loads the module; on any cluster that preloads it,
    // the scratch database turns full tracking on for its own sessions only
    pgSettings: { shared_preload_libraries: 'pg_stat_statements' },
    databaseSettings: { 'pg_stat_statements.track': 'all', 'pg_stat_statements.track_planning': 'on' },
  });
  const { db } = scratch;
  const stats = new pg.Client({ connectionString: scratch.url });
  await stats.connect();
  let pgss: string | null = null; // null: available; else why not
  try {
    const [{ setting }] = (await stats.query(`select setting from pg_settings where name = 'shared_preload_libraries'`)).rows;
    if (!/pg_stat_statements/.test(setting)) throw new Error(`the server does not preload pg_stat_statements (shared_preload_libraries = '${setting}')`);
    await stats.query('create schema if not exists bench_stats');
    await stats.query('create extension if not exists pg_stat_statements with schema bench_stats');
    const [{ track, planning }] = (
      await stats.query(`select current_setting('pg_stat_statements.track', true) as track, current_setting('pg_stat_statements.track_planning', true) as planning`)
    ).rows;
    if (track !== 'all' || planning !== 'on') throw new Error(`pg_stat_statements.track = ${track}, track_planning = ${planning} (need all / on)`);
  } catch (err) {
    pgss = (err as Error).message;
  }
  // CPU per call from the processes' own accounting: less at the mercy of other work on the
  // machine than wall time, which waits for the cores whenever they are busy elsewhere
  const pgPid = await postmasterPid(stats);
  const tickMs = 1000 / clockTicks();
  const ownCpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const pgCpuMs = () => (pgPid ? treeTicks(pgPid) * tickMs : NaN);
  emit({
    ...(await envFields('breakdown', stats)),
    calls_per_tool: N,
    seconds_per_series: BUDGET_MS / 1000,
    workspace_tasks: TASKS,
    actors: ACTORS,
    pg_stat_statements: pgss ? `unavailable: ${pgss}; planning and execution are not split out` : 'track = all, track_planning = on',
  });

  // ------------------------------------------------------------------ the workspace
  const ws = await seedWorkspace(db, { name: 'breakdown', tasks: TASKS, project: 'COST', agents: ACTORS, keys: true });
  const [me, claimer, recipient, sender] = ws.agents;
  const run = async (a: BenchAgent, tool: string, args: Record<string, unknown>) => {
    const env = await execute({ db, claims: a.claims }, tool, args);
    if (!env.ok) throw new Error(`${tool}: ${JSON.stringify(env.error)}`);
    return env as Record<string, any>;
  };
  // some history, as a live workspace has: twenty agents hold three tasks each (`me` among them)
  for (const a of ws.agents.slice(0, 20)) if (a !== claimer) for (let k = 0; k < 3; k++) await run(a, 'task_claim', {});
  // five handoffs waiting in my inbox; a pool of handoffs for the recipient to claim one by one
  for (let i = 0; i < 5; i++) await run(sender, 'handoff_create', { to_actor_ids: [me.id], title: `waiting ${i}` });
  const handoffPool: string[] = [];
  for (let i = 0; i < 3 * (N + WARM); i++) {
    handoffPool.push((await run(sender, 'handoff_create', { to_actor_ids: [recipient.id], title: `claim me ${i}` })).handoff_id);
  }
  await db.query('vacuum analyze');
  const [{ id: someTask }] = await db.query<{ id: string }>(
    `select id from public.tasks where tenant_id = $1 and status = 'todo' order by seq desc limit 1`,
    [ws.tenantId],
  );

  /** Who calls each tool, with what: a dedicated actor for the ones that use something up. */
  const plan: Record<string, { who: BenchAgent; args: (i: number) => Record<string, unknown> }> = {
    whoami: { who: me, args: () => ({}) },
    task_claim: { who: claimer, args: () => ({}) },
    task_query: { who: me, args: () => ({ project_id: 'COST', state: 'ready', limit: 20 }) },
    task_update: { who: me, args: (i) => ({ task_id: someTask, patch: { priority: i % 5 } }) },
    task_get: { who: me, args: () => ({ task_id: someTask }) },
    project_brief: { who: me, args: () => ({ project: 'COST' }) },
    inbox: { who: me, args: () => ({}) },
    handoff_claim: { who: recipient, args: () => ({ handoff_id: handoffPool.shift()! }) },
  };

  const nonStats = `query not ilike '%pg_stat_statements%'`;
  const resetStats = async () => {
    if (!pgss) await stats.query('select bench_stats.pg_stat_statements_reset()');
  };
  /** Planning and execution per call since the last reset, and how many statements a call ran. */
  const readStats = async (calls: number) => {
    if (pgss) return { planning_ms: null, execution_ms: null, statements_per_call: null };
    const [row] = (
      await stats.query(
        `select coalesce(sum(total_plan_time), 0)::float8 as plan,
                coalesce(sum(total_plan_time) filter (where not toplevel), 0)::float8 as nested_plan,
                coalesce(sum(total_exec_time) filter (where toplevel), 0)::float8 as top_exec,
                coalesce(sum(calls), 0)::float8 as statements
           from bench_stats.pg_stat_statements
          where dbid = (select oid from pg_database where datname = current_database()) and ${nonStats}`,
      )
    ).rows;
    return {
      planning_ms: row.plan / calls,
      execution_ms: (row.top_exec - row.nested_plan) / calls,
      statements_per_call: Math.round((row.statements / calls) * 10) / 10,
    };
  };

  // ------------------------------------------------------------------ the baseline: the bare claim
  const bareClient = new pg.Client({ connectionString: scratch.url });
  await bareClient.connect();
  const bareWs = await seedWorkspace(db, { name: 'breakdown-bare', tasks: TASKS, agents: 1, keys: false });
  for (let i = 0; i < WARM; i++) await bareClient.query(BARE_CLAIM_SQL, [bareWs.tenantId, bareWs.agents[0].id]);
  await resetStats();
  const bareTimes: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const r = await bareClient.query(BARE_CLAIM_SQL, [bareWs.tenantId, bareWs.agents[0].id]);
    bareTimes.push(performance.now() - t0);
    if (r.rowCount !== 1) throw new Error('the bare claim found nothing to claim');
  }
  const bareStats = await readStats(N);
  const bareP50 = percentile(sorted(bareTimes), 50);
  emit({
    bench: 'breakdown',
    tool: 'bare_claim_sql',
    calls: N,
    planning_ms: r3(bareStats.planning_ms),
    execution_ms: r3(bareStats.execution_ms),
    statements_per_call: bareStats.statements_per_call,
    mean_ms: r3(mean(bareTimes)),
    p50_ms: bareP50,
  });
  // what one round trip through the product's pool costs, for reading the Node executor column
  const rtt: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await db.query('select 1');
    rtt.push(performance.now() - t0);
  }
  emit({ bench: 'breakdown', tool: 'round_trip_select_1', calls: N, mean_ms: r3(mean(rtt)), p50_ms: percentile(sorted(rtt), 50) });

  // ------------------------------------------------------------------ in-process, with pg_stat_statements
  // nothing else runs on the database meanwhile (no server yet), so every statement it sees is the tool's
  const inProcess: Record<string, { times: number[]; stats: Awaited<ReturnType<typeof readStats>>; cpuPg: number; cpuNode: number }> = {};
  /** How many calls fit the budget, from the warm-up's pace: at least 50, at most N. */
  const callsFor = (warmMs: number) => Math.min(N, Math.max(50, Math.floor(BUDGET_MS / Math.max(0.01, warmMs / WARM))));
  for (const tool of TOOLS) {
    const { who, args } = plan[tool];
    const w0 = performance.now();
    for (let i = 0; i < WARM; i++) await run(who, tool, args(i));
    const n = callsFor(performance.now() - w0);
    await resetStats();
    const times: number[] = [];
    const pg0 = pgCpuMs();
    const node0 = ownCpuMs();
    for (let i = 0; i < n; i++) {
      const a = args(WARM + i);
      const t0 = performance.now();
      await run(who, tool, a);
      times.push(performance.now() - t0);
    }
    const cpuNode = (ownCpuMs() - node0) / n;
    const cpuPg = (pgCpuMs() - pg0) / n;
    inProcess[tool] = { times, stats: await readStats(n), cpuPg, cpuNode };
  }

  // ------------------------------------------------------------------ over HTTP, alternating with in-process
  const server = await startServer({ DATABASE_URL: scratch.url, ...unlimitedRates() });
  const serverPids = processTree(server.pid);
  try {
    for (const tool of TOOLS) {
      const { who, args } = plan[tool];
      const w0 = performance.now();
      for (let i = 0; i < WARM; i++) {
        await run(who, tool, args(i));
        const env = await mcpCall(server.url, who.key, tool, args(i));
        if (!env.ok) throw new Error(`${tool} over HTTP: ${JSON.stringify(env)}`);
      }
      const n = callsFor(performance.now() - w0);
      const exec: number[] = [];
      const viaHttp: number[] = [];
      let serverCpuMs = 0;
      for (let i = 0; i < n; i++) {
        const a = args(2 * i);
        let t0 = performance.now();
        await run(who, tool, a);
        exec.push(performance.now() - t0);
        const b = args(2 * i + 1);
        const s0 = ticksOf(serverPids);
        t0 = performance.now();
        const env = await mcpCall(server.url, who.key, tool, b);
        viaHttp.push(performance.now() - t0);
        serverCpuMs += (ticksOf(serverPids) - s0) * tickMs;
        if (!env.ok) throw new Error(`${tool} over HTTP: ${JSON.stringify(env)}`);
      }
      // each HTTP call less the in-process call just before it: neighbours share the machine's
      // load, and the median of the differences ignores the calls another process's burst delayed
      const added = sorted(viaHttp.map((h, i) => h - exec[i]));
      const ip = inProcess[tool];
      const db = ip.stats.planning_ms === null ? null : ip.stats.planning_ms + (ip.stats.execution_ms ?? 0);
      const execP50 = percentile(sorted(ip.times), 50);
      const httpP50 = percentile(sorted(viaHttp), 50);
      emit({
        bench: 'breakdown',
        tool,
        calls: ip.times.length,
        http_calls: viaHttp.length,
        planning_ms: r3(ip.stats.planning_ms),
        execution_ms: r3(ip.stats.execution_ms),
        node_executor_ms: db === null ? null : r3(mean(ip.times) - db),
        mcp_http_ms: percentile(added, 50),
        statements_per_call: ip.stats.statements_per_call,
        cpu_ms_per_call_postgres: r3(ip.cpuPg),
        cpu_ms_per_call_node_in_process: r3(ip.cpuNode),
        cpu_ms_per_call_server_http: r3(serverCpuMs / n),
        executor_mean_ms: r3(mean(ip.times)),
        executor_p50_ms: execP50,
        executor_alongside_http_mean_ms: r3(mean(exec)),
        http_mean_ms: r3(mean(viaHttp)),
        http_p50_ms: httpP50,
        http_mean_adds_ms: r3(mean(viaHttp) - mean(exec)),
        bare_claim_p50_ms: bareP50,
        executor_ratio_to_bare: r3(execP50 / bareP50),
        http_ratio_to_bare: r3(httpP50 / bareP50),
      });
    }
  } finally {
    await server.stop();
    await bareClient.end();
    await stats.end();
    await scratch.close();
  }
}

runBench(main);
