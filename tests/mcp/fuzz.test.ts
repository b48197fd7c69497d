import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ERROR_CODES } from '../../lib/core/errors';
import { RawJson, type FuzzContext, type Tool } from '../../scripts/fuzz/engine';
import { callTool, changedTables, listTools, mintKey, runFuzz, seedWorkspace, settledChecksum, summary, workspaceChecksum, type FuzzReport } from '../../scripts/fuzz/run';

/**
 * The seeded 1,000-call subset of `npm run fuzz` against the started server: calls built from every
 * tool's JSON Schema as tools/list serves it, mutated, over HTTP. Passes with 0 HTTP 5xx, 0
 * INTERNAL, every error carrying its code (and, for VALIDATION_ERROR, the field), no id of the
 * other workspace in any answer, the server answering throughout, and the other workspace's rows
 * byte-for-byte unchanged. The figures are printed.
 */

const server = inject('server');
const SEED = 11;
const CALLS = 1000;
const suffix = randomBytes(3).toString('hex');
const wsA = `fuzz-a-${suffix}`;
const wsB = `fuzz-b-${suffix}`;
let a: { key: string; actorId: string };
let tools: Tool[];
let ctx: FuzzContext;
let before: Awaited<ReturnType<typeof settledChecksum>>;
let report: FuzzReport | null = null;

beforeAll(async () => {
  a = await mintKey(server.url, server.adminToken, wsA, 'fuzzer');
  const b = await mintKey(server.url, server.adminToken, wsB, 'bystander');
  ctx = { own: await seedWorkspace(server.url, a.key, 'FA'), foreign: await seedWorkspace(server.url, b.key, 'FB') };
  before = await settledChecksum(server.url, server.adminToken, wsB);
  tools = await listTools(server.url, a.key);
});

afterAll(async () => {
  if (report) {
    const after = await workspaceChecksum(server.url, server.adminToken, wsB);
    console.log(summary(report, { before: before.sha256, after: after.sha256, rows: before.rows, changed: changedTables(before, after) }));
  }
});

describe('the fuzzer against the running server', () => {
  it(`${CALLS} seeded calls over every tool: no 5xx, no INTERNAL, every error named, no leak, nothing of the other workspace changed`, async () => {
    expect(tools.length).toBeGreaterThanOrEqual(19);
    expect(ctx.foreign.taskIds.length).toBeGreaterThan(0);
    expect(before.rows).toBeGreaterThan(10);
    report = await runFuzz({
      url: server.url,
      key: a.key,
      tools,
      ctx,
      foreignIds: before.ids,
      contractCodes: Object.keys(ERROR_CODES),
      calls: CALLS,
      seed: SEED,
      concurrency: 6,
    });
    const failures = Object.entries(report.failure_kinds).map(([k, v]) => `${v.count}× ${k}`);
    expect(failures).toEqual([]);
    expect(report.calls).toBe(CALLS);
    expect(report.http_5xx).toBe(0);
    expect(report.internal).toBe(0);
    expect(report.leaks).toBe(0);
    expect(report.liveness.ok).toBe(report.liveness.probes);
    // the run exercised the product, not only the validator
    expect(report.outcomes.ok).toBeGreaterThan(50);
    expect(report.outcomes.VALIDATION_ERROR).toBeGreaterThan(300);
    expect(report.outcomes.NOT_FOUND).toBeGreaterThan(10);
    expect(Object.keys(report.mutations).length).toBeGreaterThanOrEqual(15);
    const after = await workspaceChecksum(server.url, server.adminToken, wsB);
    expect(changedTables(before, after)).toEqual([]);
    expect(after.sha256).toBe(before.sha256);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });
});

describe('what the fuzzer found, pinned over HTTP', () => {
  const envelope = async (name: string, args: unknown) => {
    // the 1,000 calls above may have emptied this key's bucket: wait out a 429 as a client would
    const r = await callTool(server.url, a.key, name, args);
    return { status: r.status, body: JSON.parse(r.body) as { result?: { content: { text: string }[] }; error?: { code: number; message: string } } };
  };

  it('arguments that are not an object are InvalidParams (-32602) naming params.arguments, not an internal error', async () => {
    for (const args of [[], 'x', 42, null, true]) {
      const { status, body } = await envelope('task_get', args);
      expect(status).toBe(200);
      expect(body.error?.code, JSON.stringify(args)).toBe(-32602);
      expect(body.error?.message).toContain('arguments');
    }
  });

  it('a 20,000-deep array, a NUL byte and a lone surrogate are VALIDATION_ERRORs naming the field', async () => {
    const deep = new RawJson('['.repeat(20_000) + ']'.repeat(20_000));
    for (const [args, field] of [
      [{ task_id: deep }, 'task_id'],
      [{ project_id: 'FA0', title: 'nul\u0000byte' }, 'title'],
      [{ project_id: 'FA0', title: 'half \ud83d' }, 'title'],
    ] as const) {
      const { body } = await envelope(field === 'task_id' ? 'task_get' : 'task_create', args);
      const env = JSON.parse(body.result!.content[0].text);
      expect(env.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: [expect.stringContaining(field)] } });
    }
    // and the server still answers
    const { body } = await envelope('whoami', {});
    expect(JSON.parse(body.result!.content[0].text).ok).toBe(true);
  });
});
