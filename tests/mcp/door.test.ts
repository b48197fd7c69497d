import http from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, describe, expect, inject, it } from 'vitest';

/**
 * The front door against `bullpen start`: one door for every key (scoped keys on /api/files),
 * limits that unknown keys cannot dodge, Origin exactly the server's own, pages that refuse to be
 * framed, the import route's own body limit, and refusals a client can read on a connection it keeps.
 */

const server = inject('server');
const base = new URL(server.url);
const port = Number(base.port);

type Answer = { status: number; headers: http.IncomingHttpHeaders; text: string; socket: Socket };

/** One request on the given agent (keep-alive: the next request reuses the socket), from a chosen local address. */
function send(agent: http.Agent | undefined, method: string, path: string, headers: Record<string, string | number>, body?: string | Buffer, localAddress?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const length = body !== undefined && headers['transfer-encoding'] === undefined ? { 'content-length': Buffer.byteLength(body) } : {};
    const req = http.request({ agent, host: '127.0.0.1', port, method, path, localAddress, headers: { host: `localhost:${port}`, ...length, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, socket: res.socket as Socket }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const MCP = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const call = (id: number | string, name: string, args: object, pad = 0) =>
  JSON.stringify({ method: 'tools/call', params: { name, arguments: { ...args, ...(pad ? { padding: 'x'.repeat(pad) } : {}) } }, jsonrpc: '2.0', id });

async function admin(route: string, body: unknown): Promise<Record<string, any>> {
  const res = await fetch(`${server.url}/api/admin/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-bullpen-admin-token': server.adminToken },
    body: JSON.stringify(body),
  });
  return { status: res.status, ...(await res.json()) };
}

const agents: http.Agent[] = [];
const keepAlive = () => {
  const a = new http.Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(a);
  return a;
};
afterAll(() => agents.forEach((a) => a.destroy()));

describe('refusals a client can read', () => {
  it('answers an oversized call with a JSON-RPC error carrying its id and the envelope, and keeps the connection: the next call on the same socket is answered', async () => {
    const agent = keepAlive();
    const auth = { ...MCP, authorization: `Bearer ${server.key}` };
    const big = await send(agent, 'POST', '/api/mcp', auth, call(41, 'task_query', {}, 1_200_000));
    expect(big.status).toBe(413);
    const msg = JSON.parse(big.text);
    expect(msg).toMatchObject({ jsonrpc: '2.0', id: 41, error: { code: -32600, data: { ok: false, error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('bytes') } } } });
    expect(big.headers.connection).not.toBe('close');
    const next = await send(agent, 'POST', '/api/mcp', auth, call(42, 'whoami', {}));
    expect(next.status).toBe(200);
    expect(JSON.parse(next.text).id).toBe(42);
    expect(next.socket).toBe(big.socket);
  });

  it('answers a chunked oversized call the same way', async () => {
    const agent = keepAlive();
    const auth = { ...MCP, authorization: `Bearer ${server.key}`, 'transfer-encoding': 'chunked' };
    const big = await send(agent, 'POST', '/api/mcp', auth, call('big-1', 'task_query', {}, 1_100_000));
    expect(big.status).toBe(413);
    expect(JSON.parse(big.text)).toMatchObject({ id: 'big-1', error: { data: { error: { code: 'PAYLOAD_TOO_LARGE' } } } });
    const next = await send(agent, 'POST', '/api/mcp', { ...MCP, authorization: `Bearer ${server.key}` }, call(2, 'whoami', {}));
    expect(next.status).toBe(200);
    expect(next.socket).toBe(big.socket);
  });

  it('answers refusals for auth, host and origin as JSON-RPC errors with the id, on a connection that survives', async () => {
    const agent = keepAlive();
    const noKey = await send(agent, 'POST', '/api/mcp', MCP, call(7, 'whoami', {}, 50_000));
    expect(noKey.status).toBe(401);
    expect(noKey.headers['www-authenticate']).toMatch(/resource_metadata=/);
    expect(JSON.parse(noKey.text)).toMatchObject({ id: 7, error: { code: -32001, data: { ok: false, error: { code: 'UNAUTHENTICATED' } } } });
    const host = await send(agent, 'POST', '/api/mcp', { ...MCP, host: 'evil.example.com', authorization: `Bearer ${server.key}` }, call(8, 'whoami', {}));
    expect(host.status).toBe(403);
    expect(JSON.parse(host.text)).toMatchObject({ id: 8, error: { data: { error: { code: 'FORBIDDEN', message: expect.stringContaining('host') } } } });
    const origin = await send(agent, 'POST', '/api/mcp', { ...MCP, origin: `http://localhost:${port + 1}`, authorization: `Bearer ${server.key}` }, call(9, 'whoami', {}));
    expect(origin.status).toBe(403);
    expect(JSON.parse(origin.text)).toMatchObject({ id: 9, error: { data: { error: { code: 'FORBIDDEN', message: expect.stringContaining('origin') } } } });
    const fine = await send(agent, 'POST', '/api/mcp', { ...MCP, authorization: `Bearer ${server.key}` }, call(10, 'whoami', {}));
    expect(fine.status).toBe(200);
    for (const a of [host, origin, fine]) expect(a.socket).toBe(noKey.socket);
  });
});

describe('one door for every key', () => {
  it('holds a tasks:read key to its scopes on /api/files: no upload, no download', async () => {
    const full = await admin('agents', { name: 'door-filer', workspace: server.workspace });
    const scoped = await admin('agents', { name: 'door-reader', workspace: server.workspace, scopes: 'tasks:read' });
    const mk = async (method: string, args: object) => {
      const r = await send(undefined, 'POST', '/api/mcp', { ...MCP, authorization: `Bearer ${full.api_key}` }, call(1, method, args));
      return JSON.parse(JSON.parse(r.text).result.content[0].text);
    };
    await mk('project_create', { title: 'Door files', key: 'DOORF' });
    const task = await mk('task_create', { project_id: 'DOORF', title: 'with a file' });
    const path = `/api/files?object_type=task&object_id=${task.task.id}&filename=a.txt`;
    const denied = await send(undefined, 'POST', path, { 'content-type': 'text/plain', authorization: `Bearer ${scoped.api_key}` }, 'hello');
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.text).error).toMatchObject({ code: 'FORBIDDEN', details: { required_scope: 'attachments' } });
    expect(denied.headers['www-authenticate']).toMatch(/insufficient_scope/);
    const up = await send(undefined, 'POST', path, { 'content-type': 'text/plain', authorization: `Bearer ${full.api_key}` }, 'hello');
    expect(up.status).toBe(201);
    const id = JSON.parse(up.text).attachment?.id ?? JSON.parse(up.text).id;
    expect(id).toBeTruthy();
    const down = await send(undefined, 'GET', `/api/files/${id}`, { authorization: `Bearer ${scoped.api_key}` });
    expect(down.status).toBe(403);
    expect((await send(undefined, 'GET', `/api/files/${id}`, { authorization: `Bearer ${full.api_key}` })).text).toBe('hello');
    // a revoked key is refused here as on /api/mcp
    await admin('keys', { action: 'revoke', key: full.key_id, workspace: server.workspace });
    expect((await send(undefined, 'GET', `/api/files/${id}`, { authorization: `Bearer ${full.api_key}` })).status).toBe(401);
  });

  it('limits random keys per client address before any lookup, on /api/mcp and /api/files alike', async () => {
    // from an address of its own, so the other tests' bucket is not touched
    const from = '127.0.0.77';
    const statuses: number[] = [];
    let limitedRpc: any = null;
    const t0 = Date.now();
    for (let i = 0; i < 120; i++) {
      const key = `bp_live_${Math.random().toString(36).slice(2)}${'q'.repeat(30)}`;
      const r = i % 2
        ? await send(undefined, 'POST', '/api/mcp', { ...MCP, authorization: `Bearer ${key}` }, call(i, 'whoami', {}), from)
        : await send(undefined, 'GET', '/api/files/00000000-0000-0000-0000-000000000000', { authorization: `Bearer ${key}` }, undefined, from);
      statuses.push(r.status);
      if (i % 2 && r.status === 429) limitedRpc ??= { id: i, retryAfter: r.headers['retry-after'], body: JSON.parse(r.text) };
    }
    // the rate refusal of a JSON-RPC call is a JSON-RPC error too: its id, Retry-After, the envelope naming the bucket
    expect(limitedRpc.retryAfter).toMatch(/^\d+$/);
    expect(limitedRpc.body).toMatchObject({ jsonrpc: '2.0', id: limitedRpc.id, error: { data: { ok: false, error: { code: 'RATE_LIMITED', retryable: true, details: { scope: 'address' } } } } });
    const seconds = (Date.now() - t0) / 1000;
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    // looked up at most: the bucket (20 per second × 2 s) and what refilled meanwhile, plus one reservation
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(40 + Math.ceil(seconds * 20) + 4);
    // the real key from another address is not held up
    expect((await send(undefined, 'POST', '/api/mcp', { ...MCP, authorization: `Bearer ${server.key}` }, call(1, 'whoami', {}))).status).toBe(200);
  });
});

