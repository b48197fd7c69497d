import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type GetPromptResult, type Prompt } from '@modelcontextprotocol/server';
import { execute, executeDef, type Envelope } from '../core/execute';
import { getTool, registry } from '../core/registry';
import { getReader } from '../core/resources';
import { roomReadable, toolScopes } from '../core/scopes';
import type { ToolContext } from '../core/tool';
import { renderDecision, renderDecisionList, renderGuidelineList, renderHandoffBrief, renderNote, renderNoteList, renderRelated, renderStartTask, renderSummary } from './render';

/**
 * MCP resources and prompts over the ledger. Every read goes through the executor (execute() for a
 * tool, executeDef() for the reads no tool answers as such: lib/core/resources.ts), under the
 * caller's claims and scopes, so SQL decides what a caller sees (tenancy, sensitivity) exactly as
 * it does for tools. A connection's toolsets narrow them as they narrow tools/list: a resource or
 * prompt of a room is there when the connection lists a tool of that room.
 */

/** The caller as resources and prompts see it: the tool context and the connection's toolsets. */
export type ResourceContext = ToolContext & { toolsets?: ReadonlySet<string> | null };

/** Whether the caller's key and connection reach a room: its scopes read it and its toolsets name one of its tools. */
function roomOpen(ctx: ResourceContext, room: string): boolean {
  if (!roomReadable(room, toolScopes(ctx.scopes ?? null))) return false;
  const sets = ctx.toolsets ?? null;
  return sets === null || registry.some((t) => t.room === room && sets.has(t.name));
}

type ResourceTemplate = { uriTemplate: string; name: string; title: string; mimeType: string };
type Template = ResourceTemplate & { room: string };

/** The memory resources: one object by id, and a project's collections. */
export const MEMORY_TEMPLATES: readonly Template[] = [
  { uriTemplate: 'bullpen://note/{id}', name: 'note', title: 'Knowledge note', mimeType: 'text/markdown', room: 'knowledge' },
  { uriTemplate: 'bullpen://decision/{id}', name: 'decision', title: 'Decision', mimeType: 'text/markdown', room: 'decisions' },
  { uriTemplate: 'bullpen://guideline/{id}', name: 'guideline', title: 'Guideline', mimeType: 'text/markdown', room: 'knowledge' },
  { uriTemplate: 'bullpen://project/{key}/notes', name: 'project-notes', title: "A project's notes, newest first", mimeType: 'text/markdown', room: 'knowledge' },
  { uriTemplate: 'bullpen://project/{key}/decisions', name: 'project-decisions', title: "A project's decisions, newest first", mimeType: 'text/markdown', room: 'decisions' },
  { uriTemplate: 'bullpen://project/{key}/guidelines', name: 'project-guidelines', title: 'The guidelines in force in a project', mimeType: 'text/markdown', room: 'knowledge' },
  { uriTemplate: 'bullpen://source/{document_id}', name: 'source', title: 'Source document', mimeType: 'text/markdown', room: 'knowledge' },
];

/** The templates this caller may read. */
export function memoryTemplates(ctx: ResourceContext): ResourceTemplate[] {
  return MEMORY_TEMPLATES.filter((t) => roomOpen(ctx, t.room)).map(({ room: _room, ...t }) => t);
}

/** Concrete resources for resources/list: each visible project's collections (the first 20 projects). */
export async function memoryResources(ctx: ResourceContext): Promise<{ uri: string; name: string; title: string; mimeType: string }[]> {
  if (!roomOpen(ctx, 'projects')) return [];
  const env = await execute(ctx, 'project_query', { limit: 20 });
  if (!env.ok) return [];
  const projects = (env.projects as { key: string; title: string }[]) ?? [];
  const out: { uri: string; name: string; title: string; mimeType: string }[] = [];
  for (const p of projects) {
    for (const [kind, room] of [['notes', 'knowledge'], ['decisions', 'decisions'], ['guidelines', 'knowledge']] as const) {
      if (!roomOpen(ctx, room)) continue;
      out.push({ uri: `bullpen://project/${encodeURIComponent(p.key)}/${kind}`, name: `${p.key}-${kind}`, title: `${p.key} ${kind}: ${p.title}`, mimeType: 'text/markdown' });
    }
  }
  return out;
}

