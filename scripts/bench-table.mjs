#!/usr/bin/env node
// Turns bench/results/breakdown.jsonl and bench/results/mixed.jsonl into the tables of docs/benchmarks.md under
// "Where a call's time goes", so a re-measured run updates them without hand-copying a figure.
//   node scripts/bench-table.mjs            prints the markdown
//   node scripts/bench-table.mjs --write    replaces the block between docs/benchmarks.md's
//                                           <!-- bench-table:start --> and <!-- bench-table:end -->
//   --breakdown FILE / --mixed FILE         read other result files (e.g. bench/results/latest.jsonl)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const START = '<!-- bench-table:start -->';
const END = '<!-- bench-table:end -->';

function read(file) {
  const p = path.resolve(root, file);
  if (!existsSync(p)) return [];
  return readFileSync(p, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

const ms = (x, digits = 2) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(digits));
const times = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : `${x < 10 ? x.toFixed(1) : Math.round(x)}×`);
const pct = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : `${Math.round(x * 100)} %`);
const int = (x) => (x === null || x === undefined || !Number.isFinite(x) ? '—' : Math.round(x).toLocaleString('en-US'));
const day = (rec) => (rec?.at ? rec.at.slice(0, 16).replace('T', ' ') + ' UTC' : 'unknown time');

/** The four parts of a call; without pg_stat_statements, the in-process mean stands for the first three. */
const sum = (r) => (r.planning_ms === null || r.planning_ms === undefined ? r.executor_mean_ms : r.planning_ms + r.execution_ms + r.node_executor_ms) + r.mcp_http_ms;

/** The per-tool breakdown: means that add up to the HTTP time, and p50 ratios to the bare claim. */
export function breakdownTable(lines) {
  const env = lines.find((r) => r.bench === 'env' && r.bench_file === 'breakdown');
  const rows = lines.filter((r) => r.bench === 'breakdown');
  const bare = rows.find((r) => r.tool === 'bare_claim_sql');
  const rtt = rows.find((r) => r.tool === 'round_trip_select_1');
  const tools = rows.filter((r) => r.tool !== 'bare_claim_sql' && r.tool !== 'round_trip_select_1');
  if (!bare || !tools.length) return '_No breakdown results yet: run `npm run bench -- --save breakdown`._\n';
  const out = [];
  out.push(
    `Serial calls at 1 client, Postgres ${String(env?.postgres ?? '').split(' ')[0]}, ${int(env?.workspace_tasks)} tasks and ${env?.actors} agents, ` +
      `up to ${env?.calls_per_tool} calls per tool (fewer where ${env?.seconds_per_series ?? 4} s do not hold that many); measured ${day(env)} (load average ${ms(env?.load_average_1m, 1)} on ${env?.cores} cores). ` +
      `In ms: planning, execution and the Node executor are means over the same calls and add up to the in-process call; ` +
      `MCP/HTTP is the median of the differences between each HTTP call and the in-process call made just before it, ` +
      `so the four add up to a typical HTTP call. The ratios are p50s against the bare claim statement ` +
      `measured in the same run: p50 ${ms(bare.p50_ms)} ms (planning ${ms(bare.planning_ms)}, execution ${ms(bare.execution_ms)}, ` +
      `${bare.statements_per_call ?? '—'} statements with its triggers). One \`select 1\` round trip through the pool: ${ms(rtt?.mean_ms)} ms.`,
  );
  if (env && !/^track = all/.test(env.pg_stat_statements ?? '')) out.push(`\n**pg_stat_statements ${env.pg_stat_statements}.**`);
  out.push('');
  out.push('| tool | Postgres planning | Postgres execution | Node executor | MCP/HTTP | sum | statements per call | executor p50 ÷ bare claim | HTTP p50 ÷ bare claim |');
  out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of tools) {
    out.push(
      `| \`${r.tool}\` | ${ms(r.planning_ms)} | ${ms(r.execution_ms)} | ${ms(r.node_executor_ms)} | ${ms(r.mcp_http_ms)} | ${ms(sum(r))} | ${r.statements_per_call ?? '—'} | ${times(r.executor_ratio_to_bare)} | ${times(r.http_ratio_to_bare)} |`,
    );
  }
  if (tools.some((r) => r.cpu_ms_per_call_postgres !== undefined)) {
    out.push('');
    out.push(
      "CPU per call in the same series, from the processes' own accounting (`/proc/<pid>/stat`; it counts work, not " +
        'waiting for a core another process holds), ms: the Postgres cluster, the bench process running the executor ' +
        'in-process, and the `bullpen start` process serving the HTTP call.',
    );
    out.push('');
    out.push('| tool | Postgres | Node, executor in-process | Node, `bullpen start` per HTTP call |');
    out.push('| --- | ---: | ---: | ---: |');
    for (const r of tools) {
      out.push(`| \`${r.tool}\` | ${ms(r.cpu_ms_per_call_postgres)} | ${ms(r.cpu_ms_per_call_node_in_process)} | ${ms(r.cpu_ms_per_call_server_http)} |`);
    }
  }
  return out.join('\n') + '\n';
}

