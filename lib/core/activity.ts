import { z } from 'zod';
import { defineTool } from './tool';
import { actorRef, cursor, docs, idempotencyKey, limit, projectRef } from './fields';
import { activityItem, id, nextCursor, timestamp, writeResult } from './rows';
import { runRef } from './runs';

const severity = z.enum(['info', 'warn', 'critical']);

const metadata = z
  .record(z.string().min(1).max(100), z.unknown())
  .refine((v) => JSON.stringify(v).length <= 16_000, 'at most 16 kB of JSON');

export const activityLogInput = z.strictObject({
  verb: z
    .string()
    .max(100)
    .regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/, 'dotted lower-case, e.g. "deploy.finished"')
    .describe('e.g. "deploy.finished"; built-in families are Bullpen\'s'),
  summary: z.string().trim().min(1).max(2000),
  object_type: z.enum(['task', 'project', 'run', 'decision', 'note', 'handoff', 'comment']).optional().meta(docs('default your run')),
  object_id: z.string().min(1).max(128).optional().describe('PAY-12, PAY, run key or uuid'),
  run_id: runRef.optional(),
  severity: severity.optional().meta(docs('default info')),
  status: z.string().min(1).max(50).optional().meta(docs('e.g. "succeeded"')),
  metadata: metadata.optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type ActivityLogInput = z.infer<typeof activityLogInput>;

export const activityLogOutput = writeResult({
  seq: z.number().int().positive(),
  deduplicated: z.boolean().describe('the same milestone was already logged: this is that row'),
  activity: z.strictObject({
    seq: z.number().int().positive(),
    verb: z.string(),
    summary: z.string(),
    severity: severity,
    status: z.string().nullable(),
    object_type: z.string(),
    object_id: id.nullable(),
    project_id: id.nullable(),
    actor_id: id,
    run_id: z.string().nullable(),
    at: timestamp,
    metadata: z.record(z.string(), z.unknown()),
  }),
});

export const activityQueryInput = z.strictObject({
  project_id: projectRef.optional(),
  actor_id: actorRef.optional(),
  object_type: z.string().min(1).max(50).optional(),
  object_id: z.string().min(1).max(128).optional().describe('PAY-12 or uuid'),
  verb: z
    .string()
    .max(100)
    .regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*(\.\*)?$/, 'a verb, or a family like "task.*"')
    .optional(),
  run_id: runRef.optional(),
  severity: severity.optional().meta(docs('this level and above')),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
});
export type ActivityQueryInput = z.infer<typeof activityQueryInput>;

export const activityQueryOutput = z.strictObject({ activity: z.array(activityItem).describe('newest first'), next_cursor: nextCursor });

export const activityTools = [
  defineTool({
    name: 'activity_log',
    room: 'activity',
    title: 'Log a milestone',
    description:
      'Logs a milestone (tools log their own changes). Returns {activity}. Use when something happened outside Bullpen: a deploy, a test run.',
    input: activityLogInput,
    output: activityLogOutput,
    kind: 'write',
    idempotency: 'explicit',
    idempotent: true,
  }),
  defineTool({
    name: 'activity_query',
    room: 'activity',
    title: 'Read the activity log',
    description:
      'Returns who did what, newest first; verb takes "task.*". Use when you reconstruct what happened.',
    input: activityQueryInput,
    output: activityQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
];
