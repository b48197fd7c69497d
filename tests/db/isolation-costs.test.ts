import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, target, type Actor, type Tenant, type TestDb } from '../helpers/db';
import { asRun } from '../helpers/runs';

/**
 * Tenant isolation proofs for costs and budgets: workspace B tries to read and write A's usage
 * ledger, budgets and reservations through SQL as the API role and through every costs tool (and
 * the usage fields of run_heartbeat and run_end); inside A, an agent tries to set a budget.
 * tests/db/isolation.test.ts finds the insert proofs and the tool cases below by their text.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
let ada: Actor;
let proofs = 0;
const a = { project: '', task: '', budget: '', run: '' };

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'costs-a');
  B = await seedTenant(db, 'costs-b');
  ada = await A.addAgent('Ada');
  a.project = ok(await A.human.call('project_create', { title: 'Secret', key: 'SEC' })).project.id;
  a.task = ok(await A.human.call('task_create', { project_id: 'SEC', title: 'Secret task' })).task.id;
  a.budget = ok(await A.human.call('budget_set', { scope: 'project', scope_id: 'SEC', period: 'month', limit_usd: 5 })).budget.id;
  a.run = ok(await asRun(ada, { run_id: 'secret-run' }).call('run_heartbeat', { task_id: a.task, usage: { model: 'house', cost_usd: 1.25 } })).run.id;
  ok(await asRun(ada, { run_id: 'secret-run' }).call('task_claim', { task_id: a.task, estimated_cost_usd: 0.5 }));
  ok(await B.human.call('project_create', { title: 'Open', key: 'OPN' }));
});
afterAll(async () => {
  console.log(`[isolation-costs:${target}] ${proofs} tenant isolation proofs passed`);
  await db.drop();
});

describe('the tables', () => {
  it('show B none of A’s ledger, budgets or reservations, while A sees its own', async () => {
    for (const t of ['usage_events', 'budgets', 'budget_reservations']) {
      const seen = await db.withClaims<{ n: number }>(B.agent.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect({ t, n: seen[0].n }).toEqual({ t, n: 0 });
      const own = await db.withClaims<{ n: number }>(A.agent.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect(own[0].n, t).toBe(1);
      proofs += 2;
    }
  });

  it('refuse every write by the API roles, into either workspace', async () => {
    const attempts = [
      `insert into public.usage_events (tenant_id, actor_id, model, cost_usd, priced) values ('${A.id}', '${A.agent.id}', 'evil', 1, 'reported')`,
      `insert into public.budgets (tenant_id, scope, period, limit_usd, created_by_actor_id) values ('${A.id}', 'workspace', 'day', 0, '${A.agent.id}')`,
      `insert into public.budget_reservations (tenant_id, task_id, actor_id, project_id, amount_usd) values ('${A.id}', '${a.task}', '${A.agent.id}', '${a.project}', 1)`,
      `insert into public.budgets (tenant_id, scope, period, limit_usd, created_by_actor_id) values ('${B.id}', 'workspace', 'day', 1000, '${B.agent.id}')`,
      `update public.budgets set limit_usd = 1000000`,
      `update public.budget_reservations set released_at = now()`,
      `delete from public.usage_events`,
    ];
    for (const sql of attempts) {
      await expect(db.withClaims(B.agent.claims, sql), sql).rejects.toMatchObject({ code: '42501' });
      proofs++;
    }
  });
});

describe('every costs tool, called with another workspace’s ids', () => {
  const cases: [string, () => Record<string, unknown>][] = [
    ['cost_summary', () => ({ project_id: a.project })],
    ['cost_summary', () => ({ project_id: 'SEC', group_by: 'task' })],
    ['budget_set', () => ({ scope: 'project', scope_id: a.project, period: 'day', limit_usd: 0 })],
    ['budget_set', () => ({ scope: 'agent', scope_id: ada.id, period: 'day', limit_usd: 0 })],
    ['budget_status', () => ({ scope: 'project', scope_id: 'SEC' })],
    ['budget_status', () => ({ scope: 'agent', scope_id: ada.id })],
    ['run_heartbeat', () => ({ task_id: a.task, usage: { model: 'house', cost_usd: 1 } })],
    ['run_end', () => ({ status: 'succeeded', task_id: a.task, usage: { model: 'house', cost_usd: 1 } })],
    ['task_claim', () => ({ task_id: a.task, estimated_cost_usd: 0.1 })],
  ];

  it.each(cases)('%s answers NOT_FOUND (%#)', async (tool, input) => {
    const actor = tool.startsWith('budget_set') ? B.human : tool.startsWith('run_') ? asRun(B.agent, { run_id: `intruder-${Math.random()}` }) : B.agent;
    fails(await actor.call(tool, input()), 'NOT_FOUND');
    proofs++;
  });

  it('summaries and statuses filter rather than leak', async () => {
    const s = ok(await B.agent.call('cost_summary', { period: 'all', group_by: 'project' }));
    expect(s.total.calls).toBe(0);
    expect(s.groups).toEqual([]);
    expect(ok(await B.agent.call('budget_status', {})).budgets).toEqual([]);
    // A's spending is untouched by B's attempts
    const st = ok(await A.human.call('budget_status', {})).budgets[0];
    expect(st).toMatchObject({ id: a.budget, spent_usd: 1.25, reserved_usd: 0.5, limit_usd: 5 });
    proofs += 3;
  });
});

describe('inside the workspace, only an owner sets a budget', () => {
  it('an agent’s budget_set is FORBIDDEN and changes nothing', async () => {
    const e = fails(await ada.call('budget_set', { scope: 'project', scope_id: 'SEC', period: 'month', limit_usd: 1000 }), 'FORBIDDEN');
    expect(e.message).toMatch(/only a workspace owner sets budgets/);
    expect(ok(await ada.call('budget_status', { scope: 'project', scope_id: 'SEC' })).budgets[0].limit_usd).toBe(5);
    proofs++;
  });
});
