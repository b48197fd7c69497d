import { registry } from './registry';
import type { Room, ToolDef } from './tool';

/**
 * Toolsets: which tools an MCP connection lists. A client names them in `?toolsets=core,handoffs`
 * or the `X-Bullpen-Toolsets` header; with neither it sees every tool of the default rooms (its
 * key's scopes still apply). A set is `core` (the agent loop), `all`, or a room of the registry
 * (`tasks`, `handoffs`, …). Toolsets narrow what is listed and callable on that connection; they
 * grant nothing a key's scopes do not.
 */

/**
 * Rooms outside the contract (the council, the code graph, budgets and costs, workflows, events):
 * opt-in only. A connection lists their tools when it names the room or `all`, never by default,
 * so the default list stays the contract's rooms with their additions (within 48,000 bytes,
 * tool-list.test.ts). A room that adds such a toolset lists its name here; the server instructions
 * and the guide name these rooms and how to add them (optInNote).
 */
export const OPT_IN_ROOMS: ReadonlySet<Room> = new Set<Room>(['council', 'costs', 'workflows', 'code_graph', 'events', 'sources']);

/** What the functions below read: the registry and the opt-in rooms (a test passes its own). */
export type ToolsetSource = { tools: readonly { name: string; room: string }[]; optIn: ReadonlySet<string> };
// read at call time: the guide (which the registry imports) reads this module too
const registrySource = (): ToolsetSource => ({ tools: registry, optIn: OPT_IN_ROOMS });

/**
 * The loop an agent runs every session: orient (whoami, guide, project_brief), take work
 * (task_claim, task_query, task_get), work it (comment_add, task_update, task_create), hand over
 * (task_release, handoff_create) and wait for more (inbox). Its listing must stay within 9,000
 * bytes (tool-list.test.ts), which it does because tools/list advertises shapes and leaves bounds
 * to the validator (docs/benchmarks.md: What the tool list costs a model).
 */
export const CORE_TOOLS: readonly string[] = [
  'whoami',
  'guide',
  'project_brief',
  'task_claim',
  'task_get',
  'task_query',
  'task_update',
  'task_release',
  'task_create',
  'comment_add',
  'inbox',
  'handoff_create',
];

/** Every toolset name a client may use, in the order help texts list them. */
export function toolsetNames(src: ToolsetSource = registrySource()): string[] {
  return ['core', 'all', ...new Set(src.tools.map((t) => t.room))];
}

/** The opt-in rooms that have tools, in registry order: what a connection naming no toolsets leaves out. */
export function optInRooms(src: ToolsetSource = registrySource()): string[] {
  return [...new Set(src.tools.map((t) => t.room))].filter((r) => src.optIn.has(r));
}

/**
 * One sentence naming the rooms a default connection leaves out and how to add them, for the
 * server instructions and the guide; empty when every room is listed by default.
 */
export function optInNote(src: ToolsetSource = registrySource()): string {
  const rooms = optInRooms(src);
  if (rooms.length === 0) return '';
  const example = ['core', ...rooms.slice(0, 1)].join(',');
  return `Listed only when a connection names them (or all): the ${rooms.join(', ')} room${rooms.length > 1 ? 's' : ''}; add ?toolsets=${example} (or X-Bullpen-Toolsets) to use them.`;
}

export type ToolsetSelection =
  | { ok: true; /** null: every tool */ tools: ReadonlySet<string> | null; names: string[] }
  | { ok: false; unknown: string[]; valid: string[] };

/**
 * Parses a toolsets value (`core,handoffs`; several values are joined). Empty or absent: every
 * tool of the rooms that are not opt-in (null when there are none). `all` is every tool. An
 * unknown name is refused with the valid ones, so the caller can say which are.
 */
export function parseToolsets(raw: string | readonly string[] | null | undefined, src: ToolsetSource = registrySource()): ToolsetSelection {
  const parts = (raw == null ? [] : typeof raw === 'string' ? [raw] : [...raw])
    .flatMap((v) => v.split(','))
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const valid = toolsetNames(src);
  if (parts.length === 0) {
    const left = optInRooms(src);
    if (left.length === 0) return { ok: true, tools: null, names: [] };
    return { ok: true, tools: new Set(src.tools.filter((t) => !src.optIn.has(t.room)).map((t) => t.name)), names: [] };
  }
  const unknown = parts.filter((p) => !valid.includes(p));
  if (unknown.length) return { ok: false, unknown: [...new Set(unknown)], valid };
  const names = [...new Set(parts)];
  if (names.includes('all')) return { ok: true, tools: null, names };
  const tools = new Set<string>();
  for (const n of names) {
    if (n === 'core') for (const t of CORE_TOOLS) tools.add(t);
    else for (const t of src.tools) if (t.room === n) tools.add(t.name);
  }
  // guide answers on every connection: it is how a model learns about the rooms it was not given
  tools.add('guide');
  return { ok: true, tools, names };
}

/** Whether a tool is in the selection (null: every tool). */
export function inToolsets(tool: Pick<ToolDef, 'name'>, tools: ReadonlySet<string> | null): boolean {
  return tools === null || tools.has(tool.name);
}
