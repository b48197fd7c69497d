import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, type Envelope } from '../../lib/core/execute';
import { waitRoom } from '../../lib/core/wait';
import { openPg } from '../../lib/db/pg';
import type { Db } from '../../lib/db/types';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * The coordination room on a real Postgres server: racing claims, concurrent identical creates, a
 * recipient killed between reading and acking, and waiting calls across two app instances with
 * hundreds of waiters holding no connection.
 */

let db: TestDb;
let T: Tenant;
let url: string;

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'coord-pg');
  const [{ name }] = await db.query<{ name: string }>(`select current_database() as name`);
  const u = new URL(process.env.DATABASE_URL!);
  u.pathname = `/${name}`;
  url = u.toString();
});
afterAll(() => db.drop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('handoff_claim under contention', () => {
  it('16 recipients racing over 200 handoffs claim each exactly once, the losers told who holds it', async () => {
    const recipients = await Promise.all(Array.from({ length: 16 }, (_, i) => T.addAgent(`racer-${i}`)));
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      ids.push(ok(await T.agent.call('handoff_create', { to_actor_ids: recipients.map((r) => r.id), title: `race ${i}` })).handoff_id);
    }
    const wins = new Map<string, string[]>();
    const unexpected: unknown[] = [];
    let conflicts = 0;
    await Promise.all(
      recipients.map(async (r, k) => {
        // each racer walks the list from its own offset, so they collide all the way round
        for (let j = 0; j < ids.length; j++) {
          const id = ids[(j + k * 13) % ids.length];
          const env = await r.call('handoff_claim', { handoff_id: id });
          if (env.ok) {
            if (!env.already_yours) wins.set(id, [...(wins.get(id) ?? []), r.id]);
          } else if (env.error.code === 'CONFLICT') {
            conflicts++;
            expect(env.error.message).toMatch(/^handoff already claimed by racer-\d+ since /);
          } else unexpected.push(env.error);
        }
      }),
    );
    expect(unexpected).toEqual([]);
    expect(wins.size).toBe(200);
    for (const [, who] of wins) expect(who).toHaveLength(1);
    expect(conflicts).toBe(200 * 15);
    const rows = await db.query<{ claimed_by_actor_id: string; id: string }>(
      `select id, claimed_by_actor_id from public.handoffs where id = any($1::uuid[]) and status = 'claimed'`, [ids]);
    expect(rows).toHaveLength(200);
    for (const row of rows) expect(wins.get(row.id)).toEqual([row.claimed_by_actor_id]);
  });
});

describe('handoff_create under contention', () => {
  it('50 concurrent identical creates (each its own idempotency key) make one handoff; the rest are deduped', async () => {
    const to = await T.addAgent('dedup-target');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        T.agent.call('handoff_create', { to_actor_ids: [to.id], title: 'Please review PR 7', kind: 'review', idempotency_key: `dup-${i}` })),
    );
    const envs = results.map(ok);
    expect(new Set(envs.map((e) => e.handoff_id)).size).toBe(1);
    expect(envs.filter((e) => e.deduped === false)).toHaveLength(1);
    expect(envs.filter((e) => e.deduped === true)).toHaveLength(49);
    const [{ c }] = await db.query<{ c: number }>(`select count(*)::int c from public.handoffs where tenant_id = $1 and title = 'Please review PR 7'`, [T.id]);
    expect(c).toBe(1);
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int n from public.notifications where handoff_id = $1`, [envs[0].handoff_id]);
    expect(n).toBe(1);
  });

  it('50 concurrent identical creates with no key at all (a retry storm in one run) make one handoff', async () => {
    const to = await T.addAgent('storm-target');
    const results = await Promise.all(Array.from({ length: 50 }, () => T.agent.call('handoff_create', { to_actor_ids: [to.id], title: 'storm' })));
    expect(new Set(results.map((r) => ok(r).handoff_id)).size).toBe(1);
    const [{ c }] = await db.query<{ c: number }>(`select count(*)::int c from public.handoffs where tenant_id = $1 and title = 'storm'`, [T.id]);
    expect(c).toBe(1);
  });

  it('the review on-ramp opens one review however many claims and moves race for the task', async () => {
    ok(await T.human.call('project_create', { title: 'Reviews', key: 'REV' }));
    const reviewer = await T.addAgent('reviewer');
    const t = ok(await T.human.call('task_create', { project_id: 'REV', title: 'contended', reviewer_actor_id: reviewer.id }));
    const movers = await Promise.all(Array.from({ length: 8 }, (_, i) => T.addAgent(`mover-${i}`)));
    await Promise.all(movers.map((m) => m.call('task_claim', { task_id: t.task_id })));
    await Promise.all(movers.map((m) => m.call('task_update', { task_id: t.task_id, patch: { status: 'in_review' } })));
    const [{ c }] = await db.query<{ c: number }>(`select count(*)::int c from public.handoffs where related_task_id = $1 and kind = 'review'`, [t.task_id]);
    expect(c).toBe(1);
  });
});

describe('ack after act, with failures', () => {
  it('a recipient that dies after reading and before acking sees its item again', async () => {
    const worker = await T.addAgent('crashy');
    const h = ok(await T.agent.call('handoff_create', { to_actor_ids: [worker.id], title: 'do not lose me' }));
    const read = ok(await worker.call('inbox', {}));
    expect(read.items.map((i: { id: string }) => i.id)).toEqual([h.handoff_id]);
    // the process dies here; a new one (another run of the same actor) polls again
    const reborn: Actor = { ...worker, claims: { ...worker.claims, run_id: 'run-after-crash' } } as Actor;
    const again = ok(await execute({ db, claims: reborn.claims }, 'inbox', {}));
    expect(again.items.map((i: { id: string }) => i.id)).toEqual([h.handoff_id]);
  });

  it('an ack whose connection is killed mid-flight is not applied: the item comes back, and a retry acks it', async () => {
    const worker = await T.addAgent('killed-mid-ack');
    const h = ok(await T.agent.call('handoff_create', { to_actor_ids: [worker.id], title: 'ack me once' }));
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table public.handoff_acks in access exclusive mode');
      const ack = worker.call('inbox', { ack: [h.handoff_id], idempotency_key: 'ack-1' });
      let killed = 0;
      for (let i = 0; i < 50 && !killed; i++) {
        await sleep(50);
        const rows = await locker.query(
          `select pg_terminate_backend(pid) as k from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock' and query like '%public.inbox(%'`);
        killed = rows.rowCount ?? 0;
      }
      expect(killed).toBe(1);
      const env = await ack;
      expect(fails(env, 'UNAVAILABLE').retryable).toBe(true);
    } finally {
      await locker.query('rollback').catch(() => {});
      await locker.end();
    }
    expect(ok(await worker.call('inbox', {})).items.map((i: { id: string }) => i.id)).toEqual([h.handoff_id]);
    expect(ok(await worker.call('inbox', { ack: [h.handoff_id], idempotency_key: 'ack-1' })).acked).toBe(1);
    expect(ok(await worker.call('inbox', {})).items).toEqual([]);
  });
});

