import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type Tool } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { toolError } from '../core/errors';
import { execute, type Envelope } from '../core/execute';
import { GLOSSARY, GUIDE_TOPICS, guideIndex } from '../core/guide-content';
import { inputJsonSchema, outputJsonSchema } from '../core/json-schema';
import { getTool, registry } from '../core/registry';
import { toolAllowed, type Scopes } from '../core/scopes';
import { CORE_TOOLS, inToolsets, optInNote, toolsetNames } from '../core/toolsets';
import type { ToolContext, ToolDef } from '../core/tool';
import { renderBrief } from './render';
import { getPrompt, memoryResources, memoryTemplates, promptsFor, readMemoryResource } from './resources';
import '../server/wiring';

export const SERVER_INSTRUCTIONS = `Bullpen is the shared, durable workspace for this team of agents and humans. What you record here outlives your context window; what others recorded is here for you.

The loop:
1. whoami first, every run: it returns your open tasks, inbox, what changed since you were last here, and hints.next (the call to make next).
2. Orient on a project with project_brief (or task_get with include:["brief"]).
3. task_claim to take ready work atomically under a lease; never work a task you have not claimed. Renew long work by claiming the same task_id again before the lease ends.
4. Keep the task true: task_update for status, acceptance criteria and findings; task_create / task_create_many for new work, with depends_on.
5. Finish with task_update status "done" (criteria met, reviewer approved), or task_release with a note if you stop. Point done at real work: task_code_ref for the commit or PR, attach_add for proof.
Handoffs: handoff_create asks other actors (question, review, approval…); inbox lists what waits for you. Ack after act: act on an item, then pass its id in inbox ack; unacked items come back. When idle, call inbox or task_claim with wait_seconds (≤ 60) instead of polling: the call returns as soon as something arrives.
Runs: send X-Bullpen-Run (one id per burst of work) and X-Bullpen-Repo (your git remote); run_heartbeat during long work, with usage; run_end when you stop.
When Bullpen itself gets in your way (a bug, friction, a missing capability, unclear docs), file it at once with feature_request_create; never include secrets.
Errors come back as {ok:false, error:{code, message, hint, retryable}}: follow the hint. guide() is the manual; guide({topic:"the-loop"}) first.
Rooms and toolsets: the tools are grouped by room (${toolsetNames().filter((n) => n !== 'core' && n !== 'all').join(', ')}). This connection may list only some of them, the toolsets its URL names (?toolsets=core,handoffs, or the X-Bullpen-Toolsets header; core is the loop above). guide() answers on every connection and lists every room with its tools; to use another room's tools, ask your operator to add its name to the toolsets.${optInNote() ? ` ${optInNote()}` : ''}`;

export type ToolListOptions = {
  /** Advertise each tool's outputSchema (and answer with structuredContent). Off: see docs/architecture.md, Design notes. */
  outputSchema?: boolean;
  /** A scoped key's scopes: the list shows only the tools it may call. */
  scopes?: Scopes;
  /** The connection's toolsets (lib/core/toolsets.ts): null lists every tool. */
  toolsets?: ReadonlySet<string> | null;
};

/**
 * Hints that differ from MCP's defaults (readOnly false, destructive true, idempotent false); the
 * title is the tool's own, and a read-only tool's other hints mean nothing (spec). openWorldHint is
 * left at its default: hosts gate calls on read-only and destructive, and 22 bytes on every tool
 * were 1.25 KB of tools/list (docs/benchmarks.md: What the tool list costs a model).
 */
function toolAnnotations(t: ToolDef): Tool['annotations'] {
  if (t.kind === 'read') return { readOnlyHint: true };
  return { destructiveHint: t.destructive ?? false, ...(t.idempotent ? { idempotentHint: true } : {}) };
}

