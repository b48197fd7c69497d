#!/usr/bin/env node
// npm test: every suite, in order. unit + db (PGlite) + pg (a real Postgres: DATABASE_URL, or a
// throwaway cluster started here) + mcp (the SDK client against a started server) + e2e (Chromium).
// Ends with one line "N passed, N failed, N skipped"; failures and flaky tests are named above it.
// A step that fails without a report of its own (the build, a runner that crashed) counts as a failure.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalPostgres } from './pg-local.mjs';
import { ensurePgvector } from './pgvector.mjs';
import { addCounts, closingLine, countPlaywright, countVitest, emptyCounts, settleStep } from './test-counts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
mkdirSync('test-results', { recursive: true });
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' };
const total = emptyCounts();
const failedSteps = [];

function step(name, cmd, args, extraEnv = {}) {
  console.log(`\n▶ ${name}: ${[cmd, ...args].join(' ')}`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...env, ...extraEnv } });
  const status = r.status ?? (r.signal ? `signal ${r.signal}` : r.error?.message);
  console.log(`◀ ${name}: ${r.status === 0 ? 'ok' : `FAILED (exit ${status})`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (r.status !== 0) failedSteps.push(name);
  return r.status === 0;
}

/** The runner's JSON report, or null when it wrote none (or wrote something unreadable). */
function readReport(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** Runs a step whose runner writes a JSON report, and adds its counts (a stale report never counts). */
function runCounted(name, report, count, cmd, args, extraEnv = {}) {
  rmSync(report, { force: true });
  const ok = step(name, cmd, args, extraEnv);
  const j = readReport(report);
  addCounts(total, settleStep(name, ok, j && count(j)));
}

const node = process.execPath;
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const next = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');

// 1. the app build the mcp and e2e suites start
addCounts(total, settleStep('build', step('build', node, [next, 'build']), null));

// 2. a real Postgres for the pg suite, with pgvector built from vendor/ and installed into it (reused
// when installed; without root it says so and the pg suite runs the no-pgvector fallback alone)
{
  const t0 = Date.now();
  const vector = await ensurePgvector({ log: (m) => console.log(m) });
  console.log(`pgvector: ${vector ? 'installed' : 'not installed: the pg suite runs without vectors'} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}
let pgStop = null;
let databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  const local = await startLocalPostgres().catch((err) => {
    console.error(`could not start a local Postgres: ${err.message}`);
    return null;
  });
  if (local) {
    databaseUrl = local.url;
    pgStop = local.stop;
    console.log(`started a throwaway Postgres for the pg suite at ${databaseUrl}`);
  }
}
const projects = ['unit', 'db', 'mcp'];
if (databaseUrl) projects.push('pg');
else {
  console.error('\nThe pg suite needs Postgres ≥ 15: set DATABASE_URL, or install the server (apt-get install postgresql).');
  failedSteps.push('pg (no Postgres available)');
  total.failed += 1;
  total.failures.push('pg: no Postgres available');
}

try {
  runCounted(
    'vitest',
    'test-results/vitest.json',
    (j) => countVitest(j, root),
    node,
    [vitest, 'run', ...projects.flatMap((p) => ['--project', p]), '--reporter=default', '--reporter=json', '--outputFile.json=test-results/vitest.json'],
    databaseUrl ? { DATABASE_URL: databaseUrl } : {},
  );
} finally {
  pgStop?.();
}

// 3. the console in a real browser
const e2eSpecs = existsSync('e2e') ? readdirSync('e2e').filter((f) => f.endsWith('.spec.ts')) : [];
if (e2eSpecs.length) {
  runCounted('e2e', 'test-results/e2e.json', countPlaywright, node, [path.join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: 'test-results/e2e.json',
  });
}

const list = (items) => items.slice(0, 50).map((x) => `  ${x}`).join('\n') + (items.length > 50 ? `\n  … and ${items.length - 50} more` : '');
if (total.flaky) console.log(`\nflaky (failed, then passed on a retry; counted as passed): ${total.flaky}\n${list(total.flakyNames)}`);
if (total.failures.length) console.log(`\nfailed:\n${list(total.failures)}`);
console.log(`\n${failedSteps.length ? `failed steps: ${failedSteps.join(', ')}` : 'all steps ok'}`);
console.log(closingLine(total));
process.exit(failedSteps.length || total.failed ? 1 : 0);
