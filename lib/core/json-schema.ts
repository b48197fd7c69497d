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

/** A tool's input as agents see it: the JSON Schema of the same zod schema that validates. */
export function inputJsonSchema(tool: ToolDef): JsonSchema {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete schema.$schema;
  return schema;
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
