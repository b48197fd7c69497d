/**
 * What one call costs, serially, on a real Postgres with a workspace of 5,000 tasks and 50 actors:
 * the bare FOR UPDATE SKIP LOCKED claim statement (the baseline), each hot tool's RPC alone (one
 * round trip under the caller's claims), the same tool through the in-process executor, and over
 * HTTP (MCP tools/call against `bullpen start`). Every figure is reported as a ratio to the baseline
 * measured in the same run, interleaved with the tool's own calls. Prints JSON lines: `tool_cost`
 * rows (RPC and executor per tool) and `http_overhead` rows (per hot tool: executor and HTTP
 * alternated call by call, http_adds_ms = HTTP p50 − executor p50, and the CPU each path spent).
 * BENCH_TOOLS=a,b limits the tools; BENCH_MODES=rpc,executor skips HTTP; BENCH_HISTORY=N (below).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { execute } from '../lib/core/execute';
import { callSql, type Claims } from '../lib/db/types';
import { ensureActor, ensureWorkspace, mintKey } from '../lib/server/workspace';
import { emit, mcpCall, percentile, runBench, scratchDatabase, startServer } from './lib';

const N = Number(process.env.BENCH_CALLS ?? 300);
const TASKS = Number(process.env.BENCH_TASKS ?? 5000);
const ACTORS = 50;
/** BENCH_PROJECTS=N: N−1 more projects, each with newer activity than the measured one (default 1). */
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 1);
/**
 * BENCH_HISTORY=N: the measured agent has already handled N handoffs (claimed, answered, its answer
 * acknowledged) and sent N that were answered and acknowledged (default 0). Nothing of it waits, so
 * whoami and inbox answer the same; what they cost should not grow with it.
 */
const HISTORY = Number(process.env.BENCH_HISTORY ?? 0);
const MODES = new Set((process.env.BENCH_MODES ?? 'rpc,executor,http').split(','));
/** The hot tools whose HTTP cost is measured against the executor's (issue 19: each adds ≤ 1 ms). */
const HTTP_TOOLS = ['task_claim', 'task_get', 'task_query', 'task_update', 'whoami', 'whoami_typical', 'inbox', 'project_brief'];
const TOOLS = process.env.BENCH_TOOLS ? new Set(process.env.BENCH_TOOLS.split(',')) : null;
/**
 * BENCH_PROFILE=DIR: the bench starts its own cluster with pg_stat_statements, auto_explain and
 * track_functions loaded, and writes per tool (RPC mode) the statements and functions that took the
 * time, plus one auto_explain'd call with nested statements, into DIR. Slower; not for the figures.
 */
const PROFILE = process.env.BENCH_PROFILE || '';

