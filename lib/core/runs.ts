import { z } from 'zod';
import { defineTool } from './tool';
import { modelPrices, priceOf, priceTokens } from '../shared/model-prices';
import { actorRef, cursor, docs, idempotencyKey, limit, taskRef } from './fields';
import { id, nextCursor, runCounts, runRow, runStatus as runStatusRow, timestamp, writeResult } from './rows';

/** A run key: what X-Bullpen-Run / BULLPEN_RUN_ID carry. */
export const runKey = z
  .string()
  .regex(/^[A-Za-z0-9._:@-]{1,128}$/, '1–128 letters, digits or . _ : @ -');

/** A run by uuid or key. */
export const runRef = z
  .string()
  .regex(/^[A-Za-z0-9._:@-]{1,128}$/, 'a run uuid or run key')
  .describe('run key or uuid').meta(docs('default your run'));

const runStatus = runStatusRow;

export const usageReport = z.strictObject({
  model: z.string().min(1).max(100).optional(),
  provider: z.string().min(1).max(100).optional(),
  tokens_in: z.number().int().min(0).max(1e12).optional(),
  tokens_out: z.number().int().min(0).max(1e12).optional(),
  tokens_cache_read: z.number().int().min(0).max(1e12).optional(),
  tokens_cache_write: z.number().int().min(0).max(1e12).optional(),
  cost_usd: z.number().min(0).max(1e7).optional(),
}).meta({ id: 'Usage' });
type UsageEntry = z.infer<typeof usageReport> & { priced?: 'table' | 'unknown' };

/**
 * Prices a usage report's entries that carry no cost from the model price table
 * (lib/shared/model-prices.ts), marking each `priced: "table"` (or `"unknown"` when the model has
 * no price); a reported cost is kept. The ledger (bullpen.usage_record) records which it was.
 */
export function priceUsage<T extends Record<string, unknown>>(args: T, table = modelPrices()): T {
  const usage = args.usage as UsageEntry | UsageEntry[] | undefined;
  if (!usage) return args;
  const price = (u: UsageEntry): UsageEntry => {
    if (u.cost_usd !== undefined) return u;
    const p = priceOf(u.model, u.provider, table);
    return p ? { ...u, cost_usd: priceTokens(p, u), priced: 'table' } : { ...u, priced: 'unknown' };
  };
  return { ...args, usage: Array.isArray(usage) ? usage.map(price) : price(usage) };
}

const usage = z
  .union([usageReport, z.array(usageReport).min(1).max(20)])
  .describe('running totals per model, not increments');

const counts = z
  .record(z.string().min(1).max(64), z.union([z.number(), z.string().max(200), z.boolean()]))
  .refine((v) => Object.keys(v).length <= 50, 'at most 50 counts')
  .describe('your tallies, e.g. {"tests_passed": 120}');

export const runForkInput = z.strictObject({
  label: z.string().min(1).max(200).optional(),
  goal: z.string().min(1).max(2000).optional(),
  agent_role: z.string().min(1).max(100).optional(),
  run_key: runKey.optional().meta(docs('default derived from yours')),
  idempotency_key: idempotencyKey.optional(),
});
export type RunForkInput = z.infer<typeof runForkInput>;

export const runForkOutput = writeResult({
  run: runRow,
  run_key: z.string(),
  parent_run_id: id,
  env: z.strictObject({ BULLPEN_RUN_ID: z.string(), BULLPEN_PARENT_RUN_ID: z.string() }).describe('for a child process'),
  headers: z.strictObject({ 'X-Bullpen-Run': z.string(), 'X-Bullpen-Parent-Run': z.string() }).describe('for a child over MCP'),
});

export const runHeartbeatInput = z.strictObject({
  run_key: runKey.optional().meta(docs('default yours')),
  head_sha: z.string().regex(/^[0-9a-fA-F]{4,64}$/, 'a commit sha').optional(),
  branch: z.string().min(1).max(250).optional(),
  dirty: z.boolean().optional().meta(docs('uncommitted changes')),
  remote_url: z.string().min(1).max(2000).optional().describe('`git remote get-url origin`'),
  counts: counts.optional(),
  usage: usage.optional(),
  task_id: taskRef.optional().meta(docs('the task the usage is for')),
  idempotency_key: idempotencyKey.optional(),
});
export type RunHeartbeatInput = z.infer<typeof runHeartbeatInput>;

export const runHeartbeatOutput = writeResult({
  run: runRow,
  revived: z.boolean().describe('the reaper had ended it (abandoned or idle)'),
  heartbeat_within_seconds: z.number().int().positive().describe('beat again before this many seconds'),
  stop: z.literal(true).optional().describe('a budget that applies is spent: stop work now'),
  reason: z.string().optional().describe('why stop (names the budget)'),
});

