import { describe, expect, it } from 'vitest';
import { Limits, type LimitSettings } from './limits';

const settings: LimitSettings = {
  keyPerSecond: 100,
  workspacePerSecond: 100,
  addressPerSecond: 100,
  windowSeconds: 2,
  workspaceConcurrency: 1,
  workspaceConcurrencyAlone: 10,
  queueTimeoutMs: 1000,
};

describe('rate-limit reservations', () => {
  it('a burst of calls arriving together shares reservations: 32 calls of a 200-call bucket all pass', async () => {
    const limits = new Limits(settings, null);
    const answers = await Promise.all(Array.from({ length: 32 }, () => limits.consumeKey('key-a')));
    expect(answers.filter((a) => a !== null)).toEqual([]);
  });

  it('still refuses past the bucket: of 260 calls at once, 200 pass and the rest are RATE_LIMITED', async () => {
    const limits = new Limits(settings, null);
    const answers = await Promise.all(Array.from({ length: 260 }, () => limits.consumeWorkspace('ws-a')));
    expect(answers.filter((a) => a === null)).toHaveLength(200);
    const refused = answers.filter((a) => a !== null);
    expect(refused).toHaveLength(60);
    expect(refused[0]?.error.code).toBe('RATE_LIMITED');
    expect(refused[0]?.status).toBe(429);
  });
});
