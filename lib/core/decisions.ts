import { z } from 'zod';
import { defineTool } from './tool';
import { cursor, idempotencyKey, limit, projectRef, taskRef, uuid } from './fields';
import { decisionHit, decisionRow, decisionStatus, id, nextCursor, searchMode, writeResult } from './rows';

const proCon = z
  .union([z.string().min(1).max(1000), z.array(z.string().min(1).max(1000)).max(20)])
  .describe('one point or a list');

export const decisionOption = z.strictObject({
  label: z.string().min(1).max(200),
  summary: z.string().max(2000).optional(),
  pros: proCon.optional(),
  cons: proCon.optional(),
});

export const relatedTaskIds = z
  .array(taskRef)
  .max(50)
  .describe('tasks this came out of (uuid or KEY-N); task_get lists it under them');

const loggedStatus = z.enum(['proposed', 'accepted', 'rejected']);
const anyStatus = decisionStatus;

export const decisionLogInput = z.strictObject({
  title: z.string().min(1).max(500),
  choice: z.string().min(1).max(10_000).describe('what was decided, in one or two sentences'),
  context: z.string().max(20_000).optional().describe('the situation that forced the decision'),
  rationale: z.string().max(20_000).optional().describe('why this option'),
  consequences: z.string().max(20_000).optional().describe('what follows from it, good and bad'),
  options: z.array(decisionOption).max(20).optional().describe('the options weighed'),
  project_id: projectRef.optional().describe('default: the superseded decision’s project, else workspace-wide'),
  status: loggedStatus.optional().describe('default accepted'),
  supersedes_decision_id: uuid.optional().describe('the decision this replaces; it becomes status superseded'),
  related_task_ids: relatedTaskIds.optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type DecisionLogInput = z.infer<typeof decisionLogInput>;

export const decisionLogOutput = writeResult({
  decision: decisionRow,
  decision_id: id,
  embedding_status: decisionRow.shape.embedding_status,
  superseded: z
    .strictObject({ id, title: z.string(), previous_status: decisionStatus, status: z.literal('superseded') })
    .nullable()
    .describe('the decision this one replaced'),
});
export type DecisionLogOutput = z.infer<typeof decisionLogOutput>;

export const decisionSetStatusInput = z.strictObject({
  decision_id: uuid,
  status: loggedStatus,
  note: z.string().min(1).max(2000).optional().describe('why (kept in the activity log)'),
  idempotency_key: idempotencyKey.optional(),
});
export type DecisionSetStatusInput = z.infer<typeof decisionSetStatusInput>;

export const decisionSetStatusOutput = writeResult({ decision: decisionRow, previous_status: decisionStatus, changed: z.boolean() });
export type DecisionSetStatusOutput = z.infer<typeof decisionSetStatusOutput>;

export const decisionQueryInput = z.strictObject({
  project_id: projectRef.optional(),
  q: z.string().min(1).max(1000).optional().describe('words to match; with semantic:true, what you want to recall'),
  semantic: z.boolean().optional().describe('rank by meaning fused with words (needs q); default false: newest first'),
  status: z.union([anyStatus, z.array(anyStatus).min(1).max(4)]).optional(),
  include_superseded: z.boolean().optional().describe('default false: superseded decisions are left out'),
  since: z.iso.datetime({ offset: true }).optional().describe('logged at or after (ISO date-time)'),
  task_id: taskRef.optional().describe('only decisions linked to this task'),
  top_k: z.number().int().min(1).max(50).optional().describe('semantic: how many (default 10)'),
  min_similarity: z.number().min(0).max(1).optional().describe('semantic: drop rows less similar than this (0–1)'),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional().describe('listing only (not semantic)'),
});
export type DecisionQueryInput = z.infer<typeof decisionQueryInput>;

export const decisionQueryOutput = z.strictObject({
  decisions: z.array(decisionHit).describe('newest first, or best first with semantic:true (with similarity, lexical_rank, score)'),
  mode: searchMode,
  model: z.string().nullable().describe('the embedding model the query was compared with'),
  fallback_reason: z.string().nullable().describe('why the search used words only'),
  next_cursor: nextCursor,
});
export type DecisionQueryOutput = z.infer<typeof decisionQueryOutput>;

export const decisionTools = [
  defineTool({
    name: 'decision_log',
    room: 'decisions',
    title: 'Log a decision',
    description:
      'Record a decision others must follow: title + choice, with context, rationale, consequences and the options ' +
      'weighed. Append-only: to change it, log a new one with supersedes_decision_id (the old one becomes superseded). ' +
      'related_task_ids links the tasks it came from. Embedded in the background for recall. Returns {decision, decision_id, superseded}.',
    input: decisionLogInput,
    output: decisionLogOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'decision_set_status',
    room: 'decisions',
    title: 'Move a decision’s status',
    description:
      'Set a decision to proposed, accepted or rejected. Only the status moves; the content is append-only ' +
      '(supersede instead of editing). A superseded decision no longer moves. Returns {decision, previous_status, changed}.',
    input: decisionSetStatusInput,
    output: decisionSetStatusOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'decision_query',
    room: 'decisions',
    title: 'Find decisions',
    description:
      'Check what was decided before you choose. Lists decisions newest first (q filters by words, cursor pages), or ' +
      'with semantic:true recalls by meaning fused with words (top_k, min_similarity). Superseded decisions are left ' +
      'out unless include_superseded. Returns {decisions, mode: hybrid|semantic|lexical, next_cursor}.',
    input: decisionQueryInput,
    output: decisionQueryOutput,
    kind: 'read',
    idempotent: true,
    prepare: async (input, ctx) =>
      input.semantic === true ? (await import('../memory/query')).withQueryEmbedding(input, ctx) : input,
  }),
];
