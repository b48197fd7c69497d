import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registry } from '../../lib/core/registry';
import { OPT_IN_ROOMS } from '../../lib/core/toolsets';
import { mintKey } from '../../scripts/fuzz/run';

/** The SDK client over HTTP against `bullpen start` in a child process. */

const server = inject('server');
const mcpUrl = `${server.url}/api/mcp`;
let client: Client;

type Envelope = { ok: boolean; [k: string]: any };

async function call(name: string, args: Record<string, unknown> = {}, c = client): Promise<Envelope> {
  const res = (await c.callTool({ name, arguments: args })) as { content: { type: string; text: string }[]; isError?: boolean };
  const env = JSON.parse(res.content[0].text) as Envelope;
  expect(!!res.isError).toBe(!env.ok);
  return env;
}

function connect(key: string, headers: Record<string, string> = {}): Promise<Client> {
  const c = new Client({ name: 'bullpen-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } },
  });
  return c.connect(transport).then(() => c);
}

function rpc(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** This file's own agent, in a workspace of its own: other files write to the shared one meanwhile. */
let own: { key: string; actorId: string };

beforeAll(async () => {
  own = await mintKey(server.url, server.adminToken, `mcp-server-${Date.now().toString(36)}`, 'loop-agent');
  client = await connect(own.key, { 'X-Bullpen-Run': 'mcp-test-run' });
});
afterAll(async () => {
  await client?.close();
});

describe('initialize', () => {
  it('names the server and teaches the loop in its instructions', () => {
    expect(client.getServerVersion()?.name).toBe('bullpen');
    const instructions = client.getInstructions() ?? '';
    expect(instructions).toContain('whoami');
    expect(instructions).toContain('task_claim');
    expect(instructions).toContain('feature_request_create');
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
  });
});

describe('tools/list', () => {
  it("advertises every registry tool with its input's shape and annotations", async () => {
    const { tools } = await client.listTools();
    // a connection naming no toolsets lists every room but the opt-in ones (toolsets=all lists those too)
    const listed = registry.filter((t) => !OPT_IN_ROOMS.has(t.room));
    expect(tools.map((t) => t.name).sort()).toEqual(listed.map((t) => t.name).sort());
    expect(tools).toHaveLength(listed.length);
    expect(tools.length).toBeGreaterThanOrEqual(39);
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      // the shape only: bounds and unknown keys are the validator's (lib/core/json-schema.ts)
      expect(typeof t.inputSchema.properties, t.name).toBe('object');
      expect(t.description!.length, t.name).toBeGreaterThan(60);
      // hints left out mean MCP's defaults; a tool that writes must say it destroys nothing, or does
      expect(t.annotations?.readOnlyHint === true || typeof t.annotations?.destructiveHint === 'boolean', t.name).toBe(true);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.task_query.annotations?.readOnlyHint).toBe(true);
    expect(byName.task_claim.annotations?.readOnlyHint).not.toBe(true);
    expect((byName.task_create.inputSchema as { required?: string[] }).required).toEqual(expect.arrayContaining(['project_id', 'title']));
  });
});

describe('the agent loop over HTTP', () => {
  it('whoami → plan → claim → update → done', async () => {
    const me = await call('whoami');
    expect(me.ok).toBe(true);
    expect(me.actor.id).toBe(own.actorId);
    expect(me.run_id).toBe('mcp-test-run');
    expect(me.hints.next.tool).toBe('project_create');

    const project = await call('project_create', { title: 'Loop test', key: 'LOOP' });
    expect(project.ok).toBe(true);
    const plan = await call('task_create_many', {
      project_id: 'LOOP',
      tasks: [
        { title: 'Write the schema', priority: 1, acceptance_criteria: ['migration applies'] },
        { title: 'Build the endpoint', depends_on: [{ batch_index: 0 }] },
      ],
    });
    expect(plan.count).toBe(2);

    const again = await call('whoami');
    expect(again.hints.next).toMatchObject({ tool: 'task_claim' });
    expect(again.pool.ready).toBe(1);

    const claim = await call('task_claim', { project_id: 'LOOP', lease_seconds: 600 });
    expect(claim).toMatchObject({ ok: true, claimed: true, task: { ref: 'LOOP-1', status: 'in_progress' } });
    expect(claim.project_context.key).toBe('LOOP');

    const refused = await call('task_update', { task_id: 'LOOP-1', patch: { status: 'done' } });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatchObject({ code: 'GATE_UNMET', retryable: false });
    expect(refused.error.message).toContain('migration applies');

    const done = await call('task_update', {
      task_id: 'LOOP-1',
      patch: { status: 'done', acceptance_criteria: [{ text: 'migration applies', met: true }], expected_status: 'in_progress' },
    });
    expect(done.task.status).toBe('done');

    const next = await call('task_claim', {});
    expect(next.task.ref).toBe('LOOP-2');
    const empty = await call('task_claim', {});
    expect(empty).toMatchObject({ ok: true, claimed: false, reason: 'pool_empty' });
  });

  it('accepts camelCase keys as an alias', async () => {
    const res = await call('task_query', { projectId: 'LOOP', orderBy: 'created_at' });
    expect(res.ok).toBe(true);
    expect(res.tasks.length).toBe(2);
  });

  it('refuses an unknown key and names it', async () => {
    const res = await call('task_query', { project_id: 'LOOP', colour: 'red' });
    expect(res.ok).toBe(false);
    expect(res.error.code).toBe('VALIDATION_ERROR');
    expect(res.error.message).toContain('colour');
    const nested = await call('task_update', { task_id: 'LOOP-2', patch: { statuss: 'done' } });
    expect(nested.error.message).toContain('patch.statuss');
  });

  it('answers guide without the database', async () => {
    const index = await call('guide');
    expect(index.markdown).toContain('the-loop');
    const topic = await call('guide', { topic: 'the-loop' });
    expect(topic.markdown.length).toBeGreaterThan(400);
  });
});

