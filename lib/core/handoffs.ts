import { z } from 'zod';
import { defineTool } from './tool';
import {
  actorRef,
  capabilities,
  cursor,
  docs,
  handoffKind,
  handoffPriority,
  handoffStatus,
  idempotencyKey,
  inboxItemKind,
  limit,
  projectRef,
  tag,
  taskRef,
  uuid,
  waitSeconds,
} from './fields';
import { handoffRow, id, inboxCounts, inboxItem, nextCursor, notificationRow, taskFull, waitedMs, writeResult } from './rows';

export const handoffCreateInput = z.strictObject({
  to_actor_ids: z.array(actorRef).max(50).optional(),
  to_capabilities: capabilities.min(1).optional(),
  priority: handoffPriority.optional(),
  tags: z.array(tag).max(32).optional(),
  title: z.string().trim().min(1).max(500),
  kind: handoffKind.optional().meta(docs('default handoff')),
  body: z.string().max(100_000).optional(),
  options: z
    .array(z.string().trim().min(1).max(200))
    .max(20)
    .optional()
    .meta(docs('answers to choose from; review and approval have defaults')),
  allow_free_text: z.boolean().optional().meta(docs('default true')),
  due_at: z.iso.datetime({ offset: true }).optional(),
  related_task_id: taskRef.optional(),
  related_project_id: projectRef.optional(),
  fingerprint: z.string().min(1).max(200).optional().meta(docs('dedup key; default from sender, recipients, kind, title')),
  idempotency_key: idempotencyKey.optional(),
});
export type HandoffCreateInput = z.infer<typeof handoffCreateInput>;

export const handoffCreateOutput = writeResult({
  handoff: handoffRow,
  handoff_id: id,
  deduped: z.boolean().describe('true: a live handoff with the same fingerprint existed, and this is it'),
});
export type HandoffCreateOutput = z.infer<typeof handoffCreateOutput>;

const handoffId = uuid;

export const handoffClaimInput = z.strictObject({
  handoff_id: handoffId,
  idempotency_key: idempotencyKey.optional(),
});
export type HandoffClaimInput = z.infer<typeof handoffClaimInput>;

export const handoffClaimOutput = writeResult({
  handoff: handoffRow,
  claimed: z.literal(true),
  already_yours: z.boolean().describe('you held it already; nothing changed'),
});
export type HandoffClaimOutput = z.infer<typeof handoffClaimOutput>;

export const handoffResponse = z
  .looseObject({
    chosen_option: z.string().min(1).max(200).optional().describe('one of the handoff options'),
    text: z.string().max(20_000).optional(),
    result_ref: z.string().max(2000).optional().describe('a URL, task ref or commit'),
  })
  .meta(docs('other fields are kept'));

export const handoffRespondInput = z.strictObject({
  handoff_id: handoffId,
  response: handoffResponse,
  idempotency_key: idempotencyKey.optional(),
});
export type HandoffRespondInput = z.infer<typeof handoffRespondInput>;

export const handoffRespondOutput = writeResult({
  handoff: handoffRow,
  task: taskFull.optional().describe('a review: its task after the answer'),
  task_moved: z.boolean().optional().describe('request_changes moved the task back to in_progress'),
});
export type HandoffRespondOutput = z.infer<typeof handoffRespondOutput>;

