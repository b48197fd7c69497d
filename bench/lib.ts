import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../lib/db/migrate';
import { openPg } from '../lib/db/pg';
import type { Claims, Db } from '../lib/db/types';
import { ensureActor, ensureWorkspace, mintKey } from '../lib/server/workspace';
import { startLocalPostgres } from '../scripts/pg-local.mjs';
import { spawnServer } from '../scripts/server-process.mjs';

export const root = path.resolve(import.meta.dirname, '..');

export { emit, percentile } from './_common.mjs';

export { freePort } from '../scripts/server-process.mjs';

/**
 * Runs a bench's `main` as the script's entry point: a failure is printed and the process exits 1,
 * so `npm run bench` sees it; success leaves the exit to the event loop.
 */
export function runBench(main: () => Promise<void>): void {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * The first fields of a bench's `env` row: the bench's file, the Postgres version `client` reports,
 * Node's version, the machine's cores and its 1-minute load average. The bench spreads its own
 * settings after them and emits the row before its figures.
 */
export async function envFields(benchFile: string, client: { query: (sql: string) => Promise<{ rows: Record<string, unknown>[] }> }): Promise<Record<string, unknown>> {
  const version = (await client.query('show server_version')).rows[0].server_version;
  return { bench: 'env', bench_file: benchFile, postgres: version, node: process.version, cores: os.cpus().length, load_average_1m: os.loadavg()[0] };
}

/** Starts `bullpen start` against the given database; resolves when it listens. */
export async function startServer(env: Record<string, string>): Promise<{ url: string; pid: number; dir: string; stop: () => Promise<void> }> {
  const server = await spawnServer({ label: 'bench', env });
  return { url: server.url, pid: server.pid as number, dir: server.dir, stop: server.stop };
}

/**
 * Rate-limit settings for benches that measure throughput: buckets too large to empty, so every
 * call still pays for its check and none is refused; BENCH_RATE_LIMITS=off skips the check.
 */
export function unlimitedRates(): Record<string, string> {
  return process.env.BENCH_RATE_LIMITS === 'off'
    ? { BULLPEN_RATE_KEY_PER_SECOND: '0', BULLPEN_RATE_WORKSPACE_PER_SECOND: '0' }
    : { BULLPEN_RATE_KEY_PER_SECOND: '1000000', BULLPEN_RATE_WORKSPACE_PER_SECOND: '1000000' };
}

// ---------------------------------------------------------------------------------------------
// A throwaway database: the cluster from DATABASE_URL (npm run bench starts one) or a local one,
// a scratch database in it, migrated, dropped at the end.
// ---------------------------------------------------------------------------------------------

export type Scratch = {
  /** The scratch database's URL (what the server and the bench's pools connect to). */
  url: string;
  /** A superuser-ish connection to the cluster's maintenance database. */
  admin: pg.Client;
  /** The scratch database's name. */
  name: string;
  /** The migrated database through the product's own port. */
  db: Db;
  /** Whether this process started the cluster (and so may choose its settings). */
  localCluster: boolean;
  /** The server log of a cluster this process started (null on DATABASE_URL's). */
  log: string | null;
  /** Drops the database (with force) and stops a cluster this process started. */
  close: () => Promise<void>;
};

/**
 * Creates and migrates a scratch database. pgSettings apply only when a local cluster is started:
 * when no DATABASE_URL is given, or always with ownCluster (for settings a shared cluster cannot
 * take, such as preloaded libraries); databaseSettings (`alter database … set`) apply to every
 * session of the scratch database, and are set before any pool connects.
 */
export async function scratchDatabase(opts: {
  prefix: string;
  pool?: { max?: number };
  pgSettings?: Record<string, string>;
  databaseSettings?: Record<string, string>;
  migrate?: boolean;
  ownCluster?: boolean;
}): Promise<Scratch> {
  let local: { url: string; stop: () => void; log: string } | null = null;
  let adminUrl = opts.ownCluster ? undefined : process.env.DATABASE_URL;
  if (!adminUrl) {
    local = await startLocalPostgres({ settings: opts.pgSettings });
    if (!local) throw new Error('bench needs Postgres: set DATABASE_URL or install postgresql');
    adminUrl = local.url;
  }
  const name = `${opts.prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  for (const [k, v] of Object.entries(opts.databaseSettings ?? {})) {
    await admin.query(`alter database ${name} set ${k} = ${admin.escapeLiteral(v)}`);
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const db = await openPg(url, opts.pool);
  const drop = async () => {
    await db.close().catch(() => {});
    // let sockets that are still closing finish before the drop ends whatever is left
    await new Promise((r) => setTimeout(r, 300));
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end().catch(() => {});
    local?.stop();
  };
  if (opts.migrate !== false) {
    try {
      await migrate(db);
    } catch (err) {
      await drop();
      throw err;
    }
  }
  let closed = false;
  return {
    url,
    admin,
    name,
    db,
    localCluster: !!local,
    log: local?.log ?? null,
    close: async () => {
      if (closed) return;
      closed = true;
      await drop();
    },
  };
}

export type BenchAgent = { id: string; key: string; claims: Claims };

/** Registers n agents in a workspace (with an API key each when keys is set). */
export async function addAgents(
  db: Db,
  tenantId: string,
  prefix: string,
  n: number,
  opts: { keys?: boolean; runId?: (i: number) => string } = {},
): Promise<BenchAgent[]> {
  const out: BenchAgent[] = [];
  for (let i = 0; i < n; i++) {
    const a = await ensureActor(db, tenantId, { kind: 'agent', external_ref: `agent:${prefix}-${i}`, display_name: `${prefix}-${i}` });
    const key = opts.keys === false ? '' : (await mintKey(db, tenantId, a.id)).api_key;
    out.push({ id: a.id, key, claims: { sub: a.id, role: 'authenticated', tenant_id: tenantId, actor_id: a.id, run_id: opts.runId?.(i) ?? `${prefix}-${i}` } });
  }
  return out;
}

export type SeededWorkspace = { tenantId: string; ownerId: string; projectId: string | null; projectKey: string | null; agents: BenchAgent[] };

/**
 * A workspace as benches need it: an owner, optionally a project KEY holding `tasks` todo tasks
 * (priorities 0–4, label `bench`) inserted in one statement, and `agents` agents with keys.
 */
export async function seedWorkspace(
  db: Db,
  opts: { name: string; tasks?: number; project?: string; agents?: number; keys?: boolean; runId?: (i: number) => string },
): Promise<SeededWorkspace> {
  const ws = await ensureWorkspace(db, `${opts.name}-${randomBytes(3).toString('hex')}`);
  const owner = await ensureActor(db, ws.id, { kind: 'human', external_ref: 'human:bench', display_name: 'Bench owner', is_owner: true });
  let projectId: string | null = null;
  const projectKey = opts.project ?? (opts.tasks ? 'BENCH' : null);
  if (projectKey) {
    const [project] = await db.query<{ id: string }>(
      `insert into public.projects (tenant_id, key, title, owner_actor_id, task_seq) values ($1, $2, $3, $4, $5) returning id`,
      [ws.id, projectKey, projectKey, owner.id, opts.tasks ?? 0],
    );
    projectId = project.id;
    if (opts.tasks) {
      await db.query(
        `insert into public.tasks (tenant_id, project_id, seq, title, priority, created_by_actor_id, labels)
         select $1, $2, g, 'bench task ' || g, g % 5, $3, array['bench'] from generate_series(1, $4) g`,
        [ws.id, projectId, owner.id, opts.tasks],
      );
      await db.query('analyze public.tasks');
    }
  }
  const agents = await addAgents(db, ws.id, opts.name, opts.agents ?? 0, { keys: opts.keys, runId: opts.runId });
  return { tenantId: ws.id, ownerId: owner.id, projectId, projectKey, agents };
}

/** Adds `n` more todo tasks to a seeded project (numbered after the last one). */
export async function addTasks(db: Db, ws: SeededWorkspace, n: number): Promise<void> {
  if (!ws.projectId) throw new Error('the workspace has no project');
  await db.query(
    `with p as (update public.projects set task_seq = task_seq + $4 where tenant_id = $1 and id = $2 returning task_seq - $4 as base)
     insert into public.tasks (tenant_id, project_id, seq, title, priority, created_by_actor_id, labels)
     select $1, $2, p.base + g, 'bench task ' || (p.base + g), g % 5, $3, array['bench'] from p, generate_series(1, $4) g`,
    [ws.tenantId, ws.projectId, ws.ownerId, n],
  );
}

/** The bare claim statement: what task_claim does at its core, with nothing around it (the ceiling). */
export const BARE_CLAIM_SQL = `with c as (
    select id from public.tasks
     where tenant_id = $1 and status = 'todo'
       and (assignee_actor_id is null or assignee_actor_id = $2)
     order by priority, created_at, id limit 1 for update skip locked)
  update public.tasks t set status = 'in_progress', assignee_actor_id = $2, lease_actor_id = $2,
         lease_expires_at = now() + interval '1 hour'
    from c where t.tenant_id = $1 and t.id = c.id returning t.id`;

// ---------------------------------------------------------------------------------------------
// CPU from the processes' own accounting (/proc/<pid>/stat), so a reader sees where time goes.
// ---------------------------------------------------------------------------------------------

let ticksPerSecond: number | null = null;

/** The kernel's clock ticks per second (`getconf CLK_TCK`), the unit of /proc/<pid>/stat times. */
export function clockTicks(): number {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

type Stat = { pid: number; ppid: number; comm: string; ticks: number };

function readStat(pid: number | string): Stat | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm is in parentheses and may hold spaces; the fields after it are space-separated
    const close = s.lastIndexOf(')');
    const comm = s.slice(s.indexOf('(') + 1, close);
    const f = s.slice(close + 2).split(' ');
    // f[0] = state (field 3), so field n is f[n - 3]: ppid 4, utime 14, stime 15, cutime 16, cstime 17
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    return { pid: Number(pid), ppid: Number(f[1]), comm, ticks };
  } catch {
    return null;
  }
}

/**
 * CPU ticks of a process and all its descendants: utime + stime of each, plus cutime + cstime
 * (children that exited and were reaped), so a backend that ends between two samples still counts.
 */
export function treeTicks(rootPid: number): number {
  const all: Stat[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const s = readStat(d);
    if (s) all.push(s);
  }
  const children = new Map<number, Stat[]>();
  for (const s of all) {
    const list = children.get(s.ppid) ?? [];
    list.push(s);
    children.set(s.ppid, list);
  }
  const rootStat = all.find((s) => s.pid === rootPid);
  if (!rootStat) return NaN;
  let total = 0;
  const stack = [rootStat];
  while (stack.length) {
    const s = stack.pop()!;
    total += s.ticks;
    stack.push(...(children.get(s.pid) ?? []));
  }
  return total;
}

/** A process and its descendants now, for sampling them often without walking /proc each time. */
export function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const s = readStat(d);
    if (!s) continue;
    const list = children.get(s.ppid) ?? [];
    list.push(s.pid);
    children.set(s.ppid, list);
  }
  const out: number[] = [];
  const stack = [rootPid];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** CPU ticks of the given processes (those that have exited count as 0). */
export function ticksOf(pids: number[]): number {
  let total = 0;
  for (const pid of pids) total += readStat(pid)?.ticks ?? 0;
  return total;
}

/** Busy and total ticks of the whole machine (/proc/stat), to show how loaded it was. */
export function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = v[3] + (v[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * The postmaster of the cluster a client is connected to, when it runs on this machine: the parent
 * of the client's backend. Null when /proc does not show it (a remote server).
 */
export async function postmasterPid(client: { query: (sql: string) => Promise<{ rows: Record<string, unknown>[] }> }): Promise<number | null> {
  const { rows } = await client.query('select pg_backend_pid() as pid');
  const backend = readStat(Number(rows[0].pid));
  if (!backend) return null;
  const parent = readStat(backend.ppid);
  return parent && /postgres|postmaster/.test(parent.comm) ? parent.pid : null;
}

export type CpuSample = { at: number; server: number; postgres: number; bench: number; machineBusy: number; machineTotal: number };

/** Samples the CPU of the server tree, the Postgres tree, this process and the machine. */
export function cpuSampler(serverPid: number | null, pgPid: number | null) {
  const sample = (): CpuSample => {
    const m = machineTicks();
    const own = process.cpuUsage();
    return {
      at: performance.now(),
      server: serverPid ? treeTicks(serverPid) : NaN,
      postgres: pgPid ? treeTicks(pgPid) : NaN,
      bench: ((own.user + own.system) / 1e6) * clockTicks(),
      machineBusy: m.busy,
      machineTotal: m.total,
    };
  };
  /** CPU between two samples: ms per call on each side, and the machine's load over the window. */
  const split = (a: CpuSample, b: CpuSample, calls: number) => {
    const ms = (ticks: number) => (ticks * 1000) / clockTicks();
    const perCall = (ticks: number) => (Number.isFinite(ticks) && calls > 0 ? Math.round((ms(ticks) / calls) * 1000) / 1000 : null);
    const seconds = (b.at - a.at) / 1000;
    const cores = (ticks: number) => (Number.isFinite(ticks) ? Math.round((ms(ticks) / 1000 / seconds) * 100) / 100 : null);
    const machineBusyCores = ((b.machineBusy - a.machineBusy) / Math.max(1, b.machineTotal - a.machineTotal)) * (cpuCount());
    const known = [b.server - a.server, b.postgres - a.postgres, b.bench - a.bench].filter(Number.isFinite).reduce((x, y) => x + y, 0);
    return {
      cpu_ms_per_call_node: perCall(b.server - a.server),
      cpu_ms_per_call_postgres: perCall(b.postgres - a.postgres),
      cpu_ms_per_call_load_generator: perCall(b.bench - a.bench),
      cores_node: cores(b.server - a.server),
      cores_postgres: cores(b.postgres - a.postgres),
      cores_load_generator: cores(b.bench - a.bench),
      // everything else on the machine meanwhile (other work sharing the cores)
      cores_other: Math.round(Math.max(0, machineBusyCores - ms(known) / 1000 / seconds) * 100) / 100,
      machine_busy_cores: Math.round(machineBusyCores * 100) / 100,
    };
  };
  return { sample, split };
}

function cpuCount(): number {
  return readFileSync('/proc/stat', 'utf8').split('\n').filter((l) => /^cpu\d+ /.test(l)).length || 1;
}

// ---------------------------------------------------------------------------------------------
// MCP over HTTP
// ---------------------------------------------------------------------------------------------

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/**
 * One JSON-RPC POST to /api/mcp (the streamable-HTTP transport in JSON mode) with the bearer key:
 * the answer's status and body text. Rejects only when the request itself fails.
 */
export function mcpPost(url: string | URL, key: string, body: string, via: http.Agent = agent): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent: via,
        hostname: u.hostname,
        port: u.port,
        path: '/api/mcp',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${key}`,
          'mcp-protocol-version': '2025-06-18',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One MCP tools/call over HTTP; resolves to the tool's envelope. */
export async function mcpCall(url: string, key: string, name: string, args: Record<string, unknown>): Promise<{ ok: boolean; [k: string]: unknown }> {
  const { status, text } = await mcpPost(url, key, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }));
  const msg = JSON.parse(text);
  if (msg.error) throw new Error(`HTTP ${status}: ${msg.error.message}`);
  return JSON.parse(msg.result.content[0].text);
}
