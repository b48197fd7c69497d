/**
 * What advertising outputSchema (and answering with structuredContent) would cost on the wire:
 * the bytes of a tools/list response and of typical tools/call responses, with and without.
 * Runs the real executor on an in-memory PGlite. Usage: npx tsx scripts/measure-mcp-bytes.ts
 */
import { execute } from '../lib/core/execute';
import { registry } from '../lib/core/registry';
import type { ToolContext } from '../lib/core/tool';
import { migrate } from '../lib/db/migrate';
import { openPglite } from '../lib/db/pglite';
import type { Claims } from '../lib/db/types';
import { callToolResult, listTools } from '../lib/mcp/server';
import { ensureActor, ensureWorkspace } from '../lib/server/workspace';

const bytes = (result: unknown) => Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id: 1, result }));
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const row = (...cells: (string | number)[]) => console.log(`| ${cells.join(' | ')} |`);

const plain = listTools();
const withOutput = listTools({ outputSchema: true });
const perTool = (list: typeof plain) => bytes({ tools: list }) / list.length;

console.log(`tools/list (${registry.length} tools today; 57 extrapolated at today's average per tool)\n`);
row('', 'without outputSchema', 'with outputSchema', 'growth');
row('---', '---', '---', '---');
row(`${registry.length} tools`, kb(bytes({ tools: plain })), kb(bytes({ tools: withOutput })), `×${(bytes({ tools: withOutput }) / bytes({ tools: plain })).toFixed(2)}`);
row('57 tools (est.)', kb(perTool(plain) * 57), kb(perTool(withOutput) * 57), '');
row('mean per tool', `${Math.round(perTool(plain))} B`, `${Math.round(perTool(withOutput))} B`, '');

const db = await openPglite();
await migrate(db);
const ws = await ensureWorkspace(db, 'measure', 'Measure');
const agent = await ensureActor(db, ws.id, { kind: 'agent', external_ref: 'agent:measure', display_name: 'Measure agent' });
const claims: Claims = { sub: agent.id, role: 'authenticated', tenant_id: ws.id, actor_id: agent.id, run_id: 'measure', kind: 'agent' };
const ctx: ToolContext = { db, claims };
const call = (tool: string, input: unknown = {}) => execute(ctx, tool, input);

// a small, realistic project: a plan with dependencies, criteria and labels
await call('project_create', { title: 'Payments', key: 'PAY', summary: 'Card payments and refunds' });
await call('task_create_many', {
  project_id: 'PAY',
  tasks: Array.from({ length: 12 }, (_, i) => ({
    title: `Step ${i + 1} of the refunds plan`,
    body: 'Context, links and notes for whoever picks this up.\n\n- one\n- two',
    labels: ['api', i % 2 ? 'db' : 'ui'],
    acceptance_criteria: ['tests pass', 'documented'],
    ...(i > 0 ? { depends_on: [{ batch_index: i - 1 }] } : {}),
  })),
});

const calls: [string, string, unknown][] = [
  ['task_claim', 'task_claim (claimed)', { lease_seconds: 600 }],
  ['task_get', 'task_get', { task_id: 'PAY-2' }],
  ['task_query', 'task_query (12 rows)', { project_id: 'PAY' }],
  ['whoami', 'whoami', {}],
  ['task_update', 'task_update', { task_id: 'PAY-1', patch: { priority: 1 } }],
];
console.log('\ntools/call response\n');
row('call', 'text only', 'text + structuredContent', 'growth');
row('---', '---', '---', '---');
for (const [tool, label, input] of calls) {
  const env = await call(tool, input);
  if (!env.ok) throw new Error(`${tool}: ${env.error.code} ${env.error.message}`);
  const a = bytes(callToolResult(env));
  const b = bytes(callToolResult(env, { outputSchema: true }));
  row(label, `${a} B`, `${b} B`, `×${(b / a).toFixed(2)}`);
}
await db.close();
