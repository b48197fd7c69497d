import { z } from 'zod';
import { defineTool } from './tool';
import { cursor, idempotencyKey, limit, uuid } from './fields';
import { attachmentRow, id, nextCursor, writeResult } from './rows';

const objectType = z.enum(['project', 'task', 'decision', 'note', 'comment', 'handoff']);
const objectRef = z.string().min(1).max(64).describe('uuid, or KEY-N for a task, key for a project');

export const attachAddInput = z
  .strictObject({
    object_type: objectType,
    object_id: objectRef,
    kind: z.enum(['file', 'link']),
    url: z.url({ protocol: /^https?$/ }).max(2000).optional().describe('required for kind "link"'),
    storage_path: z.string().min(1).max(1000).optional().describe('required for kind "file": where it is stored'),
    title: z.string().min(1).max(500).optional(),
    filename: z.string().min(1).max(255).optional(),
    mime_type: z.string().min(1).max(255).optional(),
    size_bytes: z.number().int().min(0).max(1e13).optional(),
    idempotency_key: idempotencyKey.optional(),
  })
  // the same rule the table's constraints enforce, refused before the round trip
  .superRefine((v, ctx) => {
    if (v.kind === 'link' && v.url === undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: 'required when kind is "link"' });
    if (v.kind === 'file' && v.storage_path === undefined) {
      ctx.addIssue({ code: 'custom', path: ['storage_path'], message: 'required when kind is "file"' });
    }
  });
export type AttachAddInput = z.infer<typeof attachAddInput>;

export const attachAddOutput = writeResult({ attachment_id: id, attachment: attachmentRow });

export const attachRemoveInput = z.strictObject({
  attachment_id: uuid,
  idempotency_key: idempotencyKey.optional(),
});
export type AttachRemoveInput = z.infer<typeof attachRemoveInput>;

export const attachRemoveOutput = writeResult({ removed: z.literal(true), already_removed: z.boolean(), attachment: attachmentRow });

export const attachmentQueryInput = z.strictObject({
  object_type: objectType,
  object_id: objectRef,
  include_removed: z.boolean().optional(),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
});
export type AttachmentQueryInput = z.infer<typeof attachmentQueryInput>;

export const attachmentQueryOutput = z.strictObject({
  object_type: objectType,
  object_id: id.describe('the uuid the reference resolved to'),
  attachments: z.array(attachmentRow).describe('newest first'),
  next_cursor: nextCursor,
});

export const attachmentTools = [
  defineTool({
    name: 'attach_add',
    room: 'attachments',
    title: 'Attach a file or link',
    description:
      'Attach a link (kind "link", url) or a stored file (kind "file", storage_path, e.g. from POST /api/files) to a ' +
      'project, task, decision, note, comment or handoff. Proof on a task satisfies its evidence gate. ' +
      'Returns {attachment_id, attachment}.',
    input: attachAddInput,
    output: attachAddOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'attach_remove',
    room: 'attachments',
    title: 'Remove an attachment',
    description:
      'Soft-remove an attachment (its author or a workspace owner); it stays in the record with removed_at. ' +
      'Returns {removed, already_removed, attachment}.',
    input: attachRemoveInput,
    output: attachRemoveOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
    destructive: true,
  }),
  defineTool({
    name: 'attachment_query',
    room: 'attachments',
    title: 'List attachments',
    description:
      'The attachments on an object, newest first (removed ones only with include_removed). Files carry a ' +
      'download_url. Returns {attachments, next_cursor}.',
    input: attachmentQueryInput,
    output: attachmentQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
];
