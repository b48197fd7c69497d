import { describe, expect, it } from 'vitest';
import { Limits, type LimitSettings } from '../server/limits';
import { admitPerson } from './ops';

/**
 * The console's writes (server actions) are limited like a key's calls: the person's own bucket
 * first, the workspace's only for a call the person's bucket admitted.
 */
const settings: LimitSettings = { keyPerSecond: 2, workspacePerSecond: 3, addressPerSecond: 100, windowSeconds: 5, workspaceConcurrency: 4, workspaceConcurrencyAlone: 8, queueTimeoutMs: 1000 };

describe('console writes and the rate limits', () => {
  it("refuse a person over their own bucket without spending the workspace's", async () => {
    const limits = new Limits(settings, null);
    const flood = { actor_id: 'person-a', tenant_id: 'ws-1' };
    // a person's bucket holds 2/s × 5 s = 10 calls
    for (let i = 0; i < 10; i++) expect(await admitPerson(null as never, flood, limits)).toBeNull();
    const refused = await admitPerson(null as never, flood, limits);
    expect(refused).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED', retryable: true } });
    expect(refused && !refused.ok && refused.error.message).toMatch(/this key/);
    // the workspace's bucket (3/s × 5 s = 15) was charged only for the 10 admitted calls
    for (let i = 0; i < 20; i++) await admitPerson(null as never, flood, limits);
    const other = { actor_id: 'person-b', tenant_id: 'ws-1' };
    for (let i = 0; i < 5; i++) expect(await admitPerson(null as never, other, limits)).toBeNull();
    expect(await admitPerson(null as never, other, limits)).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED' } });
  });
});