describe('waiting across app instances', () => {
  let second: Db;
  beforeAll(async () => {
    second = await openPg(url, { max: 5 });
  });
  afterAll(() => second.close());

  it('a waiting inbox on one instance returns within a second of a write made through another', async () => {
    const waiter = await T.addAgent('instance-waiter');
    const waiting = execute({ db: second, claims: waiter.claims }, 'inbox', { wait_seconds: 20 });
    await sleep(300);
    const wroteAt = Date.now();
    const h = ok(await T.agent.call('handoff_create', { to_actor_ids: [waiter.id], title: 'across instances' }));
    const r = ok(await waiting);
    expect(r.items.map((i: { id: string }) => i.id)).toEqual([h.handoff_id]);
    expect(Date.now() - wroteAt).toBeLessThan(1000);
  });

  it('a waiting task_claim on one instance gets the task created through the other', async () => {
    ok(await T.human.call('project_create', { title: 'Across', key: 'ACR' }));
    const worker = await T.addAgent('instance-claimer');
    const waiting = execute({ db: second, claims: worker.claims }, 'task_claim', { wait_seconds: 20, label: 'across' });
    await sleep(300);
    const t = ok(await T.human.call('task_create', { project_id: 'ACR', title: 'for the other instance', labels: ['across'] }));
    expect(ok(await waiting)).toMatchObject({ claimed: true, task: { id: t.task_id, assignee_actor_id: worker.id } });
  });

  it('200 waiting agents hold no database connection each, and each wakes for its own handoff', async () => {
    const agents = await Promise.all(Array.from({ length: 200 }, (_, i) => T.addAgent(`sleeper-${i}`)));
    const connections = async () =>
      (await db.query<{ n: number }>(`select count(*)::int n from pg_stat_activity where datname = current_database()`))[0].n;
    const before = await connections();
    const waits: Promise<Envelope>[] = agents.map((a) => execute({ db: second, claims: a.claims }, 'inbox', { wait_seconds: 30 }));
    await sleep(1500);
    expect((await waitRoom(second)).size()).toBe(200);
    const during = await connections();
    // the second instance's pool is capped at 5; 200 waiters did not open 200 connections
    expect(during - before).toBeLessThanOrEqual(5);
    const sent = await Promise.all(agents.map((a) => T.agent.call('handoff_create', { to_actor_ids: [a.id], title: `wake ${a.id}` })));
    const results = await Promise.all(waits);
    results.forEach((r, i) => expect(ok(r).items.map((x: { id: string }) => x.id)).toEqual([ok(sent[i]).handoff_id]));
    expect((await waitRoom(second)).size()).toBe(0);
  });
});
