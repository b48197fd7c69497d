import { z } from 'zod';
import { cronProblem } from '../shared/cron';
import { defineTool } from './tool';
import { acceptanceCriteria, capabilities, docs, idempotencyKey, label, limit, priority, projectRef, tag, uuid } from './fields';
import { BRIEF } from './json-schema';
import { id, timestamp, writeResult } from './rows';

/**
 * The workflows room: reusable templates of steps. workflow_start turns a definition's steps into
 * tasks of one instance (their dependencies are task_dependencies, so claim order follows the step
 * graph); an instance is paused, resumed or cancelled as a whole, and its status is derived from
 * its tasks. A definition may carry a trigger: an event (an activity verb) or a cron schedule.
 * The SQL is the law (bullpen.workflow_validate names the step it refuses); zod checks the shape.
 *
 * Opt-in (OPT_IN_ROOMS in toolsets.ts): listed when a connection names `workflows` or `all`.
 */

const stepKey = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64');
const inputName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'letters, digits and _, not starting with a digit');
const inputValue = z.union([z.string().max(10_000), z.number(), z.boolean()]);
const inputValues = z.record(inputName, inputValue);

export const workflowStep = z.strictObject({
  key: stepKey,
  title: z.string().trim().min(1).max(500),
  body: z.string().max(50_000).optional(),
  depends_on: z.array(stepKey).max(100).optional(),
  requires_capabilities: capabilities.optional(),
  acceptance_criteria: acceptanceCriteria.optional(),
  estimated_cost_usd: z.number().nonnegative().max(1_000_000).optional(),
  priority: priority.optional(),
  labels: z.array(label).max(20).optional(),
});
export type WorkflowStep = z.infer<typeof workflowStep>;

export const workflowTrigger = z.discriminatedUnion('on', [
  z.strictObject({
    on: z.literal('event'),
    event_type: z.string().min(1).max(100),
    filter: z.record(z.string(), z.unknown()).optional(),
    project_id: projectRef.optional(),
    inputs: inputValues.optional(),
  }),
  z.strictObject({
    on: z.literal('schedule'),
    cron: z.string().min(9).max(200).refine((c) => cronProblem(c) === null, { error: (i) => cronProblem(String(i.input)) ?? 'cron' }),
    project_id: projectRef,
    inputs: inputValues.optional(),
  }),
]);

export const workflowDefinition = z.strictObject({
  inputs: z
    .array(z.strictObject({ name: inputName, description: z.string().max(1000).optional(), default: inputValue.optional() }))
    .max(50)
    .optional(),
  steps: z.array(workflowStep).min(1).max(100),
  trigger: workflowTrigger.optional(),
});
export type WorkflowDefinition = z.infer<typeof workflowDefinition>;

export const workflowStatus = z.enum(['running', 'paused', 'done', 'failed', 'cancelled']);
export type WorkflowStatus = z.infer<typeof workflowStatus>;

const count = z.number().int().nonnegative();

export const workflowRow = z
  .strictObject({
    id,
    name: z.string(),
    description: z.string(),
    tags: z.array(z.string()),
    definition: workflowDefinition.describe('trigger.project_id stored as the project uuid'),
    trigger_on: z.enum(['event', 'schedule']).nullable(),
    created_by_actor_id: id,
    created_at: timestamp,
    instance_count: count,
  })
  .meta({ id: 'Workflow' });
export type WorkflowRow = z.infer<typeof workflowRow>;

export const workflowInstanceRow = z
  .strictObject({
    id,
    workflow_id: id,
    workflow_name: z.string(),
    project_id: id,
    project_key: z.string(),
    status: workflowStatus.describe('derived from the tasks: done when all are done, failed when one failed or was cancelled'),
    control: z.enum(['running', 'paused', 'cancelled']),
    inputs: z.record(z.string(), inputValue),
    started_by: z.enum(['manual', 'event', 'schedule']),
    started_by_actor_id: id.nullable(),
    trigger_activity_id: z.number().int().nullable().describe('the event (activity id) that started it'),
    scheduled_for: timestamp.nullable().describe('the cron slot that started it'),
    progress: z.strictObject({ total: count, done: count, active: count, failed: count, cancelled: count, open: count, percent: count }),
    cost_usd: z.number().nonnegative().describe('cost of the runs that worked on its tasks'),
    estimated_cost_usd: z.number().nonnegative().describe('sum of the steps’ estimates'),
    created_at: timestamp,
    control_changed_at: timestamp.nullable(),
  })
  .meta({ id: 'WorkflowInstance' });
export type WorkflowInstanceRow = z.infer<typeof workflowInstanceRow>;

