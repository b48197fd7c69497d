/**
 * Fair sharing between workspaces: a quiet workspace's latency, alone and next to a noisy one that
 * offers ten times its load, over MCP tools/call against `bullpen start` on one Postgres.
 *
 *   quiet  QUIET_CLIENTS clients, each one task_query every 1/RATE s (paced, closed loop)
 *   noisy  10 × as many clients at the same pace, spread over several keys
 *
 * Phases, interleaved over ROUNDS rounds (so whatever else runs on the machine weighs on both
 * alike): the quiet workspace alone, then both at once — on a server with the shipped limits
 * (per-key and per-workspace rate limits, the per-workspace concurrency cap), then the same load on
 * a server with every limit off (the control). Target: with the limits, the noisy workspace raises
 * the quiet one's p99 by at most 2×. Prints JSON lines for both workspaces in every phase.
 *
 * Same workspace (BENCH_FAIR_CASE=same-workspace, or all): one key floods (the same tenfold load,
 * from a single key) while another key of the same workspace works at its quiet pace. The limits
 * charge the key first and a refused call costs the workspace nothing, so the quiet key keeps at
 * least 95 % of its calls answered and its p99 within 2× of its p99 alone.
 */
import http from 'node:http';
import { loadavg } from 'node:os';
import type { Db } from '../lib/db/types';
import { emit, mcpPost, percentile, scratchDatabase, seedWorkspace, startServer, runBench } from './lib';

const SECONDS = Number(process.env.BENCH_FAIR_SECONDS ?? 5); // per phase per round
const ROUNDS = Number(process.env.BENCH_FAIR_ROUNDS ?? 6);
const QUIET_CLIENTS = Number(process.env.BENCH_FAIR_QUIET_CLIENTS ?? 4);
const RATE = Number(process.env.BENCH_FAIR_RATE ?? 5); // calls per second per client
const FACTOR = 10;
const NOISY_KEYS = 10;

/** A workspace with 300 todo tasks in project FAIR and `agents` agents; their keys. */
async function seed(db: Db, name: string, agents: number) {
  const ws = await seedWorkspace(db, { name, tasks: 300, project: 'FAIR', agents, keys: true });
  return ws.agents.map((a) => a.key);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'task_query', arguments: { project_id: 'FAIR', limit: 20 } } });

/** One tools/call; resolves to its HTTP status and whether the envelope was ok. */
async function call(url: URL, key: string): Promise<{ status: number; ok: boolean }> {
  try {
    const { status, text } = await mcpPost(url, key, BODY, agent);
    let ok = false;
    try {
      const msg = JSON.parse(text);
      ok = !!msg.result && JSON.parse(msg.result.content[0].text).ok === true;
    } catch {
      ok = false;
    }
    return { status, ok };
  } catch {
    return { status: 0, ok: false };
  }
}

type Tally = { latencies: number[]; ok: number; limited: number; busy: number; other: number };

/** Paced clients: each sends one call, waits for it, then waits out the rest of its 1/RATE s slot. */
async function drive(url: URL, keys: string[], clients: number, until: number, tally: Tally) {
  const period = 1000 / RATE;
  await Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const key = keys[i % keys.length];
      // spread the clients over the first period so they do not fire in lockstep
      await new Promise((r) => setTimeout(r, (period * i) / clients));
      while (Date.now() < until) {
        const t0 = performance.now();
        const r = await call(url, key);
        const ms = performance.now() - t0;
        if (r.ok) {
          tally.ok++;
          tally.latencies.push(ms);
        } else if (r.status === 429) tally.limited++;
        else if (r.status === 503) tally.busy++;
        else tally.other++;
        const wait = period - ms;
        if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      }
    }),
  );
}

const fresh = (): Tally => ({ latencies: [], ok: 0, limited: 0, busy: 0, other: 0 });

function report(server: string, phase: string, tenant: string, clients: number, t: Tally, seconds: number) {
  const sorted = [...t.latencies].sort((a, b) => a - b);
  const rec = {
    bench: 'fairness',
    server,
    phase,
    tenant,
    clients,
    offered_per_s: clients * RATE,
    ok_per_s: Math.round(t.ok / seconds),
    rate_limited: t.limited,
    busy: t.busy,
    errors: t.other,
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
  };
  emit(rec);
  return rec;
}

