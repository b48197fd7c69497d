import { z } from 'zod';
import { withQueryEmbedding } from './recall';
import { defineTool } from './tool';
import { actorRef, cursor, docs, idempotencyKey, limit, projectRef, taskRef, uuid } from './fields';
import { debateState, decisionHit, decisionRow, decisionStatus, id, nextCursor, searchMode, timestamp, writeResult } from './rows';

const proCon = z
  .union([z.string().min(1).max(1000), z.array(z.string().min(1).max(1000)).max(20)]);

export const decisionOption = z.strictObject({
  label: z.string().min(1).max(200),
  summary: z.string().max(2000).optional(),
  pros: proCon.optional(),
  cons: proCon.optional(),
});

export const relatedTaskIds = z
  .array(taskRef)
  .max(50)
  .meta(docs('tasks it came from'));

const loggedStatus = z.enum(['proposed', 'accepted', 'rejected']);
// deprecated: still the record of what was decided, no longer to be followed
const settableStatus = z.enum(['proposed', 'accepted', 'rejected', 'deprecated']);
const tags = z.array(z.string().min(1).max(64)).max(20);
const anyStatus = decisionStatus;

export const decisionLogInput = z.strictObject({
  title: z.string().min(1).max(500),
  choice: z.string().min(1).max(10_000),
  context: z.string().max(20_000).optional(),
  rationale: z.string().max(20_000).optional(),
  consequences: z.array(z.string().min(1).max(4000)).max(20).optional().meta(docs('one item each')),
  options: z.array(decisionOption).max(20).optional(),
  project_id: projectRef.optional().meta(docs('default the superseded one’s')),
  status: loggedStatus.optional().meta(docs('default accepted')),
  supersedes_decision_id: uuid.optional().meta(docs('it becomes superseded')),
  related_task_ids: relatedTaskIds.optional(),
  tags: tags.optional(),
  participants: z
    .array(actorRef)
    .min(1)
    .max(20)
    .optional()
    .meta(docs('makes it a debate: each gets a collab handoff to take a position (needs 2+ options)')),
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
  status: settableStatus,
  note: z.string().min(1).max(2000).optional().meta(docs('the rationale; closing a debate needs one')),
  winning_option: z.string().min(1).max(200).optional().meta(docs('accepting: default the tally leader')),
  idempotency_key: idempotencyKey.optional(),
});
export type DecisionSetStatusInput = z.infer<typeof decisionSetStatusInput>;

export const decisionSetStatusOutput = writeResult({
  decision: decisionRow,
  previous_status: decisionStatus,
  changed: z.boolean(),
  closed_handoffs: z.number().int().describe('debate handoffs closed by this move'),
});
export type DecisionSetStatusOutput = z.infer<typeof decisionSetStatusOutput>;

export const decisionQueryInput = z.strictObject({
  project_id: projectRef.optional(),
  q: z.string().min(1).max(1000).optional(),
  semantic: z.boolean().optional().meta(docs('rank by meaning (needs q)')),
  status: z.union([anyStatus, z.array(anyStatus).min(1).max(5)]).optional(),
  include_superseded: z.boolean().optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  task_id: taskRef.optional(),
  tags: tags.optional().meta(docs('all of these')),
  top_k: z.number().int().min(1).max(50).optional().meta(docs('default 10')),
  min_similarity: z.number().min(0).max(1).optional(),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
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

export const debateReplyInput = z.strictObject({
  decision_id: uuid,
  position: z.string().min(1).max(200).optional().meta(docs('an option label; replaces your earlier one')),
  argument: z.string().trim().min(1).max(20_000),
  idempotency_key: idempotencyKey.optional(),
});
export type DebateReplyInput = z.infer<typeof debateReplyInput>;

export const debateReplyOutput = writeResult({
  decision: decisionRow,
  argument: debateState.shape.arguments.element.extend({ created_at: timestamp }),
  position: z.string().nullable().describe('your position now'),
  handoff_id: id.nullable().describe('your debate handoff, now answered'),
});
export type DebateReplyOutput = z.infer<typeof debateReplyOutput>;

export const decisionTools = [
  defineTool({
    name: 'decision_log',
    room: 'decisions',
    title: 'Log a decision',
    description:
      'Records a decision with context, rationale and options; append-only: supersede it. Returns {decision}. Use when a choice binds later work.',
    input: decisionLogInput,
    output: decisionLogOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'decision_set_status',
    room: 'decisions',
    title: "Move a decision's status",
    description:
      'Moves a decision to proposed, accepted, rejected or deprecated; closing a debate names the winner. Returns {decision, changed}. Use when a proposal is settled.',
    input: decisionSetStatusInput,
    output: decisionSetStatusOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'debate_reply',
    room: 'decisions',
    title: 'Argue in a debate',
    description:
      'Argues for an option in a debate you are in; answers your debate handoff. Returns {decision with tally, argument}. Use when a debate handoff asks you.',
    input: debateReplyInput,
    output: debateReplyOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'decision_query',
    room: 'decisions',
    title: 'Find decisions',
    description:
      'Returns decisions newest first, by words or (semantic:true) meaning. Use when about to choose: check what was decided.',
    input: decisionQueryInput,
    output: decisionQueryOutput,
    kind: 'read',
    idempotent: true,
    prepare: async (input, ctx) =>
      input.semantic === true ? withQueryEmbedding(input, ctx) : input,
  }),
];
