/**
 * Plans, before and after, for two reads at scale on Postgres (100,000 tasks in 50 projects, the
 * older nine in ten closed; BENCH_TASKS changes the size):
 *
 * 1. Row-level security reading the claims once per statement. Every policy compares with
 *    `(select bullpen.tenant_id())`, an InitPlan run once; written bare, `bullpen.tenant_id()` inlines
 *    into the filter and parses the claims JSON for every row the policy looks at. "before" replaces
 *    the policies of tasks and projects with the bare form inside a transaction that is rolled back;
 *    "after" is the schema as migrated. Each: EXPLAIN (ANALYZE, BUFFERS) of a policy-filtered count
 *    as the API role, and one `task_query` page under auto_explain (nested statements, buffers).
 * 2. whoami's ready count: planned on every call (a custom plan, as it was inside whoami) against
 *    the generic plan bullpen.whoami_ready_count keeps; planning plus execution time.
 * 3. whoami for a typical agent over the RPC, that function on the plan cache's own choice (auto)
 *    against its generic plan, in alternating blocks of one run (p50 of each).
 *
 * Writes the plans to BENCH_PLANS (default bench/results/rls-plans/) and prints JSON lines: each
 * read's median execution time over 9 runs before and after, and after/before.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { execute } from '../lib/core/execute';
import { claimsSql, callSql, type Claims } from '../lib/db/types';
import { ensureActor, ensureWorkspace } from '../lib/server/workspace';
import { emit, percentile, runBench, scratchDatabase } from './lib';

const TASKS = Number(process.env.BENCH_TASKS ?? 100_000);
const PROJECTS = 50;
const OUT = process.env.BENCH_PLANS || path.join('bench', 'results', 'rls-plans');
const RUNS = 9;

async function main() {
  const scratch = await scratchDatabase({ prefix: 'bp_rls' });
  const { db, url } = scratch;
  mkdirSync(OUT, { recursive: true });
  const ws = await ensureWorkspace(db, `rls-${randomBytes(3).toString('hex')}`);
  const owner = await ensureActor(db, ws.id, { kind: 'human', external_ref: 'human:rls', display_name: 'Owner', is_owner: true });
  const agent = await ensureActor(db, ws.id, { kind: 'agent', external_ref: 'agent:rls', display_name: 'rls' });
  // another workspace's tasks in the same table: the policy has something to keep out
  const other = await ensureWorkspace(db, `rls-other-${randomBytes(3).toString('hex')}`);
  const otherOwner = await ensureActor(db, other.id, { kind: 'human', external_ref: 'human:other', display_name: 'Other' });
  const per = Math.ceil(TASKS / PROJECTS);
  await db.query(
    `insert into public.projects (tenant_id, key, title, owner_actor_id, task_seq)
     select $1, 'P' || g, 'Project ' || g, $2, $3 from generate_series(1, $4) g`,
    [ws.id, owner.id, per, PROJECTS],
  );
  await db.query(`insert into public.projects (tenant_id, key, title, owner_actor_id, task_seq) values ($1, 'O1', 'Other', $2, $3)`, [
    other.id,
    otherOwner.id,
    per,
  ]);
  // tasks in creation order; the older nine in ten are done (a workspace whose old work is closed)
  await db.query(
    `insert into public.tasks (tenant_id, project_id, seq, title, priority, created_by_actor_id, labels, status, completed_at, created_at)
     select $1, p.id, g, 'rls task ' || p.key || '-' || g, g % 5, $2, array['rls'],
            case when g <= $3 * 0.9 then 'done' else 'todo' end,
            case when g <= $3 * 0.9 then now() end,
            now() - interval '1 second' * ($3 - g)
       from generate_series(1, $3) g cross join public.projects p where p.tenant_id = $1`,
    [ws.id, owner.id, per],
  );
  await db.query(
    `insert into public.tasks (tenant_id, project_id, seq, title, created_by_actor_id)
     select $1, p.id, g, 'other task ' || g, $2 from generate_series(1, $3) g cross join public.projects p where p.tenant_id = $1`,
    [other.id, otherOwner.id, per],
  );
  await db.query('vacuum analyze');
  const claims: Claims = { sub: agent.id, role: 'authenticated', tenant_id: ws.id, actor_id: agent.id, run_id: 'rls-bench' };

  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const notices: string[] = [];
  client.on('notice', (n) => notices.push(n.message ?? ''));
  const lit = (s: string) => client.escapeLiteral(s);
  await client.query(`load 'auto_explain'`);

  /** EXPLAIN (ANALYZE, BUFFERS) of sql as the API role; the plan text and its execution time. */
  async function explain(sql: string): Promise<{ text: string; ms: number }> {
    await client.query('begin');
    try {
      const r = (await client.query(claimsSql(claims, `explain (analyze, buffers) ${sql}`, lit))) as unknown as pg.QueryResult[];
      const lines = r[r.length - 1].rows.map((x) => x['QUERY PLAN'] as string);
      const ms = Number(/Execution Time: ([\d.]+) ms/.exec(lines.join('\n'))?.[1]);
      return { text: lines.join('\n'), ms };
    } finally {
      await client.query('commit');
    }
  }
  /** The median of RUNS executions, and the plan of the last. */
  async function measure(sql: string): Promise<{ text: string; ms: number }> {
    const times: number[] = [];
    let last = { text: '', ms: 0 };
    for (let i = 0; i < RUNS + 2; i++) {
      last = await explain(sql);
      if (i >= 2) times.push(last.ms);
    }
    times.sort((a, b) => a - b);
    return { text: last.text, ms: percentile(times, 50) };
  }
  /** One RPC call under auto_explain, nested statements with their buffers; the notices it raised. */
  async function traced(tool: string, args: Record<string, unknown>): Promise<string> {
    await client.query(callSql(claims, tool, args, lit, true)); // warm
    notices.length = 0;
    await client.query(
      `set auto_explain.log_min_duration = 0; set auto_explain.log_analyze = on; set auto_explain.log_buffers = on;
       set auto_explain.log_nested_statements = on; set auto_explain.log_level = notice`,
    );
    await client.query(callSql(claims, tool, args, lit, true));
    await client.query(`set auto_explain.log_min_duration = -1`);
    return notices.join('\n\n');
  }

  // 1. The policies: bare (before, rolled back) and as migrated (after).
  const count = `select count(*) from public.tasks where labels @> array['rls']`;
  const page = { project_id: 'P1', limit: 50 };
  const bare = async () => {
    const pols = (
      await client.query<{ schemaname: string; tablename: string; policyname: string; qual: string | null; with_check: string | null }>(
        `select schemaname, tablename, policyname, qual, with_check from pg_policies
          where schemaname = 'public' and tablename in ('tasks', 'projects')`,
      )
    ).rows;
    const unwrap = (e: string) => e.replace(/\( SELECT (bullpen\.\w+\(\)) AS \w+\)/g, '$1');
    for (const p of pols) {
      const parts = [p.qual ? `using (${unwrap(p.qual)})` : '', p.with_check ? `with check (${unwrap(p.with_check)})` : ''].join(' ');
      await client.query(`alter policy ${p.policyname} on ${p.schemaname}.${p.tablename} ${parts}`);
    }
    return pols.length;
  };
  const results: Record<string, { before: number; after: number }> = {};
  {
    await client.query('begin');
    const n = await bare();
    await client.query('savepoint s');
    // explain() commits: run it inside this transaction by hand instead
    const inTx = async (sql: string) => {
      const times: number[] = [];
      let text = '';
      for (let i = 0; i < RUNS + 2; i++) {
        const r = (await client.query(
          `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${lit(JSON.stringify(claims))}, true); explain (analyze, buffers) ${sql}; reset role`,
        )) as unknown as pg.QueryResult[];
        const lines = r[1].rows.map((x) => x['QUERY PLAN'] as string);
        text = lines.join('\n');
        if (i >= 2) times.push(Number(/Execution Time: ([\d.]+) ms/.exec(text)?.[1]));
      }
      times.sort((a, b) => a - b);
      return { text, ms: percentile(times, 50) };
    };
    const c = await inTx(count);
    writeFileSync(path.join(OUT, 'policy-count-before.txt'), `-- ${n} policies of tasks and projects written bare: tenant_id = bullpen.tenant_id()\n-- as the API role: ${count}\n${c.text}\n`);
    notices.length = 0;
    await client.query(
      `set local auto_explain.log_min_duration = 0; set local auto_explain.log_analyze = on; set local auto_explain.log_buffers = on;
       set local auto_explain.log_nested_statements = on; set local auto_explain.log_level = notice`,
    );
    await client.query(`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${lit(JSON.stringify(claims))}, true), set_config('bullpen.notify', 'off', true)`);
    await client.query(`select public.task_query(${lit(JSON.stringify(page))}::jsonb)`); // warm
    notices.length = 0;
    await client.query(`select public.task_query(${lit(JSON.stringify(page))}::jsonb)`);
    writeFileSync(path.join(OUT, 'task-query-before.txt'), `-- task_query ${JSON.stringify(page)}, policies of tasks and projects written bare\n${notices.join('\n\n')}\n`);
    await client.query('rollback');
    results.policy_count = { before: c.ms, after: 0 };
  }
  const c2 = await measure(count);
  writeFileSync(path.join(OUT, 'policy-count-after.txt'), `-- policies as migrated: tenant_id = (select bullpen.tenant_id())\n-- as the API role: ${count}\n${c2.text}\n`);
  results.policy_count.after = c2.ms;
  writeFileSync(path.join(OUT, 'task-query-after.txt'), `-- task_query ${JSON.stringify(page)}, policies as migrated\n${await traced('task_query', page)}\n`);

  // 2. whoami's ready count (bullpen.whoami_ready_count): planned per call, as it was inside whoami,
  // against the one generic plan its function keeps. Planning and execution time of each.
  await client.query(`prepare ready_count(uuid, uuid, text[], uuid[], uuid[]) as
    select count(*) from (select 1 from public.tasks t
     where t.tenant_id = $1
       and (t.status = 'todo' or (t.status = 'in_progress' and (t.lease_expires_at is null or t.lease_expires_at <= now())))
       and (t.assignee_actor_id is null or t.assignee_actor_id = $2 or t.assignee_actor_id = t.lease_actor_id)
       and (t.status <> 'todo' or t.lease_expires_at is null or t.lease_expires_at <= now())
       and t.project_id <> all ($4) and (t.workflow_instance_id is null or t.workflow_instance_id <> all ($5))
       and t.requires_capabilities <@ $3
       and not exists (select 1 from public.task_dependencies d
                         join public.tasks dt on dt.tenant_id = d.tenant_id and dt.id = d.depends_on_task_id
                        where d.tenant_id = t.tenant_id and d.task_id = t.id and dt.status not in ('done', 'skipped'))
     limit 101) capped`);
  const exec = `execute ready_count(${lit(ws.id)}, ${lit(agent.id)}, '{}', '{}', '{}')`;
  const total = async (mode: string) => {
    await client.query(`set plan_cache_mode = ${mode}`);
    const times: number[] = [];
    let text = '';
    for (let i = 0; i < RUNS + 2; i++) {
      text = (await explain(exec)).text;
      const plan = Number(/Planning Time: ([\d.]+) ms/.exec(text)?.[1] ?? 0);
      const run = Number(/Execution Time: ([\d.]+) ms/.exec(text)?.[1]);
      if (i >= 2) times.push(plan + run);
    }
    await client.query(`reset plan_cache_mode`);
    times.sort((a, b) => a - b);
    return { text, ms: percentile(times, 50) };
  };
  const rb = await total('force_custom_plan');
  const ra = await total('force_generic_plan');
  writeFileSync(path.join(OUT, 'whoami-ready-before.txt'), `-- whoami's ready count planned on every call (a custom plan), as the API role\n${rb.text}\n`);
  writeFileSync(path.join(OUT, 'whoami-ready-after.txt'), `-- whoami's ready count on the generic plan bullpen.whoami_ready_count keeps, as the API role\n${ra.text}\n`);
  results.whoami_ready_count_plan_and_run = { before: rb.ms, after: ra.ms };
  writeFileSync(path.join(OUT, 'whoami-after.txt'), `-- whoami as migrated (nested statements)\n${await traced('whoami', {})}\n`);

  // 3. whoami for a typical agent (three tasks in hand, three questions waiting), over the RPC, with
  // the ready count's function on the plan cache's own choice (auto: what whoami did with the count
  // inline, planned per call) and on its generic plan, in alternating blocks of the same run.
  const asker = await ensureActor(db, ws.id, { kind: 'agent', external_ref: 'agent:rls-asker', display_name: 'asker' });
  const askerClaims: Claims = { sub: asker.id, role: 'authenticated', tenant_id: ws.id, actor_id: asker.id, run_id: 'rls-asker' };
  for (let k = 0; k < 3; k++) {
    const c = await execute({ db, claims }, 'task_claim', {});
    if (!c.ok) throw new Error(`task_claim: ${c.error.message}`);
    const h = await execute({ db, claims: askerClaims }, 'handoff_create', { to_actor_ids: [agent.id], title: `question ${k}`, kind: 'question' });
    if (!h.ok) throw new Error(`handoff_create: ${h.error.message}`);
  }
  const modes = { auto: [] as number[], force_generic_plan: [] as number[] };
  for (let block = 0; block < 16; block++) {
    const mode = block % 2 ? 'force_generic_plan' : 'auto';
    await client.query(`alter function bullpen.whoami_ready_count(uuid, uuid, text[], uuid[], uuid[]) set plan_cache_mode = ${mode}`);
    for (let i = 0; i < 40; i++) {
      const t0 = performance.now();
      await client.query(callSql(claims, 'whoami', {}, lit, true));
      if (i >= 8) modes[mode].push(performance.now() - t0);
    }
  }
  await client.query(`alter function bullpen.whoami_ready_count(uuid, uuid, text[], uuid[], uuid[]) set plan_cache_mode = force_generic_plan`);
  for (const m of Object.values(modes)) m.sort((a, b) => a - b);
  results.whoami_typical_rpc_p50 = { before: percentile(modes.auto, 50), after: percentile(modes.force_generic_plan, 50) };

  for (const [what, r] of Object.entries(results)) {
    emit({ bench: 'rls_plans', what, tasks: TASKS, before_ms: r.before, after_ms: r.after, after_over_before: Math.round((r.after / r.before) * 1000) / 1000, load: loadavg()[0] });
  }
  await client.end();
  await scratch.close();
}

runBench(main);
