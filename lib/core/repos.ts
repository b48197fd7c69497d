import { z } from 'zod';
import { defineTool } from './tool';
import { cursor, docs, idempotencyKey, limit, projectRef, taskRef, uuid } from './fields';
import { stripCredentials } from './remote';
import { codeRefRow, id, nextCursor, prState as prStateRow, repoRole, repositoryRow, writeResult } from './rows';
import { runRef } from './runs';

/** A remote as given, minus credentials: they never reach the database, a hash or a log. */
const remoteUrl = z
  .string()
  .min(1)
  .max(2000)
  .transform(stripCredentials)
  .describe('`git remote get-url origin`');

const refType = z.enum(['commit', 'branch', 'pr', 'tag', 'compare']);
const prState = prStateRow;
const sha = z.string().regex(/^[0-9a-fA-F]{4,64}$/, 'a commit sha');
const webUrl = z.url({ protocol: /^https?$/ }).max(2000);
const objectRef = z.string().min(1).max(64).describe('PAY-12, PAY or uuid');

const codeRefFields = {
  ref_type: refType.describe('commit needs sha, branch branch, pr pr_number or pr_url, tag tag, compare url'),
  repository_id: uuid.optional().meta(docs("default your run's, else the project's primary")),
  sha: sha.optional().meta(docs("default your run's head")),
  branch: z.string().min(1).max(250).optional().meta(docs("default your run's branch")),
  tag: z.string().min(1).max(250).optional(),
  pr_number: z.number().int().min(1).max(999_999_999).optional(),
  pr_url: webUrl.optional(),
  pr_state: prState.optional().meta(docs('pr only; default open')),
  title: z.string().min(1).max(500).optional(),
  url: webUrl.optional(),
  files: z.array(z.string().min(1).max(1000)).max(200).optional().meta(docs('paths it touches')),
  run_id: runRef.optional(),
  idempotency_key: idempotencyKey.optional(),
};

