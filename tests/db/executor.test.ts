import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../lib/core/execute';
import { registry } from '../../lib/core/registry';
import { assertOutput, fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * The executor between every surface and the RPCs: camelCase aliases, strict validation that names
 * the field, "me", derived and explicit idempotency, and the error envelope.
 */

let db: TestDb;
let t: Tenant;

/** The same actor under another run id: derived idempotency keys differ per run. */
function inRun(actor: Actor, runId: string): Actor {
  const claims = { ...actor.claims, run_id: runId };
  const ctx = { ...actor.ctx, claims };
  return { ...actor, claims, ctx, call: async (tool, input = {}) => assertOutput(tool, await execute(ctx, tool, input)) };
}

async function taskCount(projectId: string): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>('select count(*)::int as n from public.tasks where project_id = $1', [projectId]);
  return n;
}

let projectId: string;

beforeAll(async () => {
  db = await freshDb();
  t = await seedTenant(db);
  projectId = ok(await t.agent.call('project_create', { title: 'Executor', key: 'EXE' })).project_id;
});
afterAll(() => db.drop());

describe('camelCase aliases', () => {
  it('accepts camelCase top-level keys as their snake_case fields', async () => {
    const r = ok(await t.agent.call('task_create', { projectId, title: 'camel top', assigneeActorId: 'me', dueOn: '2030-01-02' }));
    expect(r.task.project_id).toBe(projectId);
    expect(r.task.assignee_actor_id).toBe(t.agent.id);
    expect(r.task.due_on).toBe('2030-01-02');
  });

  it('accepts camelCase keys nested in objects and arrays', async () => {
    const created = ok(await t.agent.call('task_create_many', {
      projectId,
      tasks: [{ title: 'nested a' }, { title: 'nested b', dependsOn: [{ batchIndex: 0 }], requiresEvidence: true }],
    }));
    const b = ok(await t.agent.call('task_get', { taskId: created.task_ids[1] }));
    expect(b.blockers.map((x: any) => x.id)).toEqual([created.task_ids[0]]);
    expect(b.task.requires_evidence).toBe(true);
    const upd = ok(await t.agent.call('task_update', { taskId: created.task_ids[0], patch: { expectedStatus: 'todo', dueOn: '2031-05-06' } }));
    expect(upd.task.due_on).toBe('2031-05-06');
  });

  it('refuses the same field given in both spellings, naming it', async () => {
    const e = fails(await t.agent.call('task_create', { projectId, project_id: projectId, title: 'twice' }), 'VALIDATION_ERROR');
    expect(e.message).toContain('project_id');
    expect(e.details.fields).toEqual(['project_id']);
    const nested = fails(
      await t.agent.call('task_update', { task_id: 'EXE-1', patch: { dueOn: '2030-01-01', due_on: '2030-01-02' } }),
      'VALIDATION_ERROR',
    );
    expect(nested.message).toContain('patch.due_on');
    expect(await taskCount(projectId)).toBe(3);
  });
});

describe('strict validation', () => {
  it('refuses an unknown top-level key and names it', async () => {
    const e = fails(await t.agent.call('task_create', { project_id: projectId, title: 'x', bogus: 1 }), 'VALIDATION_ERROR');
    expect(e.message).toMatch(/unknown key.*\bbogus\b/);
    expect(e.details.fields).toContain('bogus');
    expect(e.retryable).toBe(false);
  });

  it('refuses an unknown nested key and names its path', async () => {
    const e = fails(await t.agent.call('task_update', { task_id: 'EXE-1', patch: { bogus: true } }), 'VALIDATION_ERROR');
    expect(e.message).toContain('patch.bogus');
    expect(e.details.fields).toContain('patch.bogus');
    const inArray = fails(
      await t.agent.call('task_create_many', { project_id: projectId, tasks: [{ title: 'ok' }, { title: 'x', colour: 'red' }] }),
      'VALIDATION_ERROR',
    );
    expect(inArray.message).toContain('tasks[1].colour');
  });

  it.each([
    ['a malformed uuid', 'task_query', { assignee_actor_id: 'not-a-uuid' }, 'assignee_actor_id'],
    ['a malformed project filter', 'project_query', { project_id: 'not a key' }, 'project_id'],
    ['a malformed task reference', 'task_get', { task_id: 'twelve' }, 'task_id'],
    ['an unknown enum value', 'task_query', { status: ['todo', 'sleeping'] }, 'status[1]'],
    ['an unknown order', 'task_query', { order_by: 'title' }, 'order_by'],
    ['an unknown actor kind', 'register_actor', { external_ref: 'x', kind: 'robot' }, 'kind'],
    ['a priority above 4', 'task_create', { project_id: 'EXE', title: 'p', priority: 5 }, 'priority'],
    ['a negative priority', 'task_create', { project_id: 'EXE', title: 'p', priority: -1 }, 'priority'],
    ['a page size of 0', 'task_query', { limit: 0 }, 'limit'],
    ['a page size above the maximum', 'actor_query', { limit: 201 }, 'limit'],
    ['a malformed date', 'task_create', { project_id: 'EXE', title: 'd', due_on: '2030-13-45' }, 'due_on'],
    ['a missing required field', 'task_create', { project_id: 'EXE' }, 'title'],
    ['a wrongly typed field', 'task_create', { project_id: 'EXE', title: 42 }, 'title'],
  ])('refuses %s and names the field (%s)', async (_what, tool, input, field) => {
    const e = fails(await t.agent.call(tool, input), 'VALIDATION_ERROR');
    expect(e.message).toContain(`${field}:`);
    expect(e.details.fields).toContain(field);
  });

  it('refuses an input that is not an object', async () => {
    fails(await t.agent.call('whoami', 'hello'), 'VALIDATION_ERROR');
    fails(await t.agent.call('task_query', [1, 2]), 'VALIDATION_ERROR');
  });

  it('treats a missing input as {}', async () => {
    const r = ok(assertOutput('task_query', await execute(t.agent.ctx, 'task_query', undefined)));
    expect(Array.isArray(r.tasks)).toBe(true);
  });

  it('refuses an unknown tool without throwing', async () => {
    const e = fails(await t.agent.call('task_delete', { task_id: 'EXE-1' }), 'VALIDATION_ERROR');
    expect(e.message).toContain('task_delete');
  });
});