/**
 * JSON Schemas are computed once per process, from the zod schema that validates: its shape,
 * without its bounds. The list is in one fixed order, the registry's (room by room, as
 * lib/core/registry.ts reads top to bottom), whatever the scopes and toolsets narrow it to: hosts
 * cache it, and the 2026-07-28 revision asks for a stable order.
 */
const toolLists = new Map<boolean, Tool[]>();
/** A narrowed list per (scopes, toolsets) pair: a connection's list is built once, not per request. */
const narrowed = new Map<string, Tool[]>();
export function listTools(opts: ToolListOptions = {}): Tool[] {
  const withOutput = opts.outputSchema ?? false;
  let list = toolLists.get(withOutput);
  if (!list) {
    list = registry.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: inputJsonSchema(t) as Tool['inputSchema'],
      ...(withOutput ? { outputSchema: outputJsonSchema(t) as Tool['outputSchema'] } : {}),
      annotations: toolAnnotations(t),
    }));
    toolLists.set(withOutput, list);
  }
  const scopes = opts.scopes ?? null;
  const toolsets = opts.toolsets ?? null;
  if (!scopes && !toolsets) return list;
  const key = `${withOutput}|${scopes ? [...scopes].sort().join(',') : '*'}|${toolsets ? [...toolsets].sort().join(',') : '*'}`;
  let out = narrowed.get(key);
  if (!out) {
    const full = list;
    out = full.filter((t) => {
      const def = getTool(t.name)!;
      return toolAllowed(def, scopes) && inToolsets(def, toolsets);
    });
    if (narrowed.size >= 1000) narrowed.clear();
    narrowed.set(key, out);
  }
  return out;
}

/**
 * The refusal of a call to a tool the connection's toolsets leave out: it names the toolset that
 * has the tool, so the caller knows what to add. Null when the tool is in the selection (or
 * unknown: the executor names unknown tools itself).
 */
export function outsideToolsets(name: string, toolsets: ReadonlySet<string> | null | undefined): Envelope | null {
  const tool = getTool(name);
  if (!tool || !toolsets || inToolsets(tool, toolsets)) return null;
  const sets = [tool.room, ...(CORE_TOOLS.includes(tool.name) ? ['core'] : [])];
  return {
    ok: false,
    error: toolError(
      'FORBIDDEN',
      `${name} is not in this connection's toolsets: it is in the ${sets.join(' and ')} toolset${sets.length > 1 ? 's' : ''}`,
      `connect with ${sets[0]} added to ?toolsets= (or X-Bullpen-Toolsets), or call only the tools tools/list shows; guide() describes every room`,
      { toolsets: sets, fields: ['name'] },
    ),
  };
}

/** tools/list for a caller: the tools its key's scopes and its connection's toolsets allow. */
export function toolsFor(ctx: McpContext): Tool[] {
  return listTools({ scopes: ctx.scopes ?? null, toolsets: ctx.toolsets ?? null });
}

/** tools/call for a caller: refused outside its toolsets, else the executor's envelope, as a result. */
export async function answerToolCall(ctx: McpContext, name: string, args: unknown): Promise<CallToolResult> {
  const { toolsets = null, ...toolCtx } = ctx;
  return callToolResult(outsideToolsets(name, toolsets) ?? (await execute(toolCtx, name, args)));
}

/**
 * A tools/call result: the envelope as JSON text. With structured output, an ok answer also
 * carries its body (without `ok`) as structuredContent, which is what a tool's outputSchema
 * describes; the text stays for clients that read only content.
 */
export function callToolResult(envelope: Envelope, opts: ToolListOptions = {}): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(envelope) }], isError: !envelope.ok };
  if (opts.outputSchema && envelope.ok) {
    const { ok: _ok, ...body } = envelope;
    result.structuredContent = body;
  }
  return result;
}

