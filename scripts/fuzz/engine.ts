/**
 * A schema-aware fuzzer for the MCP endpoint. It reads every tool's JSON Schema from tools/list (so
 * a tool a room adds later is fuzzed without touching this file), builds a plausible call from it,
 * mostly with ids that exist in the caller's workspace, then mutates it: wrong types, missing and
 * unknown keys, nulls, 100 KB strings, deep nesting, unicode edge cases, ids from another
 * workspace, SQL and JSON injection strings, number edges. Every call is derived from (seed, index)
 * alone, so any failure is reproduced by its index whatever the concurrency was.
 *
 * What counts as a failure (checkResponse): an HTTP 5xx; a JSON-RPC internal error; an envelope
 * error that is INTERNAL, has an unknown code, or lacks message/hint/retryable; a VALIDATION_ERROR
 * that does not name its field (details.fields, echoed in the message); an id of the other
 * workspace in an answer that was not in the request (a leak).
 */

import type { JsonSchema } from '../../lib/core/json-schema';

export type { JsonSchema };

export type Tool = { name: string; inputSchema: JsonSchema; annotations?: { readOnlyHint?: boolean } };

/** sfc32: small, fast, seedable; the same seed gives the same calls on every machine. */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  constructor(seed: number, stream = 0) {
    this.a = 0x9e3779b9 ^ seed;
    this.b = 0x243f6a88 ^ stream;
    this.c = 0xb7e15162 ^ Math.imul(seed, 0x85ebca6b);
    this.d = 1;
    for (let i = 0; i < 15; i++) this.next();
  }
  /** A float in [0, 1). */
  next(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
}

/** A JSON token written verbatim (numbers JSON.stringify cannot produce, deep nesting). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value that may hold RawJson tokens (iterative-safe for our shallow trees). */
export function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The ids a workspace holds, by kind. */
export type IdPool = {
  actorIds: string[];
  projectIds: string[];
  projectKeys: string[];
  taskIds: string[];
  taskRefs: string[];
  commentIds: string[];
  /** Any other uuid the workspace answered with (rooms added later: handoffs, notes, …). */
  otherIds: string[];
};

export function emptyPool(): IdPool {
  return { actorIds: [], projectIds: [], projectKeys: [], taskIds: [], taskRefs: [], commentIds: [], otherIds: [] };
}

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Every uuid in a text (an answer), lower-cased. */
export function uuidsIn(text: string): string[] {
  return (text.match(UUID_RE) ?? []).map((s) => s.toLowerCase());
}

export type FuzzContext = { own: IdPool; foreign: IdPool };

// ---------------------------------------------------------------------------------------------
// Valid-ish values from a schema
// ---------------------------------------------------------------------------------------------

const GENERIC_SHAPES = ['a', 'ab', 'A', 'AB1', 'x.y', 'deploy.finished', 'abc-def', 'a_b', 'X-1', 'abc_1', '1', 'v1.2.3', 'main', 'feature/x', 'a1b2c3d'];

const WORDS = ['ship', 'the', 'parser', 'login', 'flaky', 'test', 'cache', 'fix', 'api', 'deploy', 'review', 'docs', 'ledger', 'queue'];

