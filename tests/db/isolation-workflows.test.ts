import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, target, type Tenant, type TestDb } from '../helpers/db';

/**
 * Tenant isolation proofs for workflows: workspace B tries to read and write A's workflows and
 * instances through SQL as the API role and through every workflow tool; B's event of the same verb
 * does not start A's workflow; and a paused A instance stays unclaimable whoever asks.
 * tests/db/isolation.test.ts finds the insert proofs and the tool cases below by their text.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
let proofs = 0;
const a = { workflow: '', instance: '', task: '' };

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'wf-a');
  B = await seedTenant(db, 'wf-b');
  ok(await A.agent.call('project_create', { title: 'Secret', key: 'SEC' }));
  ok(await B.agent.call('project_create', { title: 'Open', key: 'OPN' }));
  const w = ok(await A.agent.call('workflow_create', {
    name: 'Secret flow',
    definition: { steps: [{ key: 'one', title: 'Secret step' }], trigger: { on: 'event', event_type: 'secret.happened', project_id: 'SEC' } },
  }));
  a.workflow = w.workflow_id;
  const s = ok(await A.agent.call('workflow_start', { workflow_id: a.workflow, project_id: 'SEC' }));
  a.instance = s.instance_id;
  a.task = s.instance.steps[0].task_id;
});
afterAll(async () => {
  console.log(`[isolation-workflows:${target}] ${proofs} tenant isolation proofs passed`);
  await db.drop();
});

describe('the tables', () => {
  it('show B none of A’s workflows or instances, while A sees its own', async () => {
    for (const t of ['workflows', 'workflow_instances']) {
      const seen = await db.withClaims<{ n: number }>(B.agent.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect({ t, n: seen[0].n }).toEqual({ t, n: 0 });
      const own = await db.withClaims<{ n: number }>(A.agent.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect(own[0].n, t).toBe(1);
      proofs += 2;
    }
  });

  it('refuse every write by the API roles, into either workspace', async () => {
    const attempts = [
      `insert into public.workflows (tenant_id, name, definition, created_by_actor_id) values ('${A.id}', 'evil', '{"steps":[]}', '${A.agent.id}')`,
      `insert into public.workflows (tenant_id, name, definition, created_by_actor_id) values ('${B.id}', 'evil', '{"steps":[]}', '${B.agent.id}')`,
      `insert into public.workflow_instances (tenant_id, workflow_id, project_id) values ('${A.id}', '${a.workflow}', (select id from public.projects limit 1))`,
      `update public.workflow_instances set control = 'cancelled'`,
      `update public.workflows set name = 'mine'`,
      `delete from public.workflow_instances`,
      `update public.tasks set workflow_instance_id = null where id = '${a.task}'`,
    ];
    for (const sql of attempts) {
      await expect(db.withClaims(B.agent.claims, sql), sql).rejects.toMatchObject({ code: '42501' });
      proofs++;
    }
    // A's own agent cannot write around the RPCs either (e.g. un-pause its instance by hand)
    await expect(db.withClaims(A.agent.claims, `update public.workflow_instances set control = 'running'`)).rejects.toMatchObject({ code: '42501' });
    proofs++;
  });
});

describe('every workflow tool, called with another workspace’s ids', () => {
  const cases: [string, () => Record<string, unknown>][] = [
    ['workflow_start', () => ({ workflow_id: a.workflow, project_id: 'OPN' })],
    ['workflow_start', () => ({ workflow_id: 'Secret flow', project_id: 'OPN' })],
    ['workflow_pause', () => ({ instance_id: a.instance })],
    ['workflow_resume', () => ({ instance_id: a.instance })],
    ['workflow_cancel', () => ({ instance_id: a.instance, note: 'intrude' })],
    ['workflow_get', () => ({ instance_id: a.instance })],
    ['workflow_get', () => ({ workflow_id: a.workflow })],
    ['workflow_query', () => ({ workflow_id: a.workflow })],
    ['workflow_query', () => ({ project_id: 'SEC' })],
    ['workflow_create', () => ({ name: 'x', definition: { steps: [{ key: 'a', title: 'A' }], trigger: { on: 'schedule', cron: '0 3 * * *', project_id: 'SEC' } } })],
  ];

  it.each(cases)('%s answers NOT_FOUND (%#)', async (tool, input) => {
    fails(await B.agent.call(tool, input()), 'NOT_FOUND');
    proofs++;
  });

  it('list tools filter rather than leak, and B’s event of the same verb starts nothing of A’s', async () => {
    expect(ok(await B.agent.call('workflow_query', {}))).toEqual({ ok: true, workflows: [], instances: [] });
    ok(await B.agent.call('activity_log', { verb: 'secret.happened', summary: 'from B' }));
    expect(ok(await A.agent.call('workflow_get', { workflow_id: a.workflow })).instances).toHaveLength(1);
    // and A's own event does
    ok(await A.agent.call('activity_log', { verb: 'secret.happened', summary: 'from A' }));
    expect(ok(await A.agent.call('workflow_get', { workflow_id: a.workflow })).instances).toHaveLength(2);
    proofs += 3;
  });
});

describe('inside the workspace', () => {
  it('a paused instance’s task is unclaimable for every actor, the pauser included', async () => {
    ok(await A.human.call('workflow_pause', { instance_id: a.instance }));
    for (const who of [A.agent, A.human]) {
      fails(await who.call('task_claim', { task_id: a.task }), 'NOT_CLAIMABLE');
      proofs++;
    }
  });
});
