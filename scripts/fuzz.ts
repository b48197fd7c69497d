/**
 * npm run fuzz [-- --calls N --seed N --concurrency N --only i,j]
 *
 * Starts `bullpen start` in a temp directory (embedded database, or DATABASE_URL's Postgres),
 * seeds two workspaces, and fuzzes workspace A's MCP endpoint with calls built from every tool's
 * JSON Schema (scripts/fuzz/engine.ts). Prints the figures; exits 1 on any 5xx, INTERNAL, error
 * without its code or field, leak of workspace B, unanswered call, or change to B's rows.
 * A failure names its call index: `--seed S --only INDEX` replays exactly that call.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ERROR_CODES } from '../lib/core/errors';
import { spawnServer } from './server-process.mjs';
import { listTools, mintKey, runFuzz, seedWorkspace, summary, workspaceChecksum } from './fuzz/run';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '10000' },
    seed: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    only: { type: 'string' },
    json: { type: 'boolean' },
  },
});
const seed = values.seed ? Number(values.seed) : randomBytes(4).readUInt32BE() % 1_000_000;
const calls = Number(values.calls);
const only = values.only?.split(',').map(Number);

const database = process.env.DATABASE_URL ? 'Postgres (DATABASE_URL)' : 'embedded';
console.error(`starting bullpen (${database} database)…`);
const server = await spawnServer({ label: 'fuzz' });
let code = 1;
try {
  const suffix = randomBytes(3).toString('hex');
  const a = await mintKey(server.url, server.adminToken, `fuzz-a-${suffix}`, 'fuzzer');
  const b = await mintKey(server.url, server.adminToken, `fuzz-b-${suffix}`, 'bystander');
  const own = await seedWorkspace(server.url, a.key, 'FA');
  const foreign = await seedWorkspace(server.url, b.key, 'FB');
  const before = await workspaceChecksum(server.url, server.adminToken, `fuzz-b-${suffix}`);
  const tools = await listTools(server.url, a.key);
  console.error(`fuzzing ${tools.length} tools with ${only?.length ?? calls} calls, seed ${seed}…`);
  let shown = 0;
  const report = await runFuzz({
    url: server.url,
    key: a.key,
    tools,
    ctx: { own, foreign },
    foreignIds: before.ids,
    contractCodes: Object.keys(ERROR_CODES),
    calls,
    seed,
    only,
    concurrency: Number(values.concurrency),
    onProgress: (done, total) => {
      if (done - shown >= 1000) {
        shown = done;
        console.error(`  ${done}/${total}`);
      }
    },
  });
  const after = await workspaceChecksum(server.url, server.adminToken, `fuzz-b-${suffix}`);
  const health = await fetch(`${server.url}/api/health`).then((r) => r.status).catch(() => 0);
  console.log(summary(report, { before: before.sha256, after: after.sha256, rows: before.rows }));
  console.log(`  /api/health after the run: HTTP ${health}`);
  if (values.json) console.log(JSON.stringify({ bench: 'fuzz', database, ...report, other_workspace_unchanged: before.sha256 === after.sha256, health }));
  code = report.failures === 0 && before.sha256 === after.sha256 && health === 200 ? 0 : 1;
} finally {
  await server.stop();
}
process.exit(code);
