import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { POST } from '../../app/api/mcp/route';
import { parseScopes } from '../../lib/core/scopes';
import { registry } from '../../lib/core/registry';
import { setDb } from '../../lib/db';
import type { Db } from '../../lib/db/types';
import { ensureActor, ensureWorkspace, mintKey } from '../../lib/server/workspace';
import { freshDb, type TestDb } from '../helpers/db';

/**
 * The MCP route in this process: the Host/Origin wall, scoped keys (tools/list narrowed, a call
 * outside the scopes refused with 403 insufficient_scope), rate limits (429, Retry-After,
 * RATE_LIMITED) and a 500 that shows no internal text.
 */

let db: TestDb;
let tenantId: string;
let agentId: string;
const URL_ = 'http://localhost/api/mcp';

const headers = (key: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...extra,
});
const rpc = (key: string, body: unknown, extra: Record<string, string> = {}, url = URL_) =>
  POST(new Request(url, { method: 'POST', headers: headers(key, extra), body: JSON.stringify(body) }));
const call = (name: string, args: unknown = {}) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

function client(key: string) {
  const c = new Client({ name: 'in-process', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(URL_), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: (url, init) => POST(new Request(url, init)),
  });
  return c.connect(transport).then(() => c);
}

beforeAll(async () => {
  // small buckets so the limit is reached in a test: 2 calls/s per key over a 5 s window
  process.env.BULLPEN_RATE_KEY_PER_SECOND = '2';
  process.env.BULLPEN_RATE_WINDOW_SECONDS = '5';
  db = await freshDb();
  setDb(db);
  const ws = await ensureWorkspace(db, 'inproc-hard');
  tenantId = ws.id;
  agentId = (await ensureActor(db, ws.id, { kind: 'agent', external_ref: 'agent:hard', display_name: 'Hard agent' })).id;
});
afterAll(() => db.drop());

describe('the Host and Origin wall', () => {
  it('refuses a DNS-rebinding request with 403 before looking at the key', async () => {
    const { api_key } = await mintKey(db, tenantId, agentId);
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const evil = await rpc(api_key, init, { host: 'evil.example.com', origin: 'http://evil.example.com' }, 'http://evil.example.com/api/mcp');
    expect(evil.status).toBe(403);
    expect((await evil.json()).error.message).toMatch(/host not allowed/);
    // no key at all: still 403 (the wall comes first), not 401
    const nokey = await POST(new Request('http://evil.example.com/api/mcp', { method: 'POST', body: '{}' }));
    expect(nokey.status).toBe(403);
    const foreignOrigin = await rpc(api_key, init, { origin: 'http://evil.example.com' });
    expect(foreignOrigin.status).toBe(403);
    expect((await rpc(api_key, init, { origin: 'http://localhost' })).status).toBe(200);
  });
});

describe('scoped keys', () => {
  it('list only the tools the key may call', async () => {
    const { api_key } = await mintKey(db, tenantId, agentId, 'ci', { scopes: parseScopes('tasks:read,comments') });
    const c = await client(api_key);
    const names = (await c.listTools()).tools.map((t) => t.name).sort();
    const expected = registry
      .filter((t) => (t.room === 'tasks' && t.kind === 'read') || t.room === 'comments' || ['guide', 'whoami'].includes(t.name))
      .map((t) => t.name)
      .sort();
    expect(names).toEqual(expected);
    expect(names).toContain('task_query');
    expect(names).not.toContain('task_update');
    await c.close();
  });

  it('answer a call outside the scopes with 403 insufficient_scope (and the FORBIDDEN envelope)', async () => {
    const { api_key } = await mintKey(db, tenantId, agentId, 'ro', { scopes: parseScopes('tasks:read') });
    const res = await rpc(api_key, call('task_create', { project_id: 'X', title: 'nope' }));
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer error="insufficient_scope"/);
    expect(challenge).toContain('scope="tasks"');
    expect(challenge).toContain('resource_metadata="http://localhost/.well-known/oauth-protected-resource"');
    const body = await res.json();
    expect(body.error.data).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', retryable: false, details: { required_scope: 'tasks' } } });
    // inside the scopes: answered
    const allowed = await rpc(api_key, call('task_query', {}));
    expect(allowed.status).toBe(200);
    expect(JSON.parse((await allowed.json()).result.content[0].text).ok).toBe(true);
  });

  it('stop at their expiry with 401', async () => {
    const { api_key, key_id } = await mintKey(db, tenantId, agentId, 'brief', { expiresInSeconds: 60 });
    expect((await rpc(api_key, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(200);
    // moved behind the server's back, the expiry is seen once the key's cached lookup (1 s) is
    // over; with the cache off it is seen on the very next call
    process.env.BULLPEN_KEY_CACHE_MS = '0';
    try {
      await db.query(`update public.api_keys set expires_at = now() - interval '1 second' where id = $1`, [key_id]);
      const res = await rpc(api_key, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(res.status).toBe(401);
      expect((await res.json()).error.message).toContain('expired');
    } finally {
      delete process.env.BULLPEN_KEY_CACHE_MS;
    }
  });
});

describe('rate limits', () => {
  it('answer past the key’s bucket with 429, Retry-After and a retryable RATE_LIMITED envelope', async () => {
    const { api_key } = await mintKey(db, tenantId, agentId, 'busy');
    const statuses: number[] = [];
    let limited: Response | null = null;
    for (let i = 0; i < 12 && !limited; i++) {
      const res = await rpc(api_key, call('whoami'));
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(limited).not.toBeNull();
    const retry = Number(limited!.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    // the bucket's refill (at most the 5 s window) plus up to a second of jitter
    expect(retry).toBeLessThanOrEqual(6);
    const body = await limited!.json();
    expect(body.error.data).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED', retryable: true, details: { scope: 'key', limit: 10 } } });
    // another key of the workspace still has its own bucket
    const other = await mintKey(db, tenantId, agentId, 'calm');
    expect((await rpc(other.api_key, call('whoami'))).status).toBe(200);
  });
});

describe('a 500', () => {
  it('shows a request id and no internal text; the log has the detail under the id', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const broken = { ...db, query: async () => Promise.reject(new Error('relation "bullpen.api_keys_secret" does not exist (10.0.0.7)')) } as unknown as Db;
    setDb(broken);
    try {
      const res = await rpc('bp_live_whatever-key-value', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(text).not.toContain('api_keys_secret');
      expect(text).not.toContain('10.0.0.7');
      const body = JSON.parse(text);
      const id = body.error.data.error.details.request_id as string;
      expect(body.error.data.error).toMatchObject({ code: 'INTERNAL', retryable: true });
      expect(body.error.message).toContain(id);
      const logged = log.mock.calls.map((c) => String(c[0])).find((l) => l.includes(id));
      expect(logged).toContain('api_keys_secret');
    } finally {
      setDb(db);
      log.mockRestore();
    }
  });
});