describe('"me"', () => {
  it('resolves in assignee_actor_id', async () => {
    const r = ok(await t.human.call('task_create', { project_id: 'EXE', title: 'mine', assignee_actor_id: 'me' }));
    expect(r.task.assignee_actor_id).toBe(t.human.id);
  });

  it('resolves in actor_id', async () => {
    const task = ok(await t.agent.call('task_create', { project_id: 'EXE', title: 'to assign' }));
    const r = ok(await t.human.call('task_assign', { task_id: task.task_id, actor_id: 'me' }));
    expect(r.task.assignee_actor_id).toBe(t.human.id);
  });

  it('resolves in owner_actor_id, top-level and inside a patch', async () => {
    const p = ok(await t.agent.call('project_create', { title: 'Owned', key: 'OWN', owner_actor_id: 'me' }));
    expect(p.project.owner_actor_id).toBe(t.agent.id);
    const u = ok(await t.human.call('project_update', { project_id: 'OWN', patch: { owner_actor_id: 'me' } }));
    expect(u.project.owner_actor_id).toBe(t.human.id);
    const q = ok(await t.human.call('project_query', { owner_actor_id: 'me' }));
    expect(q.projects.map((x: any) => x.key)).toEqual(['OWN']);
  });

  it('resolves in task_query assignee_actor_id, and "unassigned" selects tasks with no assignee', async () => {
    const mine = ok(await t.human.call('task_query', { project_id: 'EXE', assignee_actor_id: 'me' }));
    expect(mine.tasks.length).toBeGreaterThan(0);
    expect(mine.tasks.every((x: any) => x.assignee_actor_id === t.human.id)).toBe(true);
    const none = ok(await t.human.call('task_query', { project_id: 'EXE', assignee_actor_id: 'unassigned' }));
    expect(none.tasks.length).toBeGreaterThan(0);
    expect(none.tasks.every((x: any) => x.assignee_actor_id === null)).toBe(true);
    const all = ok(await t.human.call('task_query', { project_id: 'EXE', limit: 500 }));
    expect(all.tasks.length).toBeGreaterThan(mine.tasks.length + none.tasks.length - 1);
  });
});

