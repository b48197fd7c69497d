/**
 * npm run fuzz [-- --calls N --seed N --concurrency N --only i,j]
 *
 * Starts `bullpen start` in a temp directory (embedded database, or a scratch database created on
 * DATABASE_URL's server and dropped afterwards — never the named database itself),
 * seeds two workspaces, and fuzzes workspace A's MCP endpoint with calls built from every tool's
 * JSON Schema (scripts/fuzz/engine.ts). Prints the figures; exits 1 on any 5xx, INTERNAL, error
 * without its code or field, leak of workspace B, unanswered call, or change to B's rows.
 * A failure names its call index: `--seed S --only INDEX` replays exactly that call.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ERROR_CODES } from '../lib/core/errors';
import { spawnServer } from './server-process.mjs';
import { changedTables, listTools, mintKey, runFuzz, seedWorkspace, settledChecksum, summary, workspaceChecksum } from './fuzz/run';

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

// never the database DATABASE_URL names: a throwaway one beside it, dropped afterwards
const admin = process.env.DATABASE_URL;
const scratch = admin ? `bullpen_fuzz_${randomBytes(4).toString('hex')}` : null;
if (admin && scratch) {
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`create database ${scratch}`);
  await c.end();
}
const database = scratch ? `Postgres, scratch database ${scratch}` : 'embedded';
console.error(`starting bullpen (${database})…`);
const server = await spawnServer({
  label: 'fuzz',
  env: { DATABASE_URL: scratch ? Object.assign(new URL(admin!), { pathname: `/${scratch}` }).toString() : undefined },
});
let code = 1;
try {
  const suffix = randomBytes(3).toString('hex');
  const a = await mintKey(server.url, server.adminToken, `fuzz-a-${suffix}`, 'fuzzer');
  const b = await mintKey(server.url, server.adminToken, `fuzz-b-${suffix}`, 'bystander');
  const own = await seedWorkspace(server.url, a.key, 'FA');
  const foreign = await seedWorkspace(server.url, b.key, 'FB');
  const before = await settledChecksum(server.url, server.adminToken, `fuzz-b-${suffix}`);
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
  console.log(summary(report, { before: before.sha256, after: after.sha256, rows: before.rows, changed: changedTables(before, after) }));
  console.log(`  /api/health after the run: HTTP ${health}`);
  if (values.json) console.log(JSON.stringify({ bench: 'fuzz', database, ...report, other_workspace_unchanged: before.sha256 === after.sha256, health }));
  code = report.failures === 0 && before.sha256 === after.sha256 && health === 200 ? 0 : 1;
} finally {
  await server.stop();
  if (admin && scratch) {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`drop database if exists ${scratch} with (force)`);
    await c.end();
  }
}
process.exit(code);