export const handoffResolveInput = z.strictObject({
  handoff_id: handoffId,
  resolution: z.enum(['processed', 'cancelled']).optional().meta(docs('default processed')),
  note: z.string().min(1).max(20_000).optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type HandoffResolveInput = z.infer<typeof handoffResolveInput>;

export const handoffResolveOutput = writeResult({ handoff: handoffRow });
export type HandoffResolveOutput = z.infer<typeof handoffResolveOutput>;

export const handoffQueryInput = z.strictObject({
  direction: z
    .enum(['to_me', 'from_me', 'any'])
    .optional()
    .meta(docs('from_me: sent by you; default any')),
  status: z.array(handoffStatus).max(4).optional(),
  type: z.array(handoffKind).max(5).optional(),
  priority: z.array(handoffPriority).max(4).optional(),
  tags: z.array(tag).max(32).optional(),
  related_task_id: taskRef.optional(),
  related_project_id: projectRef.optional(),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
});
export type HandoffQueryInput = z.infer<typeof handoffQueryInput>;

export const handoffQueryOutput = z.strictObject({ handoffs: z.array(handoffRow), next_cursor: nextCursor });
export type HandoffQueryOutput = z.infer<typeof handoffQueryOutput>;

export const inboxInput = z.strictObject({
  kinds: z.array(inboxItemKind).min(1).max(3).optional().meta(docs('default all')),
  ack: z.array(uuid).max(200).optional().meta(docs('ids you handled')),
  wait_seconds: waitSeconds.optional(),
  limit: limit(50, 200).optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type InboxInput = z.infer<typeof inboxInput>;

export const inboxOutput = writeResult({
  items: z.array(inboxItem).describe('oldest first'),
  total: z.number().int().nonnegative().describe('items of the asked kinds waiting, beyond this page too'),
  counts: inboxCounts,
  acked: z.number().int().nonnegative().describe('items this call acknowledged (0 for repeats)'),
  hint: z.string(),
  waited_ms: waitedMs,
});
export type InboxOutput = z.infer<typeof inboxOutput>;

export const notificationQueryInput = z.strictObject({
  unread_only: z.boolean().optional(),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
});
export type NotificationQueryInput = z.infer<typeof notificationQueryInput>;

export const notificationQueryOutput = z.strictObject({
  notifications: z.array(notificationRow),
  unread_count: z.number().int().nonnegative(),
  next_cursor: nextCursor,
});
export type NotificationQueryOutput = z.infer<typeof notificationQueryOutput>;

export const notificationMarkReadInput = z
  .strictObject({
    ids: z.array(uuid).min(1).max(200).optional(),
    all: z.literal(true).optional(),
    idempotency_key: idempotencyKey.optional(),
  })
  .refine((v) => (v.ids === undefined) !== (v.all === undefined), { message: 'give ids or all: true (one of them)', path: ['ids'] });
export type NotificationMarkReadInput = z.infer<typeof notificationMarkReadInput>;

export const notificationMarkReadOutput = writeResult({
  marked: z.number().int().nonnegative().describe('notifications this call marked read'),
  unread_count: z.number().int().nonnegative(),
});
export type NotificationMarkReadOutput = z.infer<typeof notificationMarkReadOutput>;

export const handoffTools = [
  defineTool({
    name: 'handoff_create',
    room: 'handoffs',
    title: 'Hand off work',
    description:
      'Asks actors for work, an answer, a review or an approval; replies reach inbox. Returns {handoff}. Use when you need another actor.',
    input: handoffCreateInput,
    output: handoffCreateOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'handoff_claim',
    room: 'handoffs',
    title: 'Claim a handoff',
    description:
      'Takes a handoff sent to you so no other recipient works it. Returns {handoff, claimed}. Use when it went to several actors.',
    input: handoffClaimInput,
    output: handoffClaimOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'handoff_respond',
    room: 'handoffs',
    title: 'Answer a handoff',
    description:
      'Answers a handoff sent to you; request_changes on a review reopens its task. Returns {handoff, task?}. Use when you have the answer.',
    input: handoffRespondInput,
    output: handoffRespondOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'handoff_resolve',
    room: 'handoffs',
    title: 'Close a handoff',
    description:
      'Closes a handoff you sent or claimed. Returns {handoff}. Use when the matter is settled.',
    input: handoffResolveInput,
    output: handoffResolveOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'handoff_query',
    room: 'handoffs',
    title: 'List handoffs',
    description:
      'Returns handoffs newest first, to or from you or any, with answers. Use when you look for an answer.',
    input: handoffQueryInput,
    output: handoffQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'inbox',
    room: 'handoffs',
    title: 'Inbox',
    description:
      'Returns what waits for you, urgent first; ack handled ids or they return. Use when idle, with wait_seconds, not polling.',
    input: inboxInput,
    output: inboxOutput,
    kind: 'write',
    idempotency: 'explicit',
    idempotent: true,
    wait: {
      topic: 'inbox',
      empty: (r) => Array.isArray(r.items) && r.items.length === 0,
      rerun: ({ ack: _ack, ...rest }) => rest,
    },
  }),
  defineTool({
    name: 'notification_query',
    room: 'handoffs',
    title: 'Your notifications',
    description:
      'Returns your notifications newest first, with unread_count. Use when you need more than inbox shows.',
    input: notificationQueryInput,
    output: notificationQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'notification_mark_read',
    room: 'handoffs',
    title: 'Mark notifications read',
    description:
      'Marks notifications read, by ids or all:true. Returns {marked, unread_count}. Use when you saw them outside inbox.',
    input: notificationMarkReadInput as unknown as z.ZodObject,
    output: notificationMarkReadOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
];
