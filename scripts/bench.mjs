#!/usr/bin/env node
// npm run bench: every benchmark in bench/, JSON lines on stdout, also saved to bench/results/latest.jsonl.
// `npm run bench NAME…` runs the benches whose file names contain a NAME; with --save each bench's
// lines also go to bench/results/<bench>.jsonl (the files docs/benchmarks.md cites; `node
// scripts/bench-table.mjs --write` turns them into its tables).
// Needs Postgres (DATABASE_URL, or the server binaries to start a throwaway one) and the app build.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalPostgres } from './pg-local.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const save = process.argv.includes('--save');
const only = process.argv.slice(2).filter((a) => a !== '--save');
const benches = readdirSync('bench')
  .filter((f) => /\.(ts|mjs)$/.test(f) && !['lib.ts'].includes(f) && !f.startsWith('_'))
  .filter((f) => !only.length || only.some((o) => f.includes(o)))
  .sort();

console.error(`building the app…`);
const build = spawnSync(process.execPath, ['node_modules/next/dist/bin/next', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });
if (build.status !== 0) process.exit(build.status ?? 1);

let pg = null;
if (!process.env.DATABASE_URL) {
  // pg_stat_statements is loaded but tracks nothing by default; bench/breakdown.ts turns full
  // tracking on for its own scratch database only, so the other benches pay no bookkeeping
  pg = await startLocalPostgres({ settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'none' } });
  if (!pg) {
    console.error('bench needs Postgres: set DATABASE_URL or install postgresql');
    process.exit(1);
  }
}
const env = { ...process.env, DATABASE_URL: process.env.DATABASE_URL ?? pg.url, NEXT_TELEMETRY_DISABLED: '1' };
const lines = [];
const saved = [];
let failed = false;
try {
  for (const file of benches) {
    console.error(`▶ bench/${file}`);
    const args = file.endsWith('.ts') ? ['--import', 'tsx', `bench/${file}`] : [`bench/${file}`];
    const own = [];
    const code = await new Promise((resolve) => {
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
      let buf = '';
      child.stdout.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.startsWith('{')) {
            lines.push(line);
            own.push(line);
            console.log(line);
          } else if (line.trim()) console.error(line);
        }
      });
      child.on('exit', resolve);
    });
    if (code !== 0) {
      console.error(`bench/${file} failed (exit ${code})`);
      failed = true;
    } else if (save) saved.push([file.replace(/\.(ts|mjs)$/, ''), own]);
  }
} finally {
  pg?.stop();
}
mkdirSync('bench/results', { recursive: true });
if (!only.length) writeFileSync('bench/results/latest.jsonl', lines.join('\n') + '\n');
for (const [name, own] of saved) {
  writeFileSync(`bench/results/${name}.jsonl`, own.join('\n') + '\n');
  console.error(`saved bench/results/${name}.jsonl`);
}
process.exit(failed ? 1 : 0);
