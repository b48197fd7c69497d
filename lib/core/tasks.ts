import { z } from 'zod';
import { defineTool } from './tool';
import {
  acceptanceCriteria,
  actorRef,
  cursor,
  idempotencyKey,
  isoDate,
  label,
  limit,
  nullableActorRef,
  priority,
  projectRef,
  taskRef,
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

const taskFields = {
  title: z.string().min(1).max(500),
  body: z.string().max(100_000).optional(),
  assignee_actor_id: actorRef.optional(),
  priority: priority.optional(),
  due_on: isoDate.optional(),
  parent_task_id: taskRef.optional(),
  labels: z.array(label).max(20).optional(),
  acceptance_criteria: acceptanceCriteria.optional(),
  requires_evidence: z.boolean().optional(),
  reviewer_actor_id: actorRef.optional(),
  status: z.enum(['backlog', 'todo']).optional().describe('default todo; backlog parks it'),
};

export const taskCreateInput = z.strictObject({
  project_id: projectRef,
  ...taskFields,
  depends_on: z.array(taskRef).max(256).optional().describe('blockers: done before this is ready'),
  idempotency_key: idempotencyKey.optional(),
});
export type TaskCreateInput = z.infer<typeof taskCreateInput>;

/** A created task named three ways: uuid, number in its project, and KEY-N. */
const createdTask = { task_id: id, seq: z.number().int().positive(), ref: z.string().describe('KEY-N') };

export const taskCreateOutput = writeResult({ task: taskFull, ...createdTask });
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
      reviewer_actor_id: nullableActorRef.optional(),
      allow_reopen: z.boolean().optional().describe('needed to move a done or cancelled task'),
      expected_status: taskStatus.optional().describe('CONFLICT unless still in this status'),
    })
    .describe('null clears a field'),
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
  status: z.array(taskStatus).max(8).optional(),
  state: z.enum(['ready', 'blocked']).optional().describe('ready: claimable now'),
  label: label.optional(),
  due_before: isoDate.optional(),
  q: z.string().min(1).max(200).optional().describe('words, or a ref like PAY-12'),
  order_by: z.enum(['priority', 'created_at', 'updated_at', 'due_on']).optional().describe('default priority'),
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
  task_id: taskRef.optional().describe('omit: the next ready task'),
  project_id: projectRef.optional(),
  label: label.optional(),
  lease_seconds: z.number().int().min(60).max(86_400).optional().describe('default 3600'),
  repository_ids: z.array(z.guid()).max(20).optional(),
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
  }),
  writeResult({
    claimed: z.literal(false),
    reason: z.enum(['pool_empty', 'no_match']),
    hint: z.string(),
    waited_ms: waitedMs,
  }),
]);
export type TaskClaimOutput = z.infer<typeof taskClaimOutput>;

export const taskReleaseInput = z.strictObject({
  task_id: taskRef,
  note: z.string().min(1).max(20_000).optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type TaskReleaseInput = z.infer<typeof taskReleaseInput>;

export const taskReleaseOutput = writeResult({ released: z.literal(true), task: taskFull });
export type TaskReleaseOutput = z.infer<typeof taskReleaseOutput>;

export const taskTools = [
  defineTool({
    name: 'task_create',
    room: 'tasks',
    title: 'Create a task',
    description:
      'Creates a task, or a subtask with parent_task_id; depends_on names its blockers and ' +
      'acceptance_criteria gates done. Returns {task, task_id, seq, ref} (ref is KEY-N). Use when you find ' +
      'new work; task_create_many for a whole plan.',
    input: taskCreateInput,
    output: taskCreateOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'task_create_many',
    room: 'tasks',
    title: 'Create many tasks at once',
    description:
      "Creates up to 100 tasks, all or nothing; an item's depends_on may name an earlier item as " +
      '{batch_index: N}. Returns {count, task_ids, tasks: [{task_id, seq, ref}]} in input order. Use when ' +
      'you lay out a plan with its dependencies.',
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
      'Patches a task. Status moves follow the state machine (INVALID_TRANSITION lists the allowed ones); ' +
      'done needs every criterion met (GATE_UNMET), which the same call may do. Returns {task, ' +
      'previous_status, changed, gate?}. Use when status, criteria or findings change.',
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
      'Assigns a task to an actor, "me" or nobody (null), logged as task.assigned. Returns {task, ' +
      'previous_assignee_actor_id}. Use when you delegate; to take work yourself, use task_claim.',
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
      'Lists tasks, without body, with ref, ready, open_blockers, criteria counts and lease; state "ready" ' +
      'is claimable now. Returns {tasks, next_cursor}. Use when you look for work or check progress.',
    input: taskQueryInput,
    output: taskQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'task_get',
    room: 'tasks',
    title: 'Read one task in depth',
    description:
      'Returns one task in depth: body, readiness, blockers, dependents, subtasks, comments, timeline, ' +
      'handoffs, decisions, code refs, attachments; include:["brief"] adds the project brief. Use when you ' +
      'start or review a task.',
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
      'Adds or removes dependencies and sets or clears the parent; an edge that would close a cycle is not ' +
      'added. Returns {added, removed, cycle_rejected, depends_on, parent_task_id}. Use when blockers or ' +
      'the parent change after creation.',
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
      'Claims work under a lease: without task_id the highest-priority ready task (unassigned or yours), ' +
      "else that task; claiming yours again renews the lease, and an expired one is anyone's. Returns " +
      '{claimed:true, task, lease_expires_at, project_context} or {claimed:false, reason}. Use when you ' +
      'need work; pass idempotency_key.',
    input: taskClaimInput,
    output: taskClaimOutput,
    kind: 'write',
    idempotency: 'explicit',
    wait: { topic: 'work', empty: (r) => r.claimed === false && r.reason === 'pool_empty' },
  }),
  defineTool({
    name: 'task_release',
    room: 'tasks',
    title: 'Release a task',
    description:
      'Gives a task you hold back to the pool: in_progress becomes todo, assignee and lease are cleared, ' +
      'the note is kept as a comment. Returns {released, task}. Use when you stop before done.',
    input: taskReleaseInput,
    output: taskReleaseOutput,
    kind: 'write',
    idempotency: 'derived',
    destructive: false,
  }),
];
