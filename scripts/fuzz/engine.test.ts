import { describe, expect, it } from 'vitest';
import { exactInputJsonSchema } from '../../lib/core/json-schema';
import { registry } from '../../lib/core/registry';
import { ERROR_CODES } from '../../lib/core/errors';
import { MUTATIONS, Rng, buildCall, checkResponse, emptyPool, mutate, toJson, valueFor, type FuzzContext, type Tool } from './engine';

const tools: Tool[] = registry.map((t) => ({ name: t.name, inputSchema: exactInputJsonSchema(t) }));
const ctx: FuzzContext = {
  own: { ...emptyPool(), actorIds: ['11111111-1111-4111-8111-111111111111'], projectKeys: ['PAY'], projectIds: ['22222222-2222-4222-8222-222222222222'], taskIds: ['33333333-3333-4333-8333-333333333333'], taskRefs: ['PAY-1'], commentIds: ['44444444-4444-4444-8444-444444444444'] },
  foreign: { ...emptyPool(), actorIds: ['aaaaaaaa-1111-4111-8111-111111111111'], projectKeys: ['OTH'], projectIds: ['bbbbbbbb-2222-4222-8222-222222222222'], taskIds: ['cccccccc-3333-4333-8333-333333333333'], taskRefs: ['OTH-1'], commentIds: [] },
};
const contract = { codes: new Set(Object.keys(ERROR_CODES)) };

describe('the fuzzer', () => {
  it('is deterministic: the same seed and index build the same call, whatever ran before', () => {
    const a = Array.from({ length: 200 }, (_, i) => toJson(buildCall(tools, 7, i, ctx)));
    const b = Array.from({ length: 200 }, (_, i) => toJson(buildCall(tools, 7, 199 - i, ctx))).reverse();
    expect(a).toEqual(b);
    expect(toJson(buildCall(tools, 8, 5, ctx))).not.toEqual(a[5]);
  });

  it('builds calls the tools accept when left unmutated, from their JSON Schema alone', () => {
    // cross-field rules (exactly one of two fields) are not in JSON Schema, so a few may miss
    let accepted = 0;
    let total = 0;
    for (const t of registry) {
      const schema = exactInputJsonSchema(t);
      let mine = 0;
      const misses: string[] = [];
      for (let i = 0; i < 30; i++) {
        const v = valueFor(schema, schema, '', new Rng(3, i), ctx);
        const parsed = t.input.safeParse(v);
        if (parsed.success) mine++;
        else misses.push(`${JSON.stringify(v).slice(0, 200)} → ${parsed.error.issues[0]?.message}`);
      }
      expect(mine, `${t.name}: ${misses[0]}`).toBeGreaterThanOrEqual(10);
      accepted += mine;
      total += 30;
    }
    expect(accepted / total).toBeGreaterThan(0.9);
  });

  it('uses every mutation, every tool, and the other workspace’s ids over a run', () => {
    const seen = new Set<string>();
    const toolsSeen = new Set<string>();
    let foreign = 0;
    for (let i = 0; i < 3000; i++) {
      const c = buildCall(tools, 1, i, ctx);
      c.mutations.forEach((m) => seen.add(m));
      toolsSeen.add(c.tool);
      if (/aaaaaaaa-|bbbbbbbb-|cccccccc-|OTH/.test(toJson(c.args))) foreign++;
    }
    for (const m of MUTATIONS) expect(seen, m).toContain(m);
    for (const t of registry) expect(toolsSeen).toContain(t.name);
    expect(foreign).toBeGreaterThan(50);
  }, 30_000); // 3,000 calls over every tool of the registry: its time grows with the registry

  it('writes tokens JSON.stringify cannot (1e999, deep nesting) verbatim', () => {
    const args: Record<string, unknown> = { limit: 1 };
    const rng = new Rng(1, 1);
    for (let i = 0; i < 50; i++) mutate(args, { type: 'object', properties: { limit: { type: 'integer' } } }, rng, ctx, 'number_edge');
    expect(() => JSON.parse(toJson({ x: Array.from({ length: 3 }, () => 1) }))).not.toThrow();
    const deep = mutate({ a: 'x' }, { type: 'object' }, new Rng(2, 2), ctx, 'deep_nesting');
    expect(toJson(deep).length).toBeGreaterThan(50);
  });

  it('judges answers: ok, a named validation error, INTERNAL, an unnamed field, a leak, a 5xx', () => {
    const wrap = (env: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: JSON.stringify(env) }] } });
    const none = new Set<string>();
    expect(checkResponse(200, wrap({ ok: true }), '', none, contract)).toEqual({ status: 200, outcome: 'ok', problems: [] });
    const named = { ok: false, error: { code: 'VALIDATION_ERROR', message: 'title: too long', hint: 'h', retryable: false, details: { fields: ['title'] } } };
    expect(checkResponse(200, wrap(named), '', none, contract).problems).toEqual([]);
    const unnamed = { ok: false, error: { code: 'VALIDATION_ERROR', message: 'bad', hint: 'h', retryable: false } };
    expect(checkResponse(200, wrap(unnamed), '', none, contract).problems[0]).toMatch(/names no field/);
    const internal = { ok: false, error: { code: 'INTERNAL', message: 'boom', hint: 'h', retryable: true } };
    expect(checkResponse(200, wrap(internal), '', none, contract).problems[0]).toMatch(/^INTERNAL/);
    const id = 'cccccccc-3333-4333-8333-333333333333';
    const leaky = { ok: true, task: { id } };
    expect(checkResponse(200, wrap(leaky), '{}', new Set([id]), contract).problems[0]).toMatch(/^leak/);
    // echoing an id the caller sent is not a leak
    expect(checkResponse(200, wrap({ ok: false, error: { code: 'NOT_FOUND', message: `no task ${id}`, hint: 'h', retryable: false } }), `{"task_id":"${id}"}`, new Set([id]), contract).problems).toEqual([]);
    expect(checkResponse(500, 'oops', '', none, contract).problems[0]).toMatch(/HTTP 500/);
    expect(checkResponse(200, JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'internal' } }), '', none, contract).problems[0]).toMatch(/-32603/);
    expect(checkResponse(200, JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad params' } }), '', none, contract).problems).toEqual([]);
  });
});
