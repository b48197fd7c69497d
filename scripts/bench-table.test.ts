import { describe, expect, it } from 'vitest';
import { breakdownTable, mixedTables, replaceBlock, tablesBlock } from './bench-table.mjs';

/** Records shaped as bench/breakdown.ts and bench/mixed.ts print them (trimmed). */
const breakdown = [
  { at: '2026-11-25T16:00:00.000Z', bench: 'env', bench_file: 'breakdown', postgres: '15.18 (Debian)', cores: 2, load_average_1m: 3.2, calls_per_tool: 200, workspace_tasks: 5000, actors: 50, pg_stat_statements: 'track = all, track_planning = on' },
  { bench: 'breakdown', tool: 'bare_claim_sql', planning_ms: 0.2, execution_ms: 0.5, statements_per_call: 18, mean_ms: 1.1, p50_ms: 1 },
  { bench: 'breakdown', tool: 'round_trip_select_1', mean_ms: 0.15, p50_ms: 0.14 },
  { bench: 'breakdown', tool: 'task_claim', planning_ms: 2.5, execution_ms: 1.8, node_executor_ms: 2.2, mcp_http_ms: 7.6, http_mean_ms: 14.1, statements_per_call: 22, executor_ratio_to_bare: 4.75, http_ratio_to_bare: 12.3, cpu_ms_per_call_postgres: 2.7, cpu_ms_per_call_node_in_process: 0.3, cpu_ms_per_call_server_http: 5.6 },
];

const mixed = [
  { at: '2026-11-25T16:10:00.000Z', bench: 'env', bench_file: 'mixed', postgres: '15.18', cores: 2, load_average_1m: 4, seconds_per_phase: 5, warmup_seconds: 1, workspace_tasks: 5000 },
  { bench: 'mixed_tool', agents: 8, tool: 'whoami', calls: 50, p50_ms: 80.2, p99_ms: 240 },
  { bench: 'mixed_tool', agents: 8, tool: 'task_claim', calls: 50, p50_ms: 60.1, p99_ms: 130 },
  { bench: 'claim_ceiling', agents: 8, claims_per_s: 400, errors: 0, cpu_ms_per_call_node: 0, cpu_ms_per_call_postgres: 3.3, cpu_ms_per_call_load_generator: 0.4, cores_other: 0.5 },
  { bench: 'claim_next', agents: 8, claims_per_s: 90, ratio_to_ceiling: 0.225, errors: 0, errors_by_code: {}, cpu_ms_per_call_node: 3.4, cpu_ms_per_call_postgres: 8.2, cpu_ms_per_call_load_generator: 0.9, cores_other: 0.9 },
  { bench: 'mixed', agents: 8, loops_per_s: 16.3, calls_per_s: 106, loops_ratio_to_ceiling: 0.041, ceiling_claims_per_s: 400, handoffs_sent: 14, handoffs_answered: 13, errors: 1, errors_by_code: { 'task_claim:BUSY': 1 }, cpu_ms_per_call_node: 3.6, cpu_ms_per_call_postgres: 6.7, cpu_ms_per_call_load_generator: 0.8, cores_other: 0.8 },
];

describe('bench-table', () => {
  it('writes one breakdown row per tool, the bare claim in the header, ratios as ×', () => {
    const md = breakdownTable(breakdown);
    expect(md).toContain('| `task_claim` | 2.50 | 1.80 | 2.20 | 7.60 | 14.10 | 22 | 4.8× | 12× |');
    expect(md).toContain('p50 1.00 ms (planning 0.20, execution 0.50');
    expect(md).not.toContain('| `bare_claim_sql`');
    expect(md).toContain('| `task_claim` | 2.70 | 0.30 | 5.60 |');
  });

  it('says so when pg_stat_statements was not available', () => {
    const env = { ...breakdown[0], pg_stat_statements: 'unavailable: no module' };
    expect(breakdownTable([env, ...breakdown.slice(1)])).toContain('**pg_stat_statements unavailable: no module.**');
  });

  it('prints the mix beside the same-run ceiling, latency per level, CPU per phase and every error code', () => {
    const md = mixedTables(mixed);
    expect(md).toContain('| 8 | 16.3 | 106 | 4 % | 90 | 23 % | 400 | 14 / 13 | task_claim:BUSY ×1 |');
    expect(md).toContain('| `whoami` | 80.2 / 240 |');
    expect(md).toContain('| 8 | bare SQL claim (per claim) | 0.00 | 3.30 | 0.40 | 3.30 | 0.50 |');
  });

  it('replaces only the marked block, and refuses a document without markers', () => {
    const block = tablesBlock(breakdown, mixed);
    const text = 'before\n<!-- bench-table:start -->\nold\n<!-- bench-table:end -->\nafter\n';
    const next = replaceBlock(text, block)!;
    expect(next.startsWith('before\n<!-- bench-table:start -->')).toBe(true);
    expect(next.endsWith('<!-- bench-table:end -->\nafter\n')).toBe(true);
    expect(next).not.toContain('\nold\n');
    expect(replaceBlock('no markers', block)).toBeNull();
  });

  it('asks for a run when there are no results', () => {
    expect(breakdownTable([])).toContain('npm run bench -- --save breakdown');
    expect(mixedTables([])).toContain('npm run bench -- --save mixed');
  });
});
