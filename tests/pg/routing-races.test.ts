import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * Routing under contention on a real Postgres server: load limits hold when one actor's claims
 * race on many connections, and a deactivation in the middle of a claim storm leaves no lease
 * behind. Runs in the pg project only (PGlite has a single connection).
 */

let db: TestDb;
let T: Tenant;

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'routing-races');
  ok(await T.human.call('project_create', { title: 'Races', key: 'RR' }));
});
afterAll(() => db.drop());

async function createReady(n: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, (_, j) => ({ title: `${label} ${i + j}`, labels: [label] }));
    ids.push(...ok(await T.human.call('task_create_many', { project_id: 'RR', tasks: batch })).task_ids);
  }
  return ids;
}

async function externalRef(a: Actor): Promise<string> {
  const [r] = await db.query<{ external_ref: string }>('select external_ref from public.actors where id = $1', [a.id]);
  return r.external_ref;
}

async function liveLeases(actorId: string): Promise<number> {
  const [r] = await db.query<{ n: number }>(
    `select count(*)::int as n from public.tasks where lease_actor_id = $1 and status = 'in_progress' and lease_expires_at > now()`,
    [actorId],
  );
  return r.n;
}

describe('load limits under contention', () => {
  it('two agents at capacity 1, each claiming on 12 connections at once, end up with exactly one lease each', async () => {
    await createReady(60, 'cap');
    const agents = [await T.addAgent('cap-a'), await T.addAgent('cap-b')];
    for (const a of agents) ok(await T.human.call('register_actor', { external_ref: await externalRef(a), kind: 'agent', max_concurrent_tasks: 1 }));
    const results = await Promise.all(
      agents.flatMap((a) => Array.from({ length: 12 }, () => a.call('task_claim', { label: 'cap', lease_seconds: 600 }))),
    );
    const bodies = results.map((r) => ok(r));
    expect(bodies.filter((b) => b.claimed)).toHaveLength(2);
    expect(bodies.filter((b) => !b.claimed).every((b) => b.reason === 'at_capacity')).toBe(true);
    for (const a of agents) expect(await liveLeases(a.id)).toBe(1);
  });

  it('claims by id at capacity 2 on many connections never leave an agent over its limit', async () => {
    const ids = await createReady(20, 'byid');
    const a = await T.addAgent('byid-a');
    ok(await T.human.call('register_actor', { external_ref: await externalRef(a), kind: 'agent', max_concurrent_tasks: 2 }));
    const results = await Promise.all(ids.map((id) => a.call('task_claim', { task_id: id, lease_seconds: 600 })));
    const claimed = results.filter((r) => r.ok);
    expect(claimed).toHaveLength(2);
    for (const r of results.filter((x) => !x.ok)) {
      if (r.ok) continue;
      expect(r.error.code).toBe('NOT_CLAIMABLE');
      expect(r.error.message).toContain('max_concurrent_tasks');
    }
    expect(await liveLeases(a.id)).toBe(2);
  });
});

describe('deactivation during a claim storm', () => {
  it('leaves the deactivated agent no lease, keeps others within their limits, and every claim after it is refused', async () => {
    await createReady(400, 'storm');
    const target = await T.addAgent('storm-target');
    const others = await Promise.all(Array.from({ length: 4 }, (_, i) => T.addAgent(`storm-${i}`)));
    for (const a of others) ok(await T.human.call('register_actor', { external_ref: await externalRef(a), kind: 'agent', max_concurrent_tasks: 3 }));
    let stop = false;
    let deactivated = false;
    const afterRefusals: string[] = [];
    const errors: unknown[] = [];
    const loop = async (a: Actor, isTarget: boolean) => {
      while (!stop) {
        const sawDeactivated = deactivated;
        const env = await a.call('task_claim', { label: 'storm', lease_seconds: 600 });
        if (!env.ok) {
          errors.push(env.error);
          continue;
        }
        if (isTarget && sawDeactivated) afterRefusals.push(env.claimed ? 'claimed' : String(env.reason));
        // the others give work back so they keep claiming; the target keeps what it takes
        if (!isTarget && env.claimed) ok(await a.call("task_release", { task_id: (env.task as { id: string }).id }));
      }
    };
    const workers = [
      ...Array.from({ length: 6 }, () => loop(target, true)),
      ...others.flatMap((a) => [loop(a, false), loop(a, false)]),
    ];
    await new Promise((r) => setTimeout(r, 400));
    const before = await liveLeases(target.id);
    const r = ok(await T.human.call('register_actor', { external_ref: await externalRef(target), kind: 'agent', status: 'deactivated' }));
    deactivated = true;
    await new Promise((r) => setTimeout(r, 400));
    stop = true;
    await Promise.all(workers);
    expect(errors).toEqual([]);
    expect(before).toBeGreaterThan(0);
    expect(r.released_task_ids.length).toBeGreaterThanOrEqual(before);
    expect(await liveLeases(target.id)).toBe(0);
    expect(afterRefusals.length).toBeGreaterThan(0);
    expect(new Set(afterRefusals)).toEqual(new Set(['deactivated']));
    for (const a of others) expect(await liveLeases(a.id)).toBeLessThanOrEqual(3);
    // every released task is back in the pool, and its thread says why
    const [{ n }] = await db.query<{ n: number }>(
      `select count(*)::int as n from public.comments c where c.object_id = any ($1::uuid[]) and c.body like '%was deactivated by%'`,
      [r.released_task_ids],
    );
    expect(n).toBe(r.released_task_ids.length);
  });
});