describe('runs over HTTP', () => {
  it('registers the run the headers name: its parent, series and repository', async () => {
    const c = await connect(server.key, {
      'X-Bullpen-Run': 'http-tick-1', 'X-Bullpen-Parent-Run': 'http-parent', 'X-Bullpen-Run-Group': 'http-series',
      'X-Bullpen-Repo': 'https://bot:secret-token@github.com/acme/over-http.git',
    });
    try {
      expect(await call('whoami', {}, c)).toMatchObject({ ok: true, run_id: 'http-tick-1' });
      const run = await call('run_get', {}, c);
      expect(run.run).toMatchObject({ run_key: 'http-tick-1', kind: 'loop_tick', parent_run_key: 'http-parent', run_series_key: 'http-series', repository: 'acme/over-http' });
      const repo = await call('repo_register', {}, c);
      expect(repo.repository.remote_url).toBe('https://github.com/acme/over-http');
      expect(JSON.stringify(repo)).not.toContain('secret-token');
    } finally {
      await c.close();
    }
  });

  it('without X-Bullpen-Run, derives one run per connection', async () => {
    const c1 = await connect(server.key);
    const c2 = await connect(server.key);
    try {
      const a = (await call('whoami', {}, c1)).run_id as string;
      const b = (await call('whoami', {}, c1)).run_id as string;
      const other = (await call('whoami', {}, c2)).run_id as string;
      expect(a).toMatch(/^mcp-bp-[0-9a-f-]{36}$/);
      expect(b).toBe(a);
      expect(other).not.toBe(a);
      expect((await call('run_get', { run_key: a }, c2)).run).toMatchObject({ kind: 'session', status: 'running' });
    } finally {
      await Promise.all([c1.close(), c2.close()]);
    }
  });
});

describe('resources', () => {
  it('lists the guide, glossary and brief template', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['bullpen://guide', 'bullpen://glossary', 'bullpen://guide/the-loop']));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain('bullpen://project/{key}/brief');
  });

  it('reads the guide and a live project brief under the caller’s claims', async () => {
    const guide = await client.readResource({ uri: 'bullpen://guide/idempotency' });
    expect((guide.contents[0] as { text: string }).text).toContain('idempotency_key');
    const brief = await client.readResource({ uri: 'bullpen://project/LOOP/brief' });
    const text = (brief.contents[0] as { text: string }).text;
    expect(text).toContain('# LOOP — Loop test');
    expect(text).toContain('LOOP-1');
    await expect(client.readResource({ uri: 'bullpen://project/NOPE/brief' })).rejects.toThrow(/NOT_FOUND/);
  });

  it('serves the memory resources and the prompts over HTTP (tests/mcp/resources.test.ts has the rest)', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(expect.arrayContaining(['bullpen://note/{id}', 'bullpen://project/{key}/decisions']));
    expect(client.getServerCapabilities()?.prompts).toBeDefined();
    const note = await call('knowledge_write', { title: 'Resource over HTTP', body: 'Read me as Markdown.', project_id: 'LOOP' });
    const read = await client.readResource({ uri: `bullpen://note/${note.note_id}` });
    expect((read.contents[0] as { text: string }).text).toContain('# Resource over HTTP\n\nRead me as Markdown.');
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['summarize_project', 'find_related', 'start_task', 'handoff_brief']);
    const summary = await client.getPrompt({ name: 'summarize_project', arguments: { project: 'LOOP' } });
    expect((summary.messages[0].content as { text: string }).text).toContain('Summarize project LOOP');
  });
});

