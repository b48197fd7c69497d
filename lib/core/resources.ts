import { z } from 'zod';
import { projectRef, uuid } from './fields';
import { roomReadable } from './scope-rooms';
import { decisionRow, handoffRow, id, noteRow } from './rows';
import { defineTool, type ToolDef } from './tool';

/**
 * The reads behind MCP resources and prompts that no tool answers as such (one note or decision by
 * id, a project's summary). They are definitions like tools, run by the executor's own path
 * (executeDef: validate, scopes, RPC under the caller's claims, envelope), but they are not in the
 * tool list: an agent reaches them as resources and prompts (lib/mcp/resources.ts).
 */

const ref = z.strictObject({ id, title: z.string() });

export const noteItemInput = z.strictObject({ id: uuid, kind: z.enum(['guideline']).optional() });
export const noteItemOutput = z.strictObject({ note: noteRow });
export const decisionItemInput = z.strictObject({ id: uuid });
export const decisionItemOutput = z.strictObject({ decision: decisionRow });

export const handoffItemInput = z.strictObject({ id: uuid });
export const handoffItemOutput = z.strictObject({ handoff: handoffRow });

export const projectSummaryInput = z.strictObject({ project: projectRef });
const counted = z.record(z.string(), z.number().int().nonnegative());
export const projectSummaryOutput = z.strictObject({
  project: z.strictObject({ id, key: z.string(), title: z.string(), status: z.string() }),
  counts: z.strictObject({ tasks: counted.optional(), decisions: counted.optional(), notes: counted.optional() }),
  top_tags: z.array(z.strictObject({ tag: z.string(), count: z.number().int() })),
  recent: z.array(z.strictObject({ type: z.string(), id, ref: z.string().nullable(), title: z.string(), at: z.string() })),
  key_decisions: z.array(z.strictObject({ id, title: z.string(), choice: z.string() })).optional(),
  patterns: z.array(ref).optional(),
  risks: z.strictObject({
    blocked_tasks: z.array(ref.extend({ ref: z.string() })).optional(),
    proposed_decisions: z.array(ref).optional(),
    risk_notes: z.array(ref).optional(),
    contradictions: z.array(z.strictObject({ a: z.string(), b: z.string(), link_id: id })).optional(),
  }),
});
export type ProjectSummary = z.infer<typeof projectSummaryOutput>;

/** The rooms each part of a summary comes from: a scoped key sees only the parts its scopes read. */
const RECENT_ROOM: Record<string, string> = { task: 'tasks', decision: 'decisions' };

function narrowSummary(out: Record<string, unknown>, scopes: readonly string[] | null | undefined): Record<string, unknown> {
  const s = out as unknown as ProjectSummary;
  const can = (room: string) => roomReadable(room, scopes ?? null);
  const counts = { ...s.counts };
  if (!can('tasks')) delete counts.tasks;
  if (!can('decisions')) delete counts.decisions;
  if (!can('knowledge')) delete counts.notes;
  const risks = { ...s.risks };
  if (!can('tasks')) delete risks.blocked_tasks;
  if (!can('decisions')) delete risks.proposed_decisions;
  if (!can('knowledge')) {
    delete risks.risk_notes;
    delete risks.contradictions;
  }
  return {
    ...s,
    counts,
    // tags come from every room's rows: a narrowed key gets none rather than a mix it cannot check
    top_tags: can('tasks') && can('decisions') && can('knowledge') ? s.top_tags : [],
    recent: s.recent.filter((r) => can(RECENT_ROOM[r.type] ?? 'knowledge')),
    ...(can('decisions') ? {} : { key_decisions: undefined }),
    ...(can('knowledge') ? {} : { patterns: undefined }),
    risks,
  };
}

export const readers: readonly ToolDef[] = [
  defineTool({
    name: 'note_item',
    room: 'knowledge',
    title: 'Read one note',
    description: 'One note by id (bullpen://note/{id}, bullpen://guideline/{id}).',
    input: noteItemInput,
    output: noteItemOutput,
    kind: 'read',
  }),
  defineTool({
    name: 'decision_item',
    room: 'decisions',
    title: 'Read one decision',
    description: 'One decision by id (bullpen://decision/{id}).',
    input: decisionItemInput,
    output: decisionItemOutput,
    kind: 'read',
  }),
  defineTool({
    name: 'handoff_item',
    room: 'handoffs',
    title: 'Read one handoff',
    description: 'One handoff by id (the handoff_brief prompt).',
    input: handoffItemInput,
    output: handoffItemOutput,
    kind: 'read',
  }),
  defineTool({
    name: 'project_summary',
    room: 'projects',
    title: 'Summarize a project',
    description: 'Counts by type, top tags, recent additions, key decisions, patterns and open risks (summarize_project).',
    input: projectSummaryInput,
    output: projectSummaryOutput,
    kind: 'read',
    narrow: (out, ctx) => narrowSummary(out, ctx.scopes),
  }),
] as readonly ToolDef[];

const byName = new Map(readers.map((r) => [r.name, r]));

/** A resource or prompt read by name (not a tool: tools/call never reaches it). */
export function getReader(name: string): ToolDef | undefined {
  return byName.get(name);
}
