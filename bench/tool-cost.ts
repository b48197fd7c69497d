/**
 * What one call costs, serially, on a real Postgres with a workspace of 5,000 tasks and 50 actors:
 * the bare FOR UPDATE SKIP LOCKED claim statement (the baseline), each hot tool's RPC alone (one
 * round trip under the caller's claims), the same tool through the in-process executor, and over
 * HTTP (MCP tools/call against `bullpen start`). Every figure is reported as a ratio to the baseline
 * measured in the same run. Prints JSON lines.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { execute } from '../lib/core/execute';
import { migrate } from '../lib/db/migrate';
import { openPg } from '../lib/db/pg';
import { callSql, type Claims } from '../lib/db/types';
import { ensureActor, ensureWorkspace, mintKey } from '../lib/server/workspace';
import { emit, mcpCall, percentile, startServer } from './lib';
import { startLocalPostgres } from '../scripts/pg-local.mjs';

const N = Number(process.env.BENCH_CALLS ?? 300);
const TASKS = Number(process.env.BENCH_TASKS ?? 5000);
const ACTORS = 50;
const MODES = new Set((process.env.BENCH_MODES ?? 'rpc,executor,http').split(','));

async function main() {
  let pgLocal: { url: string; stop: () => void } | null = null;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    pgLocal = await startLocalPostgres();
    if (!pgLocal) throw new Error('bench needs Postgres: set DATABASE_URL or install postgresql');
    adminUrl = pgLocal.url;
  }
  const dbName = `bp_cost_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const db = await openPg(url.toString());
  await migrate(db);
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
  // some history, as a live workspace has: each agent claims a few tasks
  for (const a of agents.slice(0, 20)) for (let k = 0; k < 3; k++) await execute({ db, claims: a.claims }, 'task_claim', {});
  await db.query('vacuum analyze');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const me = agents[ACTORS - 1];
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

  const bare = await timeIt('bare', () =>
    client.query(
      `with c as (select id from public.tasks where tenant_id = $1 and status = 'todo'
                    and (assignee_actor_id is null or assignee_actor_id = $2)
                  order by priority, created_at, id limit 1 for update skip locked)
       update public.tasks t set status = 'in_progress', assignee_actor_id = $2, lease_actor_id = $2,
              lease_expires_at = now() + interval '1 hour' from c where t.tenant_id = $1 and t.id = c.id returning t.id`,
      [ws.id, me.id],
    ),
  );
  emit({ bench: 'tool_cost', what: 'bare_claim_sql', p50_ms: bare, ratio: 1 });

  const argsFor: Record<string, (i: number) => Record<string, unknown>> = {
    task_claim: () => ({}),
    whoami: () => ({}),
    task_query: () => ({ project_id: 'COST', state: 'ready', limit: 20 }),
    task_get: () => ({ task_id: someTask }),
    task_update: (i) => ({ task_id: someTask, patch: { priority: i % 5 } }),
    project_brief: () => ({ project: 'COST' }),
  };
  const lit = (s: string) => client.escapeLiteral(s);
  for (const [tool, args] of Object.entries(argsFor)) {
    const row: Record<string, unknown> = { bench: 'tool_cost', what: tool };
    if (MODES.has('rpc')) {
      const p50 = await timeIt(tool, (i) => client.query(callSql(me.claims, tool, { ...args(i), ...(tool === 'task_update' ? { idempotency_key: `k-${tool}-${i}-${Math.random()}` } : {}) }, lit, true)));
      row.rpc_p50_ms = p50;
      row.rpc_ratio = Math.round((p50 / bare) * 100) / 100;
    }
    if (MODES.has('executor')) {
      const p50 = await timeIt(tool, async (i) => {
        const env = await execute({ db, claims: me.claims }, tool, args(i));
        if (!env.ok) throw new Error(`${tool}: ${env.error.message}`);
      });
      row.executor_p50_ms = p50;
      row.executor_ratio = Math.round((p50 / bare) * 100) / 100;
    }
    emit(row);
  }
  if (MODES.has('http')) {
    // buckets too large to empty: each call still pays for its rate-limit check, none is refused
    const server = await startServer({ DATABASE_URL: url.toString(), BULLPEN_RATE_KEY_PER_SECOND: '1000000', BULLPEN_RATE_WORKSPACE_PER_SECOND: '1000000' });
    try {
      for (const tool of ['whoami', 'task_claim', 'task_get']) {
        const args = argsFor[tool](0);
        const viaExec = await timeIt(tool, async () => {
          await execute({ db, claims: me.claims }, tool, args);
        });
        const viaHttp = await timeIt(tool, async () => {
          const env = await mcpCall(server.url, me.key, tool, args);
          if (!env.ok) throw new Error(`${tool}: ${JSON.stringify(env)}`);
        });
        emit({ bench: 'http_overhead', tool, executor_p50_ms: viaExec, http_p50_ms: viaHttp, http_adds_ms: Math.round((viaHttp - viaExec) * 100) / 100, bare_claim_p50_ms: bare });
      }
    } finally {
      await server.stop();
    }
  }
  await client.end();
  await db.close();
  await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => {});
  await admin.end();
  pgLocal?.stop();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
