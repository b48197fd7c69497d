import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST } from '../../app/api/mcp/route';
import { connectTools } from '../../lib/cli/tools';
import { setDb } from '../../lib/db';
import { ensureActor, ensureWorkspace, mintKey } from '../../lib/server/workspace';
import { freshDb, type TestDb } from '../helpers/db';

/**
 * The CLI speaks the v2 client at the 2026-07-28 revision: a command is one HTTP request (the v1
 * client made three: initialize, notifications/initialized, then the call), against the route
 * handler in this process.
 */

let db: TestDb;
let key: string;
const requests: { method: string; rpc: string | undefined; version: string | null }[] = [];
const routeFetch = async (url: string | URL | Request, init?: RequestInit) => {
  const req = new Request(url, init);
  let rpc: string | undefined;
  if (req.method === 'POST') {
    try {
      rpc = (JSON.parse(await req.clone().text()) as { method?: string }).method;
    } catch {
      // not JSON: the route answers it
    }
  }
  requests.push({ method: req.method, rpc, version: req.headers.get('mcp-protocol-version') });
  return POST(req);
};

beforeAll(async () => {
  process.env.BULLPEN_URL = 'http://localhost';
  process.env.BULLPEN_REPO = 'off';
  db = await freshDb();
  setDb(db);
  const ws = await ensureWorkspace(db, 'cli-requests');
  const agent = await ensureActor(db, ws.id, { kind: 'agent', external_ref: 'agent:cli-requests', display_name: 'CLI agent' });
  ({ api_key: key } = await mintKey(db, ws.id, agent.id));
});
afterAll(async () => {
  delete process.env.BULLPEN_URL;
  delete process.env.BULLPEN_REPO;
  await db.drop();
});

describe('a CLI command', () => {
  it('is one request at the 2026-07-28 revision, with no handshake', async () => {
    requests.length = 0;
    const conn = await connectTools(key, { fetch: routeFetch as typeof fetch });
    const who = await conn.call('whoami', {});
    await conn.close();
    expect(who).toMatchObject({ ok: true, actor: { display_name: 'CLI agent' } });
    expect(requests).toEqual([{ method: 'POST', rpc: 'tools/call', version: '2026-07-28' }]);
  });

  it('a write and a refusal are one request each too', async () => {
    requests.length = 0;
    const conn = await connectTools(key, { fetch: routeFetch as typeof fetch });
    expect(await conn.call('project_create', { title: 'Cli', key: 'CLI' })).toMatchObject({ ok: true, key: 'CLI' });
    expect(await conn.call('task_get', { task_id: 'CLI-99' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    await conn.close();
    expect(requests.map((r) => r.rpc)).toEqual(['tools/call', 'tools/call']);
  });

  it('a bad key answers UNAUTHENTICATED as an envelope, in one request', async () => {
    requests.length = 0;
    const conn = await connectTools('bp_live_not_a_key', { fetch: routeFetch as typeof fetch });
    const r = await conn.call('whoami', {});
    await conn.close();
    expect(r).toMatchObject({ ok: false, error: { code: 'UNAUTHENTICATED' } });
    expect(requests).toHaveLength(1);
  });

  it('the baseline: the v1 client the CLI used made three requests for the same command', async () => {
    requests.length = 0;
    const c = new ClientV1({ name: 'bullpen-cli', version: '0.1.0' });
    await c.connect(new TransportV1(new URL('http://localhost/api/mcp'), { requestInit: { headers: { Authorization: `Bearer ${key}` } }, fetch: routeFetch as typeof fetch }));
    await c.callTool({ name: 'whoami', arguments: {} });
    await c.close();
    expect(requests.filter((r) => r.method === 'POST').map((r) => r.rpc)).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
  });
});
