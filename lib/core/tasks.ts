import { z } from 'zod';
import { collisions } from './code-graph';
import { defineTool } from './tool';
import {
  acceptanceCriteria,
  actorRef,
  capabilities,
  cursor,
  docs,
  idempotencyKey,
  isoDate,
  label,
  limit,
  meta,
  nullableActorRef,
  priority,
  projectRef,
  taskRef,
  otherTaskRef,
  taskStatus,
  waitSeconds,
} from './fields';
import {
  commentRow,
  doneGate,
  handoffRow,
  id,
  nextCursor,
  projectBrief,
  projectContext,
  reviewState,
  taskActivityEntry,
  taskFull,
  taskRow,
  timestamp,
  attachmentRow,
  codeRefRow,
  taskEvidence,
  waitedMs,
  taskDecisionLink,
  noteTitle,
  writeResult,
} from './rows';

/** The manual order within a status column (fractional: a card dropped between two takes the midpoint). */
const orderIndex = z.number().finite().meta(docs('manual order in a column'));
/** A note recorded with a move: the activity row carries it and the thread shows it as a note. */
const moveNote = z.string().trim().min(1).max(4_000);

const taskFields = {
  title: z.string().min(1).max(500),
  body: z.string().max(100_000).optional(),
  assignee_actor_id: actorRef.optional(),
  priority: priority.optional(),
  due_on: isoDate.optional(),
  parent_task_id: otherTaskRef.optional(),
  labels: z.array(label).max(20).optional(),
  acceptance_criteria: acceptanceCriteria.optional(),
  requires_evidence: z.boolean().optional(),
  requires_capabilities: capabilities.optional(),
  reviewer_actor_id: actorRef.optional(),
  status: z.enum(['backlog', 'todo']).optional().meta(docs('default todo; backlog parks it')),
  meta: meta.optional().meta(docs('JSON object, ≤16 KB')),
  order_index: orderIndex.optional(),
};

export const taskCreateInput = z.strictObject({
  project_id: projectRef,
  task_id: z.guid().optional().meta(docs('your own uuid: same content again returns it')),
  ...taskFields,
  depends_on: z.array(otherTaskRef).max(256).optional().meta(docs('blockers: done before this is ready')),
  idempotency_key: idempotencyKey.optional(),
});
export type TaskCreateInput = z.infer<typeof taskCreateInput>;

/** A created task named three ways: uuid, number in its project, and KEY-N. */
const createdTask = { task_id: id, seq: z.number().int().positive(), ref: z.string().describe('KEY-N') };

export const taskCreateOutput = writeResult({
  task: taskFull,
  ...createdTask,
  created: z.boolean().describe('false: task_id named a task with the same content'),
});
export type TaskCreateOutput = z.infer<typeof taskCreateOutput>;

const batchRef = z.strictObject({ batch_index: z.number().int().min(0).max(99) });

export const taskCreateManyInput = z.strictObject({
  project_id: projectRef,
  tasks: z
    .array(
      z.strictObject({
        ...taskFields,
        depends_on: z
          .array(z.union([taskRef, batchRef]))
          .max(256)
          .optional()
          .describe('task refs, or {batch_index} of an earlier item'),
      }),
    )
    .min(1)
    .max(100),
  idempotency_key: idempotencyKey.optional(),
});
export type TaskCreateManyInput = z.infer<typeof taskCreateManyInput>;

export const taskCreateManyOutput = writeResult({
  count: z.number().int().min(1).max(100),
  task_ids: z.array(id).describe('in input order'),
  tasks: z.array(z.strictObject(createdTask)).describe('in input order'),
  project_id: id,
});
export type TaskCreateManyOutput = z.infer<typeof taskCreateManyOutput>;

