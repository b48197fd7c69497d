import { z } from 'zod';
import { withNoteEmbedding, withQueryEmbedding } from './recall';
import { defineTool } from './tool';
import { cursor, docs, idempotencyKey, projectRef, uuid } from './fields';
import { relatedTaskIds } from './decisions';
import { decisionHit, id, nextCursor, noteHit, noteKind, noteRow, searchMode, writeResult } from './rows';
import { chunkHit } from './sources';

const tag = z.string().min(1).max(64);
// guidelines and patterns: a project guideline shadows a shared one of the same language, category and title
const facet = z.string().min(1).max(64);
// a sensitive note: seen only by keys with the sensitive scope and by people (docs/security.md)
const sensitivity = z.enum(['normal', 'sensitive']);
const expiresAt = z.iso.datetime({ offset: true }).meta(docs('then it is purged'));

export const knowledgeWriteInput = z.strictObject({
  title: z.string().min(1).max(500),
  body: z.string().min(1).max(100_000),
  kind: noteKind.optional().meta(docs('default note')),
  project_id: projectRef.optional(),
  tags: z.array(tag).max(20).optional(),
  language: facet.optional(),
  category: facet.optional(),
  expires_at: expiresAt.optional(),
  related_task_ids: relatedTaskIds.optional(),
  sensitivity: sensitivity.optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type KnowledgeWriteInput = z.infer<typeof knowledgeWriteInput>;

const similarNote = z.strictObject({ id, title: z.string(), score: z.number() });

export const knowledgeWriteOutput = writeResult({
  note: noteRow,
  note_id: id,
  embedding_status: noteRow.shape.embedding_status,
  similar: z.array(similarNote).describe('live notes this one nearly duplicates; kept as duplicates links'),
});
export type KnowledgeWriteOutput = z.infer<typeof knowledgeWriteOutput>;

export const knowledgeUpdateInput = z.strictObject({
  note_id: uuid,
  patch: z
    .strictObject({
      title: z.string().min(1).max(500).optional(),
      body: z.string().min(1).max(100_000).optional(),
      tags: z.array(tag).max(20).optional(),
      kind: noteKind.optional(),
      language: facet.nullable().optional(),
      category: facet.nullable().optional(),
      project_id: projectRef.nullable().optional(),
      expires_at: expiresAt.nullable().optional().describe('null keeps it for good'),
      related_task_ids: relatedTaskIds.optional().meta(docs('replaces them')),
      sensitivity: sensitivity.optional(),
    })
    .refine((p) => Object.keys(p).length > 0, 'name at least one field to change')
    .optional()
    .meta(docs('patch, supersedes or both')),
  supersedes: uuid.optional().describe('a note this one replaces; it leaves search'),
  expected_version: z.number().int().min(1).max(2_147_483_647).optional().meta(docs('CONFLICT unless still this version')),
  idempotency_key: idempotencyKey.optional(),
}).refine((v) => v.patch !== undefined || v.supersedes !== undefined, { message: 'name a patch, supersedes or both', path: ['patch'] });
export type KnowledgeUpdateInput = z.infer<typeof knowledgeUpdateInput>;

export const knowledgeRetractInput = z.strictObject({
  note_id: uuid,
  reason: z.string().min(1).max(2000),
  idempotency_key: idempotencyKey.optional(),
});
export type KnowledgeRetractInput = z.infer<typeof knowledgeRetractInput>;

export const knowledgeRetractOutput = writeResult({ note: noteRow });
export type KnowledgeRetractOutput = z.infer<typeof knowledgeRetractOutput>;

export const knowledgeUpdateOutput = writeResult({
  note: noteRow,
  changed: z.array(z.string()).describe('the fields that changed; empty when nothing did'),
  embedding_status: noteRow.shape.embedding_status,
  re_embed: z.boolean().describe('whether the text changed, so the note is embedded again'),
});
export type KnowledgeUpdateOutput = z.infer<typeof knowledgeUpdateOutput>;

/** What knowledge_search {types} ranks together: note kinds, decisions and source chunks. */
export const SEARCH_TYPES = ['note', 'guideline', 'pattern', 'decision', 'chunk'] as const;

export const knowledgeSearchInput = z.strictObject({
  q: z.string().min(1).max(1000).optional().meta(docs('in your own words; omit for the newest')),
  project_id: projectRef.optional(),
  kind: noteKind.optional(),
  tags: z.array(tag).max(20).optional().meta(docs('all of these')),
  top_k: z.number().int().min(1).max(50).optional().meta(docs('default 10')),
  min_similarity: z.number().min(0).max(1).optional(),
  min_score: z.number().min(0).max(1).optional().describe('similarity needed unless most words match; default 0.4'),
  types: z.array(z.enum(SEARCH_TYPES)).min(1).max(5).optional().describe('rank these together; default notes'),
  lexical_only: z.boolean().optional(),
  cursor: cursor.optional(),
  duplicates: z.boolean().optional().describe('list near-duplicate note pairs instead'),
});
export type KnowledgeSearchInput = z.infer<typeof knowledgeSearchInput>;

export const knowledgeSearchOutput = z.strictObject({
  results: z
    .array(
      z.union([
        noteHit.extend({ type: z.enum(['note', 'guideline', 'pattern']).optional() }),
        decisionHit.extend({ type: z.literal('decision') }),
        chunkHit,
      ]),
    )
    .describe('best first; without q, newest first; with types, each says its type'),
  mode: searchMode,
  model: z.string().nullable().describe('the embedding model the query was compared with'),
  fallback_reason: z.string().nullable().describe('why the search used words only'),
  next_cursor: nextCursor.optional(),
  pairs: z
    .array(z.strictObject({ a: z.strictObject({ id, title: z.string() }), b: z.strictObject({ id, title: z.string() }), score: z.number(), link_id: id }))
    .optional()
    .describe('with duplicates: near-duplicate pairs, strongest first'),
});
export type KnowledgeSearchOutput = z.infer<typeof knowledgeSearchOutput>;

export const knowledgeTools = [
  defineTool({
    name: 'knowledge_write',
    room: 'knowledge',
    title: 'Write a knowledge note',
    description:
      'Saves a note (runbook, finding…), embedded in the background. Returns {note}. Use when you learned what cost you time.',
    input: knowledgeWriteInput,
    output: knowledgeWriteOutput,
    kind: 'write',
    idempotency: 'derived',
    prepare: async (input, ctx) => withNoteEmbedding(input, ctx),
  }),
  defineTool({
    name: 'knowledge_update',
    room: 'knowledge',
    title: 'Update a knowledge note',
    description:
      'Patches a note; expected_version guards concurrent edits. Returns {note, changed}. Use when a note is wrong or stale.',
    input: knowledgeUpdateInput,
    output: knowledgeUpdateOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'knowledge_retract',
    room: 'knowledge',
    title: 'Retract a knowledge note',
    description: 'Marks a note retracted with a reason: readable by id, gone from search. Returns {note}. Use when a note is wrong.',
    input: knowledgeRetractInput,
    output: knowledgeRetractOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'knowledge_search',
    room: 'knowledge',
    title: 'Search knowledge by meaning',
    description:
      'Returns notes by meaning and words (lexical_only: words alone). Use when you start research: it may be written down.',
    input: knowledgeSearchInput,
    output: knowledgeSearchOutput,
    kind: 'read',
    idempotent: true,
    prepare: async (input, ctx) => withQueryEmbedding(input, ctx),
  }),
];