const STATIC_RESOURCES = [
  { uri: 'bullpen://guide', name: 'guide', title: 'Bullpen guide: topic index', mimeType: 'text/markdown' },
  { uri: 'bullpen://glossary', name: 'glossary', title: 'Bullpen glossary', mimeType: 'text/markdown' },
  ...GUIDE_TOPICS.map((t) => ({
    uri: `bullpen://guide/${t.id}`,
    name: `guide-${t.id}`,
    title: `Guide: ${t.title}`,
    description: t.summary,
    mimeType: 'text/markdown',
  })),
];

const RESOURCE_TEMPLATES = [
  { uriTemplate: 'bullpen://guide/{topic}', name: 'guide-topic', title: 'Guide topic', mimeType: 'text/markdown' },
  {
    uriTemplate: 'bullpen://project/{key}/brief',
    name: 'project-brief',
    title: 'Project brief (live, as you may see it)',
    mimeType: 'text/markdown',
  },
];

function glossaryMarkdown(): string {
  return `# Glossary\n\n${GLOSSARY.map((g) => `- **${g.term}**: ${g.definition}`).join('\n')}\n`;
}

// Building an Ajv instance is the costliest part of a Server; one shared validator serves them all
// (it only caches compiled schemas, nothing about a client).
const validator = new AjvJsonSchemaValidator();

/** A caller's context as the MCP endpoint hands it to the server: the tool context and the connection's toolsets. */
export type McpContext = ToolContext & { toolsets?: ReadonlySet<string> | null };

/**
 * A fresh MCP server for one request (stateless: any instance can answer any request), for either
 * protocol era: the SDK binds it to 2026-07-28 or to the 2025 handshake when it is connected.
 * Handlers close over the caller's context; all tool behaviour comes from the registry via execute().
 */
export function createMcpServer(ctx: McpContext): Server {
  const server = new Server(
    { name: 'bullpen', title: 'Bullpen', version: '0.1.0' },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: SERVER_INSTRUCTIONS, jsonSchemaValidator: validator },
  );
  const { toolsets: _toolsets, ...toolCtx } = ctx;
  server.setRequestHandler('tools/list', async () => ({ tools: toolsFor(ctx) }));
  server.setRequestHandler('tools/call', async (req, extra) => {
    // a waiting call (wait_seconds) ends early when the client cancels or goes away
    const own = extra.mcpReq.signal;
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, own]) : own;
    return answerToolCall({ ...ctx, signal }, req.params.name, req.params.arguments ?? {});
  });
  server.setRequestHandler('resources/list', async () => ({ resources: [...STATIC_RESOURCES, ...(await memoryResources(ctx))] }));
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [...RESOURCE_TEMPLATES, ...memoryTemplates(ctx)] }));
  server.setRequestHandler('resources/read', async (req) => {
    const uri = req.params.uri;
    const text = (t: string) => ({ contents: [{ uri, mimeType: 'text/markdown', text: t }] });
    if (uri === 'bullpen://guide') return text(guideIndex(registry, optInNote()));
    if (uri === 'bullpen://glossary') return text(glossaryMarkdown());
    const topic = uri.match(/^bullpen:\/\/guide\/([a-z-]+)$/);
    if (topic) {
      const t = GUIDE_TOPICS.find((x) => x.id === topic[1]);
      if (t) return text(`# ${t.title}\n\n${t.body}`);
    }
    const brief = uri.match(/^bullpen:\/\/project\/([^/]+)\/brief$/);
    if (brief) {
      const res = await execute(toolCtx, 'project_brief', { project: decodeURIComponent(brief[1]) });
      if (!res.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${res.error.code}: ${res.error.message}`);
      return text(renderBrief(res as never));
    }
    const memory = await readMemoryResource(ctx, uri);
    if (memory !== null) return text(memory);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown resource: ${uri}`);
  });
  server.setRequestHandler('prompts/list', async () => ({ prompts: promptsFor(ctx) }));
  server.setRequestHandler('prompts/get', async (req) => getPrompt(ctx, req.params.name, req.params.arguments ?? {}));
  return server;
}