/** The mixed workload: throughput beside the same-run ceiling, latency per tool, CPU per call. */
export function mixedTables(lines) {
  const env = lines.find((r) => r.bench === 'env' && r.bench_file === 'mixed');
  const summary = lines.filter((r) => r.bench === 'mixed');
  if (!summary.length) return '_No mixed-workload results yet: run `npm run bench -- --save mixed`._\n';
  const claim = new Map(lines.filter((r) => r.bench === 'claim_next').map((r) => [r.agents, r]));
  const ceiling = new Map(lines.filter((r) => r.bench === 'claim_ceiling').map((r) => [r.agents, r]));
  const perTool = lines.filter((r) => r.bench === 'mixed_tool');
  const levels = summary.map((r) => r.agents);
  const out = [];
  out.push(
    `Over HTTP against \`bullpen start\`, Postgres ${String(env?.postgres ?? '').split(' ')[0]}, one workspace of ${int(env?.workspace_tasks)} tasks; ` +
      `${env?.seconds_per_phase} s measured per phase after a warm-up (${env?.warmup_seconds}, in s); measured ${day(env)} ` +
      `(load average ${ms(env?.load_average_1m, 1)} on ${env?.cores} cores when it started). Every loop claims one task, so loops/s is ` +
      `the mix's claim rate, printed against the bare \`FOR UPDATE SKIP LOCKED\` claim at the same concurrency in the same run.`,
  );
  out.push('');
  out.push('| agents | loops/s | calls/s | loops ÷ ceiling | HTTP claim-next/s | claim-next ÷ ceiling | ceiling (bare SQL claims/s) | handoffs asked / answered | errors |');
  out.push('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const r of summary) {
    const c = claim.get(r.agents);
    const errs = r.errors + (c?.errors ?? 0) + (ceiling.get(r.agents)?.errors ?? 0);
    const codes = { ...r.errors_by_code, ...(c?.errors_by_code ?? {}) };
    out.push(
      `| ${r.agents} | ${ms(r.loops_per_s, 1)} | ${int(r.calls_per_s)} | ${pct(r.loops_ratio_to_ceiling)} | ${int(c?.claims_per_s)} | ${pct(c?.ratio_to_ceiling)} | ${int(r.ceiling_claims_per_s)} | ${r.handoffs_sent} / ${r.handoffs_answered} | ${errs ? Object.entries(codes).map(([k, v]) => `${k} ×${v}`).join(', ') : '0'} |`,
    );
  }
  out.push('');
  out.push('Latency per tool in the mix, p50 / p99 ms:');
  out.push('');
  out.push(`| tool | ${levels.map((n) => `${n} agents`).join(' | ')} |`);
  out.push(`| --- | ${levels.map(() => '---:').join(' | ')} |`);
  const tools = [...new Set(perTool.map((r) => r.tool))];
  for (const tool of tools) {
    const cells = levels.map((n) => {
      const r = perTool.find((x) => x.tool === tool && x.agents === n);
      return r ? `${ms(r.p50_ms, 1)} / ${ms(r.p99_ms, 0)}` : '—';
    });
    out.push(`| \`${tool}\` | ${cells.join(' | ')} |`);
  }
  out.push('');
  out.push(
    'CPU per call from the processes\' own accounting (`/proc/<pid>/stat`, utime + stime of the process tree, children ' +
      'reaped included), ms: Node is the `bullpen start` process, Postgres the postmaster and every backend; the load ' +
      'generator is the bench itself. "Other" is what the rest of the machine used meanwhile, in cores (of 2).',
  );
  out.push('');
  out.push('| agents | phase | Node ms/call | Postgres ms/call | load generator ms/call | Node + Postgres | other work (cores) |');
  out.push('| ---: | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const n of levels) {
    const phases = [
      ['mixed (per call)', summary.find((r) => r.agents === n)],
      ['HTTP claim-next (per claim)', claim.get(n)],
      ['bare SQL claim (per claim)', ceiling.get(n)],
    ];
    for (const [label, r] of phases) {
      if (!r) continue;
      const both = (r.cpu_ms_per_call_node ?? 0) + (r.cpu_ms_per_call_postgres ?? 0);
      out.push(
        `| ${n} | ${label} | ${ms(r.cpu_ms_per_call_node)} | ${ms(r.cpu_ms_per_call_postgres)} | ${ms(r.cpu_ms_per_call_load_generator)} | ${ms(both)} | ${ms(r.cores_other)} |`,
      );
    }
  }
  return out.join('\n') + '\n';
}

/** The whole block of docs/benchmarks.md, between its markers (links relative to docs/). */
export function tablesBlock(breakdown, mixed) {
  return [
    START,
    '',
    '**Per tool** (`bench/breakdown.ts`, [bench/results/breakdown.jsonl](../bench/results/breakdown.jsonl)):',
    '',
    breakdownTable(breakdown),
    '**Mixed workload** (`bench/mixed.ts`, [bench/results/mixed.jsonl](../bench/results/mixed.jsonl)):',
    '',
    mixedTables(mixed),
    END,
  ].join('\n');
}

/** The text with its marked block replaced; null when the markers are missing. */
export function replaceBlock(text, block) {
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) return null;
  return text.slice(0, a) + block + text.slice(b + END.length);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const block = tablesBlock(read(opt('--breakdown', 'bench/results/breakdown.jsonl')), read(opt('--mixed', 'bench/results/mixed.jsonl')));
  if (args.includes('--write')) {
    const doc = path.join(root, 'docs', 'benchmarks.md');
    const next = replaceBlock(readFileSync(doc, 'utf8'), block);
    if (next === null) {
      console.error(`docs/benchmarks.md has no ${START} … ${END} block to replace`);
      process.exit(1);
    }
    writeFileSync(doc, next);
    console.error('docs/benchmarks.md: tables rewritten');
  } else {
    console.log(block);
  }
}
