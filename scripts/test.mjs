#!/usr/bin/env node
// npm test: every suite, in order. unit + db (PGlite) + pg (a real Postgres: DATABASE_URL, or a
// throwaway cluster started here) + mcp (the SDK client against a started server) + e2e (Chromium).
// Ends with one line "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalPostgres } from './pg-local.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
mkdirSync('test-results', { recursive: true });
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' };
let passed = 0;
let failed = 0;
let failedSteps = [];

function step(name, cmd, args, extraEnv = {}) {
  console.log(`\n▶ ${name}: ${[cmd, ...args].join(' ')}`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...env, ...extraEnv } });
  console.log(`◀ ${name}: ${r.status === 0 ? 'ok' : `FAILED (exit ${r.status})`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  if (r.status !== 0) failedSteps.push(name);
  return r.status === 0;
}

function countVitest(file) {
  if (!existsSync(file)) return;
  const j = JSON.parse(readFileSync(file, 'utf8'));
  passed += j.numPassedTests ?? 0;
  failed += (j.numFailedTests ?? 0) + (j.numFailedTestSuites ?? 0 ? 0 : 0);
}

const node = process.execPath;
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const next = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');

// 1. the app build the mcp and e2e suites start
step('build', node, [next, 'build']);

// 2. a real Postgres for the pg suite
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
}

try {
  step(
    'vitest',
    node,
    [vitest, 'run', ...projects.flatMap((p) => ['--project', p]), '--reporter=default', '--reporter=json', '--outputFile.json=test-results/vitest.json'],
    databaseUrl ? { DATABASE_URL: databaseUrl } : {},
  );
  countVitest('test-results/vitest.json');
} finally {
  pgStop?.();
}

// 3. the console in a real browser
const e2eSpecs = existsSync('e2e') ? readdirSync('e2e').filter((f) => f.endsWith('.spec.ts')) : [];
if (e2eSpecs.length) {
  const ok = step('e2e', node, [path.join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: 'test-results/e2e.json',
  });
  if (existsSync('test-results/e2e.json')) {
    const j = JSON.parse(readFileSync('test-results/e2e.json', 'utf8'));
    passed += j.stats?.expected ?? 0;
    failed += (j.stats?.unexpected ?? 0) + (j.stats?.flaky ?? 0 ? 0 : 0);
  } else if (!ok) failed += 1;
}

if (failedSteps.length && failed === 0) failed = failedSteps.length;
console.log(`\n${failedSteps.length ? `failed steps: ${failedSteps.join(', ')}` : 'all steps ok'}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failedSteps.length ? 1 : 0);