export const taskUpdateInput = z.strictObject({
  task_id: taskRef,
  patch: z
    .strictObject({
      status: taskStatus.optional(),
      title: z.string().min(1).max(500).optional(),
      body: z.string().max(100_000).nullable().optional(),
      priority: priority.optional(),
      assignee_actor_id: nullableActorRef.optional(),
      due_on: isoDate.nullable().optional(),
      labels: z.array(label).max(20).optional(),
      acceptance_criteria: acceptanceCriteria.optional(),
      requires_evidence: z.boolean().optional(),
      requires_capabilities: capabilities.optional(),
      reviewer_actor_id: nullableActorRef.optional(),
      meta: meta.nullable().optional(),
      order_index: orderIndex.optional(),
      allow_reopen: z.boolean().optional().meta(docs('needed to move a done or cancelled task')),
      expected_status: taskStatus.optional().meta(docs('CONFLICT unless still in this status')),
    })
    .meta(docs('null clears a field')),
  merge_meta: z.boolean().optional().meta(docs('default true: merge, null drops a key')),
  note: moveNote.optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type TaskUpdateInput = z.infer<typeof taskUpdateInput>;

export const taskUpdateOutput = writeResult({
  task: taskFull,
  previous_status: taskStatus,
  changed: z.array(z.string()).describe('the patch keys that were applied'),
  gate: doneGate.optional().describe('on a move to done: what the done gate checked'),
});
export type TaskUpdateOutput = z.infer<typeof taskUpdateOutput>;

export const taskAssignInput = z.strictObject({
  task_id: taskRef,
  actor_id: nullableActorRef.describe('null unassigns'),
  idempotency_key: idempotencyKey.optional(),
});
export type TaskAssignInput = z.infer<typeof taskAssignInput>;

export const taskAssignOutput = writeResult({ task: taskFull, previous_assignee_actor_id: id.nullable() });
export type TaskAssignOutput = z.infer<typeof taskAssignOutput>;

export const taskQueryInput = z.strictObject({
  project_id: projectRef.optional(),
  assignee_actor_id: z
    .union([z.guid(), z.literal('me'), z.literal('unassigned')])
    .optional(),
  status: z.array(taskStatus).max(9).optional(),
  state: z.enum(['ready', 'blocked']).optional().meta(docs('ready: claimable now')),
  label: label.optional(),
  priority: z.array(priority).min(1).max(5).optional(),
  meta: meta.optional().meta(docs('contains these pairs')),
  due_before: isoDate.optional(),
  q: z.string().min(1).max(200).optional().meta(docs('literal text (no wildcards), or a ref like PAY-12')),
  order_by: z.enum(['priority', 'created_at', 'updated_at', 'due_on']).optional().meta(docs('default priority')),
  order: z.literal('manual').optional().meta(docs('order_index, priority, age; over order_by')),
  limit: limit(50, 500).optional(),
  cursor: cursor.optional(),
});
export type TaskQueryInput = z.infer<typeof taskQueryInput>;

export const taskQueryOutput = z.strictObject({ tasks: z.array(taskRow), next_cursor: nextCursor });
export type TaskQueryOutput = z.infer<typeof taskQueryOutput>;

export const taskGetInput = z.strictObject({
  task_id: taskRef,
  include: z.array(z.enum(['brief'])).max(1).optional(),
});
export type TaskGetInput = z.infer<typeof taskGetInput>;

export const taskGetOutput = z.strictObject({
  task: taskFull,
  project: projectContext,
  blockers: z.array(taskRow).describe('what this task depends on'),
  dependents: z.array(taskRow).describe('what depends on this task'),
  subtasks: z.array(taskRow),
  parent: taskRow.nullable(),
  comments: z.array(commentRow).describe('the thread, oldest first'),
  activity: z.array(taskActivityEntry).describe('the timeline, newest first (up to 100)'),
  handoffs: z.array(handoffRow).describe('handoffs about the task that are not resolved, newest first'),
  review: reviewState.nullable().describe('where the review stands; null without a reviewer'),
  decisions: z.array(taskDecisionLink).describe('decisions that name this task in related_task_ids'),
  notes: z.array(noteTitle).describe('live knowledge notes that name this task'),
  code_refs: z.array(codeRefRow).describe('newest first'),
  attachments: z.array(attachmentRow).describe('live ones, newest first'),
  evidence: taskEvidence,
  brief: projectBrief.optional().describe('with include:["brief"]'),
  collisions,
});
export type TaskGetOutput = z.infer<typeof taskGetOutput>;

export const taskLinkInput = z.strictObject({
  task_id: taskRef,
  add_depends_on: z.array(taskRef).max(256).optional(),
  remove_depends_on: z.array(taskRef).max(256).optional(),
  set_parent_task_id: taskRef.optional(),
  clear_parent: z.boolean().optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type TaskLinkInput = z.infer<typeof taskLinkInput>;

export const taskLinkOutput = writeResult({
  task_id: id,
  added: z.array(id).describe('new dependency edges'),
  removed: z.array(id),
  cycle_rejected: z.array(z.strictObject({ depends_on_task_id: id, reason: z.string() })).describe('edges not added'),
  parent_task_id: id.nullable(),
  depends_on: z.array(id).describe('all dependencies after the change'),
});
export type TaskLinkOutput = z.infer<typeof taskLinkOutput>;

export const taskClaimInput = z.strictObject({
  task_id: taskRef.optional().meta(docs('omit: the next ready task')),
  project_id: projectRef.optional(),
  label: label.optional(),
  max_priority: priority.optional().meta(docs('only work this urgent or more')),
  start: z.boolean().optional().meta(docs('false: lease only, status unchanged')),
  note: moveNote.optional(),
  lease_seconds: z.number().int().min(60).max(86_400).optional().meta(docs('default 3600')),
  repository_ids: z.array(z.guid()).max(20).optional(),
  estimated_cost_usd: z.number().min(0).max(1e6).optional().meta(docs('reserved against budgets')),
  wait_seconds: waitSeconds.optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type TaskClaimInput = z.infer<typeof taskClaimInput>;

export const taskClaimOutput = z.discriminatedUnion('claimed', [
  writeResult({
    claimed: z.literal(true),
    extended: z.boolean().describe('you already held it: the lease was renewed'),
    task: taskFull,
    lease_expires_at: timestamp,
    project_context: projectContext,
    waited_ms: waitedMs,
    collisions,
  }),
  writeResult({
    claimed: z.literal(false),
    reason: z.enum(['pool_empty', 'no_match', 'paused', 'at_capacity', 'deactivated', 'budget_exceeded']),
    hint: z.string(),
    waited_ms: waitedMs,
  }),
]);
export type TaskClaimOutput = z.infer<typeof taskClaimOutput>;

export const taskReleaseInput = z.strictObject({
  task_id: taskRef,
  note: z.string().min(1).max(20_000).optional(),
  keep_status: z.boolean().optional().meta(docs('true: status unchanged')),
  idempotency_key: idempotencyKey.optional(),
});
export type TaskReleaseInput = z.infer<typeof taskReleaseInput>;

export const taskReleaseOutput = writeResult({ released: z.literal(true), task: taskFull });
export type TaskReleaseOutput = z.infer<typeof taskReleaseOutput>;

export const taskRecoverInput = z.strictObject({
  task_id: taskRef,
  to_status: z.enum(['todo', 'failed', 'in_review']),
  note: z.string().min(1).max(4000),
  idempotency_key: idempotencyKey.optional(),
});
export type TaskRecoverInput = z.infer<typeof taskRecoverInput>;

export const taskRecoverOutput = writeResult({
  task: taskFull,
  previous_status: taskStatus,
  previous_holder_actor_id: id.nullable().describe('told by a notification'),
  lease_was_live: z.boolean(),
});
export type TaskRecoverOutput = z.infer<typeof taskRecoverOutput>;

export const taskTools = [
  defineTool({
    name: 'task_create',
    room: 'tasks',
    title: 'Create a task',
    description:
      'Creates a task; acceptance_criteria gate done. Returns {task, ref}. Use when you find new work.',
    input: taskCreateInput,
    output: taskCreateOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'task_create_many',
    room: 'tasks',
    title: 'Create many tasks',
    description:
      'Creates up to 100 tasks, all or none; depends_on may name earlier items. Returns {tasks} in order. Use when you lay out a plan.',
    input: taskCreateManyInput,
    output: taskCreateManyOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'task_update',
    room: 'tasks',
    title: 'Update a task',
    description:
      'Patches a task; done needs every criterion met. Returns {task, changed}. Use when status, criteria or findings change.',
    input: taskUpdateInput,
    output: taskUpdateOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'task_assign',
    room: 'tasks',
    title: 'Assign a task',
    description:
      'Assigns a task to an actor, "me" or null; not under another\'s lease. Returns {task}. Use when you delegate (task_claim takes work).',
    input: taskAssignInput,
    output: taskAssignOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'task_query',
    room: 'tasks',
    title: 'List tasks',
    description:
      'Returns tasks (no body) with ref, readiness and lease. Use when you look for work or check progress.',
    input: taskQueryInput,
    output: taskQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'task_get',
    room: 'tasks',
    title: 'Read a task',
    description:
      'Returns a task in depth: body, blockers, comments, timeline, links. Use when you start or review a task.',
    input: taskGetInput,
    output: taskGetOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'task_link',
    room: 'tasks',
    title: 'Link tasks',
    description:
      'Adds or removes dependencies, sets the parent; no cycles. Returns {added, removed, depends_on}. Use when blockers change.',
    input: taskLinkInput,
    output: taskLinkOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'task_claim',
    room: 'tasks',
    title: 'Claim work',
    description:
      'Leases (or renews) task_id or the top ready task. Returns {claimed, task}. Use when you need work.',
    input: taskClaimInput,
    output: taskClaimOutput,
    kind: 'write',
    idempotency: 'explicit',
    wait: { topic: 'work', empty: (r) => r.claimed === false && r.reason === 'pool_empty' },
  }),
  defineTool({
    name: 'task_recover',
    room: 'tasks',
    title: 'Recover a stuck task',
    description:
      'Forces a stuck task to todo, failed or in_review, ending its lease. Returns {task}. Use when a lease lapsed or its holder is gone.',
    input: taskRecoverInput,
    output: taskRecoverOutput,
    kind: 'write',
    idempotency: 'derived',
    destructive: false,
  }),
  defineTool({
    name: 'task_release',
    room: 'tasks',
    title: 'Release a task',
    description:
      'Gives your task back to the pool; the note becomes a comment. Returns {task}. Use when you stop before done.',
    input: taskReleaseInput,
    output: taskReleaseOutput,
    kind: 'write',
    idempotency: 'derived',
    destructive: false,
  }),
];
