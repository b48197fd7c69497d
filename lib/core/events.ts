import { z } from 'zod';
import { checkWebhookUrl } from '../shared/webhook-url';
import { toolError } from './errors';
import { actorRef, docs, idempotencyKey, limit, projectRef, uuid, waitSeconds } from './fields';
import { id, timestamp, waitedMs, writeResult } from './rows';
import { activityReadable } from './scope-rooms';
import { defineTool } from './tool';

/**
 * The events room: an event is a row of the activity ledger and its type is the row's verb.
 * Agents publish their own (outside the reserved verb families, as activity_log's milestones);
 * event_poll reads them with the server's task.*, handoff.* and decision.* rows, after a cursor
 * that never skips or repeats one (supabase/migrations/0028_events.sql says how). Owners register
 * webhooks that receive events as signed POSTs (lib/jobs/webhooks.ts).
 *
 * Webhook management is three tools (owner only, enforced in SQL), not admin routes: the owner's
 * agent and the console reach them through the same contract, and the CLI twins are
 * `bullpen webhook add|list|remove`. Opt-in room (OPT_IN_ROOMS).
 */

const eventType = z
  .string()
  .max(100)
  .regex(/^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)+$/, 'family.name, e.g. "deploy.finished"');
const typePattern = z
  .string()
  .max(100)
  .regex(/^(\*|[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*(\.\*)?)$/, 'a type, "family.*" or "*"');

export const eventRow = z
  .strictObject({
    seq: z.number().int().positive(),
    event_type: z.string(),
    payload: z.record(z.string(), z.unknown()),
    summary: z.string(),
    actor_id: id.nullable(),
    run_id: z.string().nullable(),
    object_type: z.string(),
    object_id: id.nullable(),
    project_id: id.nullable(),
    at: timestamp,
  })
  .meta({ id: 'Event' });

export const eventPublishInput = z.strictObject({
  event_type: eventType.describe('your own family, e.g. deploy.finished'),
  payload: z
    .record(z.string().min(1).max(100), z.unknown())
    .refine((v) => JSON.stringify(v).length <= 16_000, 'at most 16 kB of JSON')
    .optional(),
  summary: z.string().trim().max(500).optional(),
  project_id: projectRef.optional(),
  idempotency_key: idempotencyKey.optional(),
});
export const eventPublishOutput = writeResult({ event: eventRow });

export const eventPollInput = z.strictObject({
  since_cursor: z.string().min(1).max(200).optional().meta(docs('omit to start now')),
  types: z.array(typePattern).min(1).max(20).optional().meta(docs('e.g. task.*')),
  limit: limit(100, 500).optional(),
  wait_seconds: waitSeconds.optional(),
});
export const eventPollOutput = z.strictObject({
  events: z.array(eventRow).describe('oldest first'),
  next_cursor: z.string().describe('pass back as since_cursor'),
  has_more: z.boolean(),
  held_back: z.boolean().describe('newer events wait for an older write to commit; poll again'),
  waited_ms: waitedMs,
});

const webhookRow = z
  .strictObject({
    id,
    url: z.string(),
    events: z.array(z.string()),
    recipient_actor_id: id.nullable(),
    status: z.enum(['active', 'disabled']),
    disabled_reason: z.string().nullable(),
    disabled_at: timestamp.nullable(),
    failing_since: timestamp.nullable(),
    last_success_at: timestamp.nullable(),
    created_by_actor_id: id,
    created_at: timestamp,
  })
  .meta({ id: 'Webhook' });

const deliveryRow = z.strictObject({
  id: z.number().int().positive(),
  webhook_id: id,
  seq: z.number().int().positive(),
  event_type: z.string(),
  status: z.enum(['pending', 'delivered', 'failed', 'dropped']),
  attempts: z.number().int().nonnegative(),
  response_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: timestamp,
  last_attempt_at: timestamp.nullable(),
  delivered_at: timestamp.nullable(),
});

export const webhookAddInput = z.strictObject({
  url: z.string().url().max(2000),
  events: z.array(typePattern).min(1).max(50).meta(docs('e.g. task.done, handoff.*')),
  recipient: actorRef.optional().meta(docs('only its handoffs and assigned tasks')),
  idempotency_key: idempotencyKey.optional(),
});
export const webhookAddOutput = writeResult({
  webhook: webhookRow,
  secret: z.string().nullable().describe('signing secret, shown once (null on a replay)'),
});

export const webhookListInput = z.strictObject({ webhook_id: uuid.optional(), limit: limit(50, 200).optional() });
const counted = webhookRow.extend({ delivered: z.number().int(), failed: z.number().int(), pending: z.number().int() });
export const webhookListOutput = z.strictObject({ webhooks: z.array(counted), deliveries: z.array(deliveryRow).describe('newest first') });

export const webhookRemoveInput = z.strictObject({ webhook_id: uuid, idempotency_key: idempotencyKey.optional() });
export const webhookRemoveOutput = writeResult({ removed: z.literal(true), webhook_id: id });

export type EventRow = z.infer<typeof eventRow>;
export type EventPollOutput = z.infer<typeof eventPollOutput>;
export type WebhookListOutput = z.infer<typeof webhookListOutput>;
export type WebhookAddOutput = z.infer<typeof webhookAddOutput>;

export const eventTools = [
  defineTool({
    name: 'event_publish',
    room: 'events',
    title: 'Publish an event',
    description: 'Publishes an event of your own family (task., handoff.… are Bullpen’s). Returns {event}. Use when other agents or webhooks should learn something happened.',
    input: eventPublishInput,
    output: eventPublishOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'event_poll',
    room: 'events',
    title: 'Poll events',
    description:
      'Returns events after since_cursor, oldest first: agents’ and task.*, handoff.*, decision.*. Use when you react to events; keep next_cursor, wait_seconds holds.',
    input: eventPollInput,
    output: eventPollOutput,
    kind: 'read',
    idempotent: true,
    wait: {
      topic: 'events',
      empty: (r) => Array.isArray(r.events) && r.events.length === 0,
      // an empty run still moved the cursor: the next run reads on from there, not from a new "now"
      rerun: (args, last) => (typeof last.next_cursor === 'string' ? { ...args, since_cursor: last.next_cursor } : args),
      recheckMs: (r) => (r.held_back === true ? 50 : null),
    },
    narrow: (out, ctx) =>
      ctx.scopes ? { ...out, events: (out.events as EventRow[]).filter((e) => activityReadable({ verb: e.event_type, object_type: e.object_type }, ctx.scopes!)) } : out,
  }),
  defineTool({
    name: 'webhook_add',
    room: 'events',
    title: 'Add a webhook',
    description:
      'Owners: POSTs matching events to url, signed. Returns {webhook, secret}, the secret shown once. Use when an agent that is not connected must be woken.',
    input: webhookAddInput,
    output: webhookAddOutput,
    kind: 'write',
    idempotency: 'explicit',
    prepare: async (input) => {
      const check = await checkWebhookUrl(String(input.url));
      if (!check.ok) {
        throw Object.assign(new Error(check.reason), {
          envelope: toolError('VALIDATION_ERROR', `url: ${check.reason}`, 'use a public https URL, or have the operator set BULLPEN_WEBHOOK_ALLOW', { fields: ['url'] }),
        });
      }
      return input;
    },
  }),
  defineTool({
    name: 'webhook_list',
    room: 'events',
    title: 'List webhooks',
    description: 'Owners only. Returns webhooks with delivery counts and the latest deliveries (status, attempts, error). Use when checking why one fails.',
    input: webhookListInput,
    output: webhookListOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'webhook_remove',
    room: 'events',
    title: 'Remove a webhook',
    description: 'Owners: removes a webhook and its delivery log. Returns {removed}. Use when a receiver is gone for good.',
    input: webhookRemoveInput,
    output: webhookRemoveOutput,
    kind: 'write',
    idempotency: 'explicit',
    destructive: true,
  }),
];