export const runEndInput = z.strictObject({
  run_key: runKey.optional().meta(docs('default yours')),
  status: z.enum(['succeeded', 'failed', 'cancelled']),
  summary: z.string().min(1).max(4000).optional(),
  counts: counts.optional(),
  usage: usage.optional(),
  task_id: taskRef.optional().meta(docs('the task the usage is for')),
  release_leases: z.boolean().optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type RunEndInput = z.infer<typeof runEndInput>;

export const runEndOutput = writeResult({
  run: runRow,
  already_ended: z.boolean(),
  released: z.array(z.strictObject({ task_id: id, status: z.string() })).describe('with release_leases'),
  held_tasks: z
    .array(z.strictObject({ task_id: id, ref: z.string(), title: z.string(), lease_expires_at: timestamp }))
    .describe('tasks still leased to the run'),
});

export const runQueryInput = z.strictObject({
  actor_id: actorRef.optional(),
  status: z.union([runStatus, z.array(runStatus).max(6)]).optional(),
  kind: z.enum(['session', 'loop_tick', 'subagent']).optional(),
  root_run_id: runRef.optional().meta(docs('its subtree')),
  run_series_key: runKey.optional().describe('BULLPEN_RUN_GROUP'),
  since: z.iso.datetime({ offset: true }).optional(),
  detail: z.enum(['summary', 'full']).optional().meta(docs('full adds what each produced')),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
});
export type RunQueryInput = z.infer<typeof runQueryInput>;

export const runQueryOutput = z.strictObject({
  runs: z.array(runRow.extend({ produced: runCounts.optional().describe('with detail:"full": what the run produced') })),
  next_cursor: nextCursor,
});

export const runGetInput = z.strictObject({
  run_id: runRef.optional(),
  run_key: runKey.optional(),
  include_children: z.boolean().optional(),
});
export type RunGetInput = z.infer<typeof runGetInput>;

export const runGetOutput = z.strictObject({
  run: runRow,
  parent: z.strictObject({ id, run_key: z.string(), kind: z.string(), status: runStatusRow }).nullable(),
  children_count: z.number().int().nonnegative(),
  subtree: z.array(runRow.extend({ depth: z.number().int().positive() })).optional().describe('with include_children'),
});

export const runSummaryInput = z.strictObject({
  run_id: runRef.optional(),
  include_children: z.boolean().optional(),
});
export type RunSummaryInput = z.infer<typeof runSummaryInput>;

const usageTotals = { tokens_in: z.number().int().nonnegative(), tokens_out: z.number().int().nonnegative(), cost_usd: z.number().nonnegative() };

export const runSummaryOutput = z.strictObject({
  run: runRow,
  duration_seconds: z.number().int().nonnegative(),
  counts: runCounts,
  usage: z.strictObject({
    ...usageTotals,
    by_model: z.array(z.strictObject({ model: z.string(), tokens_in: z.number().int(), tokens_out: z.number().int(), cost_usd: z.number().optional() })),
  }),
  reported_counts: z.record(z.string(), z.unknown()).describe("the run's own tallies (run_heartbeat, run_end)"),
  subtree: z
    .strictObject({ runs: z.number().int().positive(), counts: runCounts, usage: z.strictObject(usageTotals) })
    .optional()
    .describe('with include_children: the run and all its descendants'),
});

export const runTools = [
  defineTool({
    name: 'run_fork',
    room: 'runs',
    title: 'Fork a child run',
    description:
      'Registers a subagent run under yours. Returns {run_key, env, headers} for the child. Use when you start a subagent.',
    input: runForkInput,
    output: runForkOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'run_heartbeat',
    room: 'runs',
    title: 'Keep a run alive',
    description:
      'Marks your run alive, with git state, counts and usage; silent 30 min, it ends. Returns {run}. Use when working long.',
    input: runHeartbeatInput,
    output: runHeartbeatOutput,
    kind: 'write',
    idempotency: 'explicit',
    idempotent: true,
    prepare: async (args) => priceUsage(args),
  }),
  defineTool({
    name: 'run_end',
    room: 'runs',
    title: 'End a run',
    description:
      'Ends your run with a status; release_leases frees its tasks. Returns {run, released}. Use when you stop.',
    input: runEndInput,
    output: runEndOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
    prepare: async (args) => priceUsage(args),
  }),
  defineTool({
    name: 'run_query',
    room: 'runs',
    title: 'List runs',
    description:
      'Returns runs newest first, with tokens, cost and staleness. Use when you check who is working or what runs cost.',
    input: runQueryInput,
    output: runQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'run_get',
    room: 'runs',
    title: 'Read a run',
    description:
      'Returns a run (default yours), its parent and on request its subtree. Use when you inspect a run.',
    input: runGetInput,
    output: runGetOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'run_summary',
    room: 'runs',
    title: 'What a run produced',
    description:
      'Returns what a run produced: records, code refs, tokens, cost. Use when you report or hand over.',
    input: runSummaryInput,
    output: runSummaryOutput,
    kind: 'read',
    idempotent: true,
  }),
];
