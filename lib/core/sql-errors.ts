/**
 * The one place database errors become envelope errors. Bullpen's own RPCs raise SQLSTATEs of
 * class BP (see bullpen.fail); Postgres' own codes are mapped by meaning. The codes themselves are
 * the contract's (lib/core/errors.ts).
 */
import { internalError, toolError, type ErrorCode, type ToolError } from './errors';

const BULLPEN_STATES: Record<string, ErrorCode> = {
  BPNTF: 'NOT_FOUND',
  BPCNF: 'CONFLICT',
  BPTRN: 'INVALID_TRANSITION',
  BPGAT: 'GATE_UNMET',
  BPDUP: 'ALREADY_EXISTS',
  BPCYC: 'CYCLE_DETECTED',
  BPLSE: 'LEASE_HELD',
  BPNCL: 'NOT_CLAIMABLE',
  BPBDG: 'BUDGET_EXCEEDED',
  BPIDM: 'IDEMPOTENCY_CONFLICT',
  BPFRB: 'FORBIDDEN',
  BPAUT: 'UNAUTHENTICATED',
  BPVAL: 'VALIDATION_ERROR',
  // not from SQL: the server's connection pool stayed saturated (lib/db/pg.ts PoolBusyError)
  BPBSY: 'BUSY',
};

/**
 * The field(s) a validation message from SQL starts with ("cursor: not a next_cursor…", "project_id
 * is required", "tasks[0].depends_on[1]: …", "run_id, run_key: …"), so the envelope names them like
 * a schema error does.
 */
export function fieldOf(message: string): string[] | null {
  const name = '[A-Za-z_][A-Za-z0-9_]*(?:\\[\\d+\\]|\\.[A-Za-z_][A-Za-z0-9_]*)*';
  const m = message.match(new RegExp(`^(${name}(?:, ${name})*)(?::| is | are | must | may )`));
  return m ? m[1].split(', ') : null;
}

type PgLikeError = { code?: string; message?: string; hint?: string; detail?: string; constraint?: string; column?: string };

/** Maps anything thrown by a driver to an envelope error. Never throws. */
export function mapDbError(err: unknown): ToolError {
  // a refusal made before the database was reached (the workspace's concurrency gate) carries its own
  const carried = (err as { envelope?: ToolError } | null)?.envelope;
  if (carried && typeof carried.code === 'string') return carried;
  const e = (err ?? {}) as PgLikeError;
  const state = typeof e.code === 'string' ? e.code : '';
  const message = (e.message ?? String(err)).replace(/^error: /, '');
  if (state in BULLPEN_STATES) {
    let details: unknown;
    if (e.detail) {
      try {
        details = JSON.parse(e.detail);
      } catch {
        details = e.detail;
      }
    }
    const code = BULLPEN_STATES[state];
    if (code === 'VALIDATION_ERROR' && !(details && typeof details === 'object' && 'fields' in details)) {
      const fields = fieldOf(message);
      if (fields) details = { ...(details && typeof details === 'object' ? details : details === undefined ? {} : { detail: details }), fields };
    }
    return toolError(code, message, e.hint || undefined, details);
  }
  switch (state) {
    case '23505':
      if (e.constraint === 'actors_display_name_key') {
        return toolError(
          'ALREADY_EXISTS',
          'display_name: another actor of that kind already has this name (display names are unique per kind in a workspace, ignoring case and spaces)',
          'choose another display_name',
          { fields: ['display_name'] },
        );
      }
      return toolError('ALREADY_EXISTS', `already exists${e.constraint ? ` (${e.constraint})` : ''}`);
    case '23503':
      return toolError('NOT_FOUND', 'a referenced object does not exist in this workspace', undefined, { constraint: e.constraint });
    case '23514':
    case '23502':
    case '22P02':
    case '22007':
    case '22008':
    case '22003':
    case '22023':
    case '22001':
      return toolError('VALIDATION_ERROR', message);
    case '42501':
      return toolError('NOT_FOUND', 'no such object in this workspace');
  }
  return transientDbError(err) ?? internalError(err);
}

/**
 * The database was busy or out of reach: BUSY / UNAVAILABLE (retryable), else null. For failures
 * outside a tool call too (the key lookup, opening the pool), which surfaces answer with a 503.
 */
export function transientDbError(err: unknown): ToolError | null {
  const e = (err ?? {}) as PgLikeError;
  const state = typeof e.code === 'string' ? e.code : '';
  const message = (e.message ?? String(err)).replace(/^error: /, '');
  switch (state) {
    case 'BPBSY':
      return toolError('BUSY', message);
    case '40001':
    case '40P01':
    case '55P03':
    case '57014':
      return toolError('BUSY', message);
    case '57P01':
    case '57P02':
    case '57P03':
    case '08000':
    case '08001':
    case '08004':
    case '08003':
    case '08006':
    case '53300':
      return toolError('UNAVAILABLE', 'the database connection was lost');
  }
  // the driver's own words for a connection that broke, or never came (a restarting server); the
  // caller hears that, not where the database lives
  if (/ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Connection terminated|not queryable|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery mode)/i.test(message)) {
    return toolError('UNAVAILABLE', 'the database could not be reached');
  }
  return null;
}

