import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * Concurrency and faults on a real Postgres server (many connections at once). Runs in the pg
 * project only; the db project covers the same tools on PGlite, which has a single connection.
 */

let db: TestDb;
let T: Tenant;

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'conc');
  ok(await T.agent.call('project_create', { title: 'Concurrency', key: 'CON' }));
});
afterAll(() => db.drop());

async function createReady(n: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, (_, j) => ({ title: `${label} ${i + j}`, labels: [label], priority: (i + j) % 5 }));
    ids.push(...ok(await T.agent.call('task_create_many', { project_id: 'CON', tasks: batch })).task_ids);
  }
  return ids;
}

describe('claim-next under contention', () => {
  it('32 concurrent claimers over 2,000 ready tasks claim each task exactly once, with no errors', async () => {
    const ids = await createReady(2000, 'pool');
    const agents: Actor[] = await Promise.all(Array.from({ length: 32 }, (_, i) => T.addAgent(`claimer-${i}`)));
    const claimed: string[] = [];
    const errors: unknown[] = [];
    await Promise.all(
      agents.map(async (agent) => {
        for (;;) {
          const env = await agent.call('task_claim', { label: 'pool', lease_seconds: 600 });
          if (!env.ok) {
            errors.push(env.error);
            continue;
          }
          if (!env.claimed) return;
          claimed.push((env.task as { id: string }).id);
        }
      }),
    );
    expect(errors).toEqual([]);
    expect(claimed).toHaveLength(2000);
    expect(new Set(claimed).size).toBe(2000);
    expect(new Set(claimed)).toEqual(new Set(ids));
    const [{ n }] = await db.query<{ n: number }>(
      `select count(*)::int as n from tasks where tenant_id = $1 and 'pool' = any(labels) and status = 'in_progress' and lease_actor_id = assignee_actor_id`,
      [T.id],
    );
    expect(n).toBe(2000);
  });

  it('32 concurrent compare-and-swap claims of one task: exactly one wins, the rest see LEASE_HELD', async () => {
    const [id] = await createReady(1, 'cas');
    const agents = await Promise.all(Array.from({ length: 32 }, (_, i) => T.addAgent(`cas-${i}`)));
    const results = await Promise.all(agents.map((a) => a.call('task_claim', { task_id: id })));
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    for (const r of results.filter((x) => !x.ok)) fails(r, 'LEASE_HELD');
  });

  it('an expired lease is claimable at once by another actor, without a sweeper', async () => {
    const [id] = await createReady(1, 'lease');
    const first = await T.addAgent('lease-first');
    const second = await T.addAgent('lease-second');
    ok(await first.call('task_claim', { label: 'lease', lease_seconds: 60 }));
    expect(ok(await second.call('task_claim', { label: 'lease' })).claimed).toBe(false);
    fails(await second.call('task_claim', { task_id: id }), 'LEASE_HELD');
    await db.query(`update tasks set lease_expires_at = now() - interval '1 second' where id = $1`, [id]);
    const taken = ok(await second.call('task_claim', { label: 'lease' }));
    expect(taken).toMatchObject({ claimed: true, task: { id, assignee_actor_id: second.id } });
    // the previous holder can no longer extend it: the lease is someone else's now
    fails(await first.call('task_claim', { task_id: id }), 'LEASE_HELD');
  });
});

