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
  body: z.string().max(100_000).optional().describe('markdown'),
  assignee_actor_id: actorRef.optional(),
  priority: priority.optional(),
  due_on: isoDate.optional(),
  parent_task_id: taskRef.optional().describe('makes this a subtask'),
  labels: z.array(label).max(20).optional(),
  acceptance_criteria: acceptanceCriteria.optional(),
  requires_evidence: z.boolean().optional(),
  reviewer_actor_id: actorRef.optional(),
  status: z.enum(['backlog', 'todo']).optional().describe('todo (default, ready to claim) or backlog (parked)'),
};

export const taskCreateInput = z.strictObject({
  project_id: projectRef,
  ...taskFields,
  depends_on: z.array(taskRef).max(256).optional().describe('tasks that must be done before this one is ready'),
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
          .describe('existing task ids, or {batch_index: N} for an earlier item of this batch'),
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
      expected_status: taskStatus.optional().describe('refuse with CONFLICT unless the task is still in this status'),
    })
    .describe('only the named fields change; null clears a clearable field'),
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
  actor_id: nullableActorRef.describe('an actor id, "me", or null to unassign'),
  idempotency_key: idempotencyKey.optional(),
});
export type TaskAssignInput = z.infer<typeof taskAssignInput>;

export const taskAssignOutput = writeResult({ task: taskFull, previous_assignee_actor_id: id.nullable() });
export type TaskAssignOutput = z.infer<typeof taskAssignOutput>;

export const taskQueryInput = z.strictObject({
  project_id: projectRef.optional(),
  assignee_actor_id: z
    .union([z.guid(), z.literal('me'), z.literal('unassigned')])
    .optional()
    .describe('an actor id, "me", or "unassigned"'),
  status: z.array(taskStatus).max(8).optional(),
  state: z.enum(['ready', 'blocked']).optional().describe('derived: ready = claimable now; blocked = waiting on work'),
  label: label.optional(),
  due_before: isoDate.optional(),
  q: z.string().min(1).max(200).optional().describe('text in title or body, or a reference like PAY-12'),
  order_by: z.enum(['priority', 'created_at', 'updated_at', 'due_on']).optional().describe('default priority'),
  limit: limit(50, 500).optional(),
  cursor: cursor.optional(),
});
export type TaskQueryInput = z.infer<typeof taskQueryInput>;

export const taskQueryOutput = z.strictObject({ tasks: z.array(taskRow), next_cursor: nextCursor });
export type TaskQueryOutput = z.infer<typeof taskQueryOutput>;

export const taskGetInput = z.strictObject({
  task_id: taskRef,
  include: z.array(z.enum(['brief'])).max(1).optional().describe('["brief"] attaches the project brief'),
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
  task_id: taskRef.optional().describe('claim this task (compare-and-swap); omit to take the next ready one'),
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
  note: z.string().min(1).max(20_000).optional().describe('why, for whoever picks it up next (kept as a comment)'),
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
      'Create a task (or a subtask with parent_task_id) and wire its blockers with depends_on. Verification: an ' +
      'acceptance_criteria checklist gates done. Returns {task, task_id, seq, ref} where ref is KEY-N.',
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
      'Create up to 100 tasks in one all-or-nothing call, cheaper than many task_create calls when planning. An ' +
      "item's depends_on may name existing tasks or an earlier item as {batch_index: N}, so a plan and its " +
      'dependency graph go in together. Returns {count, task_ids (input order), tasks: [{task_id, seq, ref}]}.',
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
      'Patch a task, including status moves checked against the state machine (INVALID_TRANSITION lists the allowed ' +
      'moves). done is refused (GATE_UNMET) while an acceptance criterion is unmet; you may mark criteria met and ' +
      'set done in one call. allow_reopen:true reopens done/cancelled; expected_status guards against races ' +
      '(CONFLICT). Returns {task, previous_status, changed}.',
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
      'Delegate a task to an actor, to yourself ("me"), or to no one (null). Same effect as a task_update assignee ' +
      'patch plus a task.assigned entry on the timeline. Returns {task, previous_assignee_actor_id}.',
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
      'List or search tasks. state:"ready" (claimable now) and state:"blocked" are computed by the server, so a page ' +
      'is never stale about readiness. assignee_actor_id takes "me" or "unassigned". Rows omit the body (task_get ' +
      'has it) and carry ref, ready, open_blockers, criteria_met/criteria_total and lease. Returns {tasks, next_cursor}.',
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
      'Deep-read one task (uuid or KEY-N): the task with body, derived readiness, blockers, dependents, subtasks, ' +
      'parent, comments, activity timeline, code refs and project context. include:["brief"] adds the full project ' +
      'brief: the one-call cold start on a task.',
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
      'Add or remove dependency edges (this task depends on others) and set or clear its parent. Edges that would ' +
      'close a cycle are not added and come back in cycle_rejected[]. Returns {added, removed, cycle_rejected, ' +
      'depends_on, parent_task_id}.',
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
      'Atomically claim work under a lease. Without task_id: take the highest-priority ready task that is ' +
      'unassigned or yours (filters: project_id, label, repository_ids), set it in_progress and lease it (default ' +
      '3600 s). With task_id: claim exactly that task; re-claiming your own extends the lease. Returns {claimed:true, ' +
      'task, lease_expires_at, project_context}, or {claimed:false, reason} when nothing is ready. Renew before the ' +
      'lease expires: an expired lease is claimable by anyone at once. Pass idempotency_key to make a retry safe. ' +
      'wait_seconds (≤ 60) holds an empty answer until ready work appears, instead of polling.',
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
      'Give a task you hold back to the pool: in_progress drops to todo, assignee and lease are cleared, and the ' +
      'note is kept as a comment for the next actor. Returns {released, task}.',
    input: taskReleaseInput,
    output: taskReleaseOutput,
    kind: 'write',
    idempotency: 'derived',
    destructive: false,
  }),
];
