import { z } from 'zod';
import { defineTool } from './tool';
import { actorRef, cursor, docs, idempotencyKey, limit, meta, uuid } from './fields';
import { commentKind, commentRow, id, nextCursor, threadKind, writeResult } from './rows';

const commentTag = z.string().min(1).max(64);

/** The objects a thread hangs on; `work_request` is another name for a handoff. */
const objectType = z
  .enum(['task', 'project', 'decision', 'note', 'handoff', 'work_request'])
  .meta(docs('work_request = handoff'));
/** What the thread is stored under: a work_request's thread is its handoff's. */
const threadType = z.enum(['task', 'project', 'decision', 'note', 'handoff']);
const objectRef = z.string().min(1).max(64).describe('PAY-12, PAY or uuid');

export const commentAddInput = z.strictObject({
  object_type: objectType,
  object_id: objectRef,
  body: z.string().trim().min(1, 'write something first').max(20_000),
  mentions: z.array(actorRef).max(50).optional().meta(docs('actors to notify')),
  parent_comment_id: uuid.optional(),
  kind: commentKind.optional().meta(docs('default message')),
  tags: z.array(commentTag).max(32).optional(),
  meta: meta.optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type CommentAddInput = z.infer<typeof commentAddInput>;

export const commentAddOutput = writeResult({
  comment_id: id,
  comment: commentRow.extend({ object_type: threadType, object_id: id }),
});
export type CommentAddOutput = z.infer<typeof commentAddOutput>;

export const commentQueryInput = z.strictObject({
  object_type: objectType,
  object_id: objectRef,
  kind: threadKind.optional(),
  tags: z.array(commentTag).min(1).max(32).optional().meta(docs('has all of them')),
  limit: limit(100, 500).optional(),
  cursor: cursor.optional(),
});
export type CommentQueryInput = z.infer<typeof commentQueryInput>;

export const commentQueryOutput = z.strictObject({
  object_type: threadType,
  object_id: id.describe('the uuid the reference resolved to'),
  comments: z.array(commentRow).describe('oldest first'),
  next_cursor: nextCursor,
});
export type CommentQueryOutput = z.infer<typeof commentQueryOutput>;

export const commentTools = [
  defineTool({
    name: 'comment_add',
    room: 'comments',
    title: 'Add a comment',
    description:
      'Comments on a record, with @mentions. Returns {comment}. Use when you record findings for others.',
    input: commentAddInput,
    output: commentAddOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'comment_query',
    room: 'comments',
    title: 'Read a thread',
    description:
      "Returns a record's comment thread, oldest first. Use when you need the discussion alone.",
    input: commentQueryInput,
    output: commentQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
];
