import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWorkflowSchedules } from '../../lib/jobs/workflows';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * Workflows: a definition is validated in SQL (unknown step, cycle, undeclared or missing input,
 * each refusal naming the step); workflow_start makes one task per step joined by
 * task_dependencies and tagged with the workflow and instance; a paused instance's tasks are not
 * claimable (claim-next and claim by id); cancel cancels the open tasks and releases leases with a
 * note; the status is derived from the tasks; an activity verb and a cron slot start instances.
 */

let db: TestDb;
let T: Tenant;
let ada: Actor;

const release = {
  inputs: [{ name: 'version' }, { name: 'channel', default: 'stable' }],
  steps: [
    { key: 'build', title: 'Build {{version}}', body: 'for {{channel}}', acceptance_criteria: ['artifacts uploaded'], estimated_cost_usd: 0.5 },
    { key: 'test', title: 'Test {{version}}', depends_on: ['build'], requires_capabilities: ['qa'], estimated_cost_usd: 0.25 },
    { key: 'ship', title: 'Ship {{version}}', depends_on: ['build', 'test'] },
  ],
};

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'workflows');
  ada = await T.addAgent('Ada');
  await db.query(`update public.actors set capabilities = '{qa}' where id = $1`, [ada.id]);
  ok(await T.human.call('project_create', { title: 'Releases', key: 'REL' }));
  ok(await T.human.call('project_create', { title: 'Ops', key: 'OPS' }));
});
afterAll(() => db.drop());

const start = async (name: string, inputs: Record<string, unknown> = { version: '1.0' }) => {
  const w = ok(await T.human.call('workflow_create', { name, definition: release }));
  return ok(await T.human.call('workflow_start', { workflow_id: w.workflow_id, project_id: 'REL', inputs }));
};

describe('workflow_create validates the definition in SQL, naming the step', () => {
  const bad: [string, unknown, string, RegExp][] = [
    ['unknown step', { steps: [{ key: 'a', title: 'A', depends_on: ['nope'] }] }, 'VALIDATION_ERROR', /step a: depends_on names unknown step nope/],
    ['cycle', { steps: [{ key: 'a', title: 'A', depends_on: ['b'] }, { key: 'b', title: 'B', depends_on: ['a'] }, { key: 'c', title: 'C' }] }, 'CYCLE_DETECTED', /step a: its dependencies form a cycle \(through a, b\)/],
    ['self', { steps: [{ key: 'a', title: 'A', depends_on: ['a'] }] }, 'CYCLE_DETECTED', /step a: a step cannot depend on itself/],
    ['undeclared input', { steps: [{ key: 'a', title: 'Do {{thing}}' }] }, 'VALIDATION_ERROR', /step a: \{\{thing\}\} is not a declared input/],
    ['duplicate key', { steps: [{ key: 'a', title: 'A' }, { key: 'a', title: 'B' }] }, 'VALIDATION_ERROR', /step a: the key is used by two steps/],
    ['trigger missing input', { inputs: [{ name: 'v' }], steps: [{ key: 'a', title: 'A {{v}}' }], trigger: { on: 'event', event_type: 'deploy.finished' } }, 'VALIDATION_ERROR', /step a: input v is required and the trigger gives it no value/],
    ['workflow events', { steps: [{ key: 'a', title: 'A' }], trigger: { on: 'event', event_type: 'workflow.started' } }, 'VALIDATION_ERROR', /workflow\.\* events start no workflow/],
  ];
  it.each(bad)('refuses %s', async (_what, definition, code, message) => {
    // straight to the RPC: the SQL is the law whatever the adapter checked
    const rows = db.withClaims(T.agent.claims, `select public.workflow_create('${JSON.stringify({ name: 'bad', definition }).replace(/'/g, "''")}'::jsonb)`);
    await expect(rows).rejects.toMatchObject({ message: expect.stringMatching(message) });
    // and through the tool, with its envelope
    const e = fails(await T.agent.call('workflow_create', { name: `bad ${_what}`, definition }), code);
    expect(e.message).toMatch(message);
  });

  it('refuses a bad cron naming the field, and a taken name', async () => {
    const e = fails(await T.agent.call('workflow_create', { name: 'c', definition: { steps: [{ key: 'a', title: 'A' }], trigger: { on: 'schedule', cron: '61 * * * *', project_id: 'REL' } } }), 'VALIDATION_ERROR');
    expect(e.message).toMatch(/minute: 61 is outside 0-59/);
    ok(await T.agent.call('workflow_create', { name: 'taken', definition: release }));
    fails(await T.agent.call('workflow_create', { name: 'taken', definition: release, description: 'again' }), 'ALREADY_EXISTS');
  });
});

