import { describe, expect, it } from 'vitest';
import { listTools } from '../mcp/server';
import { registry } from './registry';
import { CORE_TOOLS, parseToolsets } from './toolsets';

/**
 * Bytes of a whole tools/list response (the JSON-RPC answer around the `tools` array): what a
 * model pays for in context. `toolsets` as a connection names them; omitted, a connection naming none.
 */
function response(toolsets?: string) {
  const sel = parseToolsets(toolsets ?? null);
  if (!sel.ok) throw new Error(`unknown toolsets ${sel.unknown.join(', ')}`);
  const tools = listTools({ toolsets: sel.tools });
  return { tools, bytes: Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools } })) };
}

/** The budget (docs/benchmarks.md: What the tool list costs a model). */
const PER_TOOL = 720;
const CORE = 9_000;
const DEFAULT_LIST = 48_000;

/** What a failure says: the figures, the heaviest tools, and how to get back within the budget. */
function overBudget(what: string, bytes: number, limit: string, tools: ReturnType<typeof listTools>) {
  const heaviest = tools
    .map((t) => ({ name: t.name, bytes: Buffer.byteLength(JSON.stringify(t)) }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5)
    .map((t) => `${t.name} ${t.bytes}`)
    .join(', ');
  return (
    `${what}: ${bytes} bytes, over ${limit}. Heaviest: ${heaviest}. To fix: shorten the new tools' descriptions ` +
    `(one pass: what it does, "Returns …", "Use when …"), move defaults and asides into docs() notes ` +
    `(lib/core/fields.ts; docs/tools.md shows them, tools/list does not), share field descriptions, and ` +
    `put a room beyond the contract in OPT_IN_ROOMS (lib/core/toolsets.ts) so only connections naming it pay for it. ` +
    `Never drop additionalProperties: false or raise the budget; npx tsx scripts/tool-bytes.ts prints each tool's bytes.`
  );
}

describe('the tool list a model reads', () => {
  it(`keeps every tool (toolsets=all) within ${PER_TOOL} bytes per tool on average`, () => {
    const { tools, bytes } = response('all');
    expect(tools.length).toBe(registry.length);
    const average = bytes / tools.length;
    expect(average, overBudget(`all ${tools.length} tools average ${average.toFixed(1)} per tool`, bytes, `${PER_TOOL * tools.length} (${PER_TOOL} × ${tools.length})`, tools)).toBeLessThanOrEqual(PER_TOOL);
  });

  it(`keeps the core toolset, the whole agent loop, within ${CORE} bytes`, () => {
    const { tools, bytes } = response('core');
    const loop = ['whoami', 'guide', 'project_brief', 'task_claim', 'task_get', 'task_query', 'task_update', 'task_release', 'task_create', 'comment_add', 'inbox', 'handoff_create'];
    expect([...CORE_TOOLS].sort()).toEqual(loop.sort());
    expect(tools.map((t) => t.name).sort()).toEqual(loop.sort());
    expect(bytes, overBudget('core', bytes, String(CORE), tools)).toBeLessThanOrEqual(CORE);
  });

  it(`keeps the list of a connection naming no toolsets within ${DEFAULT_LIST} bytes`, () => {
    const { tools, bytes } = response();
    expect(bytes, overBudget('the default list', bytes, String(DEFAULT_LIST), tools)).toBeLessThanOrEqual(DEFAULT_LIST);
  });

  it('answers in one fixed order, the registry’s, whatever the toolsets', () => {
    const order = registry.map((t) => t.name);
    for (const sets of [undefined, 'all', 'core', 'handoffs,core', 'knowledge,tasks,decisions']) {
      const names = response(sets).tools.map((t) => t.name);
      expect(names, sets ?? 'none named').toEqual(order.filter((n) => names.includes(n)));
      expect(response(sets).tools.map((t) => t.name)).toEqual(names);
    }
    // naming the same rooms in another order lists the same tools in the same order
    expect(response('tasks,core,handoffs').tools).toEqual(response('handoffs,tasks,core').tools);
  });

  it('has every tool say what it returns and when to call it', () => {
    for (const t of listTools()) {
      const sentences = t.description!.split(/(?<=[.;:]) /);
      expect(sentences.some((s) => s.startsWith('Returns ')), `${t.name}: a sentence starting "Returns"`).toBe(true);
      expect(sentences.some((s) => s.startsWith('Use when ')), `${t.name}: a sentence starting "Use when"`).toBe(true);
      // one short pass: what it does, what it returns, when to call it; the rest is the guide's
      expect(t.description!.length, t.name).toBeLessThanOrEqual(160);
    }
  });
});
