import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPg } from '../../lib/db/pg';
import type { Db } from '../../lib/db/types';
import { Limits, type LimitSettings } from '../../lib/server/limits';
import { freshDb, type TestDb } from '../helpers/db';

/**
 * Rate limits on a Postgres server are shared: two app instances (two pools on one database, as two
 * `bullpen start` processes have) count against the same buckets in bullpen.rate_limits.
 */

let db: TestDb;
let second: Db;

beforeAll(async () => {
  db = await freshDb();
  const [{ name }] = await db.query<{ name: string }>('select current_database() as name');
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  second = await openPg(url.toString(), { max: 4 });
});
afterAll(async () => {
  await second.close();
  await db.drop();
});

const settings: LimitSettings = { keyPerSecond: 2, workspacePerSecond: 100, addressPerSecond: 100, windowSeconds: 5, workspaceConcurrency: 4, workspaceConcurrencyAlone: 8, queueTimeoutMs: 1000 };

describe('shared rate limits', () => {
  it('count calls through either instance against one bucket', async () => {
    const one = new Limits(settings, db);
    const two = new Limits(settings, second);
    for (let i = 0; i < 10; i++) expect(await (i % 2 ? one : two).consume('key-shared', 'ws-shared')).toBeNull();
    // the bucket holds 2/s × 5 s = 10 calls: the 11th is refused wherever it arrives
    expect((await one.consume('key-shared', 'ws-shared'))?.status).toBe(429);
    const fresh = new Limits(settings, second);
    expect((await fresh.consume('key-shared', 'ws-shared'))?.error.code).toBe('RATE_LIMITED');
    const [row] = await db.query<{ points: number; expire: string }>(`select points, expire from bullpen.rate_limits where key = 'key:key-shared'`);
    expect(row.points).toBeGreaterThanOrEqual(11);
    expect(Number(row.expire)).toBeGreaterThan(Date.now());
  });

  it('never grant more than the bucket holds, however long a flood keeps knocking', async () => {
    // 100/s × 5 s = 500 calls a window, taken a tenth at a time by each of two instances; a flood
    // that keeps calling after the bucket is empty is refused from memory and must not be granted
    // reservations out of those refusals
    const one = new Limits(settings, db);
    const two = new Limits(settings, second);
    let granted = 0;
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const r = await (i % 2 ? one : two).consumeWorkspace('ws-flood');
      if (r) refused++;
      else granted++;
    }
    // all of it inside one 5 s window: at most one bucket's worth
    expect(granted).toBeLessThanOrEqual(500);
    expect(granted).toBeGreaterThanOrEqual(400);
    expect(refused).toBe(3000 - granted);
  });

  it('keep answering from memory when the store is gone (no refusal of everything, no free pass)', async () => {
    const broken = { ...second, kind: 'pg' as const, query: async () => Promise.reject(new Error('connection terminated')) } as unknown as Db;
    const limits = new Limits(settings, broken);
    for (let i = 0; i < 10; i++) expect(await limits.consume('key-outage', 'ws-outage')).toBeNull();
    expect((await limits.consume('key-outage', 'ws-outage'))?.status).toBe(429);
  });
});
