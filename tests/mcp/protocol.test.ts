import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST } from '../../app/api/mcp/route';
import { parseScopes } from '../../lib/core/scopes';
import { CORE_TOOLS, OPT_IN_ROOMS, toolsetNames } from '../../lib/core/toolsets';
import { registry } from '../../lib/core/registry';
import { setDb } from '../../lib/db';
import { SERVER_INSTRUCTIONS } from '../../lib/mcp/server';
import { ensureActor, ensureWorkspace, mintKey } from '../../lib/server/workspace';
import { freshDb, type TestDb } from '../helpers/db';

/** What a connection that names no toolsets lists: every room but the opt-in ones. */
const defaultTools = registry.filter((t) => !OPT_IN_ROOMS.has(t.room));

/**
 * Both protocol revisions from one URL, and toolsets, through the route handler in this process
 * with the official SDK clients: v2 (@modelcontextprotocol/client) speaking 2026-07-28 with no
 * handshake, v1 (@modelcontextprotocol/sdk) speaking 2025-11-25, and raw JSON-RPC for 2025-06-18
 * and for what a client library would never send (a header that disagrees with the body).
 */

let db: TestDb;
let key: string;
const BASE = 'http://localhost/api/mcp';
const MODERN = '2026-07-28';

/** Every request the route saw, by JSON-RPC method. */
const seen: string[] = [];
const routeFetch = async (url: string | URL | Request, init?: RequestInit) => {
  const req = new Request(url, init);
  if (req.method === 'POST') {
    const body = await req.clone().text();
    try {
      const m = JSON.parse(body) as { method?: string };
      if (m.method) seen.push(m.method);
    } catch {
      // not JSON: the route answers it
    }
  }
  return POST(req);
};

function modernClient(withKey: string, url = BASE, headers: Record<string, string> = {}) {
  const c = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: { pin: MODERN } } });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${withKey}`, ...headers } }, fetch: routeFetch });
  return c.connect(transport).then(() => c);
}

function legacyClient(withKey: string, url = BASE, headers: Record<string, string> = {}) {
  const c = new ClientV1({ name: 'legacy', version: '1' });
  const transport = new TransportV1(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${withKey}`, ...headers } }, fetch: routeFetch });
  return c.connect(transport).then(() => ({ c, transport }));
}

const envelopeOf = (res: unknown) => JSON.parse((res as { content: { text: string }[] }).content[0].text) as { ok: boolean; [k: string]: any };

const modernMeta = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
function raw(body: unknown, headers: Record<string, string> = {}, withKey = key, url = BASE) {
  return POST(
    new Request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${withKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    }),
  );
}

beforeAll(async () => {
  db = await freshDb();
  setDb(db);
  const ws = await ensureWorkspace(db, 'protocol');
  const agent = await ensureActor(db, ws.id, { kind: 'agent', external_ref: 'agent:protocol', display_name: 'Protocol agent' });
  ({ api_key: key } = await mintKey(db, ws.id, agent.id));
});
afterAll(() => db.drop());

