import { describe, expect, it, vi } from 'vitest';
import { ERROR_CODES, toolError } from './errors';
import { mapDbError } from './sql-errors';

describe('mapDbError', () => {
  it('maps Bullpen SQLSTATEs with their message, hint and JSON detail', () => {
    const e = mapDbError({ code: 'BPGAT', message: 'acceptance criterion not met: "x"', hint: 'meet it', detail: '{"criterion":"x"}' });
    expect(e).toEqual({ code: 'GATE_UNMET', message: 'acceptance criterion not met: "x"', hint: 'meet it', retryable: false, details: { criterion: 'x' } });
  });
  it('falls back to the code’s default hint', () => {
    expect(mapDbError({ code: 'BPNTF', message: 'no task' }).hint).toBe(ERROR_CODES.NOT_FOUND.hint);
  });
  it('maps Postgres classes by meaning', () => {
    expect(mapDbError({ code: '23505', message: 'dup', constraint: 'projects_tenant_key_idx' }).code).toBe('ALREADY_EXISTS');
    expect(mapDbError({ code: '23503', message: 'fk' }).code).toBe('NOT_FOUND');
    expect(mapDbError({ code: '22P02', message: 'bad uuid' }).code).toBe('VALIDATION_ERROR');
    expect(mapDbError({ code: '40P01', message: 'deadlock' })).toMatchObject({ code: 'BUSY', retryable: true });
    expect(mapDbError({ code: '57P01', message: 'terminating' })).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(mapDbError(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(mapDbError(new Error('boom')).code).toBe('INTERNAL');
    expect(mapDbError(undefined).code).toBe('INTERNAL');
  });
  it('names the field of a validation error raised in SQL, from the message, when the detail does not', () => {
    expect(mapDbError({ code: 'BPVAL', message: 'cursor: not a next_cursor from this listing' }).details).toEqual({ fields: ['cursor'] });
    expect(mapDbError({ code: 'BPVAL', message: 'project_id is required' }).details).toEqual({ fields: ['project_id'] });
    expect(mapDbError({ code: 'BPVAL', message: 'tasks[0].depends_on[1]: batch_index 5 must name an earlier item' }).details).toEqual({ fields: ['tasks[0].depends_on[1]'] });
    expect(mapDbError({ code: 'BPVAL', message: 'run_id, run_key: name the run one way' }).details).toEqual({ fields: ['run_id', 'run_key'] });
    expect(mapDbError({ code: 'BPVAL', message: 'x: y', detail: '{"fields":["z"]}' }).details).toEqual({ fields: ['z'] });
    expect(mapDbError({ code: 'BPVAL', message: 'something odd happened' }).details).toBeUndefined();
    expect(mapDbError({ code: 'BPNTF', message: 'task_id: no task' }).details).toBeUndefined();
  });
  it('builds envelope errors with the registry of codes', () => {
    expect(toolError('LEASE_HELD', 'held')).toEqual({ code: 'LEASE_HELD', message: 'held', hint: ERROR_CODES.LEASE_HELD.hint, retryable: true });
  });
  it('never shows internal text: INTERNAL carries a request id, the log carries the detail under it', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const e = mapDbError(new Error('relation "bullpen.secret_table" does not exist at /srv/app/lib/x.ts:12'));
      expect(e.code).toBe('INTERNAL');
      expect(e.retryable).toBe(true);
      expect(e.message).not.toContain('secret_table');
      expect(e.hint).not.toContain('secret_table');
      const id = (e.details as { request_id: string }).request_id;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(e.message).toContain(id);
      expect(log).toHaveBeenCalledTimes(1);
      expect(String(log.mock.calls[0][0])).toContain(id);
      expect(String(log.mock.calls[0][0])).toContain('secret_table');
    } finally {
      log.mockRestore();
    }
  });
  it('does not echo connection details when the database is unreachable', () => {
    const e = mapDbError(new Error('connect ECONNREFUSED 10.1.2.3:5432'));
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.message).not.toContain('10.1.2.3');
  });
  it('knows RATE_LIMITED as retryable', () => {
    expect(toolError('RATE_LIMITED', 'slow down')).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
  });
});
