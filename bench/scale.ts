/**
 * Scale ×10 (issue 19, item 5): one workspace of 100,000 tasks in 50 projects, 1,000,000 activity
 * rows, 100,000 notes and 20,000 handoffs (bench/_scale-seed.ts), on Postgres. Each hot tool's RPC
 * (one round trip under the caller's claims, as the executor sends it) is timed at 1 and 32
 * concurrent clients, p50 and p95, beside the bare claim statement measured in the same run at the
 * same concurrency: at 1 client interleaved with the tool's calls, at 32 clients in a phase of its
 * own right before the tool's. Prints JSON lines.
 * BENCH_SCALE=0.1 seeds a tenth; BENCH_CALLS per client (default 200 at 1 client, 30 at 32);
 * BENCH_CLIENTS=1,32; BENCH_TOOLS=a,b; BENCH_PLANS=DIR writes each tool's plans (auto_explain of one
 * call, nested statements included) to DIR/<tool>.txt; BENCH_KEEP keeps the database and
 * BENCH_REUSE=URL measures a kept one again (after a migration, say) without seeding it anew.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { migrate } from '../lib/db/migrate';
import { openPg } from '../lib/db/pg';
import { callSql, type Claims, type Db } from '../lib/db/types';
import { ensureActor, mintKey } from '../lib/server/workspace';
import { seedScale, type ScaleAgent, type ScaleWorkspace } from './_scale-seed';
import { emit, envFields, percentile, runBench, scratchDatabase } from './lib';

const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const CALLS_1 = Number(process.env.BENCH_CALLS ?? 200);
const CALLS_32 = Number(process.env.BENCH_CALLS_CONCURRENT ?? 30);
const CLIENTS = (process.env.BENCH_CLIENTS ?? '1,32').split(',').map(Number);
const TOOLS = process.env.BENCH_TOOLS ? new Set(process.env.BENCH_TOOLS.split(',')) : null;
const PLANS = process.env.BENCH_PLANS || '';
/** BENCH_REUSE=URL: measure a database a BENCH_KEEP run left (migrated to the current schema first) instead of seeding. */
const REUSE = process.env.BENCH_REUSE || '';

const TARGETS: Record<string, { p95_ms?: number; ratio_p50?: number }> = {
  task_claim: { ratio_p50: 2 },
  task_query: { p95_ms: 20 },
  task_query_project: { p95_ms: 20 },
  activity_query: { p95_ms: 20 },
  activity_query_project: { p95_ms: 20 },
  whoami: { p95_ms: 15 },
};

const BARE_CLAIM = `with c as (select id from public.tasks where tenant_id = $1 and status = 'todo'
                    and (assignee_actor_id is null or assignee_actor_id = $2)
                  order by priority, created_at, id limit 1 for update skip locked)
       update public.tasks t set status = 'in_progress', assignee_actor_id = $2, lease_actor_id = $2,
              lease_expires_at = now() + interval '1 hour' from c where t.tenant_id = $1 and t.id = c.id returning t.id`;

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const r2 = (x: number) => Math.round(x * 100) / 100;

async function connect(url: string, claims?: Claims): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  // the bare statement runs as its claimer would: the tasks triggers see a self-claim
  if (claims) await c.query(`select set_config('request.jwt.claims', $1, false)`, [JSON.stringify(claims)]);
  return c;
}

