import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../lib/db/types';
import { enqueue } from '../../lib/jobs';
import { healthReport } from '../../lib/server/health';
import { freshDb, seedTenant, target, type TestDb } from '../helpers/db';

/** /api/health's report, against a live database and against one that is down. */

let db: TestDb;

beforeAll(async () => {
  db = await freshDb();
});

afterAll(async () => {
  await db.drop();
});

describe('health', () => {
  it('reports the database, the schema and the job backlog, and names no workspace', async () => {
    const t = await seedTenant(db, 'health-secret');
    await enqueue(db, 'test.health_due', { secret: 'payload' }, { tenantId: t.id, runAt: new Date(Date.now() - 5_000) });
    await enqueue(db, 'test.health_later', {}, { runAt: new Date(Date.now() + 3_600_000) });
    await db.query(`insert into bullpen.jobs (kind, status, attempts, last_error) values ('test.health_failed', 'failed', 8, 'secret error')`);
    const { status, body } = await healthReport(async () => db);
    expect(status).toBe(200);
    expect(body).toEqual({
      ok: true,
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      database: { kind: target, ok: true, latency_ms: expect.any(Number) },
      migrations: { applied: expect.any(Number), latest: expect.stringMatching(/^\d{4}_.+\.sql$/), definitions: expect.any(Number) },
      jobs: { due: 1, running: 0, failed: 1, oldest_due_seconds: expect.any(Number) },
    });
    expect(body.migrations!.latest! >= '0007_jobs.sql').toBe(true);
    expect(body.migrations!.applied).toBeGreaterThanOrEqual(7);
    expect(body.jobs!.oldest_due_seconds).toBeGreaterThanOrEqual(4);
    const text = JSON.stringify(body);
    for (const secret of [t.id, 'health-secret', 'payload', 'secret error', 'test.health']) expect(text).not.toContain(secret);
  });

  it('answers 503 with ok:false when the database is unreachable', async () => {
    const { status, body } = await healthReport(async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2');
    });
    expect(status).toBe(503);
    expect(body).toMatchObject({ ok: false, database: { ok: false }, migrations: null, jobs: null });
    expect(JSON.stringify(body)).not.toMatch(/10\.0\.0\.7|hunter2/);
  });

  it('answers 503 when the database does not answer in time', async () => {
    const hung = { kind: 'pg', query: () => new Promise(() => {}) } as unknown as Db;
    const t0 = Date.now();
    const { status, body } = await healthReport(async () => hung, 200);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(status).toBe(503);
    expect(body.database).toMatchObject({ kind: 'pg', ok: false });
    expect(body.database.latency_ms).toBeGreaterThanOrEqual(150);
  });
});
