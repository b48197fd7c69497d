import { z } from 'zod';
import { defineTool } from './tool';
import { docs, idempotencyKey, projectRef, uuid } from './fields';
import { id, noteRow, timestamp, writeResult } from './rows';

/**
 * Memory as a graph: typed links between any two objects of a workspace, the neighbourhood of an
 * object over them, and the guidelines in force for a project. Task dependencies are not links:
 * they keep their own table and rules (task_link).
 */

export const LINKABLE_TYPES = ['task', 'project', 'decision', 'note', 'handoff', 'skill', 'run', 'code_ref', 'attachment', 'source'] as const;
export const LINK_RELATIONS = ['relates_to', 'depends_on', 'implements', 'extends', 'supersedes', 'explains', 'duplicates', 'contradicts'] as const;

export const linkableType = z.enum(LINKABLE_TYPES);
export const linkRelation = z.enum(LINK_RELATIONS);

const objectRef = z.strictObject({ type: linkableType, id: z.string().min(1).max(200).describe('uuid; KEY-N, project key or run key') });

const node = z
  .strictObject({
    type: linkableType,
    id,
    label: z.string(),
    project_id: id.nullable(),
    status: z.string().nullable(),
    tags: z.array(z.string()),
  })
  .meta({ id: 'GraphNode' });

export const linkRow = z
  .strictObject({
    id,
    from: z.strictObject({ type: linkableType, id }),
    to: z.strictObject({ type: linkableType, id }),
    relation: linkRelation,
    strength: z.number(),
    note: z.string().nullable(),
    created_by_actor_id: id,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Link' });

export const linkAddInput = z.strictObject({
  from: objectRef,
  to: objectRef,
  relation: linkRelation,
  strength: z.number().min(0).max(1).optional().meta(docs('default 1')),
  note: z.string().min(1).max(2000).optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type LinkAddInput = z.infer<typeof linkAddInput>;

export const linkAddOutput = writeResult({
  link: linkRow,
  created: z.boolean().describe('false when the pair already had this relation: its strength was updated'),
  from: node,
  to: node,
});
export type LinkAddOutput = z.infer<typeof linkAddOutput>;

export const linkRemoveInput = z
  .strictObject({
    link_id: uuid.optional(),
    from: objectRef.optional(),
    to: objectRef.optional(),
    relation: linkRelation.optional().meta(docs('omitted: every relation between the pair')),
    idempotency_key: idempotencyKey.optional(),
  })
  .refine((v) => v.link_id !== undefined || (v.from !== undefined && v.to !== undefined), {
    message: 'name link_id, or both from and to',
    path: ['link_id'],
  });
export type LinkRemoveInput = z.infer<typeof linkRemoveInput>;

export const linkRemoveOutput = writeResult({ removed: z.array(linkRow) });
export type LinkRemoveOutput = z.infer<typeof linkRemoveOutput>;

export const findRelatedInput = z.strictObject({
  type: linkableType,
  id: objectRef.shape.id,
  depth: z.number().int().min(1).max(3).optional().meta(docs('default 1')),
  relations: z.array(linkRelation).max(8).optional().meta(docs('default all')),
  limit: z.number().int().min(1).max(200).optional().meta(docs('default 20')),
});
export type FindRelatedInput = z.infer<typeof findRelatedInput>;

const pathStep = z.strictObject({
  relation: linkRelation,
  direction: z.enum(['out', 'in']),
  strength: z.number(),
  link_id: id,
});

export const findRelatedOutput = z.strictObject({
  root: node,
  nodes: z
    .array(
      node.extend({
        distance: z.number().int(),
        strength: z.number().describe('product of the strengths along the path'),
        path: z.array(pathStep).describe('the links from the root, in order'),
        shared_tags: z.array(z.string()),
      }),
    )
    .describe('by distance, then strength'),
  total: z.number().int().describe('nodes found before limit'),
  depth: z.number().int(),
});
export type FindRelatedOutput = z.infer<typeof findRelatedOutput>;

export const guidelinesGetInput = z.strictObject({
  project_id: projectRef.optional(),
  language: z.string().min(1).max(64).optional(),
  category: z.string().min(1).max(64).optional(),
  include_shared: z.boolean().optional().meta(docs('default true')),
});
export type GuidelinesGetInput = z.infer<typeof guidelinesGetInput>;

export const guidelinesGetOutput = z.strictObject({
  guidelines: z
    .array(
      noteRow.extend({
        scope: z.enum(['project', 'shared']),
        shadows: id.nullable().describe('the shared guideline this project one overrides'),
      }),
    )
    .describe('project ones first'),
  project_id: id.nullable(),
});
export type GuidelinesGetOutput = z.infer<typeof guidelinesGetOutput>;

export const graphTools = [
  defineTool({
    name: 'link_add',
    room: 'knowledge',
    title: 'Link two objects',
    description:
      'Links two objects with a typed relation and strength; again updates it. Returns {link, created}. Use when one item explains, implements or contradicts another.',
    input: linkAddInput,
    output: linkAddOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'link_remove',
    room: 'knowledge',
    title: 'Remove a link',
    description: 'Removes a link by link_id, or between from and to. Returns {removed}. Use when a link is wrong.',
    input: linkRemoveInput,
    output: linkRemoveOutput,
    kind: 'write',
    idempotency: 'derived',
    destructive: true,
    idempotent: true,
  }),
  defineTool({
    name: 'find_related',
    room: 'knowledge',
    title: 'Find related objects',
    description:
      "Returns an object's neighbourhood over links (depth 1-3), with distance, path and strengths. Use when you need context around a task, note or decision.",
    input: findRelatedInput,
    output: findRelatedOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'guidelines_get',
    room: 'knowledge',
    title: 'Get the guidelines in force',
    description:
      "Returns a project's guidelines, then shared ones it does not shadow. Use when you start coding in a project.",
    input: guidelinesGetInput,
    output: guidelinesGetOutput,
    kind: 'read',
    idempotent: true,
  }),
];
