import { z } from 'zod';
import type { ToolDef } from './tool';

/** The subset of JSON Schema the docs and the MCP adapter read. */
export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  description?: string;
  not?: JsonSchema;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  $schema?: string;
  [k: string]: unknown;
};

// Shorter spellings of what zod emits for its string formats, for the exact schema (docs/tools.md).
// Each is exact under a validator that checks `format` (the MCP SDK's Ajv does, with ajv-formats);
// json-schema.test.ts proves it per tool.
// - guid: ajv's uuid also takes a `urn:uuid:` prefix, which 36 characters exclude.
// - date: ajv checks the calendar; the zod field refuses year 0000 on top (fields.ts isoDate).
// - date-time (offset, any precision): ajv checks calendar and ranges but also takes a lower-case or
//   space separator, `+0200`, no zone minutes and a leap second; the pattern keeps zod's spelling.
// - url (http/https only): ajv's uri takes any scheme.
const GUID = { type: 'string', format: 'uuid', maxLength: 36 };
const DATE = { type: 'string', format: 'date', pattern: '^(?!0000)' };
const DATE_TIME = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d\\d-\\d\\dT([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d+)?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)$',
};

type StringDef = { type: string; format?: string; offset?: boolean; local?: boolean; precision?: number | null; protocol?: RegExp };

/** The compact spelling of a zod string format, when there is one that accepts exactly the same. */
function compactFormat(def: StringDef): JsonSchema | undefined {
  if (def.type !== 'string') return undefined;
  if (def.format === 'guid') return GUID;
  // zod's date check is its regex; every date input is fields.ts isoDate, whose one refinement
  // (no year 0000) the pattern carries
  if (def.format === 'date') return DATE;
  if (def.format === 'datetime' && def.offset && !def.local && def.precision == null) return DATE_TIME;
  // ajv's uri takes any scheme; a web URL's is http or https
  if (def.format === 'url' && def.protocol?.source === '^https?$') return { type: 'string', format: 'uri', pattern: '^https?://' };
  return undefined;
}

/**
 * The exact schema: the same constraints as zod's, spelled short. Nothing here widens or narrows
 * what an input may be; it drops what carries no constraint (`default`, `propertyNames` of a string,
 * an empty `additionalProperties`, `type` beside a `const` or an `enum` of that type) and folds `anyOf: [X, null]` into a
 * type list where X has no const/enum/union of its own.
 */
function advertise(node: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'default' || k === '$schema') continue;
    if (k === 'propertyNames' && JSON.stringify(v) === '{"type":"string"}') continue;
    if (k === 'additionalProperties' && v && typeof v === 'object' && Object.keys(v).length === 0) continue;
    if (k === 'properties' || k === '$defs') {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, JsonSchema>).map(([n, s]) => [n, advertise(s)]));
    } else if (k === 'anyOf' || k === 'oneOf') {
      out[k] = (v as JsonSchema[]).flatMap((b) => {
        const s = advertise(b);
        // a union inside a union (a nullable union) is one union; its description moves up
        if (s.anyOf && Object.keys(s).every((x) => x === 'anyOf' || x === 'description')) {
          if (s.description && !node.description) out.description = s.description;
          return s.anyOf;
        }
        return [s];
      });
    } else if ((k === 'items' || k === 'additionalProperties' || k === 'not') && v && typeof v === 'object') {
      out[k] = advertise(v as JsonSchema);
    } else out[k] = v;
  }
  if ('const' in out && out.type === typeof out.const) delete out.type;
  // an enum names its values: a `type` beside it that they all have constrains nothing more
  if (Array.isArray(out.enum) && typeof out.type === 'string' && out.enum.every((v) => typeof v === out.type)) delete out.type;
  const branches = out.anyOf;
  if (branches?.length === 2) {
    const nul = branches.findIndex((b) => b.type === 'null' && Object.keys(b).length === 1);
    const other = branches[1 - nul];
    const plain = nul >= 0 && typeof other.type === 'string' && !['const', 'enum', 'anyOf', 'oneOf', 'not', '$ref'].some((x) => x in other);
    if (plain) {
      const { anyOf: _a, ...rest } = out;
      const { description, ...body } = other;
      return { ...body, type: [other.type as string, 'null'], ...rest, ...(description && !rest.description ? { description } : {}) };
    }
  }
  return out;
}

/**
 * A tool's input with every constraint the validator checks, spelled short: what docs/tools.md
 * shows (bounds included) and what json-schema.test.ts proves equal to the zod schema.
 */
export function exactInputJsonSchema(tool: ToolDef): JsonSchema {
  const schema = z.toJSONSchema(tool.input, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      const short = compactFormat(zodSchema._zod.def as StringDef);
      if (!short) return;
      const js = jsonSchema as Record<string, unknown>;
      delete js.pattern;
      Object.assign(js, short);
    },
  }) as JsonSchema;
  return advertise(schema);
}

/** The key of a note for docs/tools.md alone (fields.ts `docs`): a default, a unit, an aside. */
export const DOCS_NOTE = 'x-docs';

/**
 * The key of a one-line summary that tools/list advertises in place of a large nested object
 * (fields.ts `brief`): the object's type and these words, its full shape in docs/tools.md and
 * the guide. What it accepts is any object, so nothing the validator takes is refused before it is sent.
 */
export const BRIEF = 'x-brief';

