import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';
import { asRun } from '../helpers/runs';

/**
 * Budgets under contention on a real Postgres server: many agents claiming at once against a small
 * budget, each declaring what its work will cost, never spend past the limit by more than one
 * reservation (the $0.50 case). Runs in the pg project only (PGlite has a single connection).
 */

let db: TestDb;
let T: Tenant;

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'budget-races');
  ok(await T.human.call('project_create', { title: 'Races', key: 'BR' }));
  ok(await T.human.call('task_create_many', { project_id: 'BR', tasks: Array.from({ length: 60 }, (_, i) => ({ title: `w${i}` })) }));
});
afterAll(() => db.drop());

async function spentAndReserved() {
  const b = ok(await T.human.call('budget_status', {})).budgets[0];
  return { spent: b.spent_usd as number, reserved: b.reserved_usd as number, limit: b.limit_usd as number };
}

describe('the $0.50 budget', () => {
  it('24 agents claiming at once with $0.12 estimates: at most the reservations that fit, and what they spend stays within one reservation of the limit', async () => {
    ok(await T.human.call('budget_set', { scope: 'project', scope_id: 'BR', period: 'day', limit_usd: 0.5 }));
    const agents = await Promise.all(Array.from({ length: 24 }, (_, i) => T.addAgent(`racer-${i}`)));
    const runs = agents.map((a, i) => asRun(a, { run_id: `race-run-${i}` }));
    const estimate = 0.12;
    const results = await Promise.all(runs.map((r) => r.call('task_claim', { project_id: 'BR', estimated_cost_usd: estimate, lease_seconds: 600 })));
    const bodies = results.map((r) => ok(r));
    const winners = runs.filter((_, i) => bodies[i].claimed);
    // 4 × 0.12 = 0.48 fits; a fifth would make 0.60
    expect(winners).toHaveLength(4);
    expect(bodies.filter((b) => !b.claimed).every((b) => b.reason === 'budget_exceeded')).toBe(true);
    const mid = await spentAndReserved();
    expect(mid.reserved + mid.spent).toBeLessThanOrEqual(mid.limit + 1e-9);

    // the winners work and report what they spent, concurrently, each up to its estimate
    await Promise.all(winners.map(async (r) => {
      for (const cost of [0.04, 0.08, estimate]) {
        const hb = ok(await r.call('run_heartbeat', { usage: { model: 'house', cost_usd: cost } }));
        if (hb.stop) break;
      }
      ok(await r.call('run_end', { status: 'succeeded', usage: { model: 'house', cost_usd: estimate } }));
    }));
    const after = await spentAndReserved();
    expect(after.reserved).toBe(0);
    expect(after.spent).toBeLessThanOrEqual(after.limit + estimate);

    // a second storm: only what is left fits, and once the budget is spent nothing is claimed
    const losers = runs.filter((_, i) => !bodies[i].claimed);
    const second = (await Promise.all(losers.map((r) => r.call('task_claim', { project_id: 'BR', estimated_cost_usd: estimate, lease_seconds: 600 })))).map((r) => ok(r));
    const fit = Math.floor((after.limit - after.spent + 1e-9) / estimate);
    expect(second.filter((b) => b.claimed)).toHaveLength(fit);
    const end = await spentAndReserved();
    expect(end.spent + end.reserved).toBeLessThanOrEqual(end.limit + 1e-9);
    // claims without an estimate are refused once spent reaches the limit
    const burner = asRun(agents[0], { run_id: 'race-burner' });
    ok(await burner.call('run_heartbeat', { task_id: 'BR-1', usage: { model: 'house', cost_usd: 1 } }));
    const third = (await Promise.all(losers.map((r) => r.call('task_claim', { project_id: 'BR', lease_seconds: 600 })))).map((r) => ok(r));
    expect(third.every((b) => !b.claimed && b.reason === 'budget_exceeded')).toBe(true);
  });
});
