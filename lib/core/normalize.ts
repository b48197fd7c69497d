/** Input normalisation that runs before validation: camelCase aliases and the "me" sentinel. */

const FREEFORM_KEYS = new Set(['metadata', 'response', 'meta', 'counts', 'context']);

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export class AliasCollision extends Error {
  constructor(readonly path: string) {
    super(`${path} given twice (camelCase and snake_case)`);
  }
}

/**
 * Returns a copy with camelCase keys renamed to snake_case, recursively, except inside free-form
 * objects. Throws AliasCollision when both spellings of a key are present.
 */
export function snakeKeys(value: unknown, path = ''): unknown {
  if (Array.isArray(value)) return value.map((v, i) => snakeKeys(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const s = snake(k);
    const here = path ? `${path}.${s}` : s;
    if (Object.prototype.hasOwnProperty.call(out, s)) throw new AliasCollision(here);
    out[s] = FREEFORM_KEYS.has(s) ? v : snakeKeys(v, here);
  }
  return out;
}

/**
 * Replaces "me" with the caller's actor id in every field that names actors
 * (…actor_id, …actor_ids, mentions, a debate's participants), at any depth.
 */
export function resolveMe<T>(value: T, actorId: string): T {
  if (Array.isArray(value)) return value.map((v) => resolveMe(v, actorId)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (/actor_ids?$/.test(k) || k === 'mentions' || k === 'participants') {
      out[k] = v === 'me' ? actorId : Array.isArray(v) ? v.map((x) => (x === 'me' ? actorId : x)) : v;
    } else {
      out[k] = FREEFORM_KEYS.has(k) ? v : resolveMe(v, actorId);
    }
  }
  return out as T;
}

/** JSON with object keys sorted, so equal inputs hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