describe('HTTP guards', () => {
  it('answers 401 with the resource metadata URL when the key is missing or wrong', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer bp_live_not-a-real-key' }, { authorization: `Basic ${server.key}` }];
    for (const headers of attempts) {
      const res = await rpc(initialize, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource"`);
    }
    const meta = await fetch(`${server.url}/.well-known/oauth-protected-resource`);
    expect(meta.status).toBe(200);
    expect(await meta.json()).toMatchObject({ resource: `${server.url}/api/mcp`, bearer_methods_supported: ['header'] });
  });

  it('never reads a key from the query string', async () => {
    const res = await fetch(`${mcpUrl}?api_key=${server.key}&token=${server.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize),
    });
    expect(res.status).toBe(401);
  });

  it('answers 403 to a foreign browser origin and serves its own', async () => {
    const evil = await rpc(initialize, { authorization: `Bearer ${server.key}`, origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    const own = await rpc(initialize, { authorization: `Bearer ${server.key}`, origin: server.url });
    expect(own.status).toBe(200);
  });

  it('answers 413 to an oversized body', async () => {
    const big = JSON.stringify({ ...initialize, params: { ...initialize.params, padding: 'x'.repeat(1_100_000) } });
    const res = await rpc(big, { authorization: `Bearer ${server.key}` });
    expect(res.status).toBe(413);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const res = await rpc('{not json', { authorization: `Bearer ${server.key}` });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32700);
  });

  it('is stateless: GET has no stream; the session id it hands out only names the connection’s run', async () => {
    const init = await rpc(initialize, { authorization: `Bearer ${server.key}` });
    expect(init.headers.get('mcp-session-id')).toMatch(/^bp-[0-9a-f-]{36}$/);
    const named = await rpc(initialize, { authorization: `Bearer ${server.key}`, 'x-bullpen-run': 'named' });
    expect(named.headers.get('mcp-session-id')).toMatch(/^bp-/);
    const resumed = await rpc(initialize, { authorization: `Bearer ${server.key}`, 'mcp-session-id': 'bp-00000000-0000-4000-8000-000000000000' });
    expect(resumed.headers.get('mcp-session-id')).toBeNull();
    const get = await fetch(mcpUrl, { headers: { authorization: `Bearer ${server.key}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });
});

describe('admin routes', () => {
  function admin(route: string, body: unknown, token: string | null = server.adminToken): Promise<Response> {
    return fetch(`${server.url}/api/admin/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { 'x-bullpen-admin-token': token } : {}) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  /** The envelope every surface answers: {ok: false, error: {code, message, hint, retryable}}. */
  async function expectRefusal(res: Response, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(['error', 'ok']);
    expect(body.ok).toBe(false);
    expect(body.error).toMatchObject({ code, message: expect.any(String), hint: expect.any(String), retryable: false });
    expect(Object.keys(body.error).filter((k) => k !== 'details').sort()).toEqual(['code', 'hint', 'message', 'retryable']);
    expect(body.error.message.length).toBeGreaterThan(0);
    expect(body.error.hint.length).toBeGreaterThan(0);
    return body.error as { code: string; message: string; hint: string; retryable: boolean; details?: { fields?: string[] } };
  }

  it('answer a missing or wrong admin token with 401 UNAUTHENTICATED in the shared envelope', async () => {
    for (const route of ['agents', 'humans']) {
      await expectRefusal(await admin(route, { name: 'x' }, null), 401, 'UNAUTHENTICATED');
      await expectRefusal(await admin(route, { name: 'x' }, 'x'.repeat(server.adminToken.length)), 401, 'UNAUTHENTICATED');
    }
  });

  it('answer bad input with 400 VALIDATION_ERROR naming the field', async () => {
    const unknown = await expectRefusal(await admin('agents', { name: 'a', colour: 'red' }), 400, 'VALIDATION_ERROR');
    expect(unknown.message).toContain('colour');
    expect(unknown.details?.fields).toEqual(['colour']);
    const missing = await expectRefusal(await admin('humans', { workspace: 'w' }), 400, 'VALIDATION_ERROR');
    expect(missing.message).toContain('name');
    await expectRefusal(await admin('humans', '{not json'), 400, 'VALIDATION_ERROR');
  });

  it('answer a name that belongs to an agent with 409 ALREADY_EXISTS, and success with ok: true', async () => {
    const made = await admin('agents', { name: 'clash', external_ref: 'human:clash', workspace: 'admin-envelope' });
    expect(made.status).toBe(200);
    expect(await made.json()).toMatchObject({ ok: true, api_key: expect.stringMatching(/^bp_live_/) });
    const clash = await expectRefusal(await admin('humans', { name: 'Clash', workspace: 'admin-envelope' }), 409, 'ALREADY_EXISTS');
    expect(clash.message).toContain('human:clash');
    const invited = await admin('humans', { name: 'Grace Hopper', workspace: 'admin-envelope' });
    expect(invited.status).toBe(200);
    expect(await invited.json()).toMatchObject({ ok: true, token: expect.any(String), display_name: 'Grace Hopper' });
  });
});