/** An envelope's refusal as a protocol error: NOT_FOUND is the resource spec's own code. */
function refusal(uri: string, env: Extract<Envelope, { ok: false }>): ProtocolError {
  const text = `${env.error.code}: ${env.error.message}${env.error.hint ? ` (${env.error.hint})` : ''}`;
  return env.error.code === 'NOT_FOUND' ? new ResourceNotFoundError(uri, text) : new ProtocolError(ProtocolErrorCode.InvalidParams, text);
}

/** Runs a tool, or a reader no tool list shows, through the executor; a refusal becomes the protocol error. */
async function read(ctx: ResourceContext, uri: string, name: string, input: Record<string, unknown>): Promise<Record<string, any>> {
  const { toolsets: _t, ...toolCtx } = ctx;
  const reader = getReader(name);
  const env = reader ? await executeDef(toolCtx, reader, input) : await execute(toolCtx, name, input);
  if (!env.ok) throw refusal(uri, env);
  return env;
}

/** A read whose refusal (a narrower key, a room left out) only leaves its section out. */
async function optional(ctx: ResourceContext, name: string, input: Record<string, unknown>): Promise<Record<string, any> | null> {
  const def = getReader(name) ?? getTool(name);
  if (!def || !roomOpen(ctx, def.room)) return null;
  try {
    return await read(ctx, '', name, input);
  } catch {
    return null;
  }
}

const UUID = '[0-9a-fA-F-]{36}';

/**
 * resources/read for a memory URI; null when the URI is none of them. The text is Markdown with a
 * small front matter (type, id, project, status, sensitivity…).
 */
export async function readMemoryResource(ctx: ResourceContext, uri: string): Promise<string | null> {
  let m: RegExpMatchArray | null;
  const gate = (room: string) => {
    if (!roomOpen(ctx, room)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `FORBIDDEN: ${uri} is in the ${room} room, which this key's scopes or this connection's toolsets leave out (add ${room} to ?toolsets=, or use a key with ${room}:read)`,
      );
    }
  };
  if ((m = uri.match(/^bullpen:\/\/(note|guideline)\/([^/]+)$/))) {
    gate('knowledge');
    const out = await read(ctx, uri, 'note_item', { id: decodeURIComponent(m[2]), ...(m[1] === 'guideline' ? { kind: 'guideline' } : {}) });
    return renderNote(out.note);
  }
  if ((m = uri.match(/^bullpen:\/\/decision\/([^/]+)$/))) {
    gate('decisions');
    return renderDecision((await read(ctx, uri, 'decision_item', { id: decodeURIComponent(m[1]) })).decision);
  }
  if ((m = uri.match(/^bullpen:\/\/project\/([^/]+)\/(notes|decisions|guidelines)$/))) {
    const key = decodeURIComponent(m[1]);
    if (m[2] === 'notes') {
      gate('knowledge');
      return renderNoteList(key, (await read(ctx, uri, 'knowledge_search', { project_id: key, top_k: 50 })).results);
    }
    if (m[2] === 'decisions') {
      gate('decisions');
      return renderDecisionList(key, (await read(ctx, uri, 'decision_query', { project_id: key, limit: 100 })).decisions);
    }
    gate('knowledge');
    return renderGuidelineList(key, (await read(ctx, uri, 'guidelines_get', { project_id: key })).guidelines);
  }
  if ((m = uri.match(/^bullpen:\/\/source\/([^/]+)$/))) {
    gate('knowledge');
    // the hook for source documents: where a source_get tool exists, the resource reads through it
    if (getTool('source_get')) {
      const out = await read(ctx, uri, 'source_get', { document_id: decodeURIComponent(m[1]) });
      return `---\n${JSON.stringify({ type: 'source', id: decodeURIComponent(m[1]) })}\n---\n\n\`\`\`json\n${JSON.stringify(out, null, 2)}\n\`\`\`\n`;
    }
    throw new ResourceNotFoundError(uri, `NOT_FOUND: no source document ${decodeURIComponent(m[1])} in this workspace (this server indexes no sources)`);
  }
  return null;
}

