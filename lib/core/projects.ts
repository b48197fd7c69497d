import { z } from 'zod';
import { defineTool } from './tool';
import { actorRef, cursor, idempotencyKey, isoDate, limit, projectRef, projectStatus, uuid } from './fields';
import { id, nextCursor, projectBrief, projectListRow, projectRow, writeResult } from './rows';

const projectKey = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,15}$/, '1–16 letters, digits or _, starting with a letter')
  .describe('short handle, e.g. "PAY" (stored upper-case); derived from the title when omitted');

export const projectCreateInput = z.strictObject({
  title: z.string().min(1).max(200),
  key: projectKey.optional(),
  summary: z.string().max(2000).optional(),
  description: z.string().max(50000).optional(),
  status: projectStatus.optional().describe('default active'),
  parent_project_id: projectRef.optional(),
  owner_actor_id: actorRef.optional().describe('default: you'),
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
    .describe('only the named fields change; null clears a clearable field'),
  idempotency_key: idempotencyKey.optional(),
});
export type ProjectUpdateInput = z.infer<typeof projectUpdateInput>;

export const projectUpdateOutput = writeResult({
  project: projectRow,
  changed: z.array(z.string()).describe('the patch keys that were applied'),
});
export type ProjectUpdateOutput = z.infer<typeof projectUpdateOutput>;

export const projectQueryInput = z.strictObject({
  project_id: uuid.optional(),
  status: z.union([projectStatus, z.array(projectStatus).max(5)]).optional(),
  q: z.string().min(1).max(200).optional(),
  owner_actor_id: actorRef.optional(),
  repository_id: uuid.optional(),
  detail: z.enum(['summary', 'full']).optional().describe('full adds task counts per project'),
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
      'Create a project (optionally under a parent). Returns {project, project_id, key}. The key is the short ' +
      'handle tasks are named by (PAY-12); omit it to derive one from the title.',
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
      'Patch a project: only the fields named in patch change; null clears. A parent that would make a cycle is ' +
      'refused (CYCLE_DETECTED). Returns {project, changed}.',
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
      'List or search projects in your workspace. detail:"full" adds task counts (by status, ready). ' +
      'Returns {projects, next_cursor}.',
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
      'One-call orientation on a project (by key or uuid): status, task counts, top open tasks, recent decisions, ' +
      'knowledge, repositories and recent activity. Call it when you start work on a project you do not know.',
    input: projectBriefInput,
    output: projectBriefOutput,
    kind: 'read',
    idempotent: true,
  }),
];