describe('2026-07-28, the stateless core', () => {
  it('calls a tool with no initialize handshake', async () => {
    seen.length = 0;
    const c = await modernClient(key);
    expect(c.getNegotiatedProtocolVersion()).toBe(MODERN);
    const who = envelopeOf(await c.callTool({ name: 'whoami', arguments: {} }));
    expect(who.ok).toBe(true);
    const made = envelopeOf(await c.callTool({ name: 'project_create', arguments: { title: 'Modern', key: 'MOD' } }));
    expect(made).toMatchObject({ ok: true, key: 'MOD' });
    expect((await c.listTools()).tools).toHaveLength(defaultTools.length);
    expect(seen).not.toContain('initialize');
    expect(seen).toContain('tools/call');
    await c.close();
  });

  it('answers server/discover with the revisions, the capabilities and the instructions', async () => {
    const res = await raw({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta } }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' });
    expect(res.status).toBe(200);
    const { result } = await res.json();
    expect(result.supportedVersions).toContain(MODERN);
    expect(result.capabilities).toMatchObject({ tools: {}, resources: {} });
    expect(result.instructions).toBe(SERVER_INSTRUCTIONS);
    expect(result._meta?.['io.modelcontextprotocol/serverInfo']?.name ?? result.serverInfo?.name).toBe('bullpen');
  });

  it('refuses a request whose Mcp-Method or Mcp-Name header disagrees with its body', async () => {
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: {}, _meta: modernMeta } };
    const method = await raw(call, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list', 'mcp-name': 'whoami' });
    expect(method.status).toBe(400);
    const m = await method.json();
    expect(m.error.message).toMatch(/Mcp-Method|header/i);
    expect(m.result).toBeUndefined();
    const name = await raw(call, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'task_create' });
    expect(name.status).toBe(400);
    expect((await name.json()).error.message).toMatch(/Mcp-Name|header/i);
    // the same call with matching headers is served
    const ok = await raw(call, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'whoami' });
    expect(ok.status).toBe(200);
    expect(envelopeOf((await ok.json()).result).ok).toBe(true);
  });
});

describe('the 2025 revisions', () => {
  it('serve a 2025-11-25 client (the v1 SDK) through the handshake', async () => {
    const { c, transport } = await legacyClient(key);
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(c.getInstructions()).toBe(SERVER_INSTRUCTIONS);
    expect(envelopeOf(await c.callTool({ name: 'whoami', arguments: {} })).ok).toBe(true);
    await c.close();
  });

  it('serve a 2025-06-18 client: initialize answers that revision, and calls carry it', async () => {
    const init = await raw({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } } });
    expect(init.status).toBe(200);
    expect((await init.json()).result.protocolVersion).toBe('2025-06-18');
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toMatch(/^bp-/);
    const listed = await raw({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': '2025-06-18', 'mcp-session-id': session });
    expect((await listed.json()).result.tools).toHaveLength(defaultTools.length);
    const called = await raw({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, { 'mcp-protocol-version': '2025-06-18', 'mcp-session-id': session });
    expect(envelopeOf((await called.json()).result).ok).toBe(true);
  });
});

describe('the direct answer to a plain tools/call or tools/list', () => {
  it('answers as the SDK server does', async () => {
    const headers = { 'mcp-protocol-version': '2025-06-18' };
    const pairs: [string, Record<string, unknown>][] = [
      ['guide', {}],
      ['guide', { topic: 'the-loop' }],
      ['task_get', { task_id: 'NOPE-1' }],
      ['task_create', { title: 'x', bogus: 1 }],
      ['no_such_tool', {}],
    ];
    for (const [name, args] of pairs) {
      // a progress token sends the call through the SDK's server and transport
      const viaSdk = await (await raw({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: 'p' } } }, headers)).json();
      const direct = await (await raw({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name, arguments: args } }, headers)).json();
      expect(direct, name).toEqual(viaSdk);
    }
    const listSdk = await (await raw({ jsonrpc: '2.0', id: 'l', method: 'tools/list', params: { _meta: { progressToken: 'p' } } }, headers)).json();
    const listDirect = await (await raw({ jsonrpc: '2.0', id: 'l', method: 'tools/list' }, headers)).json();
    expect(listDirect).toEqual(listSdk);
    // what the SDK refuses still goes to the SDK: arguments that are not an object, a bad revision
    const bad = await (await raw({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'guide', arguments: [] } }, headers)).json();
    expect(bad.error.code).toBe(-32602);
    const revision = await raw({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, { 'mcp-protocol-version': '1999-01-01' });
    expect(revision.status).toBe(400);
    const accept = await raw({ jsonrpc: '2.0', id: 8, method: 'tools/list' }, { ...headers, accept: 'application/json' });
    expect(accept.status).toBe(406);
  });
});