// What the validator alone enforces: sizes, ranges and spellings. A refusal names the field and the
// bound (execute.ts), and docs/tools.md lists every one, so a model is not charged for them on every turn.
const BOUNDS = new Set(['minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minProperties', 'maxProperties', 'uniqueItems', 'propertyNames']);
// Formats that say how to write a value a model makes up (a date, a web address); a uuid is only
// ever copied from an answer, so its format is a bound like any other.
const SHAPE_FORMATS = new Set(['date', 'date-time', 'uri']);

/** A branch of a union that is a string and nothing more once its bounds go: free, a const or an enum. */
function stringWords(b: JsonSchema): string | undefined {
  const only = (...keys: string[]) => Object.keys(b).every((k) => keys.includes(k) || k === DOCS_NOTE || BOUNDS.has(k));
  if (b.type === 'string' && !b.enum && only('type', 'format', 'description')) return b.format === 'uuid' ? 'uuid' : (b.description ?? 'text');
  if (typeof b.const === 'string' && only('const', 'type', 'description')) return JSON.stringify(b.const);
  if (b.enum?.every((e) => typeof e === 'string') && only('enum', 'type', 'description')) return b.enum.map((e) => JSON.stringify(e)).join(', ');
  return undefined;
}

/**
 * The advertised form of an exact schema: the same shape (types, required fields, enums, nesting)
 * with the bounds and the refusal of unknown keys dropped, so it accepts everything the validator accepts and
 * some of what it refuses. A union of strings ("uuid" or "me") becomes one string whose description
 * names the forms. Under `not` nothing is loosened, which would narrow what passes.
 */
function loosen(node: JsonSchema): JsonSchema {
  if (typeof node[BRIEF] === 'string' && node.type === 'object') return { type: 'object', description: node[BRIEF] as string };
  const union = node.anyOf ?? node.oneOf;
  if (union) {
    const strings = union.filter((b) => !(b.type === 'null' && Object.keys(b).length === 1));
    const words = strings.map(stringWords);
    if (words.every(Boolean) && strings.some((b) => b.type === 'string' && !b.enum)) {
      const { anyOf: _a, oneOf: _o, description, ...rest } = node;
      const forms = words.join(' or ').replace(/ or (?=.* or )/g, ', ');
      return {
        ...loosen(rest),
        type: strings.length < union.length ? ['string', 'null'] : 'string',
        description: description ? `${forms}; ${description}` : forms,
      };
    }
  }
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    if (BOUNDS.has(k) || k === DOCS_NOTE || (k === 'format' && !SHAPE_FORMATS.has(v as string))) continue;
    // Unknown keys: the server takes camelCase aliases (taskId) that `false` here would refuse, and
    // refuses any other unknown key naming it; 28 bytes an object were 1.6 KB of tools/list.
    if (k === 'properties' || k === '$defs') {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, JsonSchema>).map(([n, s]) => [n, loosen(s)]));
    } else if (k === 'anyOf' || k === 'oneOf') out[k] = (v as JsonSchema[]).map(loosen);
    else if ((k === 'items' || k === 'additionalProperties') && v && typeof v === 'object') out[k] = loosen(v as JsonSchema);
    else out[k] = v;
  }
  return out;
}

/**
 * A tool's input as tools/list advertises it: the shape of the schema that validates, looser than
 * it (every input zod accepts passes; the bounds are the validator's, named in its refusals and
 * listed in docs/tools.md). What a model needs from the list is the shape, not every limit.
 */
export function inputJsonSchema(tool: ToolDef): JsonSchema {
  return loosen(exactInputJsonSchema(tool));
}

const SAFE_INT = Number.MAX_SAFE_INTEGER;

/** Drops what a reader of an answer never needs: regexes behind a named format, safe-integer bounds. */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'pattern' && 'format' in node) continue;
    if ((k === 'minimum' && v === -SAFE_INT) || (k === 'maximum' && v === SAFE_INT)) continue;
    out[k] = compact(v);
  }
  return out;
}

/**
 * A tool's `ok:true` body as JSON Schema. Shapes shared between fields (TaskRow, Actor, …) are
 * `$defs`, named once. The root is always `type: "object"` (MCP's outputSchema must be), with
 * the branches of a union under oneOf/anyOf; never a bare `$ref`.
 */
export function outputJsonSchema(tool: ToolDef): JsonSchema {
  const schema = compact(z.toJSONSchema(tool.output, { io: 'output', unrepresentable: 'any' })) as JsonSchema;
  delete schema.$schema;
  if (schema.oneOf || schema.anyOf) return { type: 'object', ...schema };
  const root = schema.$ref?.match(/^#\/\$defs\/(.+)$/)?.[1];
  if (root && schema.$defs?.[root]) {
    const { [root]: body, ...rest } = schema.$defs;
    const stillUsed = JSON.stringify(body).includes(`"#/$defs/${root}"`) || JSON.stringify(rest).includes(`"#/$defs/${root}"`);
    const inlined: JsonSchema = { ...body, ...(Object.keys(rest).length ? { $defs: rest } : {}) };
    if (stillUsed) inlined.$defs = { ...rest, [root]: body };
    return inlined;
  }
  return schema;
}

/** The object schemas a tool may answer with: one, or the branches of a union. */
export function outputBranches(schema: JsonSchema): JsonSchema[] {
  return schema.oneOf ?? schema.anyOf ?? [schema];
}
