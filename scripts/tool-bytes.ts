/**
 * What each part of tools/list costs (docs/benchmarks.md: What the tool list costs a model): the
 * whole response for toolsets=all, core and a connection naming none, the average per tool, each
 * room and each tool, and where the bytes go. The budget is tool-list.test.ts's.
 * Usage: npx tsx scripts/tool-bytes.ts [--tools]
 */
import { registry } from '../lib/core/registry';
import { parseToolsets } from '../lib/core/toolsets';
import { listTools } from '../lib/mcp/server';

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
const listFor = (raw: string | null) => {
  const sel = parseToolsets(raw);
  if (!sel.ok) throw new Error(`unknown toolsets ${sel.unknown.join(', ')}`);
  return listTools({ toolsets: sel.tools });
};
const response = (tools: unknown[]) => bytes({ jsonrpc: '2.0', id: 1, result: { tools } });

const all = listFor('all');
console.log(`| list | tools | bytes | per tool |\n| --- | --- | --- | --- |`);
for (const [label, raw] of [['all', 'all'], ['core', 'core'], ['no toolsets named', null]] as const) {
  const tools = listFor(raw);
  console.log(`| ${label} | ${tools.length} | ${response(tools).toLocaleString('en-US')} | ${(response(tools) / tools.length).toFixed(1)} |`);
}

const part = (k: 'title' | 'description' | 'inputSchema' | 'annotations') => all.reduce((n, t) => n + bytes({ [k]: t[k] }) - 1, 0);
const parts = { inputSchema: part('inputSchema'), description: part('description'), annotations: part('annotations'), title: part('title') };
const rest = response(all) - Object.values(parts).reduce((a, b) => a + b, 0);
console.log(`\n| part | bytes |\n| --- | --- |`);
for (const [k, v] of Object.entries({ ...parts, 'names and JSON structure': rest })) console.log(`| ${k} | ${v.toLocaleString('en-US')} |`);

const rooms = new Map<string, { n: number; b: number }>();
for (const t of all) {
  const room = registry.find((d) => d.name === t.name)!.room;
  const r = rooms.get(room) ?? { n: 0, b: 0 };
  rooms.set(room, { n: r.n + 1, b: r.b + bytes(t) });
}
console.log(`\n| room | tools | bytes |\n| --- | --- | --- |`);
for (const [room, r] of rooms) console.log(`| ${room} | ${r.n} | ${r.b.toLocaleString('en-US')} |`);

if (process.argv.includes('--tools')) {
  console.log(`\n| tool | bytes | input schema | description |\n| --- | --- | --- | --- |`);
  for (const t of all) console.log(`| ${t.name} | ${bytes(t)} | ${bytes(t.inputSchema)} | ${bytes(t.description)} |`);
}