describe('the browser', () => {
  it('refuses a page on another localhost port, and serves pages that may not be framed', async () => {
    const other = await send(undefined, 'POST', '/auth/session', { origin: `http://localhost:${port + 1}`, 'content-type': 'application/x-www-form-urlencoded' }, 'token=x&intent=peek');
    expect(other.status).toBe(403);
    const same = await send(undefined, 'POST', '/auth/session', { origin: `http://localhost:${port}`, 'content-type': 'application/x-www-form-urlencoded' }, 'token=x&intent=peek');
    expect(same.status).toBe(200);
    const page = await send(undefined, 'GET', '/auth/signin', {});
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
  });
});

describe('the import route', () => {
  it('takes a body over the routes’ usual 1 MiB through the front door (its own limit is 256 MiB)', async () => {
    const body = JSON.stringify({ export: { padding: 'x'.repeat(2 * 1024 * 1024) }, workspace: 'door-import' });
    const r = await send(undefined, 'POST', '/api/admin/import', { 'content-type': 'application/json', 'x-bullpen-admin-token': server.adminToken }, body);
    // the route reads it and refuses the document itself, not its size
    expect(r.status).not.toBe(413);
    expect(JSON.parse(r.text).error.code).not.toBe('PAYLOAD_TOO_LARGE');
  });
});
