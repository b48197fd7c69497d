/**
 * The error contract every surface shares: the codes a tool call can fail with, the default hint
 * for each, and whether retrying the same call can succeed. Adapters (MCP, console, CLI) and the
 * database mapping (lib/core/sql-errors.ts) build their errors here; nothing else invents a code.
 */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'CONFLICT'
  | 'INVALID_TRANSITION'
  | 'GATE_UNMET'
  | 'CYCLE_DETECTED'
  | 'LEASE_HELD'
  | 'NOT_CLAIMABLE'
  | 'BUDGET_EXCEEDED'
  | 'IDEMPOTENCY_CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'BUSY'
  | 'UNAVAILABLE'
  | 'INTERNAL';

export type ToolError = {
  code: ErrorCode;
  message: string;
  hint: string;
  retryable: boolean;
  details?: unknown;
};

/** Every code, its default hint and whether retrying the same call can succeed. */
export const ERROR_CODES: Record<ErrorCode, { hint: string; retryable: boolean; meaning: string }> = {
  VALIDATION_ERROR: { meaning: 'The input does not match the tool schema; the message names the field.', hint: 'fix the named field and call again; guide("errors-and-recovery") lists the rules', retryable: false },
  UNAUTHENTICATED: { meaning: 'No valid API key or session.', hint: 'send Authorization: Bearer bp_live_…; mint a key with `npx bullpen agent add NAME`', retryable: false },
  FORBIDDEN: { meaning: 'The caller may not do this (for example rewrite an append-only record, or review its own work).', hint: 'append a new record instead, or ask a workspace owner', retryable: false },
  NOT_FOUND: { meaning: 'No such object in your workspace (ids from other workspaces read as missing).', hint: 'look the id up with the matching *_query tool', retryable: false },
  ALREADY_EXISTS: { meaning: 'A unique name (project key, external_ref) is taken.', hint: 'choose another name, or use the existing object', retryable: false },
  CONFLICT: { meaning: 'The object changed since you read it, or is not yours to change.', hint: 're-read it (task_get), then decide again', retryable: true },
  INVALID_TRANSITION: { meaning: 'The state machine forbids that status move.', hint: 'the hint lists the allowed moves from the current status', retryable: false },
  GATE_UNMET: { meaning: 'A task cannot close: an acceptance criterion (or another gate) is not met.', hint: 'meet the named gate, then set status done again', retryable: false },
  CYCLE_DETECTED: { meaning: 'The link would make a dependency or parent cycle.', hint: 'link in the other direction or pick another parent', retryable: false },
  LEASE_HELD: { meaning: 'Another actor holds a live lease on the task: claims, and other agents\' task_update, task_assign and task_release, are refused.', hint: 'claim other work, comment or ask the holder (handoff_create), or wait for the lease to expire', retryable: true },
  NOT_CLAIMABLE: { meaning: 'The task is not ready: terminal, in review, blocked, or assigned elsewhere.', hint: 'task_claim without task_id takes the next ready task', retryable: false },
  BUDGET_EXCEEDED: { meaning: 'A budget that applies is spent, or the claim\'s estimate would pass it; the message names the budget.', hint: 'stop spending under it: budget_status shows it; a workspace owner raises it with budget_set', retryable: false },
  IDEMPOTENCY_CONFLICT: { meaning: 'The idempotency_key was used before with different input.', hint: 'use a fresh idempotency_key for a different request', retryable: false },
  PAYLOAD_TOO_LARGE: { meaning: 'The request body exceeds the size limit.', hint: 'split the work into smaller calls (task_create_many takes 100 items)', retryable: false },
  RATE_LIMITED: { meaning: 'Too many calls for this key or workspace right now.', hint: 'wait retry_after_seconds (HTTP Retry-After), then send the same call again', retryable: true },
  BUSY: { meaning: 'The database was contended (deadlock, serialization, timeout).', hint: 'retry the same call; idempotency makes it safe', retryable: true },
  UNAVAILABLE: { meaning: 'The database could not be reached.', hint: 'retry shortly with the same idempotency_key', retryable: true },
  INTERNAL: { meaning: 'An unexpected server error; the message carries a request id and the server logs the detail under it.', hint: 'retry once; if it persists, report the request id', retryable: true },
};

/** Creates an envelope error with the code's default hint and retry flag. */
export function toolError(code: ErrorCode, message: string, hint?: string, details?: unknown): ToolError {
  const def = ERROR_CODES[code];
  return { code, message, hint: hint || def.hint, retryable: def.retryable, ...(details === undefined ? {} : { details }) };
}

/**
 * An INTERNAL error that shows no internal text: the caller gets a request id, the server's log
 * gets the detail under the same id.
 */
export function internalError(err: unknown, where = 'call'): ToolError {
  const requestId = globalThis.crypto.randomUUID();
  const e = err as { stack?: string; message?: string } | null;
  console.error(`[bullpen] internal error ${requestId} (${where}): ${e?.stack ?? e?.message ?? String(err)}`);
  return toolError('INTERNAL', `internal error (request id ${requestId})`, `retry once; if it persists, report request id ${requestId}`, { request_id: requestId });
}
