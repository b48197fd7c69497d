import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, retryDelayMs } from './backoff';

describe('retryDelayMs', () => {
  it('doubles per attempt between half and all of the step', () => {
    const b = { baseMs: 1000, maxMs: 60_000 };
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, b, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, b, () => 1))).toEqual([1000, 2000, 4000, 8000]);
  });

  it('caps the step, so the wait stops growing at max', () => {
    const b = { baseMs: 1000, maxMs: 5000 };
    expect(retryDelayMs(10, b, () => 1)).toBe(5000);
    expect(retryDelayMs(10, b, () => 0)).toBe(2500);
    expect(retryDelayMs(10_000, DEFAULT_BACKOFF, () => 1)).toBe(DEFAULT_BACKOFF.maxMs);
  });

  it('spreads a burst of retries out', () => {
    const delays = new Set(Array.from({ length: 50 }, () => retryDelayMs(3)));
    expect(delays.size).toBeGreaterThan(10);
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(4000);
      expect(d).toBeLessThanOrEqual(8000);
    }
  });

  it('treats nonsense attempts as the first', () => {
    expect(retryDelayMs(0, { baseMs: 100, maxMs: 1000 }, () => 1)).toBe(100);
    expect(retryDelayMs(-3, { baseMs: 100, maxMs: 1000 }, () => 1)).toBe(100);
  });
});