/** CPU time (user + system, ms) a process has used, from its own accounting in /proc (10 ms ticks: read over a loop). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function main() {
  const scratch = await scratchDatabase({
    prefix: 'bp_cost',
    ownCluster: !!PROFILE,
    pgSettings: PROFILE
      ? {
          shared_preload_libraries: 'pg_stat_statements,auto_explain',
          'pg_stat_statements.track': 'all',
          'pg_stat_statements.track_planning': 'on',
          track_functions: 'all',
          'auto_explain.log_min_duration': '-1',
          'auto_explain.log_nested_statements': 'on',
          'auto_explain.log_analyze': 'on',
          'auto_explain.log_buffers': 'off',
          'auto_explain.log_format': 'text',
        }
      : undefined,
  });
  if (PROFILE) mkdirSync(PROFILE, { recursive: true });
  const { db, url } = scratch;
  const ws = await ensureWorkspace(db, `cost-${randomBytes(3).toString('hex')}`);
  const owner = await ensureActor(db, ws.id, { kind: 'human', external_ref: 'human:cost', display_name: 'Owner', is_owner: true });
  const [project] = await db.query<{ id: string }>(
    `insert into public.projects (tenant_id, key, title, owner_actor_id, task_seq) values ($1, 'COST', 'Cost', $2, $3) returning id`,
    [ws.id, owner.id, TASKS],
  );
  await db.query(
    `insert into public.tasks (tenant_id, project_id, seq, title, priority, created_by_actor_id, labels)
     select $1, $2, g, 'cost task ' || g, g % 5, $3, array['cost'] from generate_series(1, $4) g`,
    [ws.id, project.id, owner.id, TASKS],
  );
  const agents: { id: string; claims: Claims; key: string }[] = [];
  for (let i = 0; i < ACTORS; i++) {
    const a = await ensureActor(db, ws.id, { kind: 'agent', external_ref: `agent:cost-${i}`, display_name: `cost-${i}` });
    agents.push({ id: a.id, key: (await mintKey(db, ws.id, a.id)).api_key, claims: { sub: a.id, role: 'authenticated', tenant_id: ws.id, actor_id: a.id, run_id: `cost-${i}` } });
  }
  /** A setup call through the executor, as that agent; a refusal stops the bench. */
  const call = async (who: (typeof agents)[number], tool: string, input: Record<string, unknown>) => {
    const env = await execute({ db, claims: who.claims }, tool, input);
    if (!env.ok) throw new Error(`${tool}: ${env.error.message}`);
    return env as Record<string, unknown>;
  };
  // some history, as a live workspace has: each agent claims a few tasks
  for (const a of agents.slice(0, 20)) for (let k = 0; k < 3; k++) await call(a, 'task_claim', {});
  // a realistic inbox for the measured agent: three open handoffs waiting for it
  const me = agents[ACTORS - 1];
  const sender = agents[0];
  // whoami is measured twice: as `me`, which ends up holding every task the claim measurements and
  // the bare claims take (hundreds; whoami lists 25), and as `typical`, an agent holding the three
  // tasks it claimed above, with the same three handoffs waiting
  const typical = agents[5];
  for (let k = 0; k < 3; k++) {
    for (const to of [me, typical]) await call(sender, 'handoff_create', { to_actor_ids: [to.id], title: `cost question ${k}`, kind: 'question' });
  }
  for (let k = 0; k < HISTORY; k++) {
    const toMe = String((await call(sender, 'handoff_create', { to_actor_ids: [me.id], title: `past question ${k}`, kind: 'question' })).handoff_id);
    await call(me, 'handoff_claim', { handoff_id: toMe });
    await call(me, 'handoff_respond', { handoff_id: toMe, response: { text: 'answered' } });
    await call(sender, 'inbox', { ack: [toMe] });
    const fromMe = String((await call(me, 'handoff_create', { to_actor_ids: [sender.id], title: `past ask ${k}`, kind: 'question' })).handoff_id);
    await call(sender, 'handoff_claim', { handoff_id: fromMe });
    await call(sender, 'handoff_respond', { handoff_id: fromMe, response: { text: 'answered' } });
    await call(me, 'inbox', { ack: [fromMe] });
  }
  // handoff_claim needs a fresh open handoff per call: made for another agent, so whoami and inbox above are unchanged
  const claimer = agents[ACTORS - 2];
  const handoffs: string[] = [];
  if (!TOOLS || TOOLS.has('handoff_claim')) {
    const total = (N + 20) * (Number(MODES.has('rpc')) + Number(MODES.has('executor')) + Number(PROFILE ? 2 : 0));
    for (let k = 0; k < total; k++) {
      handoffs.push(String((await call(sender, 'handoff_create', { to_actor_ids: [claimer.id], title: `cost handoff ${k}`, kind: 'handoff' })).handoff_id));
    }
  }
  if (PROJECTS > 1) {
    // other projects' activity, newer than the measured project's: project_brief's recent activity
    // must not walk it to find its own
    await db.query(
      `insert into public.projects (tenant_id, key, title, owner_actor_id) select $1, 'OTHER' || g, 'Other ' || g, $2 from generate_series(2, $3) g`,
      [ws.id, owner.id, PROJECTS],
    );
    await db.query(
      `insert into public.activity (tenant_id, project_id, actor_id, verb, object_type, object_id, summary)
       select p.tenant_id, p.id, $2, 'project.updated', 'project', p.id, 'other work' from public.projects p, generate_series(1, 400)
        where p.tenant_id = $1 and p.key <> 'COST'`,
      [ws.id, owner.id],
    );
  }
  await db.query('vacuum analyze');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  if (PROFILE) await client.query('create extension if not exists pg_stat_statements');
  const [{ id: someTask }] = await db.query<{ id: string }>(`select id from public.tasks where tenant_id = $1 and status = 'todo' order by seq desc limit 1`, [ws.id]);

  async function timeIt(label: string, fn: (i: number) => Promise<unknown>): Promise<number> {
    for (let i = 0; i < 20; i++) await fn(i); // warm up
    const s: number[] = [];
    for (let i = 0; i < N; i++) {
      const t0 = performance.now();
      await fn(i);
      s.push(performance.now() - t0);
    }
    s.sort((a, b) => a - b);
    return percentile(s, 50);
  }

  // The bare statement runs as the claimer would (its claims set for the session): the tasks
  // triggers then see a self-claim, as they do for task_claim, and notify nobody.
  const bareClient = new pg.Client({ connectionString: url.toString() });
  await bareClient.connect();
  await bareClient.query(`select set_config('request.jwt.claims', $1, false)`, [JSON.stringify(me.claims)]);
  const bareClaim = () =>
    bareClient.query(
      `with c as (select id from public.tasks where tenant_id = $1 and status = 'todo'
                    and (assignee_actor_id is null or assignee_actor_id = $2)
                  order by priority, created_at, id limit 1 for update skip locked)
       update public.tasks t set status = 'in_progress', assignee_actor_id = $2, lease_actor_id = $2,
              lease_expires_at = now() + interval '1 hour' from c where t.tenant_id = $1 and t.id = c.id returning t.id`,
      [ws.id, me.id],
    );
  const bare = await timeIt('bare', bareClaim);
  emit({ bench: 'tool_cost', what: 'bare_claim_sql', p50_ms: bare, ratio: 1 });

  /**
   * A tool's p50 next to the bare claim's p50 measured interleaved with it (one bare claim after
   * every second call), so both see the same load on a shared machine; the ratio is theirs.
   */
  async function timePaired(fn: (i: number) => Promise<unknown>): Promise<{ p50: number; bare: number; ratio: number }> {
    for (let i = 0; i < 20; i++) await fn(i); // warm up
    const s: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < N; i++) {
      let t0 = performance.now();
      await fn(i + 20);
      s.push(performance.now() - t0);
      if (i % 2 === 0) {
        t0 = performance.now();
        await bareClaim();
        b.push(performance.now() - t0);
      }
    }
    s.sort((x, y) => x - y);
    b.sort((x, y) => x - y);
    const p50 = percentile(s, 50);
    const bareP50 = percentile(b, 50);
    return { p50, bare: bareP50, ratio: Math.round((p50 / bareP50) * 100) / 100 };
  }

  const argsFor: Record<string, (i: number) => Record<string, unknown>> = {
    task_claim: () => ({}),
    whoami: () => ({}),
    whoami_typical: () => ({}),
    task_query: () => ({ project_id: 'COST', state: 'ready', limit: 20 }),
    task_get: () => ({ task_id: someTask }),
    task_update: (i) => ({ task_id: someTask, patch: { priority: i % 5 } }),
    project_brief: () => ({ project: 'COST' }),
    inbox: () => ({}),
    handoff_claim: () => ({ handoff_id: handoffs.pop() }),
  };
  const callerOf = (what: string) => (what === 'handoff_claim' ? claimer : what === 'whoami_typical' ? typical : me);
  const toolOf = (what: string) => (what === 'whoami_typical' ? 'whoami' : what);
  const lit = (s: string) => client.escapeLiteral(s);
  // writes go through the RPC with a key, as the executor sends them
  const writes = new Set(['task_claim', 'task_update', 'inbox', 'handoff_claim']);
  const rpcArgs = (what: string, i: number) => ({ ...argsFor[what](i), ...(writes.has(what) ? { idempotency_key: `k-${what}-${i}-${Math.random()}` } : {}) });
  for (const [what, args] of Object.entries(argsFor)) {
    if (TOOLS && !TOOLS.has(what)) continue;
    const row: Record<string, unknown> = { bench: 'tool_cost', what, ...(HISTORY ? { history: HISTORY } : {}) };
    const caller = callerOf(what);
    const tool = toolOf(what);
    if (PROFILE) await profileTool(client, tool, caller.claims, () => rpcArgs(what, 0), scratch.log!, what);
    if (MODES.has('rpc')) {
      const m = await timePaired((i) => client.query(callSql(caller.claims, tool, rpcArgs(what, i), lit, true)));
      row.rpc_p50_ms = m.p50;
      row.rpc_bare_p50_ms = m.bare;
      row.rpc_ratio = m.ratio;
    }
    if (MODES.has('executor')) {
      const m = await timePaired(async (i) => {
        const env = await execute({ db, claims: caller.claims }, tool, args(i));
        if (!env.ok) throw new Error(`${tool}: ${env.error.message}`);
      });
      row.executor_p50_ms = m.p50;
      row.executor_bare_p50_ms = m.bare;
      row.executor_ratio = m.ratio;
    }
    emit(row);
  }
  if (MODES.has('http')) {
    // What HTTP adds, per hot tool: the same call through the in-process executor and over MCP
    // (tools/call against `bullpen start`), alternated call by call in the same run so both see the
    // same load, with a bare claim after every second pair. http_adds_ms is HTTP's p50 minus the
    // executor's (target ≤ 1 ms); http_ratio is HTTP's p50 over the bare claim's (whoami_typical ≤ 3×).
    // Buckets too large to empty: each call still pays for its rate-limit check, none is refused.
    // the phases above have claimed most of the pool: top it up, so the bare claim (and task_claim)
    // keep taking a task here and never measure an empty pool (titled apart, so task_get's related
    // reads do not find twice as many look-alikes as in the phases above)
    await db.query(
      `insert into public.tasks (tenant_id, project_id, seq, title, priority, created_by_actor_id, labels)
       select $1, $2, g, 'spare ' || g, g % 5, $3, array['spare'] from generate_series($4 + 1, $4 * 2) g`,
      [ws.id, project.id, owner.id, TASKS],
    );
    await db.query(`update public.projects set task_seq = $2 where id = $1`, [project.id, TASKS * 2]);
    await db.query('vacuum analyze public.tasks');
    const server = await startServer({ DATABASE_URL: url.toString(), BULLPEN_RATE_KEY_PER_SECOND: '1000000', BULLPEN_RATE_WORKSPACE_PER_SECOND: '1000000' });
    try {
      for (const what of HTTP_TOOLS) {
        if (TOOLS && !TOOLS.has(what)) continue;
        const caller = callerOf(what);
        const tool = toolOf(what);
        const viaExec = async (i: number) => {
          const env = await execute({ db, claims: caller.claims }, tool, argsFor[what](i));
          if (!env.ok) throw new Error(`${tool}: ${env.error.message}`);
        };
        const viaHttp = async (i: number) => {
          const env = await mcpCall(server.url, caller.key, tool, argsFor[what](i));
          if (!env.ok) throw new Error(`${tool}: ${JSON.stringify(env)}`);
        };
        for (let i = 0; i < 20; i++) {
          await viaExec(i);
          await viaHttp(i);
        }
        const e: number[] = [];
        const h: number[] = [];
        const b: number[] = [];
        // CPU as well as wall-clock: this process's CPU during each call (the executor's own work, or
        // the HTTP client's), and the server's over the whole loop (it is idle between HTTP calls)
        const cpu = { exec: 0, client: 0 };
        const server0 = processCpuMs(server.pid);
        for (let i = 0; i < N; i++) {
          // which goes first alternates too: neither always follows the other's wake-up
          const pair: [number[], (i: number) => Promise<void>][] = i % 2 ? [[h, viaHttp], [e, viaExec]] : [[e, viaExec], [h, viaHttp]];
          for (const [into, fn] of pair) {
            const c0 = process.cpuUsage();
            const t0 = performance.now();
            await fn(i + 20);
            into.push(performance.now() - t0);
            const c = process.cpuUsage(c0);
            cpu[into === e ? 'exec' : 'client'] += (c.user + c.system) / 1000;
          }
          if (i % 2 === 0) {
            const t0 = performance.now();
            await bareClaim();
            b.push(performance.now() - t0);
          }
        }
        const serverMs = (processCpuMs(server.pid) - server0) / N;
        for (const a of [e, h, b]) a.sort((x, y) => x - y);
        const [ep, hp, bp] = [percentile(e, 50), percentile(h, 50), percentile(b, 50)];
        const r2 = (x: number) => Math.round(x * 100) / 100;
        emit({
          bench: 'http_overhead',
          tool: what,
          executor_p50_ms: ep,
          http_p50_ms: hp,
          http_adds_ms: r2(hp - ep),
          bare_claim_p50_ms: bp,
          executor_ratio: r2(ep / bp),
          http_ratio: r2(hp / bp),
          // CPU per call: the executor in-process; over HTTP the client's plus the server's (which
          // runs the executor too); what HTTP adds in CPU, the part the run queue does not inflate
          executor_cpu_ms: r2(cpu.exec / N),
          http_client_cpu_ms: r2(cpu.client / N),
          http_server_cpu_ms: r2(serverMs),
          http_adds_cpu_ms: r2(cpu.client / N + serverMs - cpu.exec / N),
          load: loadavg()[0],
        });
      }
    } finally {
      await server.stop();
    }
  }
  await client.end();
  await bareClient.end();
  if (process.env.BENCH_KEEP) {
    await db.close();
    console.error(`kept ${url}`);
    return;
  }
  await scratch.close();
}

