import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { mapDbError } from '../db/errors';
import { toolError, type ToolError } from './errors';
import { AliasCollision, canonicalJson, resolveMe, snakeKeys } from './normalize';
import { getTool, registry } from './registry';
import type { ToolContext, ToolDef } from './tool';
import { waitingCall } from './wait';

export type Envelope = ({ ok: true } & Record<string, unknown>) | { ok: false; error: ToolError };

/** Turns zod issues into one message that names the offending field(s). */
export function describeIssues(issues: z.core.$ZodIssue[]): { message: string; fields: string[] } {
  const fields: string[] = [];
  const parts = issues.slice(0, 5).map((issue) => {
    const at = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => (at ? `${at}.${k}` : k));
      fields.push(...keys);
      return `unknown key${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}`;
    }
    fields.push(at || '(input)');
    return `${at || 'input'}: ${issue.message}`;
  });
  if (issues.length > 5) parts.push(`and ${issues.length - 5} more`);
  return { message: parts.join('; '), fields };
}

function derivedKey(tool: ToolDef, input: unknown, ctx: ToolContext): string {
  const h = createHash('sha256')
    .update(`${tool.name}\n${canonicalJson(input)}\n${ctx.claims.actor_id}\n${ctx.claims.run_id ?? ''}`)
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
    return { ok: false, error: toolError('VALIDATION_ERROR', `unknown tool: ${name}`, 'call guide() for the list of tools') };
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
      error: toolError('VALIDATION_ERROR', message, `check ${name}'s input schema; keys are snake_case and unknown keys are refused`, { fields }),
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
    const run = async (a: Record<string, unknown>) =>
      ((await ctx.db.call(ctx.claims, tool.name, a)) as Record<string, unknown> | null) ?? {};
    if (tool.wait && waitSeconds > 0) {
      return { ok: true, ...(await waitingCall(ctx.db, ctx.claims, tool.wait, waitSeconds, args, run, ctx.signal)) };
    }
    return { ok: true, ...(await run(args)) };
  } catch (err) {
    return { ok: false, error: mapDbError(err) };
  }
}
