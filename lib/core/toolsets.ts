import { registry } from './registry';
import type { ToolDef } from './tool';

/**
 * Toolsets: which tools an MCP connection lists. A client names them in `?toolsets=core,handoffs`
 * or the `X-Bullpen-Toolsets` header; with neither it sees every tool (its key's scopes still apply).
 * A set is `core` (the agent loop), `all`, or a room of the registry (`tasks`, `handoffs`, …).
 * Toolsets narrow what is listed and callable on that connection; they grant nothing a key's scopes
 * do not.
 */

/**
 * The loop an agent runs every session: orient (whoami, guide, project_brief), take work
 * (task_claim, task_query, task_get), work it (comment_add, task_update, task_create), hand over
 * (task_release, handoff_create) and wait for more (inbox). Its listing must stay within 8 KB
 * (tool-list.test.ts), which it does because tools/list advertises shapes and leaves bounds to the
 * validator (docs/benchmarks.md: What the tool list costs a model).
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
export function toolsetNames(): string[] {
  return ['core', 'all', ...new Set(registry.map((t) => t.room))];
}

export type ToolsetSelection =
  | { ok: true; /** null: every tool */ tools: ReadonlySet<string> | null; names: string[] }
  | { ok: false; unknown: string[]; valid: string[] };

/**
 * Parses a toolsets value (`core,handoffs`; several values are joined). Empty or absent: every
 * tool. An unknown name is refused with the valid ones, so the caller can say which are.
 */
export function parseToolsets(raw: string | readonly string[] | null | undefined): ToolsetSelection {
  const parts = (raw == null ? [] : typeof raw === 'string' ? [raw] : [...raw])
    .flatMap((v) => v.split(','))
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const valid = toolsetNames();
  if (parts.length === 0) return { ok: true, tools: null, names: [] };
  const unknown = parts.filter((p) => !valid.includes(p));
  if (unknown.length) return { ok: false, unknown: [...new Set(unknown)], valid };
  const names = [...new Set(parts)];
  if (names.includes('all')) return { ok: true, tools: null, names };
  const tools = new Set<string>();
  for (const n of names) {
    if (n === 'core') for (const t of CORE_TOOLS) tools.add(t);
    else for (const t of registry) if (t.room === n) tools.add(t.name);
  }
  // guide answers on every connection: it is how a model learns about the rooms it was not given
  tools.add('guide');
  return { ok: true, tools, names };
}

/** Whether a tool is in the selection (null: every tool). */
export function inToolsets(tool: Pick<ToolDef, 'name'>, tools: ReadonlySet<string> | null): boolean {
  return tools === null || tools.has(tool.name);
}