describe('explicit idempotency_key', () => {
  it('replays the first result with idempotent_replay: true and creates nothing new', async () => {
    const input = { project_id: 'EXE', title: 'keyed', idempotency_key: 'exe-key-1' };
    const first = ok(await t.agent.call('task_create', input));
    expect(first.idempotent_replay).toBeUndefined();
    const before = await taskCount(projectId);
    const again = ok(await t.agent.call('task_create', input));
    expect(again.idempotent_replay).toBe(true);
    expect(again.task_id).toBe(first.task_id);
    expect(again.ref).toBe(first.ref);
    expect(again.task).toEqual(first.task);
    expect(await taskCount(projectId)).toBe(before);
  });

  it('replays across runs of the same actor: the key, not the run, names the write', async () => {
    const input = { project_id: 'EXE', title: 'keyed across runs', idempotency_key: 'exe-key-runs' };
    const first = ok(await t.agent.call('task_create', input));
    const again = ok(await inRun(t.agent, 'run-other').call('task_create', input));
    expect(again.idempotent_replay).toBe(true);
    expect(again.task_id).toBe(first.task_id);
  });

  it('refuses the same key with different input (IDEMPOTENCY_CONFLICT) and changes nothing', async () => {
    ok(await t.agent.call('task_create', { project_id: 'EXE', title: 'original', idempotency_key: 'exe-key-2' }));
    const before = await taskCount(projectId);
    const e = fails(await t.agent.call('task_create', { project_id: 'EXE', title: 'different', idempotency_key: 'exe-key-2' }), 'IDEMPOTENCY_CONFLICT');
    expect(e.message).toContain('exe-key-2');
    expect(e.retryable).toBe(false);
    expect(await taskCount(projectId)).toBe(before);
  });

  it('refuses the same key on a different tool (IDEMPOTENCY_CONFLICT)', async () => {
    ok(await t.agent.call('project_create', { title: 'Keyed project', key: 'KEYED', idempotency_key: 'exe-key-3' }));
    fails(await t.agent.call('task_create', { project_id: 'EXE', title: 'x', idempotency_key: 'exe-key-3' }), 'IDEMPOTENCY_CONFLICT');
  });

  it('keeps keys per actor: another actor with the same key makes its own write', async () => {
    const input = { project_id: 'EXE', title: 'same key, two actors', idempotency_key: 'exe-key-4' };
    const a = ok(await t.agent.call('task_create', input));
    const h = ok(await t.human.call('task_create', input));
    expect(h.idempotent_replay).toBeUndefined();
    expect(h.task_id).not.toBe(a.task_id);
  });

  it('does not record a failed call: the same key then works with valid input', async () => {
    fails(await t.agent.call('task_create', { project_id: 'NOPE', title: 'first try', idempotency_key: 'exe-key-5' }), 'NOT_FOUND');
    const r = ok(await t.agent.call('task_create', { project_id: 'EXE', title: 'second try', idempotency_key: 'exe-key-5' }));
    expect(r.idempotent_replay).toBeUndefined();
    expect(r.task.title).toBe('second try');
  });
});

