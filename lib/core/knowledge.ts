import { z } from 'zod';
import { defineTool } from './tool';
import { idempotencyKey, projectRef, uuid } from './fields';
import { relatedTaskIds } from './decisions';
import { id, noteHit, noteKind, noteRow, searchMode, writeResult } from './rows';

const tag = z.string().min(1).max(64);
const expiresAt = z.iso.datetime({ offset: true }).describe('the note expires then: it leaves search and is purged (ISO date-time)');

export const knowledgeWriteInput = z.strictObject({
  title: z.string().min(1).max(500),
  body: z.string().min(1).max(100_000).describe('markdown'),
  kind: noteKind.optional().describe('default note'),
  project_id: projectRef.optional().describe('default: workspace-wide'),
  tags: z.array(tag).max(20).optional(),
  expires_at: expiresAt.optional(),
  related_task_ids: relatedTaskIds.optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type KnowledgeWriteInput = z.infer<typeof knowledgeWriteInput>;

export const knowledgeWriteOutput = writeResult({ note: noteRow, note_id: id, embedding_status: noteRow.shape.embedding_status });
export type KnowledgeWriteOutput = z.infer<typeof knowledgeWriteOutput>;

export const knowledgeUpdateInput = z.strictObject({
  note_id: uuid,
  patch: z
    .strictObject({
      title: z.string().min(1).max(500).optional(),
      body: z.string().min(1).max(100_000).optional(),
      tags: z.array(tag).max(20).optional(),
      kind: noteKind.optional(),
      project_id: projectRef.nullable().optional(),
      expires_at: expiresAt.nullable().optional().describe('null keeps the note for good'),
      related_task_ids: relatedTaskIds.optional().describe('replaces the linked tasks'),
    })
    .refine((p) => Object.keys(p).length > 0, 'name at least one field to change')
    .describe('only the named fields change'),
  expected_version: z.number().int().min(1).max(2_147_483_647).optional().describe('refuse with CONFLICT unless the note is still at this version'),
  idempotency_key: idempotencyKey.optional(),
});
export type KnowledgeUpdateInput = z.infer<typeof knowledgeUpdateInput>;

export const knowledgeUpdateOutput = writeResult({
  note: noteRow,
  changed: z.array(z.string()).describe('the fields that changed; empty when nothing did'),
  embedding_status: noteRow.shape.embedding_status,
  re_embed: z.boolean().describe('whether the text changed, so the note is embedded again'),
});
export type KnowledgeUpdateOutput = z.infer<typeof knowledgeUpdateOutput>;

export const knowledgeSearchInput = z.strictObject({
  q: z.string().min(1).max(1000).optional().describe('what you want to know, in your own words; omit to list the newest notes'),
  project_id: projectRef.optional(),
  kind: noteKind.optional(),
  tags: z.array(tag).max(20).optional().describe('notes carrying all of these'),
  top_k: z.number().int().min(1).max(50).optional().describe('default 10'),
  min_similarity: z.number().min(0).max(1).optional().describe('drop notes less similar in meaning than this (0–1)'),
  lexical_only: z.boolean().optional().describe('match words only (full text + trigram), no embedding'),
});
export type KnowledgeSearchInput = z.infer<typeof knowledgeSearchInput>;

export const knowledgeSearchOutput = z.strictObject({
  results: z.array(noteHit).describe('best first; without q, newest first'),
  mode: searchMode,
  model: z.string().nullable().describe('the embedding model the query was compared with'),
  fallback_reason: z.string().nullable().describe('why the search used words only'),
});
export type KnowledgeSearchOutput = z.infer<typeof knowledgeSearchOutput>;

export const knowledgeTools = [
  defineTool({
    name: 'knowledge_write',
    room: 'knowledge',
    title: 'Write a knowledge note',
    description:
      'Save what the next actor should know (how to run X, why Y is shaped so, the gotcha that cost an hour) as a ' +
      'note, runbook, finding or snippet. Returns at once with embedding_status "pending"; the embedding follows in ' +
      'the background. expires_at makes it temporary; related_task_ids links tasks. Returns {note, note_id, embedding_status}.',
    input: knowledgeWriteInput,
    output: knowledgeWriteOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'knowledge_update',
    room: 'knowledge',
    title: 'Update a knowledge note',
    description:
      'Patch a note (title, body, tags, kind, project, expiry, linked tasks); fix a note you found wrong instead of ' +
      'writing a contradicting one. Re-embeds only when the text changes. expected_version guards concurrent edits. ' +
      'Returns {note, changed, embedding_status, re_embed}.',
    input: knowledgeUpdateInput,
    output: knowledgeUpdateOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'knowledge_search',
    room: 'knowledge',
    title: 'Search knowledge by meaning',
    description:
      'Search notes before you redo research. Finds notes by meaning fused with matching words, so other words than ' +
      "the note's work; lexical_only:true matches words only. Expired notes never appear. Returns {results (notes " +
      'with similarity and score), mode: hybrid|semantic|lexical, fallback_reason}.',
    input: knowledgeSearchInput,
    output: knowledgeSearchOutput,
    kind: 'read',
    idempotent: true,
    prepare: async (input, ctx) => (await import('../memory/query')).withQueryEmbedding(input, ctx),
  }),
];
