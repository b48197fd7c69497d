import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../lib/db/types';
import { runWorkflowSchedules } from '../../lib/jobs/workflows';
import { ok, reopenableDb, seedTenant, type Tenant } from '../helpers/db';

/**
 * Scheduled workflows on a real Postgres server with two schedulers racing, as two `bullpen start`
 * instances would (each its own pool): every workflow's cron slot starts exactly one instance, with
 * exactly one set of tasks, however the two interleave. Runs in the pg project only.
 */

let handle: Awaited<ReturnType<typeof reopenableDb>>;
let A: Db;
let B: Db;
let T: Tenant;
const WORKFLOWS = 12;
const SLOTS = 6;

beforeAll(async () => {
  handle = await reopenableDb();
  A = await handle.open();
  B = await handle.open();
  T = await seedTenant(A, 'wf-race');
  ok(await T.human.call('project_create', { title: 'Cron', key: 'CRN' }));
  for (let i = 0; i < WORKFLOWS; i++) {
    ok(await T.human.call('workflow_create', {
      name: `every hour ${i}`,
      definition: { steps: [{ key: 'a', title: `A ${i}` }, { key: 'b', title: `B ${i}`, depends_on: ['a'] }], trigger: { on: 'schedule', cron: '0 * * * *', project_id: 'CRN' } },
    }));
  }
});
afterAll(async () => {
  await A?.close();
  await B?.close();
  await handle?.drop();
});

describe('two schedulers racing', () => {
  it('start each workflow’s slot once', async () => {
    const base = Date.now() + 3_600_000;
    const startedA: string[] = [];
    const startedB: string[] = [];
    for (let s = 0; s < SLOTS; s++) {
      const at = new Date(base + s * 3_600_000);
      // each instance runs its pass twice over, at the same moment as the other's
      const [a1, b1, a2, b2] = await Promise.all([
        runWorkflowSchedules(A, at), runWorkflowSchedules(B, at), runWorkflowSchedules(A, at), runWorkflowSchedules(B, at),
      ]);
      startedA.push(...a1, ...a2);
      startedB.push(...b1, ...b2);
    }
    const all = [...startedA, ...startedB];
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(WORKFLOWS * SLOTS);
    const [{ n, slots }] = await A.query<{ n: number; slots: number }>(
      `select count(*)::int as n, count(distinct (workflow_id, scheduled_for))::int as slots from public.workflow_instances where tenant_id = $1`,
      [T.id],
    );
    expect({ n, slots }).toEqual({ n: WORKFLOWS * SLOTS, slots: WORKFLOWS * SLOTS });
    const [{ tasks }] = await A.query<{ tasks: number }>(
      `select count(*)::int as tasks from public.tasks where tenant_id = $1 and workflow_instance_id is not null`,
      [T.id],
    );
    expect(tasks).toBe(WORKFLOWS * SLOTS * 2);
    console.log(`[workflow-schedule-race] ${all.length} slots started once each: ${startedA.length} by A, ${startedB.length} by B`);
  });
});
