import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import { Rng, emptyPool, valueFor, type FuzzContext, type JsonSchema as FuzzSchema } from '../../scripts/fuzz/engine';
import { YEAR_ZERO } from './fields';
import { exactInputJsonSchema, inputJsonSchema, type JsonSchema } from './json-schema';
import { registry } from './registry';
import type { ToolDef } from './tool';

// The validator an MCP client built on the official SDK uses: Ajv with ajv-formats.
const ajv = new AjvJsonSchemaValidator();

const UUID = '3f2b6c1e-9a4d-4e7f-8b21-5c6d7e8f9a0b';
const LONG = (n: number) => 'x'.repeat(n);

/**
 * Values a field is tried with: the shapes models send, the near misses around every format and
 * reference the schemas spell short, and the size edges of the caps in use. Left out on purpose:
 * what only a zod refinement decides and JSON Schema cannot say (a string that is blank once
 * trimmed, a JSON or UTF-8 size cap, a patch naming no field, one of two fields required, URL
 * parsing beyond its scheme); zod alone judges those, as before.
 */
const STRINGS = [
  '', 'a', 'me', 'unassigned', 'PAY', 'pay_2', 'P', 'PAY-12', 'pay#3', 'A-1', 'PAY--7', 'PAY-1234567890', '1PAY', 'PAY-', '-12',
  'ABCDEFGHIJKLMNOP', 'ABCDEFGHIJKLMNOPQ', UUID, UUID.toUpperCase(), `urn:uuid:${UUID}`, UUID.replace(/-/g, ''), `${UUID}0`, `{${UUID}}`,
  '2026-02-28', '2024-02-29', '2026-02-29', '2000-02-29', '1900-02-29', '0000-01-01', '0001-01-01', '2026-13-01', '2026-04-31', '2026-1-01', '20260101',
  '2026-01-01T10:00:00Z', '2026-01-01T10:00:00.123+02:00', '2026-01-01t10:00:00z', '2026-01-01 10:00:00Z', '2026-01-01T24:59:30+01:00',
  '2026-01-01T23:59:60Z', '2026-01-01T10:00Z', '2026-01-01T10:00:00+0200', '2026-01-01T10:00:00+02', '2026-01-01T10:00:00', '2026-02-30T10:00:00Z',
  'https://example.com/a', 'ftp://example.com/a', 'not a url', 'deploy.finished', 'task.*', 'Deploy.x', 'run-7f3a:claim-1', 'run key', 'release-checklist',
  '-bad-', 'a--b', 'abc123', 'g123', 'owner/name', 'github.com', LONG(16), LONG(17), LONG(36), LONG(64), LONG(65), LONG(100), LONG(101), LONG(128), LONG(129),
  LONG(200), LONG(201), LONG(250), LONG(251), LONG(500), LONG(501), LONG(1000), LONG(1001), LONG(2000), LONG(2001), LONG(4001), LONG(20_001),
];
const SCALARS: unknown[] = [...STRINGS, 0, 1, -1, 2.5, 4, 5, 59, 60, 61, 3600, 86_400, 86_401, 1e13, true, false, null, {}, { a: 1 }, []];

/** Enum and const values anywhere in a schema, so every allowed word is tried too. */
function words(s: unknown, out = new Set<unknown>()): Set<unknown> {
  if (Array.isArray(s)) s.forEach((x) => words(x, out));
  else if (s && typeof s === 'object') {
    const o = s as JsonSchema;
    if (o.enum) o.enum.forEach((e) => out.add(e));
    if ('const' in o) out.add(o.const);
    Object.values(o).forEach((x) => words(x, out));
  }
  return out;
}

const fuzz: FuzzContext = { own: { ...emptyPool(), actorIds: [UUID], projectKeys: ['PAY'], projectIds: [UUID], taskIds: [UUID], taskRefs: ['PAY-1'] }, foreign: emptyPool() };

/** An input the tool accepts, built from its exact schema (the fuzzer's generator). */
function validBase(tool: ToolDef, schema: JsonSchema): Record<string, unknown> {
  for (let i = 0; i < 200; i++) {
    const v = valueFor(schema as FuzzSchema, schema as FuzzSchema, '', new Rng(11, i), fuzz) as Record<string, unknown>;
    if (tool.input.safeParse(v).success) return v;
  }
  throw new Error(`${tool.name}: no valid input found`);
}

type Path = (string | number)[];

/** Each field a model fills: the top-level ones, and those of nested objects (patch, tasks[0], response). */
function fieldPaths(schema: JsonSchema, base: unknown, prefix: Path = []): Path[] {
  const out: Path[] = [];
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    const path = [...prefix, name];
    out.push(path);
    const here = (base as Record<string, unknown> | undefined)?.[name];
    const obj = [p, ...(Array.isArray(p.type) ? [] : (p.anyOf ?? []))].find((x) => x.type === 'object' && x.properties);
    if (obj && here && typeof here === 'object' && !Array.isArray(here)) out.push(...fieldPaths(obj, here, path));
    if (p.type === 'array' && p.items?.properties && Array.isArray(here) && here.length) out.push(...fieldPaths(p.items, here[0], [...path, 0]));
  }
  return out;
}