async function main() {
  const scratch = REUSE ? null : await scratchDatabase({ prefix: 'bp_scale', pool: { max: 8 } });
  const url = REUSE || scratch!.url;
  const db = scratch ? scratch.db : await openPg(url, { max: 8 });
  if (REUSE) await migrate(db); // the migrations landed since it was seeded
  const t0 = performance.now();
  const ws = REUSE ? await seededWorkspace(db) : await seedScale(db, url, { scale: SCALE, log: (m) => console.error(m) });
  const seedSeconds = REUSE ? null : Math.round((performance.now() - t0) / 100) / 10;
  const tag = randomBytes(2).toString('hex');
  // the measured agents are typical ones: three tasks in hand and three questions waiting. Each of
  // the 32 clients is one of them (one agent's calls do not queue on another's rows)
  const admin = await connect(url);
  const lit = (s: string) => admin.escapeLiteral(s);
  const rpc = async (c: pg.Client, who: ScaleAgent, tool: string, args: Record<string, unknown>) => {
    const res = await c.query(callSql(who.claims, tool, args, lit, true));
    const rows = (Array.isArray(res) ? res[res.length - 1] : res).rows;
    return rows[0].r as Record<string, unknown>;
  };
  const typicals: ScaleAgent[] = [];
  for (let k = 0; k < Math.max(...CLIENTS); k++) {
    const t = await ensureActor(db, ws.tenantId, { kind: 'agent', external_ref: `agent:scale-typical-${tag}-${k}`, display_name: `scale-typical-${tag}-${k}` });
    const who: ScaleAgent = { id: t.id, key: (await mintKey(db, ws.tenantId, t.id)).api_key, claims: { sub: t.id, role: 'authenticated', tenant_id: ws.tenantId, actor_id: t.id, run_id: `scale-typical-${tag}-${k}` } };
    for (let j = 0; j < 3; j++) await rpc(admin, who, 'task_claim', {});
    for (let j = 0; j < 3; j++) await rpc(admin, ws.agents[(k + j) % ws.agents.length], 'handoff_create', { to_actor_ids: [who.id], title: `scale question ${k}.${j}`, kind: 'question' });
    typicals.push(who);
  }
  const typical = typicals[0];
  // task_get and task_update: each client its own task (todo tasks at the end of a project the claims leave alone)
  const someTasks = (
    await admin.query(`select id from public.tasks where tenant_id = $1 and status = 'backlog' order by project_id, seq desc limit 32`, [ws.tenantId])
  ).rows.map((r) => r.id as string);
  await admin.query('vacuum analyze');
  emit({ ...(await envFields('bench/scale.ts', admin)), scale: SCALE, seed_seconds: seedSeconds, reused: !!REUSE, ...ws.counts });

  const project = ws.projects[Math.min(7, ws.projects.length - 1)];
  const argsFor: Record<string, (i: number, k: number) => Record<string, unknown>> = {
    task_claim: () => ({}),
    task_query: () => ({ limit: 50 }),
    task_query_project: () => ({ project_id: project, state: 'ready', limit: 20 }),
    task_get: (_, k) => ({ task_id: someTasks[k % someTasks.length] }),
    task_update: (i, k) => ({ task_id: someTasks[k % someTasks.length], patch: { priority: i % 5 } }),
    activity_query: () => ({}),
    activity_query_project: () => ({ project_id: project }),
    whoami: () => ({}),
    inbox: () => ({}),
    project_brief: () => ({ project }),
  };
  const toolOf = (what: string) => what.replace(/_project$/, '');
  const writes = new Set(['task_claim', 'task_update', 'inbox']);
  const argsOf = (what: string, i: number, k = 0) => ({ ...argsFor[what](i, k), ...(writes.has(what) ? { idempotency_key: `k-${what}-${i}-${Math.random()}` } : {}) });
  // who calls: client k is typical agent k; task_get/task_update each read and write a task of their own
  const callerOf = (_what: string, client: number): ScaleAgent => typicals[client];

  if (PLANS) {
    mkdirSync(PLANS, { recursive: true });
    const c = await connect(url);
    const notices: string[] = [];
    c.on('notice', (n) => notices.push(n.message ?? ''));
    await c.query(`load 'auto_explain'`);
    await c.query(`set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; set auto_explain.log_analyze = on;
                   set auto_explain.log_buffers = on; set auto_explain.log_level = notice; set client_min_messages = notice`);
    for (const what of Object.keys(argsFor)) {
      if (TOOLS && !TOOLS.has(what)) continue;
      await rpc(c, typical, toolOf(what), argsOf(what, 0));
      notices.length = 0;
      await rpc(c, typical, toolOf(what), argsOf(what, 1));
      writeFileSync(path.join(PLANS, `${what}.txt`), notices.filter((n) => !/set_config\('role'/.test(n)).join('\n\n') + '\n');
    }
    notices.length = 0;
    await c.query(`explain (analyze, buffers) ${BARE_CLAIM.replace(/\$1/g, lit(ws.tenantId)).replace(/\$2/g, lit(typical.id))}`).then((r) =>
      writeFileSync(path.join(PLANS, `bare_claim.txt`), r.rows.map((x) => x['QUERY PLAN']).join('\n') + '\n'),
    );
    await c.end();
  }

  for (const clients of CLIENTS) {
    const conns = await Promise.all(Array.from({ length: clients }, (_, k) => connect(url, callerOf('task_claim', k).claims)));
    const calls = clients === 1 ? CALLS_1 : CALLS_32;
    const bareOnce = (k: number) => conns[k].query(BARE_CLAIM, [ws.tenantId, callerOf('task_claim', k).id]);
    /** Each client runs fn `calls` times after 5 warm-ups; the samples of all clients together. */
    const phase = async (fn: (k: number, i: number) => Promise<unknown>, n = calls): Promise<number[]> => {
      const s: number[] = [];
      await Promise.all(
        conns.map(async (_, k) => {
          for (let i = 0; i < 5; i++) await fn(k, i);
          for (let i = 0; i < n; i++) {
            const t1 = performance.now();
            await fn(k, i + 5);
            s.push(performance.now() - t1);
          }
        }),
      );
      return sorted(s);
    };
    for (const what of Object.keys(argsFor)) {
      if (TOOLS && !TOOLS.has(what)) continue;
      const tool = toolOf(what);
      let toolS: number[];
      let bareS: number[];
      if (clients === 1) {
        // interleaved: one bare claim after every second call, so both see the same load
        const s: number[] = [];
        const b: number[] = [];
        for (let i = 0; i < 10; i++) await rpc(conns[0], typical, tool, argsOf(what, i));
        for (let i = 0; i < calls; i++) {
          let t1 = performance.now();
          await rpc(conns[0], typical, tool, argsOf(what, i + 10));
          s.push(performance.now() - t1);
          if (i % 2 === 0) {
            t1 = performance.now();
            await bareOnce(0);
            b.push(performance.now() - t1);
          }
        }
        toolS = sorted(s);
        bareS = sorted(b);
      } else {
        bareS = await phase((k) => bareOnce(k), Math.ceil(calls / 2));
        toolS = await phase((k, i) => rpc(conns[k], callerOf(what, k), tool, argsOf(what, i, k)));
      }
      const p50 = percentile(toolS, 50);
      const p95 = percentile(toolS, 95);
      const bare50 = percentile(bareS, 50);
      const bare95 = percentile(bareS, 95);
      const target = TARGETS[what];
      emit({
        bench: 'scale',
        what,
        clients,
        calls: toolS.length,
        p50_ms: p50,
        p95_ms: p95,
        bare_claim_p50_ms: bare50,
        bare_claim_p95_ms: bare95,
        ratio_p50: r2(p50 / bare50),
        ratio_p95: r2(p95 / bare95),
        ...(target ? { target, met: (target.p95_ms === undefined || p95 <= target.p95_ms) && (target.ratio_p50 === undefined || p50 / bare50 <= target.ratio_p50) } : {}),
      });
    }
    await Promise.all(conns.map((c) => c.end()));
  }
  await admin.end();
  if (!scratch) {
    await db.close();
    return;
  }
  if (process.env.BENCH_KEEP) {
    await db.close();
    await scratch.admin.end(); // else its open connection keeps the process alive
    console.error(`kept ${url}`);
    return;
  }
  await scratch.close();
}

/** The workspace a kept scale database holds (BENCH_REUSE): its agents and its counts. */
async function seededWorkspace(db: Db): Promise<ScaleWorkspace> {
  const [{ tenant_id: tenantId, owner }] = await db.query<{ tenant_id: string; owner: string }>(
    `select tenant_id, owner_actor_id as owner from public.projects where key = 'P0' and title = 'Scale project 0' limit 1`,
  );
  const agents = (
    await db.query<{ id: string; ref: string }>(
      `select id, external_ref as ref from public.actors where tenant_id = $1 and external_ref ~ '^agent:scale-[0-9]+$' order by (substr(external_ref, 13))::int`,
      [tenantId],
    )
  ).map((a) => ({ id: a.id, key: '', claims: { sub: a.id, role: 'authenticated', tenant_id: tenantId, actor_id: a.id, run_id: a.ref.slice(6) } as Claims }));
  const projects = (await db.query<{ key: string }>(`select key from public.projects where tenant_id = $1 order by (substr(key, 2))::int`, [tenantId])).map((p) => p.key);
  const [counts] = await db.query<Record<string, number>>(
    `select (select count(*) from public.tasks where tenant_id = $1)::int as tasks, (select count(*) from public.projects where tenant_id = $1)::int as projects,
            (select count(*) from public.activity where tenant_id = $1)::int as activity, (select count(*) from public.knowledge_notes where tenant_id = $1)::int as notes,
            (select count(*) from public.handoffs where tenant_id = $1)::int as handoffs`,
    [tenantId],
  );
  return { tenantId, ownerId: owner, agents, projects, counts };
}

runBench(main);
