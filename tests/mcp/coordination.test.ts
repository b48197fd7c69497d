import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * Waiting calls over the real endpoint: the HTTP request stays open while inbox or task_claim
 * waits, returns as soon as the awaited write lands, and a client that hangs up ends the wait.
 * Plus the CLI twins of the room, run as a script would.
 */

const server = inject('server');
const root = path.resolve(import.meta.dirname, '..', '..');
type Envelope = { ok: boolean; [k: string]: any };
type Agent = { key: string; id: string; client: Client; call: (tool: string, args?: Record<string, unknown>) => Promise<Envelope> };
const agents: Agent[] = [];

async function newAgent(name: string): Promise<Agent> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(root, 'bin/bullpen.mjs'), 'agent', 'add', name, '--workspace', 'coordination', '--json'],
    { cwd: root, env: { ...process.env, BULLPEN_DATA_DIR: server.dataDir } },
  );
  const { api_key, actor_id } = JSON.parse(stdout) as { api_key: string; actor_id: string };
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${api_key}` } } }));
  const a: Agent = {
    key: api_key,
    id: actor_id,
    client,
    call: async (tool, args = {}) => {
      const res = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 90_000 })) as { content: { text: string }[] };
      return JSON.parse(res.content[0].text) as Envelope;
    },
  };
  agents.push(a);
  return a;
}

let asker: Agent;
let waiter: Agent;
beforeAll(async () => {
  asker = await newAgent('asker');
  waiter = await newAgent('waiter');
});
afterAll(async () => {
  for (const a of agents) await a.client.close().catch(() => {});
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('wait_seconds over HTTP', () => {
  it('a waiting inbox holds the request and returns within a second of the handoff it waits for', async () => {
    const waiting = waiter.call('inbox', { wait_seconds: 30 });
    await sleep(500);
    const wroteAt = Date.now();
    const h = await asker.call('handoff_create', { to_actor_ids: [waiter.id], kind: 'question', title: 'Ready for the migration?' });
    expect(h.ok).toBe(true);
    const r = await waiting;
    expect(Date.now() - wroteAt).toBeLessThan(1000);
    expect(r).toMatchObject({ ok: true, items: [{ id: h.handoff_id, kind: 'handoff' }] });
    expect(r.waited_ms).toBeGreaterThanOrEqual(450);
    // answer it, ack it; the asker waits for the answer the same way
    const answer = asker.call('inbox', { kinds: ['response'], wait_seconds: 30 });
    await sleep(300);
    expect((await waiter.call('handoff_respond', { handoff_id: h.handoff_id, response: { text: 'yes, go' } })).ok).toBe(true);
    expect((await waiter.call('inbox', { ack: [h.handoff_id] })).acked).toBe(1);
    const got = await answer;
    expect(got.items).toEqual([expect.objectContaining({ id: h.handoff_id, kind: 'response', summary: 'waiter answered "Ready for the migration?": yes, go' })]);
  });

  it('a waiting task_claim returns the task created for it', async () => {
    expect((await asker.call('project_create', { title: 'Waiting', key: 'WAIT' })).ok).toBe(true);
    const waiting = waiter.call('task_claim', { wait_seconds: 30, label: 'for-waiter' });
    await sleep(500);
    const t = await asker.call('task_create', { project_id: 'WAIT', title: 'appears later', labels: ['for-waiter'] });
    expect(await waiting).toMatchObject({ ok: true, claimed: true, task: { id: t.task_id } });
  });

  it('returns empty at the timeout, without an error', async () => {
    const t0 = Date.now();
    const r = await waiter.call('inbox', { wait_seconds: 1.5 });
    expect(r).toMatchObject({ ok: true, items: [] });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
  });
});

describe('the CLI twins', () => {
  async function bullpen(key: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(root, 'bin/bullpen.mjs'), ...args], {
        cwd: root,
        env: { ...process.env, BULLPEN_URL: server.url, BULLPEN_API_KEY: key },
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  it('hand work over, claim, answer, read the answer and resolve from a shell', async () => {
    const created = JSON.parse((await bullpen(asker.key, ['handoff', 'create', '--to-actor-ids', waiter.id, '--title', 'Rotate keys', '--kind', 'approval', '--json'])).stdout);
    expect(created).toMatchObject({ ok: true, deduped: false, handoff: { options: ['approve', 'reject'] } });
    const id = created.handoff_id;
    const inbox = JSON.parse((await bullpen(waiter.key, ['inbox', '--kinds', 'handoff', '--json'])).stdout);
    expect(inbox.items.map((i: { id: string }) => i.id)).toContain(id);
    expect((await bullpen(waiter.key, ['handoff', 'claim', id, '--json'])).code).toBe(0);
    const stolen = await bullpen(asker.key, ['handoff', 'respond', id, '--response', '{"chosen_option":"approve"}']);
    expect(stolen.code).toBe(1);
    expect(stolen.stderr).toContain('FORBIDDEN');
    expect((await bullpen(waiter.key, ['handoff', 'respond', id, '--response', '{"chosen_option":"approve"}', '--json'])).code).toBe(0);
    const mine = JSON.parse((await bullpen(asker.key, ['handoff', 'query', '--direction', 'from_me', '--json'])).stdout);
    expect(mine.handoffs.find((h: { id: string }) => h.id === id).response).toEqual({ chosen_option: 'approve' });
    expect((await bullpen(asker.key, ['handoff', 'resolve', id, '--note', 'rotated'])).code).toBe(0);
    const notes = JSON.parse((await bullpen(asker.key, ['notification', 'query', '--unread-only', '--json'])).stdout);
    expect(notes.unread_count).toBeGreaterThan(0);
    const marked = JSON.parse((await bullpen(asker.key, ['notification', 'mark-read', '--all', '--json'])).stdout);
    expect(marked).toMatchObject({ ok: true, unread_count: 0 });
    expect(marked.marked).toBe(notes.unread_count);
    const waited = JSON.parse((await bullpen(asker.key, ['inbox', '--kinds', 'notification', '--wait-seconds', '1', '--json'])).stdout);
    expect(waited).toMatchObject({ ok: true, items: [] });
  });
});
