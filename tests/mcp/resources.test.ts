import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST } from '../../app/api/mcp/route';
import { setDb } from '../../lib/db';
import { mintKey } from '../../lib/server/workspace';
import { freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';
import { execute } from '../../lib/core/execute';

/**
 * MCP resources and prompts over the route handler, with the official SDK clients of both
 * revisions (v2 speaking 2026-07-28, v1 speaking 2025-11-25): the memory templates, reading a
 * note, decision, guideline and a project's collections as Markdown with front matter, the four
 * prompts, and the walls: another workspace's ids answer not found, a normal key never reads a
 * sensitive note, a scoped key or a narrower toolset sees only its rooms.
 */

let db: TestDb;
let T: Tenant;
let O: Tenant;
const keys: Record<string, string> = {};
const ids: Record<string, string> = {};
const BASE = 'http://localhost/api/mcp';
// A well-behaved client: a call refused for the key's rate (429) is sent again after Retry-After.
// Both revisions' clients run every case on the same keys, faster than 60 calls per 2 s.
const routeFetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
  for (let attempt = 0; ; attempt++) {
    const res = await POST(new Request(url, init));
    if (res.status !== 429 || attempt === 3) return res;
    await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? '1') * 1000));
  }
};

type AnyClient = {
  listResourceTemplates: () => Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  listResources: () => Promise<{ resources: { uri: string }[] }>;
  readResource: (p: { uri: string }) => Promise<{ contents: unknown[] }>;
  listPrompts: () => Promise<{ prompts: { name: string; arguments?: unknown[] }[] }>;
  getPrompt: (p: { name: string; arguments?: Record<string, string> }) => Promise<{ messages: { role: string; content: unknown }[] }>;
  close: () => Promise<void>;
};

async function modern(key: string, url = BASE): Promise<AnyClient> {
  const c = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } }, fetch: routeFetch }));
  return c as unknown as AnyClient;
}

async function legacy(key: string, url = BASE): Promise<AnyClient> {
  const c = new ClientV1({ name: 'legacy', version: '1' });
  await c.connect(new TransportV1(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } }, fetch: routeFetch }));
  return c as unknown as AnyClient;
}

const text = (r: { contents: unknown[] }) => (r.contents[0] as { text: string }).text;
const promptText = (r: { messages: { content: unknown }[] }) => (r.messages[0].content as { text: string }).text;

beforeAll(async () => {
  db = await freshDb();
  setDb(db);
  T = await seedTenant(db, 'res-t');
  O = await seedTenant(db, 'res-o');
  keys.plain = (await mintKey(db, T.id, T.agent.id)).api_key;
  keys.sensitive = (await mintKey(db, T.id, T.agent.id, 'sensitive key', { scopes: ['sensitive'] })).api_key;
  keys.tasksOnly = (await mintKey(db, T.id, T.agent.id, 'tasks key', { scopes: ['tasks'] })).api_key;
  keys.other = (await mintKey(db, O.id, O.agent.id, 'other sensitive', { scopes: ['sensitive'] })).api_key;
  const seer = { db, claims: { ...T.agent.claims, sensitive: true } };
  const run = async (tool: string, input: Record<string, unknown>) => ok(await execute(seer, tool, input));
  ids.project = (await run('project_create', { title: 'Atlas', key: 'ATL' })).project.id;
  ids.task = (await run('task_create', { project_id: 'ATL', title: 'Map the coast', acceptance_criteria: ['every bay named'] })).task_id;
  ok(await execute(seer, 'task_create', { project_id: 'ATL', title: 'Stuck on permits' }));
  ok(await execute(seer, 'task_update', { task_id: 'ATL-2', patch: { status: 'blocked' } }));
  ids.note = (await run('knowledge_write', { title: 'Coast survey runbook', body: 'Walk north first.', tags: ['survey'], project_id: 'ATL', related_task_ids: [ids.task] })).note_id;
  ids.secret = (await run('knowledge_write', { title: 'Gryphon salaries', body: 'Gryphon pay scale', project_id: 'ATL', sensitivity: 'sensitive' })).note_id;
  ids.guideline = (await run('knowledge_write', { title: 'Name bays after sponsors', body: 'Always.', kind: 'guideline', language: 'en', category: 'naming', project_id: 'ATL' })).note_id;
  ids.pattern = (await run('knowledge_write', { title: 'Survey in pairs', body: 'Two walkers.', kind: 'pattern', tags: ['survey'], project_id: 'ATL' })).note_id;
  ids.decision = (await run('decision_log', { title: 'Start in the north', choice: 'north first', consequences: ['The south waits a week', 'Maps go north up'], project_id: 'ATL', status: 'accepted', related_task_ids: [ids.task] })).decision_id;
  ok(await execute(seer, 'link_add', { from: { type: 'task', id: ids.task }, to: { type: 'note', id: ids.note }, relation: 'relates_to' }));
  ok(await execute(seer, 'link_add', { from: { type: 'note', id: ids.secret }, to: { type: 'task', id: ids.task }, relation: 'explains' }));
  ids.handoff = (await run('handoff_create', { to_actor_ids: [T.human.id], kind: 'question', title: 'Which bay first?', body: 'North or south bay?', related_task_id: ids.task })).handoff.id;
  // the other workspace's own objects
  const theirs = { db, claims: { ...O.agent.claims, sensitive: true } };
  ok(await execute(theirs, 'project_create', { title: 'Other', key: 'OTH' }));
});
afterAll(() => db.drop());