describe('workflow_start', () => {
  it('makes one task per step with the step graph as dependencies, tagged with workflow and instance', async () => {
    const s = await start('Release');
    const inst = s.instance;
    expect(inst).toMatchObject({ status: 'running', control: 'running', inputs: { version: '1.0', channel: 'stable' }, estimated_cost_usd: 0.75, cost_usd: 0 });
    expect(inst.progress).toMatchObject({ total: 3, done: 0, open: 3, percent: 0 });
    expect(inst.steps.map((x: { step: string; title: string }) => [x.step, x.title])).toEqual([['build', 'Build 1.0'], ['test', 'Test 1.0'], ['ship', 'Ship 1.0']]);
    const [build, test, ship] = inst.steps;
    const t = ok(await T.agent.call('task_get', { task_id: ship.task_id }));
    expect(t.task.meta).toMatchObject({ workflow_id: inst.workflow_id, workflow_instance_id: inst.id, workflow_step: 'ship' });
    const deps = await db.query<{ d: string }>(`select depends_on_task_id::text as d from public.task_dependencies where task_id = $1 order by 1`, [ship.task_id]);
    expect(deps.map((r) => r.d).sort()).toEqual([build.task_id, test.task_id].sort());
    const b = ok(await T.agent.call('task_get', { task_id: build.task_id }));
    expect(b.task.body).toBe('for stable');
    expect(b.task.acceptance_criteria).toEqual([{ text: 'artifacts uploaded', met: false }]);
    expect(ok(await T.agent.call('task_get', { task_id: test.task_id })).task.requires_capabilities).toEqual(['qa']);
    // the tag is filterable like any meta
    const q = ok(await T.agent.call('task_query', { meta: { workflow_instance_id: inst.id } }));
    expect(q.tasks).toHaveLength(3);
  });

  it('refuses a missing required input naming its step, and an undeclared one', async () => {
    const w = ok(await T.human.call('workflow_query', { workflow_id: 'Release' })).workflows[0];
    const e = fails(await T.agent.call('workflow_start', { workflow_id: w.id, project_id: 'REL' }), 'VALIDATION_ERROR');
    expect(e.message).toMatch(/step build: input version is required/);
    expect(fails(await T.agent.call('workflow_start', { workflow_id: 'Release', project_id: 'REL', inputs: { version: '2', colour: 'x' } }), 'VALIDATION_ERROR').message).toMatch(/inputs\.colour/);
  });
});