export const repoRegisterInput = z.strictObject({
  autodetect: z.boolean().optional().meta(docs('the repository you stand in; the default without input')),
  remote_url: remoteUrl.optional(),
  host: z.string().min(1).max(253).optional().meta(docs('default github.com')),
  owner: z.string().min(1).max(200).optional(),
  name: z.string().min(1).max(200).optional(),
  slug: z.string().min(3).max(400).optional().describe('owner/name'),
  default_branch: z.string().min(1).max(200).optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type RepoRegisterInput = z.infer<typeof repoRegisterInput>;

export const repoRegisterOutput = writeResult({
  repository: repositoryRow,
  repository_id: id,
  created: z.boolean(),
  current_run: z.boolean().describe('registered from where you stand; now your run’s repository'),
});

export const repoLinkInput = z
  .strictObject({
    project_id: projectRef,
    repository_id: uuid.optional(),
    repo_slug: z.string().min(3).max(400).optional().describe('owner/name or host/owner/name'),
    role: z.enum(['primary', 'dependency', 'docs']).optional().meta(docs('default primary')),
    remove: z.boolean().optional(),
    idempotency_key: idempotencyKey.optional(),
  })
  .superRefine((v, ctx) => {
    if (v.repository_id === undefined && v.repo_slug === undefined) {
      ctx.addIssue({ code: 'custom', path: ['repository_id'], message: 'repository_id or repo_slug is required' });
    }
  });
export type RepoLinkInput = z.infer<typeof repoLinkInput>;

export const repoLinkOutput = writeResult({
  project_id: id,
  project_key: z.string(),
  repository: repositoryRow,
  linked: z.boolean(),
  role: repoRole.nullable(),
  previous_role: repoRole.nullable(),
  created: z.boolean(),
});

export const repoQueryInput = z.strictObject({
  repository_id: uuid.optional(),
  slug: z.string().min(1).max(400).optional().describe('owner/name'),
  project_id: projectRef.optional(),
  host: z.string().min(1).max(253).optional(),
  q: z.string().min(1).max(200).optional(),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
});
export type RepoQueryInput = z.infer<typeof repoQueryInput>;

export const repoQueryOutput = z.strictObject({
  repositories: z.array(
    repositoryRow.extend({
      projects: z.array(z.strictObject({ project_id: id, key: z.string(), title: z.string(), role: repoRole })),
    }),
  ),
  next_cursor: nextCursor,
});

const codeRefWritten = writeResult({ code_ref_id: id, code_ref: codeRefRow, created: z.boolean().describe('false: the same ref was there and is updated') });

export const taskCodeRefInput = z.strictObject({ task_id: taskRef, ...codeRefFields });
export type TaskCodeRefInput = z.infer<typeof taskCodeRefInput>;

export const codeRefAddInput = z.strictObject({
  object_type: z.enum(['task', 'decision', 'note', 'project']),
  object_id: objectRef,
  ...codeRefFields,
});
export type CodeRefAddInput = z.infer<typeof codeRefAddInput>;

export const codeRefUpdateInput = z.strictObject({
  code_ref_id: uuid,
  patch: z
    .strictObject({
      pr_state: prState.optional(),
      sha: sha.optional(),
      title: z.string().min(1).max(500).nullable().optional(),
      url: webUrl.nullable().optional(),
    })
    .refine((p) => Object.keys(p).length > 0, 'name at least one field to change'),
  idempotency_key: idempotencyKey.optional(),
});
export type CodeRefUpdateInput = z.infer<typeof codeRefUpdateInput>;

export const codeRefUpdateOutput = writeResult({
  code_ref: codeRefRow,
  changed: z.array(z.string()),
  previous_pr_state: prState.nullable(),
});

export const codeRefQueryInput = z.strictObject({
  object_type: z.enum(['task', 'decision', 'note', 'project']).optional().meta(docs('default task')),
  object_id: objectRef.optional(),
  repository_id: uuid.optional(),
  ref_type: refType.optional(),
  pr_state: prState.optional(),
  run_id: runRef.optional(),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
});
export type CodeRefQueryInput = z.infer<typeof codeRefQueryInput>;

export const codeRefQueryOutput = z.strictObject({ code_refs: z.array(codeRefRow).describe('newest first'), next_cursor: nextCursor });

export const repoTools = [
  defineTool({
    name: 'repo_register',
    room: 'repositories',
    title: 'Register a repository',
    description:
      'Registers or finds a git repository by remote; no input: the one you stand in. Returns {repository, created}. Use when it is not known yet.',
    input: repoRegisterInput,
    output: repoRegisterOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'repo_link',
    room: 'repositories',
    title: 'Link a repository',
    description:
      "Links a project to a repository in a role; remove:true unlinks. Returns {linked, role}. Use when a project's code lives there.",
    input: repoLinkInput,
    output: repoLinkOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'repo_query',
    room: 'repositories',
    title: 'List repositories',
    description:
      "Returns repositories with their linked projects. Use when you need a repository id or a project's repositories.",
    input: repoQueryInput,
    output: repoQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'task_code_ref',
    room: 'repositories',
    title: 'Link code to a task',
    description:
      'Records the commit, branch or PR that delivered a task (evidence). Returns {code_ref, created}. Use when you commit or open a PR.',
    input: taskCodeRefInput,
    output: codeRefWritten,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'code_ref_add',
    room: 'repositories',
    title: 'Link code to any object',
    description:
      'task_code_ref for a decision, note or project. Returns {code_ref, created}. Use when code belongs to something other than a task.',
    input: codeRefAddInput,
    output: codeRefWritten,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'code_ref_update',
    room: 'repositories',
    title: 'Move a PR forward',
    description:
      "Patches a code ref's PR state, sha, title or url. Returns {code_ref, changed}. Use when a PR moves.",
    input: codeRefUpdateInput,
    output: codeRefUpdateOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'code_ref_query',
    room: 'repositories',
    title: 'Find code refs',
    description:
      'Returns code refs, newest first. Use when you ask which code delivered some work.',
    input: codeRefQueryInput,
    output: codeRefQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
];