export const workflowInstanceFull = workflowInstanceRow.extend({
  steps: z.array(
    z.strictObject({ step: z.string(), task_id: id, ref: z.string(), title: z.string(), status: z.string(), lease_actor_id: id.nullable() }),
  ),
});
export type WorkflowInstanceFull = z.infer<typeof workflowInstanceFull>;

// tools/list shows definition as an object with this line (its shape is in docs/tools.md and the guide)
const definitionField = workflowDefinition.meta({ [BRIEF]: '{inputs?, steps:[{key,title,body?,depends_on?,…}], trigger?}; see guide workflows' });

export const workflowCreateInput = z.strictObject({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(4000).optional(),
  definition: definitionField,
  tags: z.array(tag).max(32).optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type WorkflowCreateInput = z.infer<typeof workflowCreateInput>;
export const workflowCreateOutput = writeResult({ workflow_id: id, workflow: workflowRow });

const workflowRef = z.string().min(1).max(200).describe('uuid or name');

export const workflowStartInput = z.strictObject({
  workflow_id: workflowRef,
  project_id: projectRef,
  inputs: inputValues.optional().meta(docs('fill {{placeholders}}; inputs without a default are required')),
  idempotency_key: idempotencyKey.optional(),
});
export const workflowStartOutput = writeResult({ instance_id: id, instance: workflowInstanceFull });

export const workflowControlInput = z.strictObject({
  instance_id: uuid,
  note: z.string().max(1000).optional().meta(docs('why; logged, and on cancel left on released tasks')),
  idempotency_key: idempotencyKey.optional(),
});
export const workflowControlOutput = writeResult({
  instance: workflowInstanceFull,
  cancelled_task_ids: z.array(id),
  released_task_ids: z.array(id).describe('tasks whose lease the cancel released'),
});

export const workflowGetInput = z.strictObject({
  workflow_id: workflowRef.optional(),
  instance_id: uuid.optional(),
});
export const workflowGetOutput = z.strictObject({
  workflow: workflowRow,
  instance: workflowInstanceFull.nullable(),
  instances: z.array(workflowInstanceRow).describe('the latest 20, newest first'),
});
export type WorkflowGetOutput = z.infer<typeof workflowGetOutput>;

export const workflowQueryInput = z.strictObject({
  workflow_id: workflowRef.optional(),
  project_id: projectRef.optional(),
  status: workflowStatus.optional(),
  tag: tag.optional(),
  limit: limit(50, 200).optional(),
});
export const workflowQueryOutput = z.strictObject({
  workflows: z.array(workflowRow).describe('newest first'),
  instances: z.array(workflowInstanceRow).describe('newest first'),
});
export type WorkflowQueryOutput = z.infer<typeof workflowQueryOutput>;

const control = (name: 'workflow_pause' | 'workflow_resume' | 'workflow_cancel', title: string, description: string) =>
  defineTool({
    name,
    room: 'workflows',
    title,
    description,
    input: workflowControlInput,
    output: workflowControlOutput,
    kind: 'write',
    idempotency: 'derived',
    ...(name === 'workflow_cancel' ? { destructive: true } : {}),
  });

export const workflowTools = [
  defineTool({
    name: 'workflow_create',
    room: 'workflows',
    title: 'Create a workflow',
    description:
      'Saves a reusable template of steps (tasks with depends_on), optionally started by an event or cron. Returns {workflow_id}. Use when work repeats.',
    input: workflowCreateInput,
    output: workflowCreateOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'workflow_start',
    room: 'workflows',
    title: 'Start a workflow',
    description: 'Starts an instance in a project: its steps become tasks with their dependencies. Returns {instance_id, instance}. Use when the work is due.',
    input: workflowStartInput,
    output: workflowStartOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  control('workflow_pause', 'Pause a workflow instance', 'Pauses an instance: its tasks are not claimable until resumed. Returns {instance}. Use when its work must wait.'),
  control('workflow_resume', 'Resume a workflow instance', 'Resumes a paused instance: its tasks are claimable again. Returns {instance}. Use when the wait is over.'),
  control(
    'workflow_cancel',
    'Cancel a workflow instance',
    'Cancels an instance: open tasks cancelled, leases released with a note. Returns {instance}. Use when the run is no longer wanted.',
  ),
  defineTool({
    name: 'workflow_get',
    room: 'workflows',
    title: 'Read a workflow',
    description:
      'Returns a workflow (definition, instances) or, by instance_id, one instance: status, progress, cost, steps. Use when checking one.',
    input: workflowGetInput,
    output: workflowGetOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'workflow_query',
    room: 'workflows',
    title: 'List workflows',
    description: 'Lists workflows and instances newest first. Returns {workflows, instances} with status, progress, cost. Use when looking for one.',
    input: workflowQueryInput,
    output: workflowQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
];