function withValue(base: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  let node = copy;
  for (const k of path.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
  if (value === undefined) delete node[path[path.length - 1]];
  else node[path[path.length - 1]] = value;
  return copy;
}

const startsWith = (issue: Path, path: Path) => path.every((k, i) => issue[i] === k);

describe('the advertised input schema', () => {
  it('accepts everything the zod schema accepts, and the exact schema exactly that, field by field, for every tool (Ajv as the MCP SDK ships it)', () => {
    let compared = 0;
    let looser = 0;
    const mismatches: string[] = [];
    const inexact: string[] = [];
    for (const tool of registry) {
      const schema = inputJsonSchema(tool);
      const validate = ajv.getValidator(schema as never);
      // the exact schema (what docs/tools.md shows) must still accept exactly what zod accepts
      const exact = exactInputJsonSchema(tool);
      const validateExact = ajv.getValidator(exact as never);
      const base = validBase(tool, exact);
      expect(validate(base).valid, `${tool.name} base ${JSON.stringify(base).slice(0, 200)}`).toBe(true);
      const values = [...SCALARS, ...words(schema)];
      for (const path of fieldPaths(schema, base)) {
        const tries = [undefined, ...values, ...values.map((v) => [v]), values.filter((v) => typeof v === 'string').slice(0, 260)];
        for (const value of tries) {
          const input = withValue(base, path, value);
          const zod = tool.input.safeParse(input);
          const ok = validate(input).valid;
          // a refusal for another field's sake, or by a refinement (one of two fields, a non-empty
          // patch), is not what the schema of this field can say; the year-0000 rule is (a pattern)
          const judged = (i: { code: string; message: string }) => i.code !== 'custom' || i.message === YEAR_ZERO;
          if (!zod.success && !zod.error.issues.some((i) => judged(i) && startsWith(i.path as Path, path))) continue;
          compared++;
          // the one direction that matters: a call the server takes is never refused before it is sent
          if (zod.success && !ok) mismatches.push(`${tool.name} ${path.join('.')}=${JSON.stringify(value)?.slice(0, 60)}: zod accepts, schema refuses`);
          if (!zod.success && ok) looser++;
          if (zod.success !== validateExact(input).valid) inexact.push(`${tool.name} ${path.join('.')}=${JSON.stringify(value)?.slice(0, 60)}: zod ${zod.success}`);
        }
      }
      // the contract is snake_case with additionalProperties: false: a host that validates first
      // sends the canonical keys (the server's camelCase aliases, normalize.ts, are for the others)
      const camel = Object.fromEntries(Object.entries(base).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]));
      if (Object.keys(camel).some((k) => !(k in base))) expect(validate(camel).valid, `${tool.name}: camelCase keys`).toBe(false);
      expect(validate({ ...base, not_a_field: 1 }).valid, `${tool.name}: an unknown key`).toBe(false);
    }
    expect(mismatches.slice(0, 20)).toEqual([]);
    expect(inexact.slice(0, 20)).toEqual([]);
    expect(compared).toBeGreaterThan(50_000);
    // the bounds are the validator's alone: plenty of what it refuses passes the schema
    expect(looser).toBeGreaterThan(1_000);
    // about 80,000 comparisons: seconds on a busy machine, which is not what this test is about
  }, 120_000);

  it('carries the shape and none of the bounds: no lengths, sizes, ranges, patterns, uuid formats or docs notes', () => {
    for (const tool of registry) {
      const text = JSON.stringify(inputJsonSchema(tool));
      for (const k of ['$schema', 'default', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minimum', 'maximum', 'pattern', 'propertyNames', 'x-docs']) {
        // as a key: "pattern" is also a note kind, a value
        expect(text, `${tool.name}: ${k}`).not.toContain(`"${k}":`);
      }
      expect(text, tool.name).not.toContain('"format":"uuid"');
    }
  });

  it('refuses unknown keys on every object it advertises, top level and nested (the contract)', () => {
    // open by the contract, as zod says (looseObject): a handoff answer keeps the fields it does not name
    const OPEN = ['handoff_respond.properties.response'];
    let objects = 0;
    const walk = (node: unknown, where: string) => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}[${i}]`));
      const n = node as JsonSchema;
      const isObject = n.type === 'object' || (Array.isArray(n.type) && n.type.includes('object'));
      // an open record (counts, metadata) names the type of its values instead: the contract leaves it open
      if (isObject && n.properties && !OPEN.includes(where)) {
        objects++;
        expect(n.additionalProperties, where).toBe(false);
      }
      for (const [k, v] of Object.entries(n)) walk(v, `${where}.${k}`);
    };
    for (const tool of registry) {
      const schema = inputJsonSchema(tool);
      expect(schema.additionalProperties, tool.name).toBe(false);
      walk(schema, tool.name);
    }
    expect(objects).toBeGreaterThan(registry.length);
  });

  it('says in words the forms a pattern or a union used to carry', () => {
    const prop = (tool: string, ...path: string[]) => path.reduce<JsonSchema>((s, k) => s.properties![k], inputJsonSchema(registry.find((t) => t.name === tool)!));
    expect(prop('task_update', 'task_id')).toEqual({ type: 'string', description: 'PAY-12 or uuid' });
    expect(prop('task_claim', 'project_id')).toMatchObject({ type: 'string', description: 'PAY or uuid' });
    expect(prop('task_create', 'assignee_actor_id')).toEqual({ type: 'string', description: 'uuid or "me"' });
    expect(prop('task_update', 'patch', 'assignee_actor_id')).toEqual({ type: ['string', 'null'], description: 'uuid or "me"' });
    expect(prop('task_query', 'assignee_actor_id').description).toBe('uuid, "me" or "unassigned"');
    expect(prop('task_create', 'due_on')).toEqual({ type: 'string', format: 'date' });
    // a bound the validator names in its refusal is not advertised; docs/tools.md shows it
    expect(prop('inbox', 'wait_seconds')).toEqual({ type: 'number' });
    // the exact schema, which docs/tools.md shows, keeps every bound
    const exact = exactInputJsonSchema(registry.find((t) => t.name === 'task_create')!);
    expect(exact.properties!.title).toMatchObject({ minLength: 1, maxLength: 500 });
    expect(exact.properties!.labels).toMatchObject({ maxItems: 20 });
  });
});
