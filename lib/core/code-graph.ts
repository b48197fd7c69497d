import { z } from 'zod';
import { defineTool } from './tool';
import { docs, idempotencyKey, limit, projectRef, uuid } from './fields';
import { id, timestamp, writeResult } from './rows';

/**
 * The code graph room: a repository's file dependency graph, built where the code is by
 * `bullpen repo index` (lib/cli/repo-index.ts) and uploaded in batches with code_graph_upload.
 * code_impact answers what depends on a file and whose open tasks touch those files;
 * code_cycles and code_critical_files read the cycles and ranking the indexer computed.
 * task_claim and task_get warn of collisions from the same graph (bullpen.task_collisions).
 *
 * Opt-in (OPT_IN_ROOMS in toolsets.ts): listed when a connection names code_graph or all.
 */

const repositoryId = uuid.describe('repo_query gives it');
const path = z.string().min(1).max(1000);
const fileNumber = z.number().int().min(0).max(1_000_000);

/** The graph a read answered from: the commit it was built at and how old it is. */
export const codeGraphRow = z.strictObject({
  graph_id: id,
  repository_id: id,
  commit_sha: z.string().nullable(),
  indexed_at: timestamp,
  age_seconds: z.number().int(),
  files: z.number().int(),
  imports: z.number().int(),
  cycles: z.number().int(),
  languages: z.record(z.string(), z.number().int()),
});
export type CodeGraphRow = z.infer<typeof codeGraphRow>;

export const codeRisk = z.enum(['none', 'low', 'medium', 'high', 'critical']);

/** An open task whose code refs name some of the files. */
export const codeTaskRow = z.strictObject({
  task_id: id,
  key: z.string(),
  title: z.string(),
  status: z.string(),
  holder_actor_id: id.nullable(),
  holder: z.string().nullable().describe('lease holder, else assignee'),
  files: z.array(z.string()),
});

/** task_claim's and task_get's warning: another in-progress task works on files near this one's. */
export const collisionRow = z.strictObject({
  task: z.string().describe('PAY-12'),
  task_id: id,
  holder: z.string().nullable(),
  files: z.array(z.string()),
});
export const collisions = z.array(collisionRow).optional().describe('in-progress tasks on files near yours (warning)');

export const codeGraphUploadInput = z.strictObject({
  repository_id: uuid,
  upload_id: uuid.optional().meta(docs('omit on the first batch; then the answer’s')),
  commit_sha: z.string().regex(/^[0-9a-fA-F]{4,64}$/, 'a commit sha').optional(),
  files: z.array(path).max(5000).optional().meta(docs('paths, numbered on from the files sent before')),
  dependents: z.array(fileNumber).max(5000).optional().meta(docs("per file: how many depend on it, transitively")),
  imports: z
    .array(fileNumber)
    .max(40_000)
    .optional()
    .meta(docs('file number pairs, flat: importer, imported, importer, …')),
  cycles: z.array(fileNumber).max(40_000).optional().meta(docs("flat: each loop's length, then its file numbers")),
  done: z.boolean().optional().meta(docs('last batch: swap the graph in')),
  idempotency_key: idempotencyKey.optional(),
});
// How the flat lists fit together (one dependents count per file, imports in pairs, cycles as
// length-prefixed loops) is checked by code_graph_upload in SQL, which names the field it refuses.

/** Splits the flat cycles field into loops; null when it does not add up. */
export function loopsOf(flat: readonly number[]): number[][] | null {
  const loops: number[][] = [];
  for (let i = 0; i < flat.length; ) {
    const len = flat[i];
    if (len < 2 || i + 1 + len > flat.length) return null;
    loops.push(flat.slice(i + 1, i + 1 + len));
    i += 1 + len;
  }
  return loops;
}
export type CodeGraphUploadInput = z.infer<typeof codeGraphUploadInput>;

export const codeGraphUploadOutput = writeResult({
  upload_id: id,
  files: z.number().int(),
  imports: z.number().int(),
  done: z.boolean(),
  graph: codeGraphRow.nullable(),
});
export type CodeGraphUploadOutput = z.infer<typeof codeGraphUploadOutput>;

