import { z } from 'zod';
import { defineTool } from './tool';
import { actorRef, cursor, docs, idempotencyKey, isoDate, limit, projectRef, projectStatus, uuid } from './fields';
import { id, nextCursor, projectBrief, projectListRow, projectRow, writeResult } from './rows';

const projectKey = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,15}$/, '1–16 letters, digits or _, starting with a letter')
  .describe('e.g. "PAY"').meta(docs('default from the title'));

export const projectCreateInput = z.strictObject({
  title: z.string().min(1).max(200),
  key: projectKey.optional(),
  summary: z.string().max(2000).optional(),
  description: z.string().max(50000).optional(),
  status: projectStatus.optional().meta(docs('default active')),
  parent_project_id: projectRef.optional(),
  owner_actor_id: actorRef.optional().meta(docs('default you')),
  target_on: isoDate.optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type ProjectCreateInput = z.infer<typeof projectCreateInput>;

export const projectCreateOutput = writeResult({ project: projectRow, project_id: id, key: z.string() });
export type ProjectCreateOutput = z.infer<typeof projectCreateOutput>;

export const projectUpdateInput = z.strictObject({
  project_id: projectRef,
  patch: z
    .strictObject({
      title: z.string().min(1).max(200).optional(),
      summary: z.string().max(2000).nullable().optional(),
      description: z.string().max(50000).nullable().optional(),
      status: projectStatus.optional(),
      target_on: isoDate.nullable().optional(),
      owner_actor_id: actorRef.nullable().optional(),
      parent_project_id: projectRef.nullable().optional(),
    })
    .meta(docs('null clears a field')),
  idempotency_key: idempotencyKey.optional(),
});
export type ProjectUpdateInput = z.infer<typeof projectUpdateInput>;

export const projectUpdateOutput = writeResult({
  project: projectRow,
  changed: z.array(z.string()).describe('the patch keys that were applied'),
});
export type ProjectUpdateOutput = z.infer<typeof projectUpdateOutput>;

export const projectQueryInput = z.strictObject({
  project_id: projectRef.optional(),
  status: z.union([projectStatus, z.array(projectStatus).max(5)]).optional(),
  q: z.string().min(1).max(200).optional(),
  owner_actor_id: actorRef.optional(),
  repository_id: uuid.optional(),
  detail: z.enum(['summary', 'full']).optional().meta(docs('full adds task counts')),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
});
export type ProjectQueryInput = z.infer<typeof projectQueryInput>;

export const projectQueryOutput = z.strictObject({ projects: z.array(projectListRow), next_cursor: nextCursor });
export type ProjectQueryOutput = z.infer<typeof projectQueryOutput>;

export const projectBriefInput = z.strictObject({
  project: projectRef,
  max_tasks: z.number().int().min(0).max(50).optional(),
  max_decisions: z.number().int().min(0).max(50).optional(),
  max_knowledge: z.number().int().min(0).max(50).optional(),
  max_activity: z.number().int().min(0).max(100).optional(),
});
export type ProjectBriefInput = z.infer<typeof projectBriefInput>;

export const projectBriefOutput = projectBrief;
export type ProjectBriefOutput = z.infer<typeof projectBriefOutput>;

export const projectTools = [
  defineTool({
    name: 'project_create',
    room: 'projects',
    title: 'Create a project',
    description:
      'Creates a project; its key prefixes its task refs (PAY-12). Returns {project, key}. Use when work fits no existing project.',
    input: projectCreateInput,
    output: projectCreateOutput,
    kind: 'write',
    idempotency: 'derived',
  }),
  defineTool({
    name: 'project_update',
    room: 'projects',
    title: 'Update a project',
    description:
      'Patches a project. Returns {project, changed}. Use when its status, owner, dates or text change.',
    input: projectUpdateInput,
    output: projectUpdateOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'project_query',
    room: 'projects',
    title: 'List projects',
    description:
      'Returns projects, with task counts on detail:"full". Use when you need a project key or an overview.',
    input: projectQueryInput,
    output: projectQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'project_brief',
    room: 'projects',
    title: 'Project brief',
    description:
      'Returns a project at a glance: open tasks, decisions, notes, activity. Use when you start on a project.',
    input: projectBriefInput,
    output: projectBriefOutput,
    kind: 'read',
    idempotent: true,
  }),
];
