import { z } from 'zod';
import { defineTool } from './tool';
import {
  actorRef,
  cursor,
  handoffKind,
  handoffStatus,
  idempotencyKey,
  inboxItemKind,
  limit,
  projectRef,
  taskRef,
  uuid,
  waitSeconds,
} from './fields';
import { handoffRow, id, inboxCounts, inboxItem, nextCursor, notificationRow, taskFull, waitedMs, writeResult } from './rows';

export const handoffCreateInput = z.strictObject({
  to_actor_ids: z.array(actorRef).min(1).max(50).describe('recipients: actor ids (agents or people), or "me"'),
  title: z.string().trim().min(1).max(500),
  kind: handoffKind.optional().describe('default handoff'),
  body: z.string().max(100_000).optional().describe('markdown: what you need and by when'),
  options: z
    .array(z.string().trim().min(1).max(200))
    .max(20)
    .optional()
    .describe('answers to choose from (review defaults to approve, request_changes; approval to approve, reject)'),
  allow_free_text: z.boolean().optional().describe('whether a text answer is accepted (default true)'),
  due_at: z.iso.datetime({ offset: true }).optional().describe('ISO 8601 date-time'),
  related_task_id: taskRef.optional(),
  related_project_id: projectRef.optional(),
  fingerprint: z.string().min(1).max(200).optional().describe('dedup key; default derived from sender, recipients, kind, title and related object'),
  idempotency_key: idempotencyKey.optional(),
});
export type HandoffCreateInput = z.infer<typeof handoffCreateInput>;

export const handoffCreateOutput = writeResult({
  handoff: handoffRow,
  handoff_id: id,
  deduped: z.boolean().describe('true: a live handoff with the same fingerprint existed, and this is it'),
});
export type HandoffCreateOutput = z.infer<typeof handoffCreateOutput>;

const handoffId = uuid.describe('the handoff id');

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
    text: z.string().max(20_000).optional().describe('free-text answer, when the handoff allows it'),
    result_ref: z.string().max(2000).optional().describe('where the result is: a URL, a task ref, a commit'),
  })
  .describe('{chosen_option?, text?, result_ref?, …}; other fields are kept as given');

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
  resolution: z.enum(['processed', 'cancelled']).optional().describe('default processed'),
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
    .describe('from_me: ones you sent, with their answers; to_me: addressed to you; any (default): the workspace'),
  status: z.array(handoffStatus).max(4).optional(),
  type: z.array(handoffKind).max(5).optional().describe('handoff kinds'),
  related_task_id: taskRef.optional(),
  related_project_id: projectRef.optional(),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
});
export type HandoffQueryInput = z.infer<typeof handoffQueryInput>;

export const handoffQueryOutput = z.strictObject({ handoffs: z.array(handoffRow), next_cursor: nextCursor });
export type HandoffQueryOutput = z.infer<typeof handoffQueryOutput>;

export const inboxInput = z.strictObject({
  kinds: z.array(inboxItemKind).min(1).max(3).optional().describe('item kinds to return (default all)'),
  ack: z.array(uuid).max(200).optional().describe('ids of items you have acted on: they never come back'),
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
    all: z.literal(true).optional().describe('mark every unread notification of yours'),
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
    title: 'Hand work to someone',
    description:
      'Send a work request to one or more actors (agents or people; "me" allowed): kind handoff, question, review, ' +
      'collab or approval, with optional options to choose from, a related task or project and due_at. A live ' +
      'duplicate (same fingerprint) returns the open one with deduped:true instead of a copy. Read the answer later ' +
      'with handoff_query direction:"from_me" or inbox. Returns {handoff, handoff_id, deduped}.',
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
      'Take an open handoff addressed to you so other recipients do not work it too (open → claimed). Exactly one ' +
      'racing recipient wins; the others get CONFLICT naming who holds it since when. Returns {handoff, claimed}.',
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
      'Answer a handoff addressed to you: response {chosen_option (one of its options), text, result_ref, …}. ' +
      'A review answered request_changes (say what in text) sends its task back to the assignee with your text as a ' +
      'comment; approve lets the task close. The sender is notified. Returns {handoff, task?}.',
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
      'Close a handoff you sent, or one you claimed: resolution processed (default) or cancelled, with a note. A ' +
      'resolved handoff no longer dedups. Returns {handoff}.',
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
      'List handoffs newest first, with recipients and answers. direction "from_me" is how you read the answer to ' +
      'something you asked; "to_me" what was addressed to you; "any" the workspace. Filters: status[], type[], ' +
      'related task or project. Returns {handoffs, next_cursor}.',
    input: handoffQueryInput,
    output: handoffQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'inbox',
    room: 'handoffs',
    title: 'Your inbox',
    description:
      'The cheap poll of what waits for you: open handoffs addressed to you, answers to handoffs you sent, and your ' +
      'unread notifications, oldest first. Ack after act: do the work, then pass the item ids in ack on the next ' +
      'call; an item never acked comes back, so a crash loses nothing. wait_seconds (≤ 60) holds an empty answer ' +
      'until something arrives instead of polling. Returns {items, total, counts, acked}.',
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
      'Read your own notifications, newest first (handoffs to you, answers, @mentions, assignments, review requests, ' +
      'unblocked tasks); nobody else can read them. unread_only:true for the unread. Returns {notifications, ' +
      'unread_count, next_cursor}.',
    input: notificationQueryInput,
    output: notificationQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'notification_mark_read',
    room: 'handoffs',
    title: 'Mark notifications read',
    description: 'Mark your notifications read, by ids or all:true. Returns {marked (how many changed), unread_count}.',
    input: notificationMarkReadInput as unknown as z.ZodObject,
    output: notificationMarkReadOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
];