export const codeImpactInput = z.strictObject({
  repository_id: repositoryId,
  file_path: path.describe('from the repository root'),
  max_depth: z.number().int().min(1).max(10).optional().meta(docs('default 3')),
});
export type CodeImpactInput = z.infer<typeof codeImpactInput>;

export const codeImpactOutput = z.strictObject({
  file_path: z.string(),
  max_depth: z.number().int(),
  dependent_count: z.number().int(),
  risk: codeRisk,
  dependents: z.array(z.strictObject({ path: z.string(), distance: z.number().int() })).describe('nearest first, up to 200'),
  truncated: z.boolean(),
  tasks: z.array(codeTaskRow).describe('open tasks whose code refs name the file or a dependent'),
  graph: codeGraphRow,
});
export type CodeImpactOutput = z.infer<typeof codeImpactOutput>;

export const codeCyclesInput = z.strictObject({
  repository_id: repositoryId,
  limit: limit(20, 200).optional(),
});
export type CodeCyclesInput = z.infer<typeof codeCyclesInput>;

export const codeCyclesOutput = z.strictObject({
  cycles: z.array(z.array(z.string())).describe('each a loop of paths, first = last; shortest first'),
  total: z.number().int(),
  graph: codeGraphRow,
});
export type CodeCyclesOutput = z.infer<typeof codeCyclesOutput>;

export const codeCriticalFilesInput = z.strictObject({
  repository_id: repositoryId,
  limit: limit(10, 200).optional(),
});
export type CodeCriticalFilesInput = z.infer<typeof codeCriticalFilesInput>;

export const codeCriticalFilesOutput = z.strictObject({
  files: z.array(
    z.strictObject({ path: z.string(), dependents: z.number().int(), direct_dependents: z.number().int(), risk: codeRisk }),
  ),
  graph: codeGraphRow,
});
export type CodeCriticalFilesOutput = z.infer<typeof codeCriticalFilesOutput>;

export const codeCollisionsInput = z.strictObject({ project_id: projectRef });
export type CodeCollisionsInput = z.infer<typeof codeCollisionsInput>;

export const codeCollisionsOutput = z.strictObject({
  tasks: z
    .array(z.strictObject({ task: z.string(), task_id: id, status: z.string(), collisions: z.array(collisionRow) }))
    .describe("the project's open tasks with a collision, each with what it collides with"),
});
export type CodeCollisionsOutput = z.infer<typeof codeCollisionsOutput>;

export const codeGraphTools = [
  defineTool({
    name: 'code_graph_upload',
    room: 'code_graph',
    title: 'Upload graph',
    description: 'Uploads file graph batches. Returns {upload_id}. Use when indexing; done:true swaps it in.',
    input: codeGraphUploadInput,
    output: codeGraphUploadOutput,
    kind: 'write',
    idempotency: 'explicit',
  }),
  defineTool({
    name: 'code_impact',
    room: 'code_graph',
    title: 'What depends on a file',
    description:
      'Returns the files depending on a file by distance, a risk level, and open tasks touching them with holders. Use when about to change a file.',
    input: codeImpactInput,
    output: codeImpactOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'code_cycles',
    room: 'code_graph',
    title: 'Dependency cycles',
    description: "Returns the repository's import cycles as file loops, shortest first. Use when untangling imports.",
    input: codeCyclesInput,
    output: codeCyclesOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'code_critical_files',
    room: 'code_graph',
    title: 'Critical files',
    description: 'Returns files ranked by how many files depend on them, directly or not. Use when judging what to change with care.',
    input: codeCriticalFilesInput,
    output: codeCriticalFilesOutput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'code_collisions',
    room: 'code_graph',
    title: 'Collisions',
    description: "Returns a project's open tasks whose files are near an in-progress task's. Use when planning who works where.",
    input: codeCollisionsInput,
    output: codeCollisionsOutput,
    kind: 'read',
    idempotent: true,
  }),
];
