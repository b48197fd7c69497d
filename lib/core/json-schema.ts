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
  maxItems?: number;
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

// Shorter spellings of what zod emits for its string formats. Each is exact under a validator that
// checks `format` (the MCP SDK's Ajv does, with ajv-formats); json-schema.test.ts proves it per tool.
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
 * What a model is shown: the same constraints, spelled short. Nothing here widens or narrows what
 * an input may be; it drops what carries no constraint (`default`, `propertyNames` of a string,
 * an empty `additionalProperties`, `type` beside a `const`) and folds `anyOf: [X, null]` into a
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

/** A tool's input as agents see it: the JSON Schema of the same zod schema that validates, spelled short. */
export function inputJsonSchema(tool: ToolDef): JsonSchema {
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
