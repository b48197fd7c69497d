/**
 * The coordination room under load, on Postgres, over HTTP against `bullpen start`:
 *   inbox_poll      — inbox latency at 1 and 16 clients (each with 5 items waiting)
 *   inbox_wake      — 200 agents wait in inbox (wait_seconds); one handoff_create at a time wakes one
 *                     of them: p50/p95 from the create being sent (and from its answer) to the
 *                     waiter's return
 *   inbox_waiters   — what the 200 waiting calls hold: database connections and server memory, and
 *                     the heap a waiter costs in-process
 *   handoff_claim_race — 16 recipients racing over 400 handoffs addressed to all of them
 * Prints JSON lines.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { execute } from '../lib/core/execute';
import { waitRoom } from '../lib/core/wait';
import type { Db } from '../lib/db/types';
import { spawnServer } from '../scripts/server-process.mjs';
import { addAgents, emit, mcpCall, percentile, scratchDatabase, seedWorkspace, type BenchAgent, unlimitedRates, runBench } from './lib';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const WAITERS = Number(process.env.BENCH_WAITERS ?? 200);
const WAKES = Number(process.env.BENCH_WAKES ?? 200);

const agents = (db: Db, tenantId: string, prefix: string, n: number): Promise<BenchAgent[]> => addAgents(db, tenantId, prefix, n, { keys: true });

async function ok(p: Promise<{ ok: boolean; [k: string]: any }>): Promise<Record<string, any>> {
  const env = await p;
  if (!env.ok) throw new Error(JSON.stringify(env));
  return env;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 102.4) / 10 : NaN;
}

async function main() {
  const scratch = await scratchDatabase({ prefix: 'bp_bench' });
  const { db, admin, url } = scratch;
  const dbName = scratch.name;
  const server = await spawnServer({ label: 'bench-inbox', env: { DATABASE_URL: url, ...unlimitedRates() } });
  const serverPid = JSON.parse(readFileSync(path.join(server.dir, 'server.json'), 'utf8')).pid as number;
  const connections = async () =>
    Number((await admin.query(`select count(*)::int n from pg_stat_activity where datname = $1`, [dbName])).rows[0].n);
  emit({ bench: 'env', bench_file: 'inbox', node: process.version, cores: (await import('node:os')).cpus().length, seconds_per_run: SECONDS, feed_poll_ms: Number(process.env.BULLPEN_FEED_POLL_MS ?? 50) });

  try {
    const ws = await seedWorkspace(db, { name: 'inbox' });
    const [sender] = await agents(db, ws.tenantId, 'sender', 1);

    // ---- inbox poll latency -------------------------------------------------------------------
    const pollers = await agents(db, ws.tenantId, 'poller', 16);
    for (const p of pollers) {
      for (let i = 0; i < 5; i++) await ok(execute({ db, claims: sender.claims }, 'handoff_create', { to_actor_ids: [p.id], title: `waiting ${i}` }));
    }
    await admin.query(`vacuum analyze`).catch(() => {});
    for (const clients of [1, 16]) {
      const samples: number[] = [];
      let errors = 0;
      const deadline = Date.now() + SECONDS * 1000;
      await Promise.all(
        pollers.slice(0, clients).map(async (p) => {
          while (Date.now() < deadline) {
            const t0 = performance.now();
            try {
              const env = await mcpCall(server.url, p.key, 'inbox', {});
              if (!env.ok || (env.items as unknown[]).length !== 5) throw new Error('unexpected inbox');
              samples.push(performance.now() - t0);
            } catch {
              errors++;
            }
          }
        }),
      );
      samples.sort((a, b) => a - b);
      emit({ bench: 'inbox_poll', transport: 'http', concurrency: clients, items_waiting: 5, calls: samples.length, errors,
        calls_per_s: Math.round(samples.length / SECONDS), p50_ms: percentile(samples, 50), p99_ms: percentile(samples, 99) });
    }

    // ---- 200 waiting agents: what they hold, and how fast one wakes --------------------------------
    const waiters = await agents(db, ws.tenantId, 'waiter', WAITERS);
    const idleConnections = await connections();
    const idleRss = rssMb(serverPid);
    const returned = new Map<string, (t: number, env: Record<string, any>) => void>();
    let stop = false;
    let waitErrors = 0;
    const loops = waiters.map(async (w) => {
      while (!stop) {
        let env: Record<string, any>;
        try {
          env = await mcpCall(server.url, w.key, 'inbox', { wait_seconds: 50, kinds: ['handoff'] });
        } catch {
          waitErrors++;
          continue;
        }
        const at = performance.now();
        if (!env.ok) {
          waitErrors++;
          continue;
        }
        const items = env.items as { id: string }[];
        if (items.length) {
          returned.get(w.id)?.(at, env);
          // ack after act, then wait again
          await mcpCall(server.url, w.key, 'inbox', { ack: items.map((i) => i.id), kinds: ['handoff'], limit: 1 }).catch(() => waitErrors++);
        }
      }
    });
    await sleep(3000);
    const holdingConnections = await connections();
    const holdingRss = rssMb(serverPid);
    emit({
      bench: 'inbox_waiters',
      transport: 'http',
      waiters: WAITERS,
      db_connections_idle: idleConnections,
      db_connections_while_waiting: holdingConnections,
      server_rss_mb_idle: idleRss,
      server_rss_mb_while_waiting: holdingRss,
      server_rss_kb_per_waiter: Math.round(((holdingRss - idleRss) * 1024) / WAITERS),
    });

    const fromSend: number[] = [];
    const fromAck: number[] = [];
    let missed = 0;
    for (let i = 0; i < WAKES; i++) {
      const w = waiters[i % waiters.length];
      const woke = new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), 10_000);
        returned.set(w.id, (t) => {
          clearTimeout(timer);
          returned.delete(w.id);
          resolve(t);
        });
      });
      const sent = performance.now();
      await ok(mcpCall(server.url, sender.key, 'handoff_create', { to_actor_ids: [w.id], title: `wake ${i}` }));
      const acked = performance.now();
      const at = await woke;
      if (at === null) {
        missed++;
        continue;
      }
      fromSend.push(at - sent);
      fromAck.push(Math.max(0, at - acked));
      // let the woken agent ack and wait again before the next round
      await sleep(30);
    }
    fromSend.sort((a, b) => a - b);
    fromAck.sort((a, b) => a - b);
    emit({
      bench: 'inbox_wake',
      transport: 'http',
      waiters: WAITERS,
      wakes: fromSend.length,
      missed,
      errors: waitErrors,
      p50_ms_from_create_sent: percentile(fromSend, 50),
      p95_ms_from_create_sent: percentile(fromSend, 95),
      p50_ms_from_create_answered: percentile(fromAck, 50),
      p95_ms_from_create_answered: percentile(fromAck, 95),
      max_ms_from_create_sent: Math.round(fromSend[fromSend.length - 1] ?? NaN),
    });
    stop = true;
    // wake every waiter so its loop ends
    await Promise.all(waiters.map((w) => execute({ db, claims: sender.claims }, 'handoff_create', { to_actor_ids: [w.id], title: 'good night' })));
    await Promise.all(loops);

    // in-process: the heap a waiting call costs (no connection, a few objects)
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const local = await agents(db, ws.tenantId, 'local', WAITERS);
    const room = await waitRoom(db);
    const connectionsBefore = await connections();
    gc();
    const heap0 = process.memoryUsage().heapUsed;
    const pending = local.map((a) => execute({ db, claims: a.claims }, 'inbox', { wait_seconds: 30 }));
    while (room.size() < WAITERS) await sleep(50);
    gc();
    const heap1 = process.memoryUsage().heapUsed;
    emit({ bench: 'inbox_waiters', transport: 'in_process', db: db.kind, waiters: room.size(), heap_kb_per_waiter: Math.round((heap1 - heap0) / 1024 / WAITERS * 10) / 10,
      db_connections_before: connectionsBefore, db_connections_while_waiting: await connections() });
    await Promise.all(local.map((a) => execute({ db, claims: sender.claims }, 'handoff_create', { to_actor_ids: [a.id], title: 'wake up' })));
    await Promise.all(pending);

    // ---- handoff_claim race ----------------------------------------------------------------------
    const racers = await agents(db, ws.tenantId, 'racer', 16);
    const ids: string[] = [];
    for (let i = 0; i < 400; i++) {
      ids.push((await ok(execute({ db, claims: sender.claims }, 'handoff_create', { to_actor_ids: racers.map((r) => r.id), title: `race ${i}` }))).handoff_id);
    }
    await admin.query(`vacuum analyze`).catch(() => {});
    // every racer walks the whole list from its own offset until all are claimed: early on they
    // mostly win distinct handoffs, later they collide on the ones left
    let won = 0;
    let conflicts = 0;
    let other = 0;
    const t0 = performance.now();
    await Promise.all(
      racers.map(async (r, k) => {
        for (let j = 0; j < ids.length && won < ids.length; j++) {
          const env = await mcpCall(server.url, r.key, 'handoff_claim', { handoff_id: ids[(j + k * 25) % ids.length] }).catch(() => null);
          if (env?.ok) won++;
          else if ((env as { error?: { code: string } } | null)?.error?.code === 'CONFLICT') conflicts++;
          else other++;
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const rows = await db.query<{ n: number }>(`select count(*)::int n from handoffs where id = any($1::uuid[]) and status = 'claimed'`, [ids]);
    emit({
      bench: 'handoff_claim_race',
      transport: 'http',
      recipients: racers.length,
      handoffs: ids.length,
      claimed: rows[0].n,
      wins: won,
      conflicts,
      errors: other,
      attempts_per_s: Math.round((won + conflicts + other) / seconds),
      claims_per_s: Math.round(won / seconds),
      seconds: Math.round(seconds * 1000) / 1000,
    });
  } finally {
    await server.stop();
    await scratch.close();
  }
}

runBench(main);
