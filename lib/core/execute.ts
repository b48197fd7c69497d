import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { mapDbError } from './sql-errors';
import { toolError, type ToolError } from './errors';
import { AliasCollision, canonicalJson, resolveMe, snakeKeys } from './normalize';
import { getTool, registry } from './registry';
import { describeScopes, scopeFor, toolAllowed } from './scopes';
import type { ToolContext, ToolDef } from './tool';
import { waitingCall } from './wait';

export type Envelope = ({ ok: true } & Record<string, unknown>) | { ok: false; error: ToolError };

/** A key as a path segment: bare when it is a plain identifier, else quoted (an empty key is `""`). */
function keySegment(k: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : JSON.stringify(k);
}

/** A path like `tasks[0].depends_on[1]`, from zod's or our own path segments. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${keySegment(String(p))}`)).join('').replace(/^\./, '');
}

/** Turns zod issues into one message that names the offending field(s). */
export function describeIssues(issues: z.core.$ZodIssue[]): { message: string; fields: string[] } {
  const fields: string[] = [];
  const parts = issues.slice(0, 5).map((issue) => {
    const at = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => (at ? `${at}.${keySegment(k)}` : keySegment(k)));
      fields.push(...keys);
      return `unknown key${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}`;
    }
    fields.push(at || '(input)');
    return `${at || 'input'}: ${issue.message}`;
  });
  if (issues.length > 5) parts.push(`and ${issues.length - 5} more`);
  return { message: parts.join('; '), fields };
}

/** Deeper than any tool's input needs (task_create_many's depends_on items sit at depth 4). */
export const MAX_INPUT_DEPTH = 32;

// an unpaired surrogate: a high one not followed by a low one, or a low one not preceded by a high one
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The first thing in an input that no schema should have to think about, found without recursion
 * (so a 20,000-deep array cannot overflow the stack): nesting deeper than MAX_INPUT_DEPTH, and, in
 * any key or string, a NUL character (Postgres text cannot hold it) or an unpaired UTF-16
 * surrogate (not Unicode at all; Postgres refuses it as JSON). Null when the input is clean.
 */
export function inspectInput(input: unknown): { path: string; message: string } | null {
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value: input, path: [] }];
  const bad = (s: string) => (s.includes('\u0000') ? 'contains a NUL character (U+0000), which text cannot hold' : LONE_SURROGATE.test(s) ? 'contains an unpaired UTF-16 surrogate, which is not valid Unicode' : null);
  while (stack.length) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const why = bad(value);
      if (why) return { path: formatPath(path) || 'input', message: why };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= MAX_INPUT_DEPTH) {
      return { path: formatPath(path.slice(0, 3)) || 'input', message: `nests deeper than ${MAX_INPUT_DEPTH} levels` };
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: [...path, i] });
      continue;
    }
    for (const [k, v] of Object.entries(value)) {
      const why = bad(k);
      if (why) return { path: formatPath(path) || 'input', message: `has a key that ${why}` };
      stack.push({ value: v, path: [...path, k] });
    }
  }
  return null;
}

function derivedKey(tool: ToolDef, input: unknown, ctx: ToolContext): string {
  const h = createHash('sha256')
    // a sensitive caller's replays are its own: the same actor's normal key must not replay an
    // answer that named a sensitive note (supabase/migrations/0032_sensitivity.sql)
    .update(`${tool.name}\n${canonicalJson(input)}\n${ctx.claims.actor_id}\n${ctx.claims.run_id ?? ''}${ctx.claims.sensitive ? '\nsensitive' : ''}`)
    .digest('hex');
  return `auto:${h.slice(0, 40)}`;
}

/**
 * Runs one tool call for one caller. normalize → strict parse → "me" → idempotency → RPC →
 * envelope. Never throws: every failure comes back as {ok:false, error}.
 */
export async function execute(ctx: ToolContext, name: string, rawInput: unknown): Promise<Envelope> {
  const tool = getTool(name);
  if (!tool) {
    return {
      ok: false,
      error: toolError('VALIDATION_ERROR', `name: unknown tool ${JSON.stringify(String(name).slice(0, 100))}`, 'call guide() or tools/list for the tools there are', { fields: ['name'] }),
    };
  }
  return executeDef(ctx, tool, rawInput);
}

/**
 * The executor's path for a definition that is not in the tool list: the reads behind MCP
 * resources and prompts (lib/core/resources.ts) run exactly as tools do, through the same
 * normalize → validate → scopes → RPC → envelope steps. Never throws.
 */
export async function executeDef(ctx: ToolContext, tool: ToolDef, rawInput: unknown): Promise<Envelope> {
  const name = tool.name;
  const unfit = inspectInput(rawInput);
  if (unfit) {
    return {
      ok: false,
      error: toolError('VALIDATION_ERROR', `${unfit.path}: ${unfit.message}`, 'send plain JSON text: no NUL characters or lone surrogates, nesting as the schema shows', {
        fields: [unfit.path],
      }),
    };
  }
  if (!toolAllowed(tool, ctx.scopes ?? null)) {
    return {
      ok: false,
      error: toolError(
        'FORBIDDEN',
        `this key may not call ${name}: its scopes are ${describeScopes(ctx.scopes ?? null)}`,
        `${name} needs the scope ${scopeFor(tool)}; call only the tools tools/list shows, or ask an owner for a key with that scope`,
        { required_scope: scopeFor(tool) },
      ),
    };
  }
  let input: unknown;
  try {
    input = snakeKeys(rawInput ?? {});
  } catch (err) {
    if (err instanceof AliasCollision) {
      return { ok: false, error: toolError('VALIDATION_ERROR', err.message, 'send each field once, in snake_case', { fields: [err.path] }) };
    }
    throw err;
  }
  const parsed = tool.input.safeParse(input);
  if (!parsed.success) {
    const { message, fields } = describeIssues(parsed.error.issues);
    return {
      ok: false,
      error: toolError('VALIDATION_ERROR', message, `fix the field the message names (its limit is in the message); keys are snake_case and unknown keys are refused; guide({topic: "errors-and-recovery"}) says more`, { fields }),
    };
  }
  let args = resolveMe(parsed.data as Record<string, unknown>, ctx.claims.actor_id);
  try {
    if (tool.run) {
      return { ok: true, ...((await tool.run(args as never, { ...ctx, registry })) as Record<string, unknown>) };
    }
    let waitSeconds = 0;
    if (tool.wait && 'wait_seconds' in args) {
      const { wait_seconds, ...rest } = args;
      waitSeconds = Number(wait_seconds ?? 0);
      args = rest;
    }
    if (tool.kind === 'write' && args.idempotency_key === undefined && tool.idempotency === 'derived') {
      args = { ...args, idempotency_key: derivedKey(tool, args, ctx) };
    }
    if (tool.prepare) args = await tool.prepare(args, ctx);
    const run = async (a: Record<string, unknown>) => {
      const out = ((await ctx.db.call(ctx.claims, tool.name, a)) as Record<string, unknown> | null) ?? {};
      return tool.narrow ? tool.narrow(out, ctx) : out;
    };
    if (tool.wait && waitSeconds > 0) {
      return { ok: true, ...(await waitingCall(ctx.db, ctx.claims, tool.wait, waitSeconds, args, run, ctx.signal)) };
    }
    return { ok: true, ...(await run(args)) };
  } catch (err) {
    return { ok: false, error: mapDbError(err) };
  }
}