async function runServer(label: string, dbUrl: string, env: Record<string, string>, quietKeys: string[], noisyKeys: string[]) {
  const server = await startServer({ DATABASE_URL: dbUrl, ...env });
  const url = new URL(server.url);
  try {
    // warm up: both workspaces, a few seconds
    await Promise.all([
      drive(url, quietKeys, QUIET_CLIENTS, Date.now() + 2000, fresh()),
      drive(url, noisyKeys, QUIET_CLIENTS, Date.now() + 2000, fresh()),
    ]);
    const alone = fresh();
    const quiet = fresh();
    const noisy = fresh();
    for (let r = 0; r < ROUNDS; r++) {
      await drive(url, quietKeys, QUIET_CLIENTS, Date.now() + SECONDS * 1000, alone);
      // let the noisy workspace's buckets refill, so every round starts from the same state
      await new Promise((res) => setTimeout(res, 2500));
      const until = Date.now() + SECONDS * 1000;
      await Promise.all([drive(url, quietKeys, QUIET_CLIENTS, until, quiet), drive(url, noisyKeys, QUIET_CLIENTS * FACTOR, until, noisy)]);
    }
    const quietAlone = report(label, 'alone', 'quiet', QUIET_CLIENTS, alone, SECONDS * ROUNDS);
    const quietBusy = report(label, 'contended', 'quiet', QUIET_CLIENTS, quiet, SECONDS * ROUNDS);
    report(label, 'contended', 'noisy', QUIET_CLIENTS * FACTOR, noisy, SECONDS * ROUNDS);
    const ratio = Math.round((quietBusy.p99_ms / quietAlone.p99_ms) * 100) / 100;
    return { ratio, quietAlone, quietBusy };
  } finally {
    await server.stop();
  }
}

/** One key floods, another key of the same workspace works at its quiet pace: answered share and p99 of the quiet key. */
async function runSameWorkspace(dbUrl: string, quietKey: string, floodKey: string) {
  const label = 'limits on (defaults), same workspace';
  const server = await startServer({ DATABASE_URL: dbUrl });
  const url = new URL(server.url);
  try {
    await drive(url, [quietKey], QUIET_CLIENTS, Date.now() + 2000, fresh());
    const alone = fresh();
    const quiet = fresh();
    const flood = fresh();
    for (let r = 0; r < ROUNDS; r++) {
      await drive(url, [quietKey], QUIET_CLIENTS, Date.now() + SECONDS * 1000, alone);
      // let the buckets refill, so every round starts from the same state
      await new Promise((res) => setTimeout(res, 2500));
      const until = Date.now() + SECONDS * 1000;
      await Promise.all([drive(url, [quietKey], QUIET_CLIENTS, until, quiet), drive(url, [floodKey], QUIET_CLIENTS * FACTOR, until, flood)]);
    }
    const quietAlone = report(label, 'alone', 'quiet key', QUIET_CLIENTS, alone, SECONDS * ROUNDS);
    const quietBusy = report(label, 'contended', 'quiet key', QUIET_CLIENTS, quiet, SECONDS * ROUNDS);
    report(label, 'contended', 'flooding key', QUIET_CLIENTS * FACTOR, flood, SECONDS * ROUNDS);
    const calls = quiet.ok + quiet.limited + quiet.busy + quiet.other;
    const answered = calls ? Math.round((quiet.ok / calls) * 1000) / 1000 : 0;
    const ratio = Math.round((quietBusy.p99_ms / quietAlone.p99_ms) * 100) / 100;
    const floodCalls = flood.ok + flood.limited + flood.busy + flood.other;
    emit({
      bench: 'fairness',
      summary: true,
      case: 'same-workspace',
      load_average_1m: Math.round(loadavg()[0] * 100) / 100,
      quiet_answered_ratio: answered,
      quiet_p99_ratio: ratio,
      flood_refused_ratio: floodCalls ? Math.round((flood.limited / floodCalls) * 1000) / 1000 : 0,
      target_answered_ratio: 0.95,
      target_ratio: 2,
      met: answered >= 0.95 && ratio <= 2,
    });
  } finally {
    await server.stop();
  }
}

async function main() {
  const scratch = await scratchDatabase({ prefix: 'bp_fair', pool: { max: 4 } });
  const { db, url } = scratch;
  const which = process.env.BENCH_FAIR_CASE ?? 'all';
  try {
    if (which === 'same-workspace' || which === 'all') {
      const [quietKey, floodKey] = await seed(db, 'shared', 2);
      await db.query('analyze');
      await runSameWorkspace(url, quietKey, floodKey);
      if (which === 'same-workspace') return;
    }
    const quietKeys = await seed(db, 'quiet', 2);
    const noisyKeys = await seed(db, 'noisy', NOISY_KEYS);
    await db.query('analyze');
    const shipped = await runServer('limits on (defaults)', url, {}, quietKeys, noisyKeys);
    if (process.env.BENCH_FAIR_CONTROL === '0') {
      emit({ bench: 'fairness', summary: true, quiet_p99_ratio_with_limits: shipped.ratio, target_ratio: 2, met: shipped.ratio <= 2 });
      return;
    }
    const control = await runServer(
      'limits off',
      url,
      { BULLPEN_RATE_KEY_PER_SECOND: '0', BULLPEN_RATE_WORKSPACE_PER_SECOND: '0', BULLPEN_WORKSPACE_CONCURRENCY: '1000' },
      quietKeys,
      noisyKeys,
    );
    emit({
      bench: 'fairness',
      summary: true,
      load_average_1m: Math.round(loadavg()[0] * 100) / 100,
      quiet_p99_ratio_with_limits: shipped.ratio,
      quiet_p99_ratio_without_limits: control.ratio,
      target_ratio: 2,
      met: shipped.ratio <= 2,
    });
  } finally {
    await scratch.close();
  }
}

runBench(main);