describe('pause, resume, cancel', () => {
  it('a paused instance’s tasks are not claimable, by id or claim-next; resume makes them so again', async () => {
    const inst = (await start('Pausable')).instance;
    const build = inst.steps[0].task_id;
    const paused = ok(await T.human.call('workflow_pause', { instance_id: inst.id, note: 'hold on' }));
    expect(paused.instance).toMatchObject({ status: 'paused', control: 'paused' });
    const e = fails(await ada.call('task_claim', { task_id: build }), 'NOT_CLAIMABLE');
    expect(e.message).toMatch(/workflow instance is paused/);
    // claim-next passes over it (every other todo task of the workspace is another instance's, or blocked)
    const next = ok(await ada.call('task_claim', { project_id: 'REL' }));
    if (next.claimed) {
      expect(next.task.id).not.toBe(build);
      ok(await ada.call('task_release', { task_id: next.task.id }));
    }
    const all = ok(await ada.call('task_claim', {}));
    if (all.claimed) {
      expect(all.task.id).not.toBe(build);
      ok(await ada.call('task_release', { task_id: all.task.id }));
    }
    fails(await T.human.call('workflow_pause', { instance_id: inst.id }), 'INVALID_TRANSITION');
    expect(ok(await T.human.call('workflow_resume', { instance_id: inst.id })).instance.status).toBe('running');
    const claimed = ok(await ada.call('task_claim', { task_id: build }));
    expect(claimed.claimed).toBe(true);
  });

  it('claim-next skips a paused instance when it is the only work', async () => {
    const own = await seedTenant(db, 'wf-only');
    ok(await own.human.call('project_create', { title: 'Solo', key: 'SOL' }));
    ok(await own.human.call('workflow_create', { name: 'Solo', definition: { steps: [{ key: 'a', title: 'A' }] } }));
    const i = ok(await own.human.call('workflow_start', { workflow_id: 'Solo', project_id: 'SOL' })).instance;
    ok(await own.human.call('workflow_pause', { instance_id: i.id }));
    expect(ok(await own.agent.call('task_claim', {}))).toMatchObject({ claimed: false, reason: 'pool_empty' });
    ok(await own.human.call('workflow_resume', { instance_id: i.id }));
    expect(ok(await own.agent.call('task_claim', {})).task.id).toBe(i.steps[0].task_id);
  });

  it('cancel cancels the open tasks and releases leases with a note; then nothing moves it', async () => {
    const inst = (await start('Cancellable')).instance;
    const build = inst.steps[0].task_id;
    ok(await ada.call('task_claim', { task_id: build }));
    const c = ok(await T.human.call('workflow_cancel', { instance_id: inst.id, note: 'release abandoned' }));
    expect(c.instance.status).toBe('cancelled');
    expect(c.cancelled_task_ids).toHaveLength(3);
    expect(c.released_task_ids).toEqual([build]);
    const t = ok(await T.agent.call('task_get', { task_id: build }));
    expect(t.task).toMatchObject({ status: 'cancelled', lease: null });
    const thread = ok(await T.agent.call('comment_query', { object_type: 'task', object_id: build }));
    expect(JSON.stringify(thread)).toMatch(/workflow Cancellable was cancelled \(release abandoned\)/);
    fails(await T.human.call('workflow_resume', { instance_id: inst.id }), 'INVALID_TRANSITION');
    fails(await T.human.call('workflow_cancel', { instance_id: inst.id, note: 'again' }), 'INVALID_TRANSITION');
  });
});

describe('status, progress and cost come from the tasks', () => {
  it('done when every step is done; failed when one fails', async () => {
    const inst = (await start('Finisher')).instance;
    for (const s of inst.steps) {
      ok(await ada.call('task_claim', { task_id: s.task_id }));
      ok(await ada.call('task_update', { task_id: s.task_id, patch: { status: 'done', acceptance_criteria: s.step === 'build' ? [{ text: 'artifacts uploaded', met: true }] : undefined } }));
      const now = ok(await T.agent.call('workflow_get', { instance_id: inst.id })).instance;
      if (s.step === 'build') expect(now.progress).toMatchObject({ done: 1, percent: 33 });
    }
    const done = ok(await T.agent.call('workflow_get', { instance_id: inst.id }));
    expect(done.instance).toMatchObject({ status: 'done', progress: { done: 3, percent: 100 } });
    // usage reported on one of its tasks is the instance's cost, and the workflow's in cost_summary
    ok(await ada.call('run_heartbeat', { task_id: inst.steps[2].task_id, usage: { model: 'test-model', tokens_in: 10, tokens_out: 5, cost_usd: 0.42 } }));
    expect(ok(await T.agent.call('workflow_get', { instance_id: inst.id })).instance.cost_usd).toBeCloseTo(0.42, 6);
    const byWorkflow = ok(await T.agent.call('cost_summary', { period: 'all', group_by: 'workflow' }));
    expect(byWorkflow.groups.find((g: { key: string }) => g.key === inst.workflow_id)?.cost_usd).toBeCloseTo(0.42, 6);
    // a workflow budget counts that spend: another instance of the workflow cannot be claimed past it
    ok(await T.human.call('budget_set', { scope: 'workflow', scope_id: inst.workflow_id, period: 'total', limit_usd: 0.4 }));
    const next = ok(await T.human.call('workflow_start', { workflow_id: inst.workflow_id, project_id: 'REL', inputs: { version: '2.0' } })).instance;
    fails(await ada.call('task_claim', { task_id: next.steps[0].task_id }), 'BUDGET_EXCEEDED');
    ok(await T.human.call('budget_set', { scope: 'workflow', scope_id: inst.workflow_id, period: 'total', limit_usd: 100 }));
    fails(await T.human.call('workflow_pause', { instance_id: inst.id }), 'INVALID_TRANSITION');

    const other = (await start('Failer')).instance;
    ok(await ada.call('task_claim', { task_id: other.steps[0].task_id }));
    ok(await ada.call('task_update', { task_id: other.steps[0].task_id, patch: { status: 'failed' } }));
    const q = ok(await T.agent.call('workflow_query', { status: 'failed' }));
    expect(q.instances.map((i: { id: string }) => i.id)).toContain(other.id);
    expect(q.instances.every((i: { status: string }) => i.status === 'failed')).toBe(true);
  });

  it('workflow_get names exactly one of workflow_id and instance_id', async () => {
    fails(await T.agent.call('workflow_get', {}), 'VALIDATION_ERROR');
    const w = ok(await T.agent.call('workflow_get', { workflow_id: 'Release' }));
    expect(w.instance).toBeNull();
    expect(w.workflow.definition.steps).toHaveLength(3);
    expect(w.instances.length).toBeGreaterThan(0);
  });
});