/**
 * One tool's profile, RPC mode: 50 calls under pg_stat_statements and track_functions (per-call
 * planning and execution time of every statement, nested ones included; self and total time of
 * every function), then one call under auto_explain with nested statements. Written to PROFILE.
 */
async function profileTool(client: pg.Client, tool: string, claims: Claims, args: () => Record<string, unknown>, log: string, name = tool) {
  const lit = (s: string) => client.escapeLiteral(s);
  for (let i = 0; i < 10; i++) await client.query(callSql(claims, tool, args(), lit, true));
  // this backend's pending counters (earlier calls) are flushed first, so the reset clears them too
  await client.query('select pg_stat_force_next_flush()');
  await client.query('select 1');
  await client.query('select pg_stat_statements_reset(), pg_stat_reset()');
  const calls = 50;
  for (let i = 0; i < calls; i++) await client.query(callSql(claims, tool, args(), lit, true));
  await client.query('select pg_stat_force_next_flush()');
  await client.query('select 1');
  const statements = (
    await client.query(
      `select round((total_plan_time / ${calls})::numeric, 3) as plan_ms_per_call, round((total_exec_time / ${calls})::numeric, 3) as exec_ms_per_call,
              round((calls::numeric / ${calls}), 2) as per_call, toplevel, left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 300) as query
         from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
        order by total_plan_time + total_exec_time desc limit 25`,
    )
  ).rows;
  const functions = (
    await client.query(
      `select schemaname || '.' || funcname as fn, round((calls::numeric / ${calls}), 2) as per_call,
              round((total_time / ${calls})::numeric, 3) as total_ms_per_call, round((self_time / ${calls})::numeric, 3) as self_ms_per_call
         from pg_stat_user_functions order by total_time desc limit 25`,
    )
  ).rows;
  const before = statSync(log).size;
  await client.query(`set auto_explain.log_min_duration = 0`);
  await client.query(callSql(claims, tool, args(), lit, true));
  await client.query(`set auto_explain.log_min_duration = -1`);
  await new Promise((r) => setTimeout(r, 200));
  const explain = readFileSync(log).subarray(before).toString('utf8');
  writeFileSync(path.join(PROFILE, `${name}.json`), JSON.stringify({ tool, calls, statements, functions }, null, 1));
  writeFileSync(path.join(PROFILE, `${name}.explain.log`), explain);
}

runBench(main);
