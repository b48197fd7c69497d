import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/**
 * The done gate is composed of checks that rooms register in bullpen.done_gates. A refused done
 * names the first unmet check (in position order) and the tool that satisfies it; a successful one
 * reports the summary of every check that applied. A probe check registered here stands in for a
 * room's (evidence, review) so the composition is proven on its own.
 */

let db: TestDb;
let t: Tenant;

beforeAll(async () => {
  db = await freshDb();
  t = await seedTenant(db);
  ok(await t.agent.call('project_create', { title: 'Gates', key: 'GT' }));
  // a room's check: the task must carry the label "shipped"; it applies to tasks labelled "release"
  await db.exec(`
    create function bullpen.done_gate_probe(t public.tasks) returns jsonb language sql stable as $$
      select case when not ('release' = any (t.labels)) then null
                  when 'shipped' = any (t.labels) then jsonb_build_object('met', true, 'summary', 'shipped')
                  else jsonb_build_object('met', false, 'summary', 'not shipped',
                         'message', 'release tasks close once shipped', 'hint', 'label the task "shipped" with task_update') end
    $$;
    grant execute on function bullpen.done_gate_probe(public.tasks) to bullpen_writer;
    insert into bullpen.done_gates (name, position, check_fn, satisfied_by, description)
    values ('probe', 5, 'bullpen.done_gate_probe', 'task_update', 'release tasks are shipped');
  `);
});

afterAll(() => db.drop());

/** A task in progress (done is reached from in_progress or in_review). */
async function task(input: Record<string, unknown>) {
  const x = ok(await t.agent.call('task_create', { project_id: 'GT', title: `gate ${Math.random()}`, ...input }));
  ok(await t.agent.call('task_update', { task_id: x.task_id, patch: { status: 'in_progress' } }));
  return x;
}

describe('the composed done gate', () => {
  it('runs the checks in position order and names the first unmet one with the tool that satisfies it', async () => {
    const x = await task({ labels: ['release'], acceptance_criteria: [{ text: 'tests pass', met: false }] });
    const first = fails(await t.agent.call('task_update', { task_id: x.task_id, patch: { status: 'done' } }), 'GATE_UNMET');
    expect(first.message).toBe('release tasks close once shipped');
    expect(first.hint).toBe('label the task "shipped" with task_update');
    expect(first.details).toMatchObject({ gate: 'probe', satisfied_by: 'task_update', summary: 'not shipped' });
    const second = fails(
      await t.agent.call('task_update', { task_id: x.task_id, patch: { status: 'done', labels: ['release', 'shipped'] } }),
      'GATE_UNMET',
    );
    expect(second.details).toMatchObject({ gate: 'acceptance_criteria', summary: 'shipped · criteria 0/1' });
    expect(second.message).toContain('"tests pass"');
  });

  it('reports the summary of every check that applied on a successful done', async () => {
    const x = await task({ labels: ['release', 'shipped'], acceptance_criteria: [{ text: 'a', met: true }, { text: 'b', met: true }] });
    const r = ok(await t.agent.call('task_update', { task_id: x.task_id, patch: { status: 'done' } }));
    expect(r.gate).toEqual({
      summary: 'shipped · criteria 2/2',
      checks: [
        { gate: 'probe', met: true, summary: 'shipped' },
        { gate: 'acceptance_criteria', met: true, summary: 'criteria 2/2' },
      ],
    });
  });

  it('leaves out checks that do not apply, and says so when none does', async () => {
    const x = await task({});
    const r = ok(await t.agent.call('task_update', { task_id: x.task_id, patch: { status: 'done' } }));
    expect(r.gate).toEqual({ summary: 'no checks apply', checks: [] });
  });

  it('reports no gate on moves that do not reach done', async () => {
    const x = await task({ acceptance_criteria: [{ text: 'later', met: false }] });
    const r = ok(await t.agent.call('task_update', { task_id: x.task_id, patch: { status: 'in_review' } }));
    expect(r).not.toHaveProperty('gate');
  });

  it('is extended by a registration alone: removing the check opens the gate', async () => {
    const x = await task({ labels: ['release'] });
    fails(await t.agent.call('task_update', { task_id: x.task_id, patch: { status: 'done' } }), 'GATE_UNMET');
    await db.exec(`delete from bullpen.done_gates where name = 'probe'`);
    const r = ok(await t.agent.call('task_update', { task_id: x.task_id, patch: { status: 'done' } }));
    expect(r.gate.summary).toBe('no checks apply');
  });
});