describe('triggers', () => {
  it('an event (an activity verb) starts an instance, filtered on its payload; the publisher never fails for it', async () => {
    ok(await T.human.call('workflow_create', {
      name: 'On deploy',
      definition: {
        inputs: [{ name: 'env', default: 'prod' }],
        steps: [{ key: 'verify', title: 'Verify {{env}} deploy' }],
        trigger: { on: 'event', event_type: 'deploy.finished', filter: { env: 'prod' }, project_id: 'OPS' },
      },
    }));
    const before = ok(await T.agent.call('workflow_query', { workflow_id: 'On deploy' })).instances.length;
    ok(await T.agent.call('activity_log', { verb: 'deploy.finished', summary: 'staging', metadata: { env: 'staging' } }));
    expect(ok(await T.agent.call('workflow_query', { workflow_id: 'On deploy' })).instances).toHaveLength(before);
    const logged = ok(await T.agent.call('activity_log', { verb: 'deploy.finished', summary: 'prod', metadata: { env: 'prod' } }));
    const after = ok(await T.agent.call('workflow_query', { workflow_id: 'On deploy' })).instances;
    expect(after).toHaveLength(before + 1);
    expect(after[0]).toMatchObject({ started_by: 'event', project_key: 'OPS', trigger_activity_id: Number(logged.activity.id ?? logged.id ?? after[0].trigger_activity_id) });

    // a trigger that cannot start (its project archived) is logged, and the event still lands
    ok(await T.human.call('project_update', { project_id: 'OPS', patch: { status: 'archived' } }));
    ok(await T.agent.call('activity_log', { verb: 'deploy.finished', summary: 'prod again', metadata: { env: 'prod' } }));
    const failed = await db.query<{ n: number }>(`select count(*)::int as n from public.activity where tenant_id = $1 and verb = 'workflow.trigger_failed'`, [T.id]);
    expect(failed[0].n).toBe(1);
    ok(await T.human.call('project_update', { project_id: 'OPS', patch: { status: 'active' } }));
  });

  it('a cron slot starts one instance, once, however often the scheduler runs', async () => {
    const w = ok(await T.human.call('workflow_create', {
      name: 'Nightly',
      definition: { steps: [{ key: 'sweep', title: 'Nightly sweep' }], trigger: { on: 'schedule', cron: '0 3 * * *', project_id: 'OPS' } },
    }));
    // a slot before the workflow existed starts nothing
    expect(await runWorkflowSchedules(db, new Date(Date.now() - 2 * 86_400_000))).toEqual([]);
    const tomorrow = new Date(Date.now() + 86_400_000);
    tomorrow.setUTCHours(3, 0, 30, 0);
    const first = await runWorkflowSchedules(db, tomorrow);
    expect(first).toHaveLength(1);
    expect(await runWorkflowSchedules(db, new Date(tomorrow.getTime() + 60_000))).toEqual([]);
    const inst = ok(await T.agent.call('workflow_get', { instance_id: first[0] })).instance;
    expect(inst).toMatchObject({ started_by: 'schedule', workflow_id: w.workflow_id, project_key: 'OPS', scheduled_for: expect.stringMatching(/T03:00:00/) });
    // the next day's slot starts the next one
    expect(await runWorkflowSchedules(db, new Date(tomorrow.getTime() + 86_400_000))).toHaveLength(1);
  });
});
