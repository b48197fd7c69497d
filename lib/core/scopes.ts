import { registry } from './registry';
import type { ToolDef } from './tool';

/**
 * Key scopes. A key with no scopes (null) may call every tool. Otherwise each scope grants:
 * - `read`: every room's read tools;
 * - `ROOM`: every tool of that room (the registry's `room`), reads and writes;
 * - `ROOM:read`: that room's read tools only (`ROOM:write` is the same as `ROOM`).
 * `guide` and `whoami` answer every key: they are how an agent orients, and show only its own view.
 * - `sensitive`: a modifier, not a room: the key also sees sensitive items (notes marked sensitive;
 *   bullpen.can_see_sensitive() in SQL). It grants no tool: `sensitive` alone is every tool plus
 *   sensitive items, `knowledge:read,sensitive` is knowledge's reads plus sensitive items.
 */

export type Scopes = readonly string[] | null;

/** The scope that lets a key see sensitive items (carried to SQL as claims.sensitive). */
export const SENSITIVE_SCOPE = 'sensitive';

/** The scopes that narrow tools (modifiers such as `sensitive` left out); null when none narrow. */
export function toolScopes(scopes: Scopes): Scopes {
  if (!scopes || !scopes.includes(SENSITIVE_SCOPE)) return scopes;
  const rooms = scopes.filter((s) => s !== SENSITIVE_SCOPE);
  return rooms.length ? rooms : null;
}

/** Tools every key may call, whatever its scopes. */
export const ALWAYS_ALLOWED: readonly string[] = ['guide', 'whoami'];

/** The rooms a scope may name: the registry's, in registry order. */
export function scopeRooms(): string[] {
  return [...new Set(registry.map((t) => t.room))];
}

export class ScopeError extends Error {}

/**
 * Parses `tasks:read,comments` (or an array of such) into the stored, normalised list (sorted,
 * deduplicated, `ROOM:write` folded into `ROOM`). Throws ScopeError naming an unknown room or form.
 * Empty input (or `all`/`*`) means every tool: null.
 */
export function parseScopes(input: string | readonly string[] | null | undefined): Scopes {
  if (input == null) return null;
  const parts = (typeof input === 'string' ? input.split(',') : [...input]).map((s) => s.trim().toLowerCase()).filter(Boolean);
  const sensitive = parts.includes(SENSITIVE_SCOPE);
  if (parts.length === 0 || parts.some((p) => p === 'all' || p === '*')) return sensitive ? [SENSITIVE_SCOPE] : null;
  const rooms = scopeRooms();
  const out = new Set<string>();
  for (const p of parts) {
    if (p === 'read' || p === SENSITIVE_SCOPE) {
      out.add(p);
      continue;
    }
    const m = p.match(/^([a-z][a-z_]*)(?::(read|write))?$/);
    if (!m) throw new ScopeError(`scope "${p}": write ROOM, ROOM:read, read or sensitive (rooms: ${rooms.join(', ')})`);
    if (!rooms.includes(m[1])) throw new ScopeError(`scope "${p}": no room "${m[1]}" (rooms: ${rooms.join(', ')})`);
    out.add(m[2] === 'read' ? `${m[1]}:read` : m[1]);
  }
  // a whole room makes its :read redundant
  for (const s of [...out]) if (s.endsWith(':read') && out.has(s.slice(0, -5))) out.delete(s);
  if (out.size > 32) throw new ScopeError('at most 32 scopes');
  return [...out].sort();
}

/** Whether a key with these scopes may call the tool. */
export function toolAllowed(tool: Pick<ToolDef, 'name' | 'room' | 'kind'>, keyScopes: Scopes): boolean {
  const scopes = toolScopes(keyScopes);
  if (!scopes) return true;
  if (ALWAYS_ALLOWED.includes(tool.name)) return true;
  for (const s of scopes) {
    if (s === tool.room) return true;
    if (tool.kind === 'read' && (s === 'read' || s === `${tool.room}:read`)) return true;
  }
  return false;
}

/** The scope that would let a key call the tool (for the insufficient_scope challenge). */
export function scopeFor(tool: Pick<ToolDef, 'room' | 'kind'>): string {
  return tool.kind === 'read' ? `${tool.room}:read` : tool.room;
}

/** How scopes read in a listing: "everything" or the list. */
export function describeScopes(scopes: Scopes): string {
  return scopes ? scopes.join(',') : 'everything';
}


// what a scoped key may read of the activity log (kept apart: the rooms' own files import it)
export { activityReadable, roomReadable } from './scope-rooms';
