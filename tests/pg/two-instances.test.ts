import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer } from '../../scripts/server-process.mjs';
import { agentKey, sessionCookie, toolOverHttp } from '../helpers/mcp-http';
import { checkQueue, claimLoop, mergeErrors } from '../helpers/queue';

/**
 * Two `bullpen start` processes on one Postgres database, the way Bullpen scales: stateless app
 * instances behind a load balancer. Both start at once on an empty database; claims spread over
 * both never double (queue accounting at 1, 8, 32 and 128 agents); a write through A reaches a
 * console streaming from B; and A killed with SIGKILL in the middle of writes leaves nothing
 * half-written, with every acknowledged write there after it comes back.
 */

type Server = Awaited<ReturnType<typeof spawnServer>>;
const log = (s: string) => console.log(`[two-instances] ${s}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const admin = process.env.DATABASE_URL!;
const dbName = `bp_two_${randomBytes(5).toString('hex')}`;
const dbUrl = Object.assign(new URL(admin), { pathname: `/${dbName}` }).toString();
let env: Record<string, string>;
let A: Server;
let B: Server;
let direct: pg.Pool;
let startMs = 0;

const call = (server: Server, key: string, name: string, args: Record<string, unknown>) => toolOverHttp(server.url, key, name, args);

async function must(server: Server, key: string, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const env = await call(server, key, name, args);
  if (!env?.ok) throw new Error(`${name}: ${JSON.stringify(env).slice(0, 300)}`);
  return env;
}

beforeAll(async () => {
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`create database ${dbName}`);
  await c.end();
  env = {
    DATABASE_URL: dbUrl,
    BULLPEN_SESSION_SECRET: randomBytes(32).toString('base64url'),
    // the buckets are another suite's subject; here they would only slow the storm down
    BULLPEN_RATE_KEY_PER_SECOND: '0',
    BULLPEN_RATE_WORKSPACE_PER_SECOND: '0',
  };
  const t0 = performance.now();
  // both at once, on a database with nothing in it
  [A, B] = await Promise.all([spawnServer({ label: 'inst-a', env }), spawnServer({ label: 'inst-b', env })]);
  startMs = performance.now() - t0;
  direct = new pg.Pool({ connectionString: dbUrl, max: 4 });
  direct.on('error', () => {});
});

afterAll(async () => {
  await Promise.all([A?.stop(), B?.stop()]);
  await direct?.end();
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`drop database if exists ${dbName} with (force)`);
  await c.end();
});

describe('two instances on one database', () => {
  it('start at once on an empty database: one schema, one workspace, one owner, both healthy', async () => {
    const [ha, hb] = await Promise.all([A, B].map(async (s) => (await fetch(`${s.url}/api/health`)).json()));
    expect(ha).toMatchObject({ ok: true, database: { kind: 'pg', ok: true } });
    expect(hb.migrations).toEqual(ha.migrations);
    const { rows: migrations } = await direct.query(`select kind, name, count(*)::int as n from bullpen.migrations group by 1, 2 having count(*) > 1`);
    expect(migrations).toEqual([]);
    const { rows } = await direct.query(
      `select (select count(*)::int from public.tenants) as workspaces, (select count(*)::int from public.actors where is_owner) as owners`,
    );
    expect(rows[0]).toEqual({ workspaces: 1, owners: 1 });
    log(`both instances up together on an empty database in ${(startMs / 1000).toFixed(1)} s: one schema (${ha.migrations.applied} migrations), one workspace, one owner`);
  });

  it('a write through A reaches a console streaming from B, live', async () => {
    const agent = await agentKey(A, 'writer-on-a');
    await must(A, agent.key, 'project_create', { title: 'Live across', key: 'LIVE' });
    const cookie = await sessionCookie(B);
    const ctrl = new AbortController();
    const res = await fetch(`${B.url}/api/events`, { headers: { cookie, accept: 'text/event-stream' }, signal: ctrl.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    const events: { object_id: string; verb: string }[] = [];
    let ready = false;
    const pump = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        buf += decoder.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          if (/^event: ready/m.test(frame)) ready = true;
          const data = frame.match(/^event: change\ndata: (.*)$/m)?.[1];
          if (data) events.push(JSON.parse(data));
        }
      }
    })();
    const t0 = Date.now();
    while (!ready && Date.now() - t0 < 10_000) await sleep(20);
    expect(ready).toBe(true);
    const sent = performance.now();
    const created = await must(A, agent.key, 'task_create', { project_id: 'LIVE', title: 'seen on B' });
    let arrived = -1;
    while (performance.now() - sent < 10_000) {
      if (events.some((e) => e.object_id === created.task_id && e.verb === 'task.created')) {
        arrived = performance.now() - sent;
        break;
      }
      await sleep(5);
    }
    ctrl.abort();
    await pump;
    log(`task_create through A reached B's live stream ${Math.round(arrived)} ms after the call was sent`);
    expect(arrived).toBeGreaterThanOrEqual(0);
    expect(arrived).toBeLessThan(5000);
  });

  it('claims never double across the two instances: queue accounting at 1, 8, 32 and 128 agents', async () => {
    const owner = await agentKey(A, 'queue-owner');
    await must(A, owner.key, 'project_create', { title: 'Queue', key: 'Q' });
    const agents = await Promise.all(Array.from({ length: 128 }, (_, i) => agentKey(i % 2 ? B : A, `claimer-${i}`)));
    const lines: string[] = [];
    for (const n of [1, 8, 32, 128]) {
      const label = `level-${n}`;
      const total = ({ 1: 60, 8: 160, 32: 320, 128: 512 } as Record<number, number>)[n];
      const enqueued: string[] = [];
      for (let i = 0; i < total; i += 100) {
        const tasks = Array.from({ length: Math.min(100, total - i) }, (_, j) => ({ title: `${label} ${i + j}`, labels: [label], priority: (i + j) % 5 }));
        enqueued.push(...(await must(i % 200 ? B : A, owner.key, 'task_create_many', { project_id: 'Q', tasks })).task_ids);
      }
      const t0 = performance.now();
      const deadline = Date.now() + 90_000;
      const results = await Promise.all(
        agents.slice(0, n).map((agent, i) =>
          claimLoop((args) => call(i % 2 ? B : A, agent.key, 'task_claim', args), { name: `${label}-${i}`, label, deadline, backoffMs: 50 }),
        ),
      );
      const seconds = (performance.now() - t0) / 1000;
      const claims = results.flatMap((r) => r.claims);
      const check = checkQueue(enqueued, claims);
      // the database agrees with the answers: each task leased to the agent that was told it got it
      const { rows } = await direct.query<{ id: string; lease_actor_id: string }>(
        `select id, lease_actor_id from public.tasks where $1 = any (labels) and status = 'in_progress'`,
        [label],
      );
      const holder = new Map(rows.map((r) => [r.id, r.lease_actor_id]));
      const mismatched = results.flatMap((r, i) => r.claims.filter((id) => holder.get(id) !== agents[i].actorId));
      const errors = mergeErrors(results);
      lines.push(
        `${n} agent${n > 1 ? 's' : ''} over A+B: ${total} tasks, ${claims.length} claims in ${seconds.toFixed(1)} s (${Math.round(claims.length / seconds)}/s), ` +
          `lost/duplicated/unexpected ${check.lost.length}/${check.duplicated.length}/${check.unexpected.length}, ` +
          `retried ${results.reduce((s, r) => s + r.retries, 0)}${Object.keys(errors).length ? ` ${JSON.stringify(errors)}` : ''}`,
      );
      expect(results.flatMap((r) => r.nonRetryable)).toEqual([]);
      expect(check, label).toMatchObject({ lost: [], duplicated: [], unexpected: [] });
      expect(claims).toHaveLength(total);
      expect(mismatched).toEqual([]);
      expect(rows).toHaveLength(total);
    }
    for (const l of lines) log(`claim storm: ${l}`);
  });

  it('SIGKILL of A in the middle of writes: every write that returned ok is there, nothing half-written', async () => {
    const writers = await Promise.all(Array.from({ length: 8 }, (_, i) => agentKey(A, `kill-writer-${i}`)));
    await must(A, writers[0].key, 'project_create', { title: 'Crash', key: 'CRASH' });
    type Batch = { key: string; ids: string[]; comment: string | null };
    const acked: Batch[] = [];
    const sentKeys: string[] = [];
    let stop = false;
    const loops = writers.map(async (w, wi) => {
      for (let n = 0; !stop; n++) {
        const key = `crash-${wi}-${n}`;
        sentKeys.push(key);
        const many = await call(A, w.key, 'task_create_many', {
          project_id: 'CRASH',
          idempotency_key: key,
          tasks: Array.from({ length: 5 }, (_, j) => ({
            title: `${key} #${j}`,
            labels: [key],
            acceptance_criteria: [`criterion ${j}`],
            depends_on: j ? [{ batch_index: j - 1 }] : [],
          })),
        });
        if (!many?.ok) return;
        const c = await call(A, w.key, 'comment_add', { object_type: 'task', object_id: (many.task_ids as string[])[4], body: `${key} done`, idempotency_key: `${key}-c` });
        acked.push({ key, ids: many.task_ids as string[], comment: c?.ok ? (c.comment_id as string) : null });
        if (!c?.ok) return;
      }
    });
    const waitUntil = Date.now() + 30_000;
    while (acked.length < 40 && Date.now() < waitUntil) await sleep(5);
    expect(acked.length, 'writes were acknowledged before the kill').toBeGreaterThanOrEqual(40);
    await A.kill('SIGKILL');
    stop = true;
    await Promise.all(loops);
    const killedAfter = acked.length;
    // A comes back on the same database
    const dead = A;
    A = await spawnServer({ label: 'inst-a2', env });
    await dead.stop();
    const { rows: tasks } = await direct.query<{ id: string; labels: string[]; seq: number }>(
      `select t.id, t.labels, t.seq from public.tasks t join public.projects p on p.tenant_id = t.tenant_id and p.id = t.project_id where p.key = 'CRASH'`,
    );
    const byLabel = new Map<string, string[]>();
    for (const t of tasks) byLabel.set(t.labels[0], [...(byLabel.get(t.labels[0]) ?? []), t.id]);
    const ids = new Set(tasks.map((t) => t.id));
    // every acknowledged batch: all five tasks, their chain of four dependencies and the comment
    const missing = acked.filter((b) => !b.ids.every((id) => ids.has(id)));
    const { rows: deps } = await direct.query<{ task_id: string }>(`select task_id from public.task_dependencies where task_id = any ($1::uuid[])`, [acked.flatMap((b) => b.ids)]);
    const { rows: comments } = await direct.query<{ id: string }>(`select id from public.comments where id = any ($1::uuid[])`, [acked.map((b) => b.comment)]);
    // nothing half-written: every batch that landed at all landed whole, numbering has no gap, each task has its activity row
    const partial = [...byLabel].filter(([, list]) => list.length !== 5);
    const seqs = tasks.map((t) => t.seq).sort((x, y) => x - y);
    const { rows: counter } = await direct.query<{ task_seq: number }>(`select task_seq from public.projects where key = 'CRASH'`);
    const { rows: unlogged } = await direct.query<{ n: number }>(
      `select count(*)::int as n from public.tasks t join public.projects p on p.tenant_id = t.tenant_id and p.id = t.project_id
        where p.key = 'CRASH' and not exists (select 1 from public.activity a where a.tenant_id = t.tenant_id and a.object_id = t.id and a.verb = 'task.created')`,
    );
    // a batch whose answer was lost retries on A's successor with its key and lands exactly once
    const unanswered = sentKeys.filter((k) => !acked.some((b) => b.key === k));
    for (const key of unanswered.slice(0, 8)) {
      const w = writers[Number(key.split('-')[1])];
      const again = await must(A, w.key, 'task_create_many', {
        project_id: 'CRASH',
        idempotency_key: key,
        tasks: Array.from({ length: 5 }, (_, j) => ({ title: `${key} #${j}`, labels: [key], acceptance_criteria: [`criterion ${j}`], depends_on: j ? [{ batch_index: j - 1 }] : [] })),
      });
      const { rows: landed } = await direct.query<{ n: number }>(`select count(*)::int as n from public.tasks where $1 = any (labels)`, [key]);
      expect(landed[0].n, key).toBe(5);
      if (byLabel.has(key)) expect(again.idempotent_replay).toBe(true);
    }
    log(
      `SIGKILL of A after ${killedAfter} acknowledged batches (5 tasks + a comment each, 8 writers): after restart ${acked.length}/${acked.length} present whole, ` +
        `${byLabel.size - acked.length} more committed whose answers were lost, ${partial.length} partial batches, ${unlogged[0].n} tasks without their activity row; ` +
        `${Math.min(8, unanswered.length)} unanswered batches retried with their keys landed exactly once`,
    );
    expect(acked.length).toBeGreaterThanOrEqual(40);
    expect(missing).toEqual([]);
    expect(deps.length).toBe(acked.length * 4);
    expect(comments).toHaveLength(acked.filter((b) => b.comment).length);
    expect(partial).toEqual([]);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(counter[0].task_seq).toBe(seqs.length);
    expect(unlogged[0].n).toBe(0);
    // and the restarted instance serves
    expect((await call(A, writers[0].key, 'whoami', {}))?.ok).toBe(true);
  });
});