describe('idempotency under contention', () => {
  it('100 concurrent calls with one key make one effect and return the same result', async () => {
    const input = { project_id: 'CON', title: 'exactly once', idempotency_key: 'same-key-100' };
    const results = await Promise.all(Array.from({ length: 100 }, () => T.agent.call('task_create', input)));
    for (const r of results) ok(r);
    const taskIds = new Set(results.map((r) => ok(r).task_id as string));
    expect(taskIds.size).toBe(1);
    expect(results.filter((r) => ok(r).idempotent_replay === true).length).toBe(99);
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from tasks where tenant_id = $1 and title = 'exactly once'`, [T.id]);
    expect(n).toBe(1);
  });

  it('100 concurrent claims with one key claim one task once', async () => {
    await createReady(5, 'idem-claim');
    const results = await Promise.all(
      Array.from({ length: 100 }, () => T.agent.call('task_claim', { label: 'idem-claim', idempotency_key: 'claim-once' })),
    );
    const ids = new Set(results.map((r) => (ok(r).task as { id: string }).id));
    expect(ids.size).toBe(1);
    const [{ n }] = await db.query<{ n: number }>(
      `select count(*)::int as n from tasks where tenant_id = $1 and 'idem-claim' = any(labels) and status = 'in_progress'`,
      [T.id],
    );
    expect(n).toBe(1);
  });
});

describe('graph writes under contention', () => {
  it('two concurrent links in opposite directions cannot close a cycle', async () => {
    for (let round = 0; round < 10; round++) {
      const [x, y] = await createReady(2, `cycle-${round}`);
      const a = await T.addAgent(`link-a-${round}`);
      const b = await T.addAgent(`link-b-${round}`);
      const [r1, r2] = await Promise.all([
        a.call('task_link', { task_id: x, add_depends_on: [y] }),
        b.call('task_link', { task_id: y, add_depends_on: [x] }),
      ]);
      const added = [ok(r1).added.length, ok(r2).added.length];
      expect(added.sort()).toEqual([0, 1]);
      const rejected = ok(r1).cycle_rejected.length + ok(r2).cycle_rejected.length;
      expect(rejected).toBe(1);
    }
  });

  it('concurrent task creation in one project numbers tasks without gaps or repeats', async () => {
    const { project_id } = ok(await T.agent.call('project_create', { title: 'Numbering', key: 'NUM' }));
    const agents = await Promise.all(Array.from({ length: 20 }, (_, i) => T.addAgent(`num-${i}`)));
    const results = await Promise.all(agents.map((a, i) => a.call('task_create', { project_id, title: `n${i}` })));
    const seqs = results.map((r) => ok(r).seq as number).sort((p, q) => p - q);
    expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});

describe('faults', () => {
  it('a connection killed mid-flight returns a retryable envelope, and the next call succeeds', async () => {
    const victim = T.agent;
    // a long call on one connection, terminated from another
    const slow = db.withClaims(victim.claims, `select pg_sleep(5)`).then(
      () => 'finished' as const,
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 300));
    const killed = await db.query<{ n: number }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where query like '%pg_sleep(5)%' and pid <> pg_backend_pid()`,
    );
    expect(killed[0].n).toBeGreaterThanOrEqual(1);
    const err = await slow;
    expect(err).not.toBe('finished');
    // the error the driver raised maps to a retryable envelope error
    const { mapDbError } = await import('../../lib/core/sql-errors');
    expect(mapDbError(err)).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    // and the pool recovers: the very next calls work
    for (let i = 0; i < 5; i++) ok(await victim.call('whoami', { include: ['tasks'] }));
  });

  it('a statement that exceeds its timeout is reported as BUSY and retryable, not as a crash', async () => {
    const { mapDbError } = await import('../../lib/core/sql-errors');
    const err = await db.withClaims(T.agent.claims, `set local statement_timeout = '50ms'; select pg_sleep(1)`).catch((e) => e);
    expect(mapDbError(err)).toMatchObject({ code: 'BUSY', retryable: true });
    ok(await T.agent.call('whoami', {}));
  });

  it('a deadlock-prone pattern (many writers on one project row) completes without errors', async () => {
    const agents = await Promise.all(Array.from({ length: 16 }, (_, i) => T.addAgent(`dl-${i}`)));
    const results = await Promise.all(
      agents.flatMap((a, i) => [
        a.call('project_update', { project_id: 'CON', patch: { summary: `writer ${i}` } }),
        a.call('task_create', { project_id: 'CON', title: `dl ${i}` }),
      ]),
    );
    for (const r of results) ok(r);
  });
});