/** The prompts, each with its room (the connection must reach it) and its arguments. */
const PROMPTS: readonly (Prompt & { room: string })[] = [
  {
    name: 'summarize_project',
    title: 'Summarize a project',
    description: 'What a project holds: counts by type, recent additions, top tags, key decisions, active patterns and open risks.',
    arguments: [{ name: 'project', description: 'project key or uuid', required: true }],
    room: 'projects',
  },
  {
    name: 'find_related',
    title: 'What is related to an object',
    description: "An object's neighbourhood over typed links, with paths and strengths.",
    arguments: [
      { name: 'type', description: 'task, project, decision, note, handoff, skill, run, code_ref or attachment', required: true },
      { name: 'id', description: 'uuid (KEY-N for a task, key for a project)', required: true },
      { name: 'depth', description: '1-3, default 2' },
    ],
    room: 'knowledge',
  },
  {
    name: 'start_task',
    title: 'Start a task',
    description: 'A task with its acceptance criteria, and the decisions, guidelines and notes that bear on it.',
    arguments: [{ name: 'task_id', description: 'KEY-N or uuid', required: true }],
    room: 'tasks',
  },
  {
    name: 'handoff_brief',
    title: 'Brief a handoff',
    description: 'A handoff: what is asked, by whom, of whom, its options and its task, to answer or act on it.',
    arguments: [{ name: 'handoff_id', description: 'uuid', required: true }],
    room: 'handoffs',
  },
];

/** prompts/list for this caller. */
export function promptsFor(ctx: ResourceContext): Prompt[] {
  return PROMPTS.filter((p) => roomOpen(ctx, p.room)).map(({ room: _room, ...p }) => p);
}

function user(text: string, description: string): GetPromptResult {
  return { description, messages: [{ role: 'user', content: { type: 'text', text } }] };
}

/** prompts/get: the messages, built from the ledger through the executor. */
export async function getPrompt(ctx: ResourceContext, name: string, args: Record<string, string> = {}): Promise<GetPromptResult> {
  const prompt = PROMPTS.find((p) => p.name === name);
  if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown prompt: ${name} (prompts/list shows them)`);
  if (!roomOpen(ctx, prompt.room)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `FORBIDDEN: the ${name} prompt reads the ${prompt.room} room, which this key's scopes or this connection's toolsets leave out`);
  }
  for (const a of prompt.arguments ?? []) {
    if (a.required && !args[a.name]) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `VALIDATION_ERROR: ${a.name} is required (${a.description})`);
  }
  const uri = `prompt:${name}`;
  if (name === 'summarize_project') {
    const summary = await read(ctx, uri, 'project_summary', { project: args.project });
    return user(renderSummary(summary as never), `Summary of ${summary.project.key}`);
  }
  if (name === 'find_related') {
    const depth = args.depth ? Number(args.depth) : 2;
    const out = await read(ctx, uri, 'find_related', { type: args.type, id: args.id, depth: Number.isInteger(depth) ? depth : 2, limit: 50 });
    return user(renderRelated(out as never), `What is related to ${args.type} ${args.id}`);
  }
  if (name === 'start_task') {
    const got = await read(ctx, uri, 'task_get', { task_id: args.task_id });
    const task = got.task as { id: string; project_id: string; ref: string };
    const [decisions, guidelines, related] = await Promise.all([
      optional(ctx, 'decision_query', { task_id: task.id, limit: 20 }),
      optional(ctx, 'guidelines_get', { project_id: task.project_id }),
      optional(ctx, 'find_related', { type: 'task', id: task.id, depth: 2, limit: 30 }),
    ]);
    return user(
      renderStartTask(got as never, { decisions: decisions?.decisions ?? null, guidelines: guidelines?.guidelines ?? null, related: related?.nodes ?? null }),
      `Start ${task.ref}`,
    );
  }
  const got = await read(ctx, uri, 'handoff_item', { id: args.handoff_id });
  const taskRef = (got.handoff as { related_task_id: string | null }).related_task_id;
  const task = taskRef ? await optional(ctx, 'task_get', { task_id: taskRef }) : null;
  return user(renderHandoffBrief(got.handoff, task?.task ?? null), `Handoff: ${(got.handoff as { title: string }).title}`);
}
