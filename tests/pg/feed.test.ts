import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityFeed } from '../../lib/db/feed';
import type { ChangeEvent } from '../../lib/db/types';
import { freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/** The change feed on a Postgres server: every committed write arrives once, late commits included. */

let db: TestDb;
let T: Tenant;
let pool: pg.Pool;

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'feed');
  ok(await T.agent.call('project_create', { title: 'Feed', key: 'FEED' }));
  const [{ db: name }] = await db.query<{ db: string }>('select current_database() as db');
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  // the database is dropped (with force) after the suite: a connection still closing must not crash it
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

describe('the activity feed', () => {
  it('delivers every write once, through db.listen, without NOTIFY', async () => {
    const got: ChangeEvent[] = [];
    const stop = await db.listen('bullpen_changes', (p) => got.push(JSON.parse(p)));
    await new Promise((r) => setTimeout(r, 250));
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) => T.agent.call('task_create', { project_id: 'FEED', title: `f${i}` })));
    for (const c of created) ok(c);
    const deadline = Date.now() + 5000;
    while (got.filter((e) => e.verb === 'task.created').length < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await stop();
    const seqs = got.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(got.filter((e) => e.verb === 'task.created')).toHaveLength(20);
    expect(got[0]).toMatchObject({ tenant_id: T.id, object_type: 'task', actor_id: T.agent.id });
  });

  it('picks up a row that commits after a larger id was already delivered', async () => {
    const got: number[] = [];
    const feed = new ActivityFeed(pool, (p) => got.push(JSON.parse(p).seq), 60_000);
    await feed.tick();
    // a transaction takes an id and stays open while a later one commits
    const slow = await pool.connect();
    await slow.query('begin');
    const [{ id: early }] = (
      await slow.query(`insert into activity (tenant_id, verb, object_type) values ($1, 'test.early', 'task') returning id`, [T.id])
    ).rows;
    const [{ id: late }] = (
      await pool.query(`insert into activity (tenant_id, verb, object_type) values ($1, 'test.late', 'task') returning id`, [T.id])
    ).rows;
    await feed.tick();
    expect(got).toContain(Number(late));
    expect(got).not.toContain(Number(early));
    await slow.query('commit');
    slow.release();
    await feed.tick();
    expect(got).toContain(Number(early));
    await feed.tick();
    expect(got.filter((s) => s === Number(early))).toHaveLength(1);
  });

  it('lets writers skip NOTIFY, so commits do not queue on its lock', async () => {
    const c = new pg.Client({ connectionString: (pool as unknown as { options: { connectionString: string } }).options.connectionString });
    c.on('error', () => {});
    await c.connect();
    const heard: string[] = [];
    c.on('notification', (n) => heard.push(n.payload ?? ''));
    await c.query('listen bullpen_changes');
    ok(await T.agent.call('task_create', { project_id: 'FEED', title: 'quiet' }));
    await pool.query(`insert into activity (tenant_id, verb, object_type) values ($1, 'test.loud', 'task')`, [T.id]);
    await new Promise((r) => setTimeout(r, 300));
    await c.end();
    expect(heard.map((h) => JSON.parse(h).verb)).toEqual(['test.loud']);
  });
});
