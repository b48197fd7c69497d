import { z } from 'zod';
import { COUNCIL_VARS, councilConfig, parseModelId } from '../shared/council-config';
import { toolError, type ToolError } from './errors';
import { defineTool } from './tool';
import { docs, idempotencyKey, limit, projectRef, uuid, waitSeconds } from './fields';
import { id, timestamp, waitedMs, writeResult } from './rows';

/**
 * The council room: a question put to several language models in a background job (council.run,
 * lib/jobs/council.ts). Each model answers; each ranks the others' answers, anonymised as A, B, C…;
 * a chairman model writes the final answer from the answers and the aggregate ranking.
 *
 * The council is a room of its own, outside `core`, and opt-in (OPT_IN_ROOMS in toolsets.ts): it is
 * listed only when a connection names it (?toolsets=council) or `all`.
 */

const modelId = z
  .string()
  .regex(/^[a-z]+:[^\s]{1,200}$/, 'provider:model')
  .describe('provider:model');

export const councilStatus = z.enum(['running', 'done', 'partial', 'failed']);

const usageNumbers = {
  tokens_in: z.number().int().nonnegative(),
  tokens_out: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
};

const stageAnswer = z.strictObject({
  label: z.string().nullable().describe('A, B, C… as the others saw it; null when it failed'),
  model: z.string(),
  answer: z.string().nullable(),
  error: z.string().nullable(),
  ms: z.number().int().nonnegative(),
  ...usageNumbers,
});

const stageRanking = z.strictObject({
  model: z.string(),
  ranking: z.array(z.string()).describe('labels, best first'),
  reason: z.string().nullable(),
  error: z.string().nullable(),
  ms: z.number().int().nonnegative(),
  ...usageNumbers,
});

const aggregateRow = z.strictObject({ label: z.string(), model: z.string(), average_rank: z.number().nullable(), votes: z.number().int() });

const councilSummary = z.strictObject({
  id,
  project_id: id.nullable(),
  project_key: z.string().nullable(),
  question: z.string(),
  models: z.array(z.string()),
  chairman: z.string(),
  status: councilStatus,
  final_answer: z.string().nullable(),
  decision_id: id.nullable().describe('the proposed decision recording it'),
  record_decision: z.boolean(),
  asked_by_actor_id: id,
  asked_by: z.string().nullable(),
  run_id: z.string().nullable(),
  ...usageNumbers,
  sensitivity: z.enum(['normal', 'sensitive']).describe('sensitive: its context holds a sensitive note'),
  created_at: timestamp,
  finished_at: timestamp.nullable(),
});

export const councilRow = councilSummary
  .extend({
    context_refs: z.array(z.strictObject({ type: z.enum(['task', 'decision', 'note']), id, label: z.string() })),
    answers: z.array(stageAnswer).describe('stage 1'),
    rankings: z.array(stageRanking).describe('stage 2'),
    aggregate: z.array(aggregateRow).describe('best first'),
    chairman_result: stageAnswer.nullable().describe('stage 3'),
    errors: z.array(z.strictObject({ stage: z.string(), model: z.string(), error: z.string() })),
    usage: z.record(z.string(), z.strictObject(usageNumbers)).describe('per model'),
  })
  .meta({ id: 'Council' });

export const councilAskInput = z.strictObject({
  question: z.string().trim().min(1).max(20_000),
  project_id: projectRef.optional(),
  models: z.array(modelId).min(1).max(10).optional().meta(docs('default the server’s council')),
  chairman: modelId.optional(),
  use_local: z.boolean().optional().meta(docs('the local provider’s models')),
  context_ids: z.array(z.string().min(1).max(100)).max(20).optional().meta(docs('tasks, decisions, notes put in the prompt')),
  record_decision: z.boolean().optional().meta(docs('the answer becomes a proposed decision')),
  idempotency_key: idempotencyKey.optional(),
});
export type CouncilAskInput = z.infer<typeof councilAskInput>;

export const councilAskOutput = writeResult({ council_id: id, status: councilStatus, council: councilSummary });

export const councilGetInput = z.strictObject({ council_id: uuid, wait_seconds: waitSeconds.optional() });
export const councilGetOutput = z.strictObject({ council: councilRow, status: councilStatus, waited_ms: waitedMs });

