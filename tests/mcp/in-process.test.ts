import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST } from '../../app/api/mcp/route';
import { setDb } from '../../lib/db';
import { ensureActor, ensureWorkspace, mintKey, revokeKey } from '../../lib/server/workspace';
import { freshDb, type TestDb } from '../helpers/db';

/** The SDK client against the route handler itself, in this process (no network, no build). */

let db: TestDb;
let key: string;
let keyId: string;
let tenantId: string;

const routeFetch = (url: string | URL | Request, init?: RequestInit) => POST(new Request(url, init));

function client(withKey: string) {
  const c = new Client({ name: 'in-process', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL('http://bullpen.test/api/mcp'), {
    requestInit: { headers: { Authorization: `Bearer ${withKey}` } },
    fetch: routeFetch,
  });
  return { c, connect: () => c.connect(transport) };
}

beforeAll(async () => {
  // the in-process requests are addressed to bullpen.test: a name the operator allows
  process.env.BULLPEN_ALLOWED_HOSTS = 'bullpen.test';
  db = await freshDb();
  setDb(db);
  const ws = await ensureWorkspace(db, 'inproc');
  tenantId = ws.id;
  const agent = await ensureActor(db, ws.id, { kind: 'agent', external_ref: 'agent:inproc', display_name: 'In-process agent' });
  ({ api_key: key, key_id: keyId } = await mintKey(db, ws.id, agent.id));
});
afterAll(() => db.drop());

describe('the route handler in-process', () => {
  it('serves initialize, tools/list and a tool call', async () => {
    const { c, connect } = client(key);
    await connect();
    expect((await c.listTools()).tools.length).toBeGreaterThanOrEqual(17);
    const res = (await c.callTool({ name: 'project_create', arguments: { title: 'In process', key: 'INP' } })) as {
      content: { text: string }[];
    };
    expect(JSON.parse(res.content[0].text)).toMatchObject({ ok: true, key: 'INP' });
    await c.close();
  });

  it('locks a revoked key out on its very next call', async () => {
    const { c, connect } = client(key);
    await connect();
    const before = (await c.callTool({ name: 'whoami', arguments: {} })) as { content: { text: string }[] };
    expect(JSON.parse(before.content[0].text).ok).toBe(true);
    expect(await revokeKey(db, tenantId, keyId)).toBe(true);
    await expect(c.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow();
    const raw = await POST(
      new Request('http://bullpen.test/api/mcp', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      }),
    );
    expect(raw.status).toBe(401);
    expect(await revokeKey(db, tenantId, keyId)).toBe(false);
  });
});