describe('toolsets', () => {
  const expected = (sets: string[]) =>
    registry
      .filter((t) => t.name === 'guide' || sets.includes(t.room) || (sets.includes('core') && CORE_TOOLS.includes(t.name)))
      .map((t) => t.name)
      .sort();

  it('?toolsets=core,handoffs lists the loop and the handoffs room, in both eras', async () => {
    const url = `${BASE}?toolsets=core,handoffs`;
    const modern = await modernClient(key, url);
    const names = (await modern.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(expected(['core', 'handoffs']));
    expect(names).toContain('handoff_claim');
    expect(names).not.toContain('project_create');
    await modern.close();
    const { c } = await legacyClient(key, url);
    expect((await c.listTools()).tools.map((t) => t.name).sort()).toEqual(expected(['core', 'handoffs']));
    await c.close();
  });

  it('X-Bullpen-Toolsets narrows the same way, joined with the query', async () => {
    const { c } = await legacyClient(key, `${BASE}?toolsets=decisions`, { 'X-Bullpen-Toolsets': 'core' });
    expect((await c.listTools()).tools.map((t) => t.name).sort()).toEqual(expected(['core', 'decisions']));
    await c.close();
  });

  it('refuse a call outside them, naming the toolset that has the tool; guide answers everywhere', async () => {
    const c = await modernClient(key, `${BASE}?toolsets=core`);
    const refused = envelopeOf(await c.callTool({ name: 'project_create', arguments: { title: 'Nope', key: 'NOPE' } }));
    expect(refused.ok).toBe(false);
    expect(refused.error.message).toContain('project_create');
    expect(refused.error.message).toContain('projects toolset');
    expect(refused.error.details.toolsets).toEqual(['projects']);
    expect(refused.error.hint).toContain('?toolsets=');
    expect(envelopeOf(await c.callTool({ name: 'guide', arguments: {} })).ok).toBe(true);
    await c.close();
    // nothing was written
    const { c: all } = await legacyClient(key);
    expect(envelopeOf(await all.callTool({ name: 'project_get', arguments: { project: 'NOPE' } })).ok).toBe(false);
    await all.close();
  });

  it('intersect with the key’s scopes', async () => {
    const [{ id: tenant }] = await db.query<{ id: string }>(`select id from public.tenants where slug = 'protocol'`);
    const [{ id: actor }] = await db.query<{ id: string }>(`select id from public.actors where tenant_id = $1 and kind = 'agent' limit 1`, [tenant]);
    const scoped = await mintKey(db, tenant, actor, 'ro', { scopes: parseScopes('read') });
    const { c } = await legacyClient(scoped.api_key, `${BASE}?toolsets=core`);
    const names = (await c.listTools()).tools.map((t) => t.name).sort();
    const core = registry.filter((t) => (CORE_TOOLS.includes(t.name) || t.name === 'guide') && t.kind === 'read').map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(core));
    expect(names).not.toContain('task_claim');
    expect(names).not.toContain('project_list');
    await c.close();
  });

  it('answer an unknown toolset name with 400 listing the valid ones', async () => {
    for (const [url, headers] of [
      [`${BASE}?toolsets=core,handofs`, {}],
      [BASE, { 'x-bullpen-toolsets': 'handofs' }],
    ] as const) {
      const res = await raw({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers, key, url);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.message).toContain('handofs');
      for (const n of toolsetNames()) expect(body.error.message).toContain(n);
      expect(body.error.data.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: ['toolsets'], valid: toolsetNames() } });
    }
  });

  it('are explained in the server instructions, with how to learn about the other rooms', () => {
    expect(SERVER_INSTRUCTIONS).toContain('?toolsets=core,handoffs');
    expect(SERVER_INSTRUCTIONS).toContain('X-Bullpen-Toolsets');
    expect(SERVER_INSTRUCTIONS).toMatch(/guide\(\) answers on every connection/);
  });
});