function deref(schema: JsonSchema, root: JsonSchema): JsonSchema {
  let s = schema;
  for (let i = 0; i < 8 && s.$ref; i++) {
    const name = s.$ref.match(/^#\/\$defs\/(.+)$/)?.[1];
    const target = name ? root.$defs?.[name] : undefined;
    if (!target) break;
    const { $ref: _ref, ...rest } = s;
    s = { ...target, ...rest };
  }
  return s;
}

function candidatesFor(field: string, pool: IdPool): string[] {
  const f = field.toLowerCase();
  if (/actor|mentions|owner|assignee|reviewer/.test(f)) return [...pool.actorIds, 'me'];
  if (/comment/.test(f)) return pool.commentIds;
  if (/handoff|notification|item|decision|note|skill|repo|run|code_ref|attachment|request|supersedes|upload|instance|webhook|document|chunk|budget/.test(f)) return pool.otherIds.length ? pool.otherIds : pool.taskIds;
  if (/task|depends/.test(f)) return [...pool.taskIds, ...pool.taskRefs];
  if (/project/.test(f) || f === 'project') return [...pool.projectIds, ...pool.projectKeys];
  if (f === 'object_id') return [...pool.taskRefs, ...pool.taskIds, ...pool.projectKeys, ...pool.projectIds];
  return [...pool.taskIds, ...pool.projectIds, ...pool.actorIds, ...pool.otherIds, ...pool.taskRefs, ...pool.projectKeys];
}

function patternTest(pattern: string | undefined): (s: string) => boolean {
  if (!pattern) return () => true;
  try {
    const re = new RegExp(pattern, 'u');
    return (s) => re.test(s);
  } catch {
    return () => true;
  }
}

function randomDate(rng: Rng): string {
  const y = rng.range(2020, 2030);
  const m = rng.range(1, 12);
  const d = rng.range(1, 28);
  return `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function randomText(rng: Rng, min: number, max: number): string {
  const want = Math.max(min, Math.min(max, rng.range(1, 6)));
  const words: string[] = [];
  while (words.join(' ').length < want) words.push(rng.pick(WORDS));
  let s = words.join(' ');
  if (s.length > max) s = s.slice(0, max);
  while (s.length < min) s += 'x';
  return s;
}

function stringFor(schema: JsonSchema, field: string, rng: Rng, ctx: FuzzContext): string {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 200;
  const ok = patternTest(schema.pattern);
  if (schema.format === 'date') return randomDate(rng);
  if (schema.format === 'date-time') return new Date(Date.UTC(2026, rng.int(12), rng.range(1, 28))).toISOString();
  if (schema.format === 'uri' || schema.format === 'url') return rng.pick(['https://example.com/a', 'https://github.com/acme/repo/pull/7', 'http://localhost:3000/x']);
  if (schema.format === 'email') return rng.pick(['ada@example.com', 'bot@example.org']);
  if (schema.format === 'uuid' || schema.pattern || /(_id|_ids|mentions|^project$|^task$)$/.test(field)) {
    const pool = candidatesFor(field, ctx.own).filter((c) => c.length >= min && c.length <= max && ok(c) && (schema.format !== 'uuid' || c !== 'me'));
    if (pool.length) return rng.pick(pool);
    if (schema.format === 'uuid') return crypto.randomUUID();
  }
  if (field === 'cursor') return Buffer.from(rng.pick(['0', '1|x', 'zzz', '{}'])).toString('base64');
  if (field === 'idempotency_key') return `fuzz-${rng.int(50)}`;
  if (field === 'key') return rng.pick(['FZ', 'QA', 'OPS', 'X1']) + rng.int(1000);
  if (schema.pattern) {
    // a pattern we have no pool value for: the schema's own examples ("e.g. \"deploy.finished\""),
    // then common shapes; whatever fits the pattern and the length (else the server says why)
    const examples = [...String(schema.description ?? '').matchAll(/"([^"]{1,200})"/g)].map((m) => m[1]);
    const fits = [...examples, ...GENERIC_SHAPES].filter((c) => c.length >= min && c.length <= max && ok(c));
    return fits.length ? rng.pick(fits) : rng.pick(GENERIC_SHAPES);
  }
  return randomText(rng, min, Math.min(max, 80));
}

/** A value that satisfies the schema as far as this generator knows it. */
export function valueFor(schema: JsonSchema, root: JsonSchema, field: string, rng: Rng, ctx: FuzzContext, depth = 0): unknown {
  const s = deref(schema, root);
  if ('const' in s) return s.const;
  if (s.enum) return rng.pick(s.enum);
  const branches = s.anyOf ?? s.oneOf;
  if (branches) {
    const nonNull = branches.filter((b) => deref(b, root).type !== 'null');
    return valueFor(rng.pick(nonNull.length ? nonNull : branches), root, field, rng, ctx, depth);
  }
  const type = Array.isArray(s.type) ? rng.pick(s.type.filter((t) => t !== 'null')) : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set(s.required ?? []);
      for (const [k, sub] of Object.entries(s.properties ?? {})) {
        if (required.has(k) || (depth < 3 && rng.chance(0.45))) out[k] = valueFor(sub, root, k, rng, ctx, depth + 1);
      }
      return out;
    }
    case 'array': {
      const lo = s.minItems ?? 0;
      const hi = Math.min(s.maxItems ?? 4, lo + 3);
      const n = rng.range(lo, Math.max(lo, hi));
      const items = Array.from({ length: n }, () => valueFor(s.items ?? {}, root, field, rng, ctx, depth + 1));
      return items;
    }
    case 'string':
      return stringFor(s, field, rng, ctx);
    case 'integer':
    case 'number':
      // a call that may hold (wait_seconds) holds briefly: the fuzzer looks for wrong answers, not long ones
      if (/wait|sleep|delay|timeout/.test(field)) return (s.minimum ?? 0) + rng.int(2);
      return numberFor(s, type, rng);
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    default:
      return rng.pick(['x', 1, true, null]);
  }
}

function numberFor(s: JsonSchema, type: 'integer' | 'number', rng: Rng): number {
  switch (type) {
    case 'integer': {
      const lo = Math.max(s.minimum ?? 0, -1000);
      const hi = Math.min(s.maximum ?? lo + 100, lo + 1000);
      return rng.range(Math.ceil(lo), Math.floor(hi));
    }
    default: {
      const lo = s.minimum ?? 0;
      const hi = s.maximum ?? lo + 100;
      return lo + rng.next() * (hi - lo);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

export const UNICODE_EDGES = [
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  'a\ud83d', // high surrogate at the end
  '\u0000', // NUL
  'nul\u0000inside',
  '\u202eevil\u202c', // right-to-left override
  'שלום עולם', // RTL text
  '👩‍👩‍👧‍👦', // a ZWJ emoji sequence
  '𝕏𝕐ℤ', // astral plane
  'e\u0301\u0301\u0301', // stacked combining marks
  '\ufeffbom', // byte-order mark
  'zero\u200bwidth',
  'line\u2028sep\u2029para',
  '\uffff\ufffe', // noncharacters
  '\u0007\u001b[31mred', // control characters, an ANSI escape
  'İıǅ', // case-mapping oddities
];

export const INJECTIONS = [
  "'; drop table public.tasks; --",
  "' or '1'='1",
  '") or ("1"="1',
  '$$; select pg_sleep(5); $$',
  "E'\\\\x00'",
  '\\',
  "\\'",
  '%s%s%s%n',
  '{"tenant_id":"00000000-0000-0000-0000-000000000000"}',
  '"},"tenant_id":"x","a":{"',
  '{{7*7}}${7*7}',
  '</script><script>alert(1)</script>',
  '../../../../etc/passwd',
  'null',
  'undefined',
  '[object Object]',
  '*',
  '%',
  '_',
  'PAY-1 OR 1=1',
  'set_config(\'request.jwt.claims\', \'{}\', true)',
];

const BAD_DATES = ['2024-02-30', '0000-01-01', '2024-13-01', '99999-01-01', '2024-1-1', '1969-12-31T23:59:59Z', '', 'yesterday'];

const NUMBER_EDGES: unknown[] = [
  -1,
  0,
  -0,
  0.5,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  -1e308,
  Number.MIN_VALUE,
  new RawJson('1e999'),
  new RawJson('-1e999'),
  new RawJson('123456789012345678901234567890123456789'),
  new RawJson('1.0e-400'),
];

const UNKNOWN_KEYS = ['tenant_id', 'tenantId', 'actor_id', 'role', 'constructor', 'prototype', 'toString', '', ' ', 'a.b', 'x'.repeat(300), 'ключ', 'k\u0000', '$where'];

type Path = (string | number)[];

/** Every path in a JSON tree (the root is []). */
function paths(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...at, i], out));
  else if (value && typeof value === 'object' && !(value instanceof RawJson)) {
    for (const [k, v] of Object.entries(value)) paths(v, [...at, k], out);
  }
  return out;
}

function getAt(root: unknown, p: Path): unknown {
  let v = root as Record<string | number, unknown>;
  for (const k of p) v = v?.[k] as Record<string | number, unknown>;
  return v;
}

function setAt(root: Record<string, unknown>, p: Path, value: unknown): unknown {
  if (p.length === 0) return value;
  const parent = getAt(root, p.slice(0, -1)) as Record<string | number, unknown>;
  parent[p[p.length - 1]] = value;
  return root;
}

function deleteAt(root: Record<string, unknown>, p: Path): void {
  if (p.length === 0) return;
  const parent = getAt(root, p.slice(0, -1)) as Record<string | number, unknown>;
  if (Array.isArray(parent)) parent.splice(p[p.length - 1] as number, 1);
  else delete parent[p[p.length - 1]];
}

function deepNest(rng: Rng): RawJson {
  const depth = rng.pick([50, 500, 3000, 20_000]);
  return rng.chance(0.5) ? new RawJson('['.repeat(depth) + ']'.repeat(depth)) : new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
}

function otherType(v: unknown, rng: Rng): unknown {
  const options: unknown[] = ['1', 1, 1.5, true, false, [], {}, ['x'], { a: 1 }, 'true', '2'];
  const typeOf = (x: unknown) => (Array.isArray(x) ? 'array' : x === null ? 'null' : typeof x);
  const different = options.filter((o) => typeOf(o) !== typeOf(v));
  return rng.pick(different);
}

function foreignFor(field: string, ctx: FuzzContext, rng: Rng): string {
  const pool = candidatesFor(field, ctx.foreign).filter((x) => x !== 'me');
  const any = [...ctx.foreign.taskIds, ...ctx.foreign.projectIds, ...ctx.foreign.actorIds, ...ctx.foreign.taskRefs, ...ctx.foreign.commentIds];
  return rng.pick(pool.length ? pool : any.length ? any : ['00000000-0000-4000-8000-000000000000']);
}

function lastKey(p: Path): string {
  for (let i = p.length - 1; i >= 0; i--) if (typeof p[i] === 'string') return p[i] as string;
  return '';
}

const toCamel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

export const MUTATIONS = [
  'wrong_type',
  'drop_required',
  'unknown_key',
  'null',
  'huge_string',
  'deep_nesting',
  'unicode',
  'foreign_id',
  'injection',
  'number_edge',
  'bad_date',
  'array_flood',
  'empty_string',
  'camel_collision',
  'enum_variant',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

/** Applies one mutation to args (in place where it can); returns the new root and its name. */
export function mutate(args: Record<string, unknown>, schema: JsonSchema, rng: Rng, ctx: FuzzContext, kind: Mutation): unknown {
  const all = paths(args);
  const leaves = all.filter((p) => p.length > 0);
  const stringPaths = leaves.filter((p) => typeof getAt(args, p) === 'string');
  const pickPath = (ps: Path[]): Path | null => (ps.length ? rng.pick(ps) : null);
  switch (kind) {
    case 'wrong_type': {
      const p = pickPath(leaves) ?? [];
      return setAt(args, p, otherType(getAt(args, p), rng));
    }
    case 'drop_required': {
      const req = schema.required ?? [];
      if (req.length) delete args[rng.pick(req)];
      else if (leaves.length) deleteAt(args, rng.pick(leaves));
      return args;
    }
    case 'unknown_key': {
      const objects = all.filter((p) => {
        const v = getAt(args, p);
        return v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof RawJson);
      });
      const target = getAt(args, rng.pick(objects)) as Record<string, unknown>;
      // plain values only: some of these keys are real fields somewhere (role), or land in free-form
      // metadata, and the other workspace's ids travel only where ids go (foreign_id)
      target[rng.pick(UNKNOWN_KEYS)] = rng.pick(['x', 1, null, {}]);
      return args;
    }
    case 'null': {
      const p = pickPath(leaves);
      return p ? setAt(args, p, null) : null;
    }
    case 'huge_string': {
      const p = pickPath(stringPaths) ?? pickPath(leaves);
      const big = rng.pick(['a', 'é', '😀', "'"]).repeat(rng.pick([100_000, 102_400 / 2]));
      return p ? setAt(args, p, big) : { ...args, title: big };
    }
    case 'deep_nesting': {
      const p = pickPath(leaves);
      return p ? setAt(args, p, deepNest(rng)) : deepNest(rng);
    }
    case 'unicode': {
      const p = pickPath(stringPaths);
      const edge = rng.pick(UNICODE_EDGES);
      if (!p) return { ...args, [rng.pick(['title', 'body', 'q', 'note'])]: edge };
      const cur = getAt(args, p) as string;
      return setAt(args, p, rng.chance(0.5) ? edge : cur.slice(0, 3) + edge + cur.slice(3));
    }
    case 'foreign_id': {
      // only where ids go: an id of the other workspace typed into free text (a title, a
      // capability) is stored as text and read back, which is no leak
      const isIdField = (k: string) => /(_id|_ids|mentions|depends_on|^project$)$/.test(k);
      const idPaths = stringPaths.filter((p) => isIdField(lastKey(p)));
      const p = pickPath(idPaths);
      if (p) return setAt(args, p, foreignFor(lastKey(p), ctx, rng));
      const props = Object.keys(schema.properties ?? {}).filter(isIdField);
      if (props.length) {
        const k = rng.pick(props);
        args[k] = foreignFor(k, ctx, rng);
      }
      return args;
    }
    case 'injection': {
      const p = pickPath(stringPaths) ?? pickPath(leaves);
      return p ? setAt(args, p, rng.pick(INJECTIONS)) : args;
    }
    case 'number_edge': {
      const numPaths = leaves.filter((p) => typeof getAt(args, p) === 'number');
      const p = pickPath(numPaths) ?? pickPath(leaves);
      return p ? setAt(args, p, rng.pick(NUMBER_EDGES)) : args;
    }
    case 'bad_date': {
      const datePaths = leaves.filter((p) => /(_on|_before|_after|date|_at)$/.test(lastKey(p)));
      const p = pickPath(datePaths);
      if (p) return setAt(args, p, rng.pick(BAD_DATES));
      const dateProps = Object.entries(schema.properties ?? {}).filter(([k]) => /(_on|_before|_after)$/.test(k));
      if (dateProps.length) args[rng.pick(dateProps)[0]] = rng.pick(BAD_DATES);
      return args;
    }
    case 'array_flood': {
      const arrPaths = all.filter((p) => Array.isArray(getAt(args, p)));
      const p = pickPath(arrPaths);
      const first = p ? (getAt(args, p) as unknown[])[0] : undefined;
      // flood with small items only: a flood of 100 KB strings would be a 500 MB body
      const item = first !== undefined && toJson(first).length <= 200 ? first : 'x';
      const flood = Array.from({ length: rng.pick([300, 5000]) }, () => item);
      return p ? setAt(args, p, flood) : setAt(args, pickPath(leaves) ?? [], flood);
    }
    case 'empty_string': {
      const p = pickPath(stringPaths);
      return p ? setAt(args, p, rng.pick(['', ' ', '\t\n'])) : args;
    }
    case 'camel_collision': {
      const keys = Object.keys(args).filter((k) => k.includes('_'));
      if (keys.length) {
        const k = rng.pick(keys);
        args[toCamel(k)] = args[k];
      } else {
        for (const k of Object.keys(schema.properties ?? {})) if (k.includes('_')) args[toCamel(k)] = 'x';
      }
      return args;
    }
    case 'enum_variant': {
      const p = pickPath(stringPaths);
      if (!p) return args;
      const v = getAt(args, p) as string;
      return setAt(args, p, rng.pick([v.toUpperCase(), ` ${v}`, `${v}\n`, v.replace(/_/g, '-'), `${v}s`]));
    }
  }
}

/** One generated call: the tool, its arguments (possibly not an object at all) and what was done. */
export type FuzzCall = { index: number; tool: string; args: unknown; mutations: string[] };

/**
 * Call number `index` of a run: a tool (round robin over a seeded shuffle, so every tool gets its
 * share), valid-ish arguments from its schema, then 0–3 mutations. About one call in ten stays
 * unmutated, so writes succeed and the workspace grows; a few calls mangle the request itself
 * (arguments that are not an object, a tool that does not exist).
 */
export function buildCall(tools: Tool[], seed: number, index: number, ctx: FuzzContext): FuzzCall {
  const rng = new Rng(seed, index);
  const roll = rng.next();
  if (roll < 0.02) {
    const args = rng.pick<unknown>([[], 'x', 42, null, true, [{ task_id: 'x' }]]);
    return { index, tool: rng.pick(tools).name, args, mutations: ['arguments_not_object'] };
  }
  if (roll < 0.03) {
    const name = rng.pick(['no_such_tool', 'task_drop', "task_get'; --", '', 'x'.repeat(500), '__proto__', 'TASK_GET', 'guide\u0000']);
    return { index, tool: name, args: {}, mutations: ['unknown_tool'] };
  }
  const tool = tools[index % tools.length];
  const schema = tool.inputSchema;
  let args = valueFor(schema, schema, '', rng, ctx) as Record<string, unknown>;
  const mutations: string[] = [];
  const count = roll < 0.13 ? 0 : rng.pick([1, 1, 1, 2, 2, 3]);
  for (let i = 0; i < count; i++) {
    const kind = rng.pick(MUTATIONS);
    const next = mutate(args, schema, rng, ctx, kind);
    mutations.push(kind);
    if (!next || typeof next !== 'object' || Array.isArray(next) || next instanceof RawJson) {
      return { index, tool: tool.name, args: next, mutations };
    }
    args = next as Record<string, unknown>;
  }
  return { index, tool: tool.name, args, mutations };
}

// ---------------------------------------------------------------------------------------------
// Judging an answer
// ---------------------------------------------------------------------------------------------

export type Verdict = {
  status: number;
  /** ok | the envelope's error code | rpc:<code> | http:<status> */
  outcome: string;
  problems: string[];
};

export type Contract = { codes: ReadonlySet<string> };

/** JSON-RPC error codes a malformed call may legitimately get (never -32603, internal). */
const RPC_CODES = new Set([-32700, -32600, -32601, -32602]);

/**
 * Judges one HTTP answer to one call. `requestText` is what was sent, so ids the caller itself
 * supplied (echoed in a NOT_FOUND message) do not count as leaks; `foreign` is the set of the
 * other workspace's uuids.
 */
export function checkResponse(status: number, body: string, requestText: string, foreign: ReadonlySet<string>, contract: Contract): Verdict {
  const problems: string[] = [];
  if (status >= 500) return { status, outcome: `http:${status}`, problems: [`HTTP ${status}: ${body.slice(0, 300)}`] };
  const sent = new Set(uuidsIn(requestText));
  for (const id of uuidsIn(body)) {
    if (foreign.has(id) && !sent.has(id)) {
      const at = body.toLowerCase().indexOf(id);
      problems.push(`leak: the answer names ${id} of the other workspace: …${body.slice(Math.max(0, at - 160), at + 60)}…`);
    }
  }
  if (status !== 200) {
    // transport-level refusals (413 too large, 429 rate limited, 400 unparsable) must still explain themselves
    let msg: unknown;
    try {
      msg = JSON.parse(body)?.error?.message;
    } catch {}
    if (typeof msg !== 'string' || !msg) problems.push(`HTTP ${status} without a JSON-RPC error message`);
    return { status, outcome: `http:${status}`, problems };
  }
  let rpc: { result?: { content?: { type: string; text: string }[] }; error?: { code?: unknown; message?: unknown } };
  try {
    rpc = JSON.parse(body);
  } catch {
    return { status, outcome: 'unparsable', problems: [...problems, `not JSON: ${body.slice(0, 200)}`] };
  }
  if (rpc.error) {
    const code = rpc.error.code as number;
    if (!RPC_CODES.has(code)) problems.push(`JSON-RPC error ${String(code)}: ${String(rpc.error.message).slice(0, 200)}`);
    if (typeof rpc.error.message !== 'string' || !rpc.error.message) problems.push('JSON-RPC error without a message');
    return { status, outcome: `rpc:${String(code)}`, problems };
  }
  const text = rpc.result?.content?.[0]?.text;
  if (typeof text !== 'string') return { status, outcome: 'no-content', problems: [...problems, 'tools/call result without text content'] };
  let env: { ok?: unknown; error?: { code?: unknown; message?: unknown; hint?: unknown; retryable?: unknown; details?: { fields?: unknown } } };
  try {
    env = JSON.parse(text);
  } catch {
    return { status, outcome: 'unparsable', problems: [...problems, `content is not an envelope: ${text.slice(0, 200)}`] };
  }
  if (env.ok === true) return { status, outcome: 'ok', problems };
  const e = env.error;
  if (env.ok !== false || !e) return { status, outcome: 'malformed', problems: [...problems, `not an envelope: ${text.slice(0, 200)}`] };
  const code = String(e.code);
  if (!contract.codes.has(code)) problems.push(`unknown error code ${code}`);
  if (code === 'INTERNAL') problems.push(`INTERNAL: ${String(e.message).slice(0, 300)}`);
  if (typeof e.message !== 'string' || !e.message) problems.push(`${code} without a message`);
  if (typeof e.hint !== 'string' || !e.hint) problems.push(`${code} without a hint`);
  if (typeof e.retryable !== 'boolean') problems.push(`${code} without retryable`);
  if (code === 'VALIDATION_ERROR') {
    const fields = e.details?.fields;
    if (!Array.isArray(fields) || fields.length === 0 || !fields.every((f) => typeof f === 'string' && f.length > 0)) {
      problems.push(`VALIDATION_ERROR names no field: ${String(e.message).slice(0, 200)}`);
    } else if (typeof e.message === 'string' && !fields.some((f) => (e.message as string).includes(f as string))) {
      problems.push(`VALIDATION_ERROR message does not mention ${fields.join(', ')}: ${e.message.slice(0, 200)}`);
    }
  }
  return { status, outcome: code, problems };
}
