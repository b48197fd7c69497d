import { describe, expect, it } from 'vitest';
import { ERROR_CODES, toolError } from './errors';

describe('the error contract', () => {
  it('builds envelope errors with the code’s default hint and retry flag', () => {
    expect(toolError('LEASE_HELD', 'held')).toEqual({ code: 'LEASE_HELD', message: 'held', hint: ERROR_CODES.LEASE_HELD.hint, retryable: true });
  });
  it('keeps a caller’s hint and details', () => {
    expect(toolError('VALIDATION_ERROR', 'bad', 'fix x', { fields: ['x'] })).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'bad',
      hint: 'fix x',
      retryable: false,
      details: { fields: ['x'] },
    });
  });
  it('retries only what can succeed unchanged', () => {
    const retryable = Object.entries(ERROR_CODES).filter(([, d]) => d.retryable).map(([c]) => c).sort();
    expect(retryable).toEqual(['BUSY', 'CONFLICT', 'INTERNAL', 'LEASE_HELD', 'RATE_LIMITED', 'UNAVAILABLE']);
  });
});
