import { z } from 'zod';
import { defineTool } from './tool';
import { docs, idempotencyKey, projectRef } from './fields';
import { id, timestamp, writeResult } from './rows';

/**
 * The costs room: the usage ledger summed (cost_summary) and budgets that stop work before it
 * overspends (budget_set, budget_status; enforced in task_claim, run_heartbeat and council_ask,
 * supabase/definitions/0027_costs.sql). Usage reaches the ledger through run_heartbeat and run_end.
 *
 * Opt-in (OPT_IN_ROOMS in toolsets.ts): listed when a connection names `costs` or `all`.
 */

const budgetScope = z.enum(['workspace', 'project', 'agent', 'workflow']);
const budgetPeriod = z.enum(['day', 'week', 'month', 'total']);
const scopeId = z.string().min(1).max(200).describe('project key or uuid, agent or workflow uuid');

const tokens = {
  tokens_in: z.number().int().nonnegative(),
  tokens_out: z.number().int().nonnegative(),
  tokens_cache_read: z.number().int().nonnegative(),
  tokens_cache_write: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  calls: z.number().int().nonnegative().describe('usage reports'),
};

export const costSummaryInput = z.strictObject({
  period: z.enum(['day', 'week', 'month', 'all']).optional().meta(docs('the current one; default month')),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  group_by: z.enum(['agent', 'model', 'project', 'task', 'workflow', 'day']).optional(),
  project_id: projectRef.optional(),
  daily: z.boolean().optional().meta(docs('each group also gets its spend by day')),
});
export type CostSummaryInput = z.infer<typeof costSummaryInput>;

export const costSummaryOutput = z.strictObject({
  from: timestamp.nullable(),
  to: timestamp.nullable(),
  group_by: z.string().nullable(),
  total: z.strictObject(tokens),
  groups: z
    .array(
      z.strictObject({
        key: z.string().nullable().describe('null: none, or the "other" group past 200'),
        label: z.string().nullable(),
        ...tokens,
        daily: z.array(z.strictObject({ day: z.string(), cost_usd: z.number() })).optional().describe('with daily: spend by UTC day, oldest first'),
      }),
    )
    .describe('by cost, highest first (by date for day); they add up to total'),
});
export type CostSummaryOutput = z.infer<typeof costSummaryOutput>;

export const budgetRow = z.strictObject({
  id,
  scope: budgetScope,
  scope_id: id.nullable(),
  label: z.string(),
  period: budgetPeriod,
  period_start: timestamp.nullable(),
  limit_usd: z.number().nonnegative(),
  warn_at: z.number(),
  spent_usd: z.number().nonnegative(),
  reserved_usd: z.number().nonnegative().describe('live claim estimates'),
  remaining_usd: z.number().nonnegative(),
  state: z.enum(['ok', 'warning', 'exceeded']),
});
export type BudgetRow = z.infer<typeof budgetRow>;

export const budgetSetInput = z.strictObject({
  scope: budgetScope,
  scope_id: scopeId.optional(),
  period: budgetPeriod,
  limit_usd: z.number().min(0).max(1e9),
  warn_at: z.number().gt(0).max(1).optional().meta(docs('default 0.8')),
  idempotency_key: idempotencyKey.optional(),
});
export type BudgetSetInput = z.infer<typeof budgetSetInput>;

export const budgetSetOutput = writeResult({ budget: budgetRow });

export const budgetStatusInput = z.strictObject({
  scope: budgetScope.optional(),
  scope_id: scopeId.optional(),
});
export type BudgetStatusInput = z.infer<typeof budgetStatusInput>;

export const budgetStatusOutput = z.strictObject({ budgets: z.array(budgetRow) });
export type BudgetStatusOutput = z.infer<typeof budgetStatusOutput>;

export const costTools = [
  defineTool({
    name: 'cost_summary',
    room: 'costs',
    title: 'What work cost',
    description:
      'Returns spend from the usage ledger: total and groups with tokens by kind, cost and calls. Use when you report or compare costs.',
    input: costSummaryInput,
    output: costSummaryOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'budget_set',
    room: 'costs',
    title: 'Set a budget',
    description:
      'Sets a spending limit per period (owners only): at it, claims are refused and heartbeats say stop. Returns {budget}. Use when capping spend.',
    input: budgetSetInput,
    output: budgetSetOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'budget_status',
    room: 'costs',
    title: 'Budgets that apply',
    description:
      'Returns each budget that applies with spent, reserved, remaining and state. Use when you plan costly work.',
    input: budgetStatusInput,
    output: budgetStatusOutput,
    kind: 'read',
    idempotent: true,
  }),
];
