/**
 * Drives the fuzzer against a running `bullpen start` over HTTP: raw JSON-RPC POSTs to /api/mcp,
 * exactly what an MCP client sends. Two workspaces: A is fuzzed; B is seeded first and only its
 * ids are used (as "other workspace" ids in A's calls), and its rows are checksummed before and
 * after through the admin export, which must come out identical.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { exactInputJsonSchema } from '../../lib/core/json-schema';
import { getTool } from '../../lib/core/registry';
import { buildCall, checkResponse, emptyPool, toJson, uuidsIn, type FuzzContext, type IdPool, type Tool } from './engine';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export type HttpAnswer = { status: number; body: string; ms: number; retryAfter?: number };

/** One POST; resolves with whatever came back (a dropped connection is status 0). */
export function post(url: string, path: string, body: string, headers: Record<string, string>, timeoutMs = 30_000): Promise<HttpAnswer> {
  const u = new URL(url);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        hostname: u.hostname,
        port: u.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - t0,
            retryAfter: res.headers['retry-after'] ? Number(res.headers['retry-after']) : undefined,
          }),
        );
        res.on('error', (e) => resolve({ status: 0, body: `response error: ${e.message}`, ms: performance.now() - t0 }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', (e) => resolve({ status: 0, body: `request error: ${e.message}`, ms: performance.now() - t0 }));
    req.end(body);
  });
}

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/** A JSON-RPC request to /api/mcp; `params` may hold RawJson tokens. */
export function rpc(url: string, key: string, method: string, params: unknown, id = 1): Promise<HttpAnswer & { request: string }> {
  const request = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${toJson(params)}}`;
  return post(url, '/api/mcp', request, { ...MCP_HEADERS, authorization: `Bearer ${key}` }).then((a) => ({ ...a, request }));
}

/**
 * A tools/call that waits out a 429 as a well-behaved client does (Retry-After, at most 10 s a time,
 * 20 tries): a rate limit is the server working, not an answer to judge. onWait counts the waits.
 */
export async function callTool(url: string, key: string, name: string, args: unknown, id = 1, onWait?: () => void): Promise<HttpAnswer & { request: string }> {
  let a = await rpc(url, key, 'tools/call', { name, arguments: args }, id);
  for (let tries = 0; a.status === 429 && tries < 20; tries++) {
    onWait?.();
    await new Promise((r) => setTimeout(r, Math.min(10, a.retryAfter ?? 1) * 1000));
    a = await rpc(url, key, 'tools/call', { name, arguments: args }, id);
  }
  return a;
}

/** A tool call that must succeed (seeding, test writers); returns the envelope. Waits out 429s. */
export async function call(url: string, key: string, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const a = await callTool(url, key, name, args);
  if (a.status !== 200) throw new Error(`${name}: HTTP ${a.status} ${a.body.slice(0, 200)}`);
  const env = JSON.parse(JSON.parse(a.body).result.content[0].text);
  if (!env.ok) throw new Error(`${name} failed while seeding: ${env.error.code}: ${env.error.message}`);
  return env;
}

/**
 * The tools the server lists, each with the schema calls are built from: tools/list advertises
 * shapes without bounds, so a tool this checkout knows is built from the exact schema its
 * validator checks (plausible calls reach the product; the mutations still cross every bound).
 */
export async function listTools(url: string, key: string): Promise<Tool[]> {
  const a = await rpc(url, key, 'tools/list', {});
  if (a.status !== 200) throw new Error(`tools/list answered HTTP ${a.status}: ${a.body.slice(0, 200)}`);
  const listed = JSON.parse(a.body).result.tools as Tool[];
  return listed.map((t) => {
    const known = getTool(t.name);
    return known ? { ...t, inputSchema: exactInputJsonSchema(known) } : t;
  });
}

/** An agent key in a workspace (created when new), through the admin route `bullpen agent add` uses. */
export async function mintKey(url: string, adminToken: string, workspace: string, name: string): Promise<{ key: string; actorId: string }> {
  const a = await post(url, '/api/admin/agents', JSON.stringify({ name, workspace }), { 'x-bullpen-admin-token': adminToken });
  if (a.status !== 200) throw new Error(`agent add answered HTTP ${a.status}: ${a.body.slice(0, 200)}`);
  const r = JSON.parse(a.body) as { api_key: string; actor_id: string };
  return { key: r.api_key, actorId: r.actor_id };
}

/**
 * Gives a workspace something to point at — two projects, a small task graph, comments — and
 * collects every id it answered with, by kind.
 */
export async function seedWorkspace(url: string, key: string, prefix: string): Promise<IdPool> {
  const pool = emptyPool();
  const me = await call(url, key, 'whoami', {});
  pool.actorIds.push(me.actor.id);
  for (const [i, title] of ['Fuzz target', 'Second front'].entries()) {
    const p = await call(url, key, 'project_create', { title, key: `${prefix}${i}` });
    pool.projectIds.push(p.project_id);
    pool.projectKeys.push(p.key);
  }
  const many = await call(url, key, 'task_create_many', {
    project_id: pool.projectKeys[0],
    tasks: [
      { title: 'root', labels: ['fuzz'], acceptance_criteria: ['works'] },
      { title: 'child', depends_on: [{ batch_index: 0 }], priority: 0 },
      { title: 'leaf', depends_on: [{ batch_index: 1 }], assignee_actor_id: 'me' },
      { title: 'loose' },
    ],
  });
  for (const t of many.tasks as { task_id: string; ref: string }[]) {
    pool.taskIds.push(t.task_id);
    pool.taskRefs.push(t.ref);
  }
  const other = await call(url, key, 'task_create', { project_id: pool.projectKeys[1], title: 'elsewhere', parent_task_id: pool.taskRefs[0] });
  pool.taskIds.push(other.task_id);
  pool.taskRefs.push(other.ref);
  const c = await call(url, key, 'comment_add', { object_type: 'task', object_id: pool.taskRefs[0], body: 'seed comment' });
  pool.commentIds.push(c.comment_id);
  const c2 = await call(url, key, 'comment_add', { object_type: 'project', object_id: pool.projectKeys[0], body: 'project note' });
  pool.commentIds.push(c2.comment_id);
  // rooms that may or may not be there: whatever answers ok adds its ids to the pool
  const optional: [string, Record<string, unknown>][] = [
    ['handoff_create', { to_actor_ids: ['me'], title: 'seed handoff', related_task_id: pool.taskRefs[0] }],
    ['handoff_create', { to_actor_ids: ['me'], title: 'seed question', kind: 'question' }],
    ['decision_log', { title: 'seed decision', choice: 'this one', related_task_ids: [pool.taskRefs[0]] }],
    ['knowledge_write', { title: 'seed note', body: 'a runbook line', related_task_ids: [pool.taskRefs[1]] }],
    ['skill_upsert', { slug: `${prefix.toLowerCase()}-skill`, description: 'seed skill', body: '# steps' }],
    ['repo_register', { slug: `${prefix.toLowerCase()}/repo` }],
    ['code_ref_add', { object_type: 'task', object_id: pool.taskRefs[0], kind: 'commit', sha: 'a1b2c3d4e5f6' }],
    ['attach_add', { object_type: 'task', object_id: pool.taskRefs[0], kind: 'link', url: 'https://example.com/spec' }],
    ['feature_request_create', { title: 'seed request', body: 'it would help', kind: 'capability' }],
  ];
  for (const [tool, args] of optional) {
    const a = await rpc(url, key, 'tools/call', { name: tool, arguments: args });
    try {
      const env = JSON.parse(JSON.parse(a.body).result.content[0].text);
      // every top-level *_id the answer names goes to the pool
      if (env.ok) for (const [k, v] of Object.entries(env)) if (/_id$/.test(k) && typeof v === 'string') pool.otherIds.push(v);
    } catch {}
  }
  return pool;
}

const canonical = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonical).join(',')}]`
    : v && typeof v === 'object'
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
          .join(',')}}`
      : JSON.stringify(v);

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

export type Checksum = { sha256: string; rows: number; ids: string[]; tables: Record<string, string> };

/** sha256 over every row of a workspace (the admin export's tables, canonical JSON), per table too, and the row count. */
export async function workspaceChecksum(url: string, adminToken: string, workspace: string): Promise<Checksum> {
  const a = await post(url, '/api/admin/export', JSON.stringify({ workspace }), { 'x-bullpen-admin-token': adminToken }, 60_000);
  if (a.status !== 200) throw new Error(`export answered HTTP ${a.status}: ${a.body.slice(0, 200)}`);
  const doc = JSON.parse(a.body).export as { workspace: { id: string }; tables: Record<string, unknown[]> };
  const text = canonical(doc.tables);
  const rows = Object.values(doc.tables).reduce((n, r) => n + r.length, 0);
  const tables = Object.fromEntries(Object.entries(doc.tables).map(([k, v]) => [k, sha(canonical(v))]));
  return { sha256: sha(text), rows, ids: [...new Set([doc.workspace.id, ...uuidsIn(text)])], tables };
}

/**
 * The workspace's checksum once its own background work is done (embedding the notes and decisions
 * it was seeded with): two equal readings a second apart.
 */
export async function settledChecksum(url: string, adminToken: string, workspace: string, maxMs = 60_000): Promise<Checksum> {
  let prev = await workspaceChecksum(url, adminToken, workspace);
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 1000));
    const next = await workspaceChecksum(url, adminToken, workspace);
    if (next.sha256 === prev.sha256) return next;
    prev = next;
  }
  throw new Error(`workspace ${workspace} kept changing for ${maxMs / 1000} s with nobody writing to it`);
}

/** The tables whose rows differ between two checksums. */
export function changedTables(before: Checksum, after: Checksum): string[] {
  const names = new Set([...Object.keys(before.tables), ...Object.keys(after.tables)]);
  return [...names].filter((t) => before.tables[t] !== after.tables[t]);
}

export type FuzzFailure = { index: number; tool: string; mutations: string[]; problem: string; request: string };

export type FuzzReport = {
  seed: number;
  calls: number;
  tools: number;
  seconds: number;
  calls_per_second: number;
  http: Record<string, number>;
  outcomes: Record<string, number>;
  mutations: Record<string, number>;
  http_5xx: number;
  internal: number;
  unnamed_validation: number;
  leaks: number;
  no_answer: number;
  failures: number;
  /** 429s waited out (Retry-After) and sent again: a rate limit is the server working, not an answer to judge */
  rate_limited: number;
  /** failures grouped by kind (ids and numbers blanked), each with its count and first examples */
  failure_kinds: Record<string, { count: number; examples: FuzzFailure[] }>;
  liveness: { probes: number; ok: number; max_ms: number };
  p50_ms: number;
  p99_ms: number;
};

export type FuzzOptions = {
  url: string;
  key: string;
  tools: Tool[];
  ctx: FuzzContext;
  /** uuids of the other workspace: naming one in an answer is a leak */
  foreignIds: Iterable<string>;
  contractCodes: Iterable<string>;
  calls: number;
  seed: number;
  concurrency?: number;
  /** a whoami every this many calls must answer ok */
  probeEvery?: number;
  /**
   * The server's body limit: a larger request may be cut off after its 413 (EPIPE / reset while
   * still sending), which is the server refusing it, not failing.
   */
  maxBodyBytes?: number;
  /** only these call indexes (reproducing a failure) */
  only?: number[];
  onProgress?: (done: number, total: number) => void;
};

/** Runs the calls, `concurrency` at a time, and tallies every answer. */
export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const foreign = new Set([...o.foreignIds].map((s) => s.toLowerCase()));
  const contract = { codes: new Set(o.contractCodes) };
  const indexes = o.only?.length ? o.only : Array.from({ length: o.calls }, (_, i) => i);
  const tally = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);
  const r: FuzzReport = {
    seed: o.seed,
    calls: 0,
    tools: o.tools.length,
    seconds: 0,
    calls_per_second: 0,
    http: {},
    outcomes: {},
    mutations: {},
    http_5xx: 0,
    internal: 0,
    unnamed_validation: 0,
    leaks: 0,
    no_answer: 0,
    failures: 0,
    rate_limited: 0,
    failure_kinds: {},
    liveness: { probes: 0, ok: 0, max_ms: 0 },
    p50_ms: 0,
    p99_ms: 0,
  };
  const latencies: number[] = [];
  const probeEvery = o.probeEvery ?? 250;
  let next = 0;
  const t0 = performance.now();
  const fail = (f: FuzzFailure) => {
    r.failures++;
    const kind = `${f.tool}: ${f.problem}`
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
      .replace(/\d+/g, 'N')
      .slice(0, 140);
    const k = (r.failure_kinds[kind] ??= { count: 0, examples: [] });
    k.count++;
    if (k.examples.length < 2) k.examples.push({ ...f, problem: f.problem.slice(0, 500), request: f.request.slice(0, 400) });
  };
  const probe = async () => {
    r.liveness.probes++;
    const a = await callTool(o.url, o.key, 'whoami', { include: ['tasks'] });
    r.liveness.max_ms = Math.max(r.liveness.max_ms, Math.round(a.ms));
    const v = checkResponse(a.status, a.body, a.request, foreign, contract);
    if (v.outcome === 'ok') r.liveness.ok++;
    else fail({ index: -1, tool: 'whoami', mutations: ['liveness probe'], problem: `the server did not answer a plain whoami: ${v.outcome} ${v.problems.join('; ')}`, request: a.request });
  };
  const worker = async () => {
    for (;;) {
      const slot = next++;
      if (slot >= indexes.length) return;
      const index = indexes[slot];
      const c = buildCall(o.tools, o.seed, index, o.ctx);
      const a = await callTool(o.url, o.key, c.tool, c.args, index + 1, () => r.rate_limited++);
      latencies.push(a.ms);
      r.calls++;
      for (const m of c.mutations) tally(r.mutations, m);
      tally(r.http, String(a.status));
      if (a.status === 0 && Buffer.byteLength(a.request) > (o.maxBodyBytes ?? 1_048_576) && /EPIPE|ECONNRESET|socket hang up/.test(a.body)) {
        tally(r.outcomes, 'too_large_cut_off');
      } else if (a.status === 0) {
        r.no_answer++;
        fail({ index, tool: c.tool, mutations: c.mutations, problem: a.body, request: a.request });
      } else {
        const v = checkResponse(a.status, a.body, a.request, foreign, contract);
        tally(r.outcomes, v.outcome);
        if (a.status >= 500) r.http_5xx++;
        for (const p of v.problems) {
          if (p.startsWith('INTERNAL') || p.startsWith('JSON-RPC error -32603')) r.internal++;
          if (p.startsWith('VALIDATION_ERROR')) r.unnamed_validation++;
          if (p.startsWith('leak')) r.leaks++;
          fail({ index, tool: c.tool, mutations: c.mutations, problem: p, request: a.request });
        }
      }
      if (r.calls % probeEvery === 0) await probe();
      o.onProgress?.(r.calls, indexes.length);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency ?? 8 }, worker));
  await probe();
  r.seconds = Number(((performance.now() - t0) / 1000).toFixed(1));
  r.calls_per_second = Math.round(r.calls / Math.max(r.seconds, 0.001));
  latencies.sort((a, b) => a - b);
  r.p50_ms = Math.round(latencies[Math.floor(latencies.length * 0.5)] ?? 0);
  r.p99_ms = Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0);
  return r;
}

/** The figures as a few lines for a terminal or a test log. */
export function summary(r: FuzzReport, checksum: { before: string; after: string; rows: number; changed?: string[] }): string {
  const top = (m: Record<string, number>) =>
    Object.entries(m)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
  return [
    `fuzz: ${r.calls} calls over ${r.tools} tools in ${r.seconds} s (${r.calls_per_second}/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms), seed ${r.seed}`,
    `  HTTP: ${top(r.http)}`,
    `  answers: ${top(r.outcomes)}`,
    `  mutations: ${top(r.mutations)}`,
    ...(r.rate_limited ? [`  rate limited ${r.rate_limited}× (waited out with Retry-After, then sent again)`] : []),
    `  5xx ${r.http_5xx} · INTERNAL ${r.internal} · validation errors without a field ${r.unnamed_validation} · leaks of the other workspace ${r.leaks} · no answer ${r.no_answer}`,
    `  liveness: ${r.liveness.ok}/${r.liveness.probes} whoami probes ok (slowest ${r.liveness.max_ms} ms)`,
    `  other workspace: ${checksum.rows} rows, sha256 ${checksum.before.slice(0, 16)}… before, ${checksum.after.slice(0, 16)}… after: ${checksum.before === checksum.after ? 'unchanged' : `CHANGED (${(checksum.changed ?? []).join(', ')})`}`,
    `  failures: ${r.failures}${r.failures ? ` in ${Object.keys(r.failure_kinds).length} kinds` : ''}`,
    ...Object.entries(r.failure_kinds)
      .sort((a, b) => b[1].count - a[1].count)
      .map(
        ([kind, k]) =>
          `    ${k.count}× ${kind.replace(/\s+/g, ' ')}\n` +
          k.examples.map((f) => `      #${f.index} [${f.mutations.join(', ')}] ${f.request.slice(0, 240)}${f.problem.length > 140 ? `\n        ${f.problem.slice(0, 400)}` : ''}`).join('\n'),
      ),
  ].join('\n');
}