describe.each([
  ['2026-07-28', modern],
  ['2025-11-25', legacy],
])('resources and prompts over %s', (_rev, connect) => {
  it('lists the memory templates, each project collection and the four prompts', async () => {
    const c = await connect(keys.plain);
    const templates = (await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toEqual(
      expect.arrayContaining([
        'bullpen://note/{id}', 'bullpen://decision/{id}', 'bullpen://guideline/{id}',
        'bullpen://project/{key}/notes', 'bullpen://project/{key}/decisions', 'bullpen://project/{key}/guidelines', 'bullpen://source/{document_id}',
      ]),
    );
    const uris = (await c.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(['bullpen://project/ATL/notes', 'bullpen://project/ATL/decisions', 'bullpen://project/ATL/guidelines']));
    expect(uris.some((u) => u.includes('OTH'))).toBe(false);
    const prompts = (await c.listPrompts()).prompts;
    expect(prompts.map((p) => p.name).sort()).toEqual(['find_related', 'handoff_brief', 'start_task', 'summarize_project']);
    await c.close();
  });

  it('reads a note, a decision, a guideline and the project collections as Markdown with front matter', async () => {
    const c = await connect(keys.plain);
    const note = text(await c.readResource({ uri: `bullpen://note/${ids.note}` }));
    expect(note).toMatch(new RegExp(`^---\\ntype: note\\nid: ${ids.note}\\n`));
    expect(note).toContain('sensitivity: normal');
    expect(note).toContain('# Coast survey runbook\n\nWalk north first.');
    const decision = text(await c.readResource({ uri: `bullpen://decision/${ids.decision}` }));
    expect(decision).toMatch(/^---\ntype: decision\n/);
    expect(decision).toContain('**Choice:** north first');
    expect(decision).toContain('## Consequences\n- The south waits a week\n- Maps go north up\n');
    const guideline = text(await c.readResource({ uri: `bullpen://guideline/${ids.guideline}` }));
    expect(guideline).toContain('type: guideline');
    // a note that is not a guideline is no guideline
    await expect(c.readResource({ uri: `bullpen://guideline/${ids.note}` })).rejects.toThrow(/NOT_FOUND/);
    const notes = text(await c.readResource({ uri: 'bullpen://project/ATL/notes' }));
    expect(notes).toContain(`bullpen://note/${ids.note}`);
    expect(text(await c.readResource({ uri: 'bullpen://project/ATL/decisions' }))).toContain(`bullpen://decision/${ids.decision}`);
    expect(text(await c.readResource({ uri: 'bullpen://project/ATL/guidelines' }))).toContain(`bullpen://guideline/${ids.guideline}`);
    // no source documents here: a clean not found
    await expect(c.readResource({ uri: 'bullpen://source/00000000-0000-4000-8000-000000000000' })).rejects.toThrow(/NOT_FOUND/);
    await c.close();
  });

  it('builds the four prompts from the ledger', async () => {
    const c = await connect(keys.plain);
    const summary = promptText(await c.getPrompt({ name: 'summarize_project', arguments: { project: 'ATL' } }));
    expect(summary).toContain('## Counts by type');
    expect(summary).toMatch(/tasks: .*todo 1/);
    expect(summary).toMatch(/notes: .*guideline 1/);
    expect(summary).toContain('survey (2)');
    expect(summary).toContain('Start in the north: north first');
    expect(summary).toContain('Survey in pairs');
    expect(summary).toContain('blocked task ATL-2: Stuck on permits');
    const related = promptText(await c.getPrompt({ name: 'find_related', arguments: { type: 'task', id: 'ATL-1', depth: '2' } }));
    expect(related).toContain('Coast survey runbook');
    const start = promptText(await c.getPrompt({ name: 'start_task', arguments: { task_id: 'ATL-1' } }));
    expect(start).toContain('You are starting task ATL-1: Map the coast');
    expect(start).toContain('- [ ] every bay named');
    expect(start).toContain('Start in the north');
    expect(start).toContain('Name bays after sponsors');
    expect(start).toContain('Coast survey runbook');
    const handoff = promptText(await c.getPrompt({ name: 'handoff_brief', arguments: { handoff_id: ids.handoff } }));
    expect(handoff).toContain('Which bay first?');
    expect(handoff).toContain('ATL-1 Map the coast');
    await expect(c.getPrompt({ name: 'start_task', arguments: {} })).rejects.toThrow(/task_id is required/);
    await c.close();
  });

  it('a normal key never reads a sensitive note through a resource or a prompt; a sensitive key does', async () => {
    const c = await connect(keys.plain);
    await expect(c.readResource({ uri: `bullpen://note/${ids.secret}` })).rejects.toThrow(/NOT_FOUND/);
    const everything = [
      text(await c.readResource({ uri: 'bullpen://project/ATL/notes' })),
      promptText(await c.getPrompt({ name: 'summarize_project', arguments: { project: 'ATL' } })),
      promptText(await c.getPrompt({ name: 'find_related', arguments: { type: 'task', id: 'ATL-1', depth: '3' } })),
      promptText(await c.getPrompt({ name: 'start_task', arguments: { task_id: 'ATL-1' } })),
    ].join('\n');
    expect(everything).not.toContain('Gryphon');
    expect(everything).not.toContain(ids.secret);
    await c.close();
    const s = await connect(keys.sensitive);
    const secret = text(await s.readResource({ uri: `bullpen://note/${ids.secret}` }));
    expect(secret).toContain('sensitivity: sensitive');
    expect(text(await s.readResource({ uri: 'bullpen://project/ATL/notes' }))).toContain('Gryphon salaries (sensitive)');
    expect(promptText(await s.getPrompt({ name: 'find_related', arguments: { type: 'task', id: 'ATL-1' } }))).toContain('Gryphon');
    await s.close();
  });

  it("another workspace's ids answer not found through every resource and prompt", async () => {
    const c = await connect(keys.other);
    for (const uri of [`bullpen://note/${ids.note}`, `bullpen://note/${ids.secret}`, `bullpen://decision/${ids.decision}`, `bullpen://guideline/${ids.guideline}`,
      'bullpen://project/ATL/notes', 'bullpen://project/ATL/decisions', 'bullpen://project/ATL/guidelines', `bullpen://project/${ids.project}/notes`]) {
      await expect(c.readResource({ uri }), uri).rejects.toThrow(/NOT_FOUND/);
    }
    for (const [name, args] of [
      ['summarize_project', { project: ids.project }],
      ['find_related', { type: 'task', id: ids.task }],
      ['start_task', { task_id: ids.task }],
      ['handoff_brief', { handoff_id: ids.handoff }],
    ] as const) {
      await expect(c.getPrompt({ name, arguments: { ...args } }), name).rejects.toThrow(/NOT_FOUND/);
    }
    expect((await c.listResources()).resources.map((r) => r.uri).some((u) => u.includes('ATL'))).toBe(false);
    await c.close();
  });

  it('a key scoped to tasks sees only the tasks room: no memory templates, no note reads, start_task without memory', async () => {
    const c = await connect(keys.tasksOnly);
    const templates = (await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates.filter((t) => /note|decision|guideline|source/.test(t))).toEqual([]);
    expect((await c.listPrompts()).prompts.map((p) => p.name)).toEqual(['start_task']);
    await expect(c.readResource({ uri: `bullpen://note/${ids.note}` })).rejects.toThrow(/FORBIDDEN/);
    await expect(c.getPrompt({ name: 'summarize_project', arguments: { project: 'ATL' } })).rejects.toThrow(/FORBIDDEN/);
    const start = promptText(await c.getPrompt({ name: 'start_task', arguments: { task_id: 'ATL-1' } }));
    expect(start).toContain('Map the coast');
    expect(start).not.toContain('Coast survey runbook');
    expect(start).toContain('not readable with this key');
    await c.close();
  });

  it('a connection narrowed to the core toolset leaves the memory rooms out', async () => {
    const c = await connect(keys.plain, `${BASE}?toolsets=core`);
    expect((await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).not.toContain('bullpen://note/{id}');
    await expect(c.readResource({ uri: `bullpen://note/${ids.note}` })).rejects.toThrow(/toolsets/);
    await c.close();
  });
});