describe('derived idempotency (no key given)', () => {
  it('turns two identical task_create calls in one run into one task', async () => {
    const before = await taskCount(projectId);
    const a = ok(await t.agent.call('task_create', { project_id: 'EXE', title: 'retry me', priority: 1 }));
    const b = ok(await t.agent.call('task_create', { priority: 1, title: 'retry me', project_id: 'EXE' }));
    expect(b.task_id).toBe(a.task_id);
    expect(b.idempotent_replay).toBe(true);
    expect(await taskCount(projectId)).toBe(before + 1);
  });

  it('creates two tasks for the same input from another run of the same actor', async () => {
    const before = await taskCount(projectId);
    const a = ok(await t.agent.call('task_create', { project_id: 'EXE', title: 'per run' }));
    const b = ok(await inRun(t.agent, 'run-second').call('task_create', { project_id: 'EXE', title: 'per run' }));
    expect(b.task_id).not.toBe(a.task_id);
    expect(b.idempotent_replay).toBeUndefined();
    expect(await taskCount(projectId)).toBe(before + 2);
  });

  it('creates two tasks for the same input from two actors', async () => {
    const other = await t.addAgent('derived-other');
    const a = ok(await t.agent.call('task_create', { project_id: 'EXE', title: 'per actor' }));
    const b = ok(await other.call('task_create', { project_id: 'EXE', title: 'per actor' }));
    expect(b.task_id).not.toBe(a.task_id);
  });

  it('creates a new task once the derived window has passed', async () => {
    const a = ok(await t.agent.call('task_create', { project_id: 'EXE', title: 'window' }));
    await db.query(
      `update public.idempotency_keys set expires_at = now() - interval '1 second' where actor_id = $1 and key like 'auto:%'`,
      [t.agent.id],
    );
    const b = ok(await t.agent.call('task_create', { project_id: 'EXE', title: 'window' }));
    expect(b.task_id).not.toBe(a.task_id);
    expect(b.idempotent_replay).toBeUndefined();
  });

  it('applies A → B → A by the same actor: a repeat that follows a change is never swallowed', async () => {
    const task = ok(await t.agent.call('task_create', { project_id: 'EXE', title: 'toggled' }));
    const b1 = ok(await t.agent.call('task_update', { task_id: task.task_id, patch: { status: 'blocked' } }));
    const a1 = ok(await t.agent.call('task_update', { task_id: task.task_id, patch: { status: 'todo' } }));
    const b2 = ok(await t.agent.call('task_update', { task_id: task.task_id, patch: { status: 'blocked' } }));
    expect([b1.previous_status, a1.previous_status, b2.previous_status]).toEqual(['todo', 'blocked', 'todo']);
    expect(b2.idempotent_replay).toBeUndefined();
    expect(ok(await t.agent.call('task_get', { task_id: task.task_id })).task.status).toBe('blocked');
    const moves = await db.query<{ n: number }>(
      `select count(*)::int as n from public.activity where object_id = $1 and verb = 'task.status_changed'`,
      [task.task_id],
    );
    expect(moves[0].n).toBe(3);
  });

  it('applies a repeat after someone else changed the object in between', async () => {
    const task = ok(await t.agent.call('task_create', { project_id: 'EXE', title: 'shared toggle' }));
    ok(await t.agent.call('task_update', { task_id: task.task_id, patch: { status: 'blocked' } }));
    ok(await t.human.call('task_update', { task_id: task.task_id, patch: { status: 'todo' } }));
    const repeat = ok(await t.agent.call('task_update', { task_id: task.task_id, patch: { status: 'blocked' } }));
    expect(repeat.idempotent_replay).toBeUndefined();
    expect(repeat.previous_status).toBe('todo');
    expect(ok(await t.agent.call('task_get', { task_id: task.task_id })).task.status).toBe('blocked');
  });

  it('still replays a retry after a lost response: one effect while nothing changed the object', async () => {
    const task = ok(await t.agent.call('task_create', { project_id: 'EXE', title: 'lost reply' }));
    const first = ok(await t.agent.call('task_update', { task_id: task.task_id, patch: { priority: 0 } }));
    const retry = ok(await t.agent.call('task_update', { task_id: task.task_id, patch: { priority: 0 } }));
    expect(retry.idempotent_replay).toBe(true);
    expect(retry.task.updated_at).toBe(first.task.updated_at);
    const updates = await db.query<{ n: number }>(
      `select count(*)::int as n from public.activity where object_id = $1 and verb = 'task.updated'`,
      [task.task_id],
    );
    expect(updates[0].n).toBe(1);
  });

  it('keeps explicit keys on Stripe semantics: same key replays even after a change, other input conflicts', async () => {
    const task = ok(await t.agent.call('task_create', { project_id: 'EXE', title: 'keyed toggle' }));
    ok(await t.agent.call('task_update', { task_id: task.task_id, patch: { status: 'blocked' }, idempotency_key: 'exe-k1' }));
    ok(await t.agent.call('task_update', { task_id: task.task_id, patch: { status: 'todo' } }));
    const replay = ok(await t.agent.call('task_update', { task_id: task.task_id, patch: { status: 'blocked' }, idempotency_key: 'exe-k1' }));
    expect(replay.idempotent_replay).toBe(true);
    expect(ok(await t.agent.call('task_get', { task_id: task.task_id })).task.status).toBe('todo');
    fails(await t.agent.call('task_update', { task_id: task.task_id, patch: { status: 'backlog' }, idempotency_key: 'exe-k1' }), 'IDEMPOTENCY_CONFLICT');
  });

  it('never derives a key for task_claim: two claims without task_id take two different tasks', async () => {
    const p = ok(await t.agent.call('project_create', { title: 'Claim pool', key: 'CLP' }));
    ok(await t.agent.call('task_create_many', { project_id: 'CLP', tasks: [{ title: 'one', labels: ['clp'] }, { title: 'two', labels: ['clp'] }] }));
    const a = ok(await t.agent.call('task_claim', { project_id: 'CLP' }));
    const b = ok(await t.agent.call('task_claim', { project_id: 'CLP' }));
    expect(a.claimed).toBe(true);
    expect(b.claimed).toBe(true);
    expect(b.idempotent_replay).toBeUndefined();
    expect(b.task.id).not.toBe(a.task.id);
    expect(p.project_id).toBe(a.task.project_id);
  });
});

describe('authentication', () => {
  const inputs: Record<string, unknown> = {
    whoami: {},
    register_actor: { external_ref: 'anon', kind: 'agent' },
    actor_query: {},
    project_create: { title: 'anon' },
    project_update: { project_id: 'EXE', patch: {} },
    project_query: {},
    project_brief: { project: 'EXE' },
    task_create: { project_id: 'EXE', title: 'anon' },
    task_create_many: { project_id: 'EXE', tasks: [{ title: 'anon' }] },
    task_update: { task_id: 'EXE-1', patch: {} },
    task_assign: { task_id: 'EXE-1', actor_id: null },
    task_query: {},
    task_get: { task_id: 'EXE-1' },
    task_link: { task_id: 'EXE-1' },
    task_claim: {},
    task_release: { task_id: 'EXE-1' },
  };

  it.each(Object.keys(inputs))('%s refuses claims without an actor (UNAUTHENTICATED)', async (name) => {
    expect(registry.some((tool) => tool.name === name && !tool.run)).toBe(true);
    const ctx = { db, claims: { ...t.agent.claims, actor_id: '', sub: '' } };
    const e = fails(await execute(ctx, name, inputs[name]), 'UNAUTHENTICATED');
    expect(e.retryable).toBe(false);
  });
});
