import { z } from 'zod';
import { defineTool } from './tool';
import { cursor, docs, idempotencyKey, limit, projectRef, uuid } from './fields';
import { id, nextCursor, skillRow, writeResult } from './rows';

export const SLUG_RULE = 'lowercase letters a-z, digits and single hyphens, 1–64 characters, no leading or trailing hyphen';

export const skillSlug = z
  .string()
  .min(1, `slug: ${SLUG_RULE}`)
  .max(64, `slug: ${SLUG_RULE}`)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, `slug must be ${SLUG_RULE}`)
  .describe('e.g. "release-checklist"');

const searchType = z.enum(['project', 'task', 'decision', 'note', 'comment', 'handoff', 'skill']);

export const searchInput = z.strictObject({
  q: z.string().trim().min(1, 'write at least one word').max(200),
  limit: limit(20, 100).optional(),
  types: z.array(searchType).min(1).max(7).optional(),
});
export type SearchInput = z.infer<typeof searchInput>;

export const searchHit = z
  .strictObject({
    object_type: searchType,
    object_id: id,
    title: z.string(),
    ref: z.string().nullable().describe('KEY-N of a task (or of the task a comment is on), a project key, a skill slug'),
    project_id: id.nullable(),
    snippet: z.string().describe('matching words marked «like this»'),
    rank: z.number(),
  })
  .meta({ id: 'SearchHit' });
export const searchOutput = z.strictObject({ results: z.array(searchHit).describe('best first'), q: z.string() });
export type SearchOutput = z.infer<typeof searchOutput>;

const skillStatus = z.enum(['active', 'archived']);

export const skillListInput = z.strictObject({
  project_id: projectRef.optional(),
  q: z.string().min(1).max(200).optional(),
  tag: z.string().min(1).max(64).optional(),
  status: skillStatus.optional().meta(docs('default active')),
  include_body: z.boolean().optional(),
  limit: limit(100, 500).optional(),
  cursor: cursor.optional(),
});
export type SkillListInput = z.infer<typeof skillListInput>;

export const skillListOutput = z.strictObject({
  skills: z.array(skillRow.extend({ shadows_skill_id: id.nullable().describe('the workspace skill this project skill shadows') })),
  project_id: id.nullable(),
  next_cursor: nextCursor,
});
export type SkillListOutput = z.infer<typeof skillListOutput>;

export const skillGetInput = z
  .strictObject({
    slug: skillSlug.optional(),
    skill_id: uuid.optional(),
    project_id: projectRef.optional().meta(docs('its skill first, then the workspace one')),
  })
  .superRefine((v, ctx) => {
    if ((v.slug === undefined) === (v.skill_id === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['slug'], message: 'pass exactly one of slug and skill_id' });
    }
  });
export type SkillGetInput = z.infer<typeof skillGetInput>;

export const skillGetOutput = z.strictObject({
  skill: skillRow.required({ body: true }),
  shadows_skill_id: id.nullable().describe('the workspace skill this project skill shadows'),
});
export type SkillGetOutput = z.infer<typeof skillGetOutput>;

export const skillUpsertInput = z.strictObject({
  slug: skillSlug,
  body: z
    .string()
    .min(1)
    .refine((b) => Buffer.byteLength(b, 'utf8') <= 65_536, 'at most 64 KB (UTF-8)')
    .optional()
    .describe('required on create'),
  description: z.string().min(1).max(1024).optional().describe('when to use it; required on create'),
  name: z.string().min(1).max(200).optional().meta(docs('default the slug')),
  project_id: projectRef.optional(),
  tags: z.array(z.string().min(1).max(64)).max(20).optional(),
  status: skillStatus.optional(),
  expected_version: z.number().int().min(0).max(2_147_483_647).optional().meta(docs('CONFLICT unless at this version (0: new)')),
  idempotency_key: idempotencyKey.optional(),
});
export type SkillUpsertInput = z.infer<typeof skillUpsertInput>;

export const skillUpsertOutput = writeResult({
  skill: skillRow.required({ body: true }),
  created: z.boolean(),
  changed: z.array(z.string()).describe('the fields that changed; empty when nothing did'),
  previous_version: z.number().int().positive().nullable(),
});
export type SkillUpsertOutput = z.infer<typeof skillUpsertOutput>;

export const searchTools = [
  defineTool({
    name: 'search',
    room: 'search',
    title: 'Search by keyword',
    description:
      'Returns keyword matches, with ref and snippet, across every kind of record. Use when you know a word or a ref.',
    input: searchInput,
    output: searchOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'skill_list',
    room: 'search',
    title: 'List skills',
    description:
      "Returns skills (markdown playbooks); a project's shadows the workspace's by slug. Use when you look for a playbook.",
    input: skillListInput,
    output: skillListOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'skill_get',
    room: 'search',
    title: 'Read a skill',
    description:
      'Returns one skill by slug or skill_id, with the body to follow. Use when a task matches a skill.',
    input: skillGetInput,
    output: skillGetOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'skill_upsert',
    room: 'search',
    title: 'Create or update a skill',
    description:
      'Creates or updates a skill by slug; expected_version guards edits. Returns {skill, created}. Use when a procedure is worth reusing.',
    input: skillUpsertInput,
    output: skillUpsertOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
];
