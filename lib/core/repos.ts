import { z } from 'zod';
import { defineTool } from './tool';
import { cursor, idempotencyKey, limit, projectRef, taskRef, uuid } from './fields';
import { stripCredentials } from './remote';
import { codeRefRow, id, nextCursor, prState as prStateRow, repoRole, repositoryRow, writeResult } from './rows';
import { runRef } from './runs';

/** A remote as given, minus credentials: they never reach the database, a hash or a log. */
const remoteUrl = z
  .string()
  .min(1)
  .max(2000)
  .transform(stripCredentials)
  .describe('e.g. `git remote get-url origin`; credentials are stripped');

const refType = z.enum(['commit', 'branch', 'pr', 'tag', 'compare']);
const prState = prStateRow;
const sha = z.string().regex(/^[0-9a-fA-F]{4,64}$/, 'a commit sha');
const webUrl = z.url({ protocol: /^https?$/ }).max(2000);
const objectRef = z.string().min(1).max(64).describe('uuid, or KEY-N for a task, key for a project');

const codeRefFields = {
  ref_type: refType.describe('commit needs sha, branch branch, pr pr_number or pr_url, tag tag, compare url'),
  repository_id: uuid.optional().describe("default your run's repository, else the project's primary one"),
  sha: sha.optional().describe("default your run's head_sha (commit, tag)"),
  branch: z.string().min(1).max(250).optional().describe("default your run's branch"),
  tag: z.string().min(1).max(250).optional(),
  pr_number: z.number().int().min(1).max(999_999_999).optional(),
  pr_url: webUrl.optional(),
  pr_state: prState.optional().describe('pr only; default open'),
  title: z.string().min(1).max(500).optional(),
  url: webUrl.optional(),
  run_id: runRef.optional().describe('the run that produced it; default your current run'),
  idempotency_key: idempotencyKey.optional(),
};

export const repoRegisterInput = z.strictObject({
  autodetect: z.boolean().optional().describe('use the repository you stand in (the default with no other input)'),
  remote_url: remoteUrl.optional(),
  host: z.string().min(1).max(253).optional().describe('with owner/name or slug; default github.com'),
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
    role: z.enum(['primary', 'dependency', 'docs']).optional().describe('default primary'),
    remove: z.boolean().optional().describe('unlink instead'),
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
  project_id: projectRef.optional().describe("that project's repositories"),
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
    .refine((p) => Object.keys(p).length > 0, 'name at least one field to change')
    .describe('only the named fields change'),
  idempotency_key: idempotencyKey.optional(),
});
export type CodeRefUpdateInput = z.infer<typeof codeRefUpdateInput>;

export const codeRefUpdateOutput = writeResult({
  code_ref: codeRefRow,
  changed: z.array(z.string()),
  previous_pr_state: prState.nullable(),
});

export const codeRefQueryInput = z.strictObject({
  object_type: z.enum(['task', 'decision', 'note', 'project']).optional().describe('default task'),
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
      'Resolve or register a git repository, deduplicated by its normalised remote (credentials stripped). ' +
      'With no input it uses the repository you stand in: over MCP the server cannot see your directory, so send ' +
      'the X-Bullpen-Repo header, run_heartbeat remote_url, or pass remote_url. Returns {repository, created}.',
    input: repoRegisterInput,
    output: repoRegisterOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'repo_link',
    room: 'repositories',
    title: 'Link a project to a repository',
    description:
      'Link a project to a repository (repository_id or repo_slug) as primary, dependency or docs; linking again ' +
      'changes the role, remove:true unlinks. task_claim repository_ids and project_query repository_id follow links.',
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
      "List the workspace's repositories, each with its linked projects and roles; project_id gives one " +
      "project's. Returns {repositories, next_cursor}.",
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
      'Record the commit, branch, PR, tag or compare view that delivered a task. Repository, branch and sha ' +
      'default from your run (run_heartbeat), so {task_id, ref_type:"commit"} often suffices. The same ref again ' +
      'updates it. Satisfies the evidence gate. Returns {code_ref, created}.',
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
      'task_code_ref for a task, decision, note or project (object_type, object_id), with the same run defaults. ' +
      'Returns {code_ref, created}.',
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
      'Patch a code ref: pr_state (open, draft, merged, closed), sha, title, url. Merging logs pr.merged, closing ' +
      'pr.closed on the task; a PR closed unmerged no longer counts as evidence. Returns {code_ref, changed}.',
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
      'What code delivered this work: code refs newest first, by object, repository, ref type, PR state or run. ' +
      'Returns {code_refs, next_cursor}.',
    input: codeRefQueryInput,
    output: codeRefQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
];
