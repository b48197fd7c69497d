import { z } from 'zod';
import { defineTool } from './tool';
import { cursor, idempotencyKey, limit, uuid } from './fields';
import { attachmentRow, id, nextCursor, writeResult } from './rows';

const objectType = z.enum(['project', 'task', 'decision', 'note', 'comment', 'handoff']);

/**
 * A media type as RFC 6838 writes it: type/subtype with optional `;name=value` parameters (a token
 * or a quoted string of printable ASCII). The same grammar as bullpen.is_media_type in SQL; no line
 * break fits it, so it is safe in a Content-Type header.
 */
export const MEDIA_TYPE =
  /^[A-Za-z0-9][-A-Za-z0-9!#$&^_.+]{0,126}\/[A-Za-z0-9][-A-Za-z0-9!#$&^_.+]{0,126}( *; *[A-Za-z0-9][-A-Za-z0-9!#$&^_.+]{0,126}=([-A-Za-z0-9!#$%&'*+.^_`|~]+|"([\] !#-[^-~]|\\[ -~])*"))*$/;

/** Control and bidirectional-formatting characters, which names lose (the same set as bullpen.printable_name). */
export const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

const objectRef = z.string().min(1).max(64).describe('PAY-12, PAY or uuid');

export const attachAddInput = z
  .strictObject({
    object_type: objectType,
    object_id: objectRef,
    kind: z.enum(['file', 'link']),
    url: z.url({ protocol: /^https?$/ }).max(2000).optional().describe('required for kind "link"'),
    storage_path: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe('kind "file": a path from POST /api/files, or another file\'s storage_path'),
    title: z.string().min(1).max(500).optional(),
    filename: z.string().min(1).max(255).optional(),
    mime_type: z.string().min(1).max(255).regex(MEDIA_TYPE, 'not a media type (type/subtype[; name=value])').optional().describe('a media type, e.g. text/plain'),
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
      'Attaches a link or a stored file to a record; on a task it is evidence. Returns {attachment}. Use when proof belongs on the record.',
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
      'Removes an attachment, keeping it on record. Returns {removed}. Use when an attachment was wrong.',
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
      'Returns the attachments on a record, files with a download_url. Use when you need its files or links.',
    input: attachmentQueryInput,
    output: attachmentQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
];