export const councilQueryInput = z.strictObject({ project_id: projectRef.optional(), limit: limit(20, 100).optional() });
export const councilQueryOutput = z.strictObject({ councils: z.array(councilSummary).describe('newest first') });

export type CouncilSummary = z.infer<typeof councilSummary>;
export type CouncilRow = z.infer<typeof councilRow>;
export type CouncilGetOutput = z.infer<typeof councilGetOutput>;
export type CouncilQueryOutput = z.infer<typeof councilQueryOutput>;

function refusal(error: ToolError): Error {
  return Object.assign(new Error(error.message), { envelope: error });
}

function unavailable(message: string, vars: readonly string[]): Error {
  return refusal({
    ...toolError('UNAVAILABLE', message, `the server needs ${vars.join(', ')} (docs/operations.md, Configuration)`, { variables: vars }),
    retryable: false,
  });
}

/**
 * Resolves the council a call asks for against the server's configuration: the models and the
 * chairman, each `provider:model` of a provider that has a key. No configuration: UNAVAILABLE,
 * naming the variables to set.
 */
export function resolveCouncil(
  input: { models?: string[]; chairman?: string; use_local?: boolean },
  source: Record<string, string | undefined> = process.env,
): { models: string[]; chairman: string } {
  const cfg = councilConfig(source);
  let models: string[];
  let chairman: string | null;
  if (input.use_local) {
    models = input.models ?? cfg.localModels;
    chairman = input.chairman ?? cfg.localModels[0] ?? models[0] ?? null;
    if (models.length === 0) throw unavailable('use_local: no local council models are configured', ['BULLPEN_COUNCIL_LOCAL_MODELS', 'BULLPEN_COUNCIL_LOCAL_BASE_URL']);
    const foreign = [...models, chairman!].find((m) => !m.startsWith('local:'));
    if (foreign) {
      throw refusal(toolError('VALIDATION_ERROR', `models: use_local takes local:… models only, not ${foreign}`, 'drop use_local, or name local models', { fields: ['models'] }));
    }
  } else {
    models = input.models ?? cfg.models;
    chairman = input.chairman ?? (input.models ? input.models[0] : cfg.chairman);
    if (models.length === 0 || !chairman) throw unavailable('the council is not configured on this server', COUNCIL_VARS);
  }
  for (const [i, m] of [...models, chairman!].entries()) {
    const field = i < models.length ? `models[${i}]` : 'chairman';
    const parsed = parseModelId(m);
    if (!parsed) {
      throw refusal(toolError('VALIDATION_ERROR', `${field}: ${m} names no provider of openai, openrouter, local`, 'write models as provider:model', { fields: [field] }));
    }
    const p = cfg.providers[parsed.provider];
    if (!p.apiKey) throw unavailable(`${field}: the ${parsed.provider} provider has no key`, [p.keyVar]);
  }
  return { models: [...new Set(models)], chairman: chairman! };
}

export const councilTools = [
  defineTool({
    name: 'council_ask',
    room: 'council',
    title: 'Ask the council',
    description:
      'Asks several models in the background: they answer, rank each other anonymously, a chairman sums up. Returns {council_id}. Use when a choice needs more minds.',
    input: councilAskInput,
    output: councilAskOutput,
    kind: 'write',
    idempotency: 'derived',
    prepare: async (input) => {
      const { use_local: _local, ...rest } = input as CouncilAskInput;
      return { ...rest, ...resolveCouncil(input as CouncilAskInput) };
    },
  }),
  defineTool({
    name: 'council_get',
    room: 'council',
    title: 'Read a council',
    description:
      'Returns a council: answers, rankings, final answer, tokens, cost, status. Use when council_ask answered; wait_seconds holds while it runs.',
    input: councilGetInput,
    output: councilGetOutput,
    kind: 'read',
    idempotent: true,
    // council_finish touches the asker's inbox: the asker's wait wakes on it
    wait: { topic: 'inbox', empty: (r) => r.status === 'running' },
  }),
  defineTool({
    name: 'council_query',
    room: 'council',
    title: 'List councils',
    description: 'Returns councils newest first, with status, final answer and cost. Use when you look for an earlier council.',
    input: councilQueryInput,
    output: councilQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
];
