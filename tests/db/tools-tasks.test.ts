import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * task_create, task_create_many, task_update (the state machine and the done gate), task_assign,
 * task_query, task_get and task_link: happy paths and every error code each can return.
 * (task_claim and task_release live in tools-claim.test.ts.)
 */

let db: TestDb;
beforeAll(async () => {
  db = await freshDb();
});
afterAll(() => db.drop());

let titles = 0;
/** A task with a unique title, so derived idempotency never merges two test tasks. */
async function newTask(actor: Actor, project: string, input: Record<string, unknown> = {}): Promise<Record<string, any>> {
  return ok(await actor.call('task_create', { project_id: project, title: `task ${++titles}`, ...input }));
}

async function projectTaskCount(projectId: string): Promise<{ rows: number; seq: number }> {
  const [r] = await db.query<{ rows: number; seq: number }>(
    'select (select count(*)::int from public.tasks where project_id = $1) as rows, task_seq as seq from public.projects where id = $1',
    [projectId],
  );
  return r;
}

describe('task_create', () => {
  let t: Tenant;
  let projectId: string;
  beforeAll(async () => {
    t = await seedTenant(db);
    projectId = ok(await t.human.call('project_create', { title: 'Create', key: 'CR' })).project_id;
  });

  it('creates a ready todo task with defaults and returns {task, task_id, seq, ref}', async () => {
    const r = ok(await t.agent.call('task_create', { project_id: 'CR', title: 'first' }));
    expect(r).toMatchObject({ task_id: r.task.id, seq: 1, ref: 'CR-1' });
    expect(r.task).toMatchObject({
      project_id: projectId, project_key: 'CR', ref: 'CR-1', seq: 1, title: 'first', body: '', status: 'todo', priority: 2,
      assignee_actor_id: null, due_on: null, parent_task_id: null, labels: [], acceptance_criteria: [], requires_evidence: false,
      reviewer_actor_id: null, created_by_actor_id: t.agent.id, ready: true, open_blockers: 0, criteria_met: 0, criteria_total: 0,
      lease: null, started_at: null, completed_at: null,
    });
    expect(r.task).not.toHaveProperty('tenant_id');
    const log = await db.query<{ verb: string; summary: string }>('select verb, summary from public.activity where object_id = $1', [r.task_id]);
    expect(log).toEqual([{ verb: 'task.created', summary: 'CR-1 first' }]);
  });

  it('numbers tasks per project and finds the project by key in any case or by uuid', async () => {
    const a = ok(await t.agent.call('task_create', { project_id: 'cr', title: 'by lower key' }));
    const b = ok(await t.agent.call('task_create', { project_id: projectId, title: 'by uuid' }));
    expect([a.ref, b.ref]).toEqual(['CR-2', 'CR-3']);
    const other = ok(await t.human.call('project_create', { title: 'Other', key: 'OT' }));
    expect(ok(await t.agent.call('task_create', { project_id: other.project_id, title: 'elsewhere' })).ref).toBe('OT-1');
  });

  it('stores every optional field, normalising criteria to {text, met}', async () => {
    const r = ok(await t.agent.call('task_create', {
      project_id: 'CR', title: 'full', body: '## body', assignee_actor_id: t.human.id, priority: 0, due_on: '2030-02-03',
      labels: ['api', 'db'], acceptance_criteria: ['tests pass', { text: 'docs', met: true }, { text: 'review' }],
      requires_evidence: true, reviewer_actor_id: 'me', status: 'backlog',
    }));
    expect(r.task).toMatchObject({
      body: '## body', assignee_actor_id: t.human.id, priority: 0, due_on: '2030-02-03', labels: ['api', 'db'],
      acceptance_criteria: [{ text: 'tests pass', met: false }, { text: 'docs', met: true }, { text: 'review', met: false }],
      requires_evidence: true, reviewer_actor_id: t.agent.id, status: 'backlog', ready: false, criteria_met: 1, criteria_total: 3,
    });
  });

  it('makes a subtask with parent_task_id and wires depends_on by reference or uuid', async () => {
    const parent = await newTask(t.agent, 'CR');
    const dep1 = await newTask(t.agent, 'CR');
    const dep2 = await newTask(t.agent, 'CR');
    const r = ok(await t.agent.call('task_create', {
      project_id: 'CR', title: 'child', parent_task_id: parent.ref, depends_on: [dep1.ref, dep2.task_id, dep1.task_id],
    }));
    expect(r.task).toMatchObject({ parent_task_id: parent.task_id, open_blockers: 2, ready: false });
    const g = ok(await t.agent.call('task_get', { task_id: r.task_id }));
    expect(g.blockers.map((x: any) => x.id).sort()).toEqual([dep1.task_id, dep2.task_id].sort());
  });

  it.each([
    ['an unknown project key', { project_id: 'NOPE' }, 'project_id'],
    ['an unknown project uuid', { project_id: randomUUID() }, 'project_id'],
    ['an unknown parent', { project_id: 'CR', parent_task_id: 'CR-999' }, 'parent_task_id'],
    ['an unknown dependency', { project_id: 'CR', depends_on: ['CR-1', randomUUID()] }, 'depends_on[1]'],
    ['an unknown assignee', { project_id: 'CR', assignee_actor_id: randomUUID() }, 'assignee_actor_id'],
    ['an unknown reviewer', { project_id: 'CR', reviewer_actor_id: randomUUID() }, 'reviewer_actor_id'],
  ])('refuses %s (NOT_FOUND naming the field) and creates nothing', async (_what, input, field) => {
    const before = await projectTaskCount(projectId);
    const e = fails(await t.agent.call('task_create', { title: 'nope', ...input }), 'NOT_FOUND');
    expect(e.message).toContain(`${field}:`);
    expect(await projectTaskCount(projectId)).toEqual(before);
  });

  it('refuses another workspace’s project, task or actor as NOT_FOUND', async () => {
    const o = await seedTenant(db);
    ok(await o.agent.call('project_create', { title: 'Theirs', key: 'CR' }));
    const theirs = await newTask(o.agent, 'CR');
    fails(await t.agent.call('task_create', { project_id: 'CR', title: 'x', depends_on: [theirs.task_id] }), 'NOT_FOUND');
    fails(await t.agent.call('task_create', { project_id: 'CR', title: 'x', parent_task_id: theirs.task_id }), 'NOT_FOUND');
    fails(await t.agent.call('task_create', { project_id: 'CR', title: 'x', assignee_actor_id: o.agent.id }), 'NOT_FOUND');
    // the same key in the other workspace is its own project
    expect(ok(await o.agent.call('task_get', { task_id: 'CR-1' })).task.id).toBe(theirs.task_id);
  });

  it.each([
    ['a status other than todo or backlog', { status: 'in_progress' }, 'status'],
    ['a title over 500 characters', { title: 'x'.repeat(501) }, 'title'],
    ['more than 20 labels', { labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }, 'labels'],
    ['an empty label', { labels: [''] }, 'labels[0]'],
    ['a criterion with an unknown key', { acceptance_criteria: [{ text: 'a', done: true }] }, 'acceptance_criteria[0]'],
    ['a malformed dependency reference', { depends_on: ['first task'] }, 'depends_on[0]'],
    ['a batch_index outside a batch', { depends_on: [{ batch_index: 0 }] }, 'depends_on[0]'],
  ])('refuses %s (VALIDATION_ERROR)', async (_what, input, field) => {
    const e = fails(await t.agent.call('task_create', { project_id: 'CR', title: 'v', ...input }), 'VALIDATION_ERROR');
    expect(e.message).toContain(field);
  });

  it('refuses a reused idempotency_key with other input (IDEMPOTENCY_CONFLICT)', async () => {
    const a = ok(await t.agent.call('task_create', { project_id: 'CR', title: 'keyed', idempotency_key: 'tc-1' }));
    const b = ok(await t.agent.call('task_create', { project_id: 'CR', title: 'keyed', idempotency_key: 'tc-1' }));
    expect(b).toMatchObject({ idempotent_replay: true, task_id: a.task_id, ref: a.ref });
    fails(await t.agent.call('task_create', { project_id: 'CR', title: 'keyed', priority: 0, idempotency_key: 'tc-1' }), 'IDEMPOTENCY_CONFLICT');
  });
});

describe('task_create_many', () => {
  let t: Tenant;
  let projectId: string;
  beforeAll(async () => {
    t = await seedTenant(db);
    projectId = ok(await t.human.call('project_create', { title: 'Many', key: 'MANY' })).project_id;
  });

  it('creates the items in input order and returns {count, task_ids, tasks, project_id}', async () => {
    const r = ok(await t.agent.call('task_create_many', {
      project_id: 'many',
      tasks: [{ title: 'm1', priority: 1 }, { title: 'm2', labels: ['x'] }, { title: 'm3', status: 'backlog' }],
    }));
    expect(r.count).toBe(3);
    expect(r.project_id).toBe(projectId);
    expect(r.tasks).toEqual(r.task_ids.map((id: string, i: number) => ({ task_id: id, seq: i + 1, ref: `MANY-${i + 1}` })));
    const rows = await db.query<{ id: string; title: string; seq: number }>(
      'select id, title, seq from public.tasks where project_id = $1 order by seq', [projectId]);
    expect(rows.map((x) => [x.id, x.title])).toEqual([[r.task_ids[0], 'm1'], [r.task_ids[1], 'm2'], [r.task_ids[2], 'm3']]);
  });

  it('wires batch_index dependencies and references to existing tasks together', async () => {
    const existing = await newTask(t.agent, 'MANY');
    const r = ok(await t.agent.call('task_create_many', {
      project_id: 'MANY',
      tasks: [
        { title: 'design' },
        { title: 'build', depends_on: [{ batch_index: 0 }, existing.ref] },
        { title: 'ship', depends_on: [{ batch_index: 1 }, { batch_index: 0 }] },
      ],
    }));
    const deps = await db.query<{ task_id: string; depends_on_task_id: string }>(
      'select task_id, depends_on_task_id from public.task_dependencies where task_id = any ($1::uuid[])', [r.task_ids]);
    const edges = deps.map((d) => `${r.task_ids.indexOf(d.task_id)}->${d.depends_on_task_id === existing.task_id ? 'existing' : r.task_ids.indexOf(d.depends_on_task_id)}`);
    expect(edges.sort()).toEqual(['1->0', '1->existing', '2->0', '2->1']);
    const q = ok(await t.agent.call('task_query', { project_id: 'MANY', state: 'ready', q: 'design' }));
    expect(q.tasks.map((x: any) => x.id)).toEqual([r.task_ids[0]]);
  });

  it('accepts 100 items in one call', async () => {
    const p = ok(await t.human.call('project_create', { title: 'Hundred', key: 'HUN' }));
    const r = ok(await t.agent.call('task_create_many', {
      project_id: 'HUN',
      tasks: Array.from({ length: 100 }, (_, i) => ({ title: `h${i}`, ...(i > 0 ? { depends_on: [{ batch_index: i - 1 }] } : {}) })),
    }));
    expect(r.count).toBe(100);
    expect(r.tasks.at(-1).ref).toBe('HUN-100');
    expect(await projectTaskCount(p.project_id)).toEqual({ rows: 100, seq: 100 });
  });

  it('refuses 101 items or none (VALIDATION_ERROR naming tasks) and creates nothing', async () => {
    const before = await projectTaskCount(projectId);
    const e = fails(await t.agent.call('task_create_many', {
      project_id: 'MANY', tasks: Array.from({ length: 101 }, (_, i) => ({ title: `over ${i}` })),
    }), 'VALIDATION_ERROR');
    expect(e.message).toContain('tasks');
    fails(await t.agent.call('task_create_many', { project_id: 'MANY', tasks: [] }), 'VALIDATION_ERROR');
    expect(await projectTaskCount(projectId)).toEqual(before);
  });

  it.each([
    ['a forward batch_index', 2, 'batch_index 2'],
    ['a self batch_index', 1, 'batch_index 1'],
    ['a batch_index past the end', 7, 'batch_index 7'],
  ])('refuses %s (VALIDATION_ERROR) and creates nothing at all', async (_what, index, text) => {
    const before = await projectTaskCount(projectId);
    const e = fails(await t.agent.call('task_create_many', {
      project_id: 'MANY',
      tasks: [{ title: `ok a ${index}` }, { title: 'bad', depends_on: [{ batch_index: 0 }, { batch_index: index }] }, { title: `ok c ${index}` }],
    }), 'VALIDATION_ERROR');
    expect(e.message).toContain('tasks[1].depends_on[1]');
    expect(e.message).toContain(text);
    expect(await projectTaskCount(projectId)).toEqual(before);
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.activity where project_id = $1 and summary like '%ok a ${index}'`, [projectId]);
    expect(n).toBe(0);
  });

  it('refuses a batch_index above 99 (VALIDATION_ERROR)', async () => {
    const e = fails(await t.agent.call('task_create_many', {
      project_id: 'MANY', tasks: [{ title: 'a' }, { title: 'b', depends_on: [{ batch_index: 100 }] }],
    }), 'VALIDATION_ERROR');
    expect(e.message).toContain('tasks[1].depends_on[0]');
  });

  it('refuses an unknown reference in any item (NOT_FOUND naming the item) and creates nothing', async () => {
    const before = await projectTaskCount(projectId);
    const e = fails(await t.agent.call('task_create_many', {
      project_id: 'MANY',
      tasks: [{ title: 'fine' }, { title: 'fine too' }, { title: 'bad ref', depends_on: ['MANY-9999'] }],
    }), 'NOT_FOUND');
    expect(e.message).toContain('tasks[2].depends_on[0]');
    const e2 = fails(await t.agent.call('task_create_many', {
      project_id: 'MANY', tasks: [{ title: 'fine' }, { title: 'bad assignee', assignee_actor_id: randomUUID() }],
    }), 'NOT_FOUND');
    expect(e2.message).toContain('tasks[1].assignee_actor_id');
    expect(await projectTaskCount(projectId)).toEqual(before);
  });

  it('refuses an unknown project (NOT_FOUND)', async () => {
    fails(await t.agent.call('task_create_many', { project_id: 'NOPE', tasks: [{ title: 'x' }] }), 'NOT_FOUND');
  });

  it('refuses an invalid item and names its index (VALIDATION_ERROR)', async () => {
    const e = fails(await t.agent.call('task_create_many', { project_id: 'MANY', tasks: [{ title: 'a' }, { priority: 1 }] }), 'VALIDATION_ERROR');
    expect(e.message).toContain('tasks[1].title');
  });

  it('replays an explicit key and refuses it with another batch (IDEMPOTENCY_CONFLICT)', async () => {
    const input = { project_id: 'MANY', tasks: [{ title: 'k1' }, { title: 'k2' }], idempotency_key: 'tcm-1' };
    const a = ok(await t.agent.call('task_create_many', input));
    const before = await projectTaskCount(projectId);
    const b = ok(await t.agent.call('task_create_many', input));
    expect(b).toMatchObject({ idempotent_replay: true, task_ids: a.task_ids });
    expect(await projectTaskCount(projectId)).toEqual(before);
    fails(await t.agent.call('task_create_many', { ...input, tasks: [{ title: 'k1' }] }), 'IDEMPOTENCY_CONFLICT');
  });
});

type Status = 'backlog' | 'todo' | 'in_progress' | 'in_review' | 'blocked' | 'done' | 'failed' | 'cancelled' | 'skipped';
const STATUSES: Status[] = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done', 'failed', 'cancelled', 'skipped'];
const ALLOWED: Record<Status, Status[]> = {
  backlog: ['todo', 'in_progress', 'cancelled', 'skipped'],
  todo: ['in_progress', 'blocked', 'backlog', 'cancelled', 'skipped'],
  in_progress: ['in_review', 'done', 'todo', 'failed', 'blocked', 'cancelled'],
  in_review: ['done', 'todo', 'in_review', 'failed', 'cancelled'],
  done: ['todo'],
  failed: ['todo', 'backlog', 'cancelled'],
  blocked: ['todo', 'backlog', 'cancelled'],
  cancelled: ['backlog', 'todo'],
  skipped: ['backlog', 'todo'],
};
/** Moves after creation (todo, or backlog) that bring a fresh task to each status. */
const PATH: Record<Status, Status[]> = {
  backlog: [],
  todo: [],
  in_progress: ['in_progress'],
  in_review: ['in_progress', 'in_review'],
  done: ['in_progress', 'done'],
  failed: ['in_progress', 'failed'],
  blocked: ['blocked'],
  cancelled: ['cancelled'],
  skipped: ['skipped'],
};
const REOPEN: Status[] = ['done', 'cancelled'];

describe('task_update', () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant(db);
    ok(await t.human.call('project_create', { title: 'States', key: 'ST' }));
  });

  async function taskIn(status: Status, input: Record<string, unknown> = {}): Promise<string> {
    const r = await newTask(t.agent, 'ST', { status: status === 'backlog' ? 'backlog' : 'todo', ...input });
    for (const s of PATH[status]) ok(await t.agent.call('task_update', { task_id: r.task_id, patch: { status: s } }));
    const g = ok(await t.agent.call('task_get', { task_id: r.task_id }));
    expect(g.task.status).toBe(status);
    return r.task_id;
  }

  it('changes only the named fields and returns {task, previous_status, changed}', async () => {
    const id = await taskIn('todo', { body: 'old body', due_on: '2030-01-01', labels: ['a'], assignee_actor_id: t.human.id, priority: 3 });
    const r = ok(await t.agent.call('task_update', {
      task_id: id, patch: { title: 'renamed', priority: 1, labels: ['b', 'c'], requires_evidence: true, reviewer_actor_id: t.agent.id },
    }));
    expect(r.previous_status).toBe('todo');
    expect(r.changed).toEqual(['labels', 'priority', 'requires_evidence', 'reviewer_actor_id', 'title']);
    expect(r.task).toMatchObject({
      title: 'renamed', priority: 1, labels: ['b', 'c'], requires_evidence: true, reviewer_actor_id: t.agent.id,
      body: 'old body', due_on: '2030-01-01', assignee_actor_id: t.human.id, status: 'todo',
    });
    const [log] = await db.query<{ verb: string }>('select verb from public.activity where object_id = $1 order by id desc limit 1', [id]);
    expect(log.verb).toBe('task.updated');
  });

  it('logs a changed checklist with its tally (criteria_met of criteria_total), so a timeline can say it in words', async () => {
    const id = await taskIn('todo', { acceptance_criteria: ['one', 'two', 'three'] });
    ok(await t.agent.call('task_update', { task_id: id, patch: { acceptance_criteria: [{ text: 'one', met: true }, { text: 'two', met: true }, { text: 'three', met: false }] } }));
    const [log] = await db.query<{ verb: string; metadata: Record<string, unknown> }>('select verb, metadata from public.activity where object_id = $1 order by id desc limit 1', [id]);
    expect(log).toMatchObject({ verb: 'task.updated', metadata: { fields: ['acceptance_criteria'], criteria_met: 2, criteria_total: 3 } });
    ok(await t.agent.call('task_update', { task_id: id, patch: { title: 'no tally' } }));
    const [plain] = await db.query<{ metadata: Record<string, unknown> }>('select metadata from public.activity where object_id = $1 order by id desc limit 1', [id]);
    expect(plain.metadata).toEqual({ fields: ['title'] });
  });

  it('clears body, due date, assignee and reviewer with null', async () => {
    const id = await taskIn('todo', { body: 'b', due_on: '2030-01-01', assignee_actor_id: t.human.id, reviewer_actor_id: t.agent.id });
    const r = ok(await t.agent.call('task_update', {
      task_id: id, patch: { body: null, due_on: null, assignee_actor_id: null, reviewer_actor_id: null },
    }));
    expect(r.task).toMatchObject({ body: '', due_on: null, assignee_actor_id: null, reviewer_actor_id: null });
  });

  it('finds the task by KEY-N, KEY#N and lower-case key', async () => {
    const r = await newTask(t.agent, 'ST');
    ok(await t.agent.call('task_update', { task_id: `ST-${r.seq}`, patch: { priority: 4 } }));
    ok(await t.agent.call('task_update', { task_id: `st#${r.seq}`, patch: { priority: 3 } }));
    expect(ok(await t.agent.call('task_get', { task_id: r.task_id })).task.priority).toBe(3);
  });

  describe('the transition table', () => {
    const cases = STATUSES.flatMap((from) => STATUSES.filter((to) => to !== from).map((to) => [from, to] as const));
    const allowed = cases.filter(([from, to]) => ALLOWED[from].includes(to));
    const forbidden = cases.filter(([from, to]) => !ALLOWED[from].includes(to));

    it('has every pair of distinct statuses covered', () => {
      expect(cases).toHaveLength(72);
      expect(allowed.length + forbidden.length).toBe(72);
      expect(allowed).toHaveLength(30);
    });

    it.each(allowed.filter(([from]) => !REOPEN.includes(from)))('allows %s → %s', async (from, to) => {
      const id = await taskIn(from);
      const r = ok(await t.agent.call('task_update', { task_id: id, patch: { status: to } }));
      expect(r.previous_status).toBe(from);
      expect(r.task.status).toBe(to);
      const [log] = await db.query<{ verb: string; metadata: any }>(
        'select verb, metadata from public.activity where object_id = $1 order by id desc limit 1', [id]);
      expect(log).toMatchObject({ verb: 'task.status_changed', metadata: { from, to } });
    });

    it.each(allowed.filter(([from]) => REOPEN.includes(from)))('allows %s → %s only with allow_reopen', async (from, to) => {
      const id = await taskIn(from);
      const e = fails(await t.agent.call('task_update', { task_id: id, patch: { status: to } }), 'INVALID_TRANSITION');
      expect(e.message).toContain('allow_reopen');
      expect(e.hint).toContain('allow_reopen');
      expect(ok(await t.agent.call('task_get', { task_id: id })).task.status).toBe(from);
      const r = ok(await t.agent.call('task_update', { task_id: id, patch: { status: to, allow_reopen: true } }));
      expect(r.task).toMatchObject({ status: to, completed_at: null });
      expect(r.changed).toEqual(['status']);
    });

    it.each(forbidden)('refuses %s → %s (INVALID_TRANSITION listing the allowed moves)', async (from, to) => {
      const id = await taskIn(from);
      const e = fails(await t.agent.call('task_update', { task_id: id, patch: { status: to, allow_reopen: true } }), 'INVALID_TRANSITION');
      expect(e.message).toBe(`cannot move a task from ${from} to ${to}`);
      expect(e.hint).toBe(`from ${from} a task may move to: ${ALLOWED[from].join(', ')}`);
      expect(e.details).toEqual({ from, to, allowed: ALLOWED[from] });
      expect(e.retryable).toBe(false);
      expect(ok(await t.agent.call('task_get', { task_id: id })).task.status).toBe(from);
    });

    it.each(STATUSES)('accepts %s → the same status as a no-op', async (s) => {
      const id = await taskIn(s);
      // a fresh key: the same patch within the derived window would replay the move that got here
      const r = ok(await t.agent.call('task_update', { task_id: id, patch: { status: s }, idempotency_key: `same-${s}` }));
      expect(r.idempotent_replay).toBeUndefined();
      expect(r.task.status).toBe(s);
      expect(r.previous_status).toBe(s);
    });
  });

  it('stamps started_at entering in_progress and completed_at on done, failed and cancelled', async () => {
    const id = await taskIn('todo');
    const started = ok(await t.agent.call('task_update', { task_id: id, patch: { status: 'in_progress' } })).task;
    expect(started.started_at).not.toBeNull();
    expect(started.completed_at).toBeNull();
    const done = ok(await t.agent.call('task_update', { task_id: id, patch: { status: 'done' } })).task;
    expect(done.completed_at).not.toBeNull();
    expect(done.started_at).toBe(started.started_at);
    for (const s of ['failed', 'cancelled'] as Status[]) {
      expect(ok(await t.agent.call('task_get', { task_id: await taskIn(s) })).task.completed_at).not.toBeNull();
    }
  });

  it('ends the lease when the task leaves in_progress', async () => {
    const r = await newTask(t.agent, 'ST');
    const claim = ok(await t.agent.call('task_claim', { task_id: r.task_id }));
    expect(claim.task.lease).toMatchObject({ actor_id: t.agent.id, live: true });
    const u = ok(await t.agent.call('task_update', { task_id: r.task_id, patch: { status: 'in_review' } }));
    expect(u.task.lease).toBeNull();
    const [row] = await db.query('select lease_actor_id, lease_expires_at from public.tasks where id = $1', [r.task_id]);
    expect(row).toEqual({ lease_actor_id: null, lease_expires_at: null });
  });

  it('ends the lease when the task is handed to someone else, and keeps it for the holder', async () => {
    const r = await newTask(t.agent, 'ST');
    ok(await t.agent.call('task_claim', { task_id: r.task_id }));
    const same = ok(await t.agent.call('task_update', { task_id: r.task_id, patch: { assignee_actor_id: 'me', priority: 1 } }));
    expect(same.task.lease).toMatchObject({ actor_id: t.agent.id });
    const other = ok(await t.agent.call('task_update', { task_id: r.task_id, patch: { assignee_actor_id: t.human.id } }));
    expect(other.task).toMatchObject({ lease: null, assignee_actor_id: t.human.id, status: 'in_progress' });
  });

  describe('the done gate', () => {
    it('refuses done while a criterion is unmet, naming the first unmet one (GATE_UNMET)', async () => {
      const id = await taskIn('in_progress', { acceptance_criteria: [{ text: 'docs', met: true }, 'tests pass', 'reviewed'] });
      const e = fails(await t.agent.call('task_update', { task_id: id, patch: { status: 'done' } }), 'GATE_UNMET');
      expect(e.message).toBe('acceptance criterion not met: "tests pass" (2 of 3 unmet)');
      expect(e.details).toMatchObject({ gate: 'acceptance_criteria', criterion: 'tests pass' });
      expect(e.hint).toContain('acceptance_criteria');
      expect(e.retryable).toBe(false);
      expect(ok(await t.agent.call('task_get', { task_id: id })).task.status).toBe('in_progress');
    });

    it('names the next unmet criterion when some are marked met in the same call, and saves nothing', async () => {
      const id = await taskIn('in_review', { acceptance_criteria: ['tests pass', 'reviewed'] });
      const e = fails(await t.agent.call('task_update', {
        task_id: id, patch: { status: 'done', acceptance_criteria: [{ text: 'tests pass', met: true }, { text: 'reviewed', met: false }] },
      }), 'GATE_UNMET');
      expect(e.details.criterion).toBe('reviewed');
      expect(e.message).toContain('(1 of 2 unmet)');
      const g = ok(await t.agent.call('task_get', { task_id: id }));
      expect(g.task).toMatchObject({ status: 'in_review', criteria_met: 0 });
    });

    it('closes when the same call marks every criterion met', async () => {
      const id = await taskIn('in_progress', { acceptance_criteria: ['tests pass', 'reviewed'] });
      const r = ok(await t.agent.call('task_update', {
        task_id: id, patch: { status: 'done', acceptance_criteria: [{ text: 'tests pass', met: true }, { text: 'reviewed', met: true }] },
      }));
      expect(r.task).toMatchObject({ status: 'done', criteria_met: 2, criteria_total: 2 });
      expect(r.changed).toEqual(['acceptance_criteria', 'status']);
    });

    it('refuses un-meeting a criterion on a done task', async () => {
      const id = await taskIn('in_progress', { acceptance_criteria: [{ text: 'ok', met: true }] });
      ok(await t.agent.call('task_update', { task_id: id, patch: { status: 'done' } }));
      const e = fails(await t.agent.call('task_update', { task_id: id, patch: { acceptance_criteria: ['ok', 'new requirement'] } }), 'GATE_UNMET');
      expect(e.details.criterion).toBe('ok');
    });

    it('lets a task with unmet criteria move anywhere but done', async () => {
      const id = await taskIn('in_progress', { acceptance_criteria: ['later'] });
      ok(await t.agent.call('task_update', { task_id: id, patch: { status: 'in_review' } }));
      ok(await t.agent.call('task_update', { task_id: id, patch: { status: 'failed' } }));
    });
  });

  describe('expected_status', () => {
    it('refuses the update when the task moved (CONFLICT with details.current_status) and changes nothing', async () => {
      const id = await taskIn('in_progress');
      const e = fails(await t.agent.call('task_update', { task_id: id, patch: { status: 'done', title: 'x', expected_status: 'todo' } }), 'CONFLICT');
      expect(e.details).toEqual({ current_status: 'in_progress' });
      expect(e.message).toContain('in_progress');
      expect(e.retryable).toBe(true);
      const g = ok(await t.agent.call('task_get', { task_id: id }));
      expect(g.task.status).toBe('in_progress');
      expect(g.task.title).not.toBe('x');
    });

    it('applies the update when the status is as expected', async () => {
      const id = await taskIn('in_progress');
      const r = ok(await t.agent.call('task_update', { task_id: id, patch: { status: 'done', expected_status: 'in_progress' } }));
      expect(r.task.status).toBe('done');
      expect(r.changed).toEqual(['status']);
    });
  });

  it.each([
    ['an unknown task uuid', { task_id: randomUUID(), patch: { priority: 1 } }, 'task_id'],
    ['an unknown task reference', { task_id: 'ST-9999', patch: { priority: 1 } }, 'task_id'],
    ['an unknown project in the reference', { task_id: 'NOPE-1', patch: { priority: 1 } }, 'task_id'],
    ['an unknown assignee', { task_id: 'ST-1', patch: { assignee_actor_id: randomUUID() } }, 'patch.assignee_actor_id'],
    ['an unknown reviewer', { task_id: 'ST-1', patch: { reviewer_actor_id: randomUUID() } }, 'patch.reviewer_actor_id'],
  ])('refuses %s (NOT_FOUND)', async (_what, input, field) => {
    expect(fails(await t.agent.call('task_update', input), 'NOT_FOUND').message).toContain(`${field}:`);
  });

  it.each([
    ['an unknown status', { status: 'paused' }, 'patch.status'],
    ['a null title', { title: null }, 'patch.title'],
    ['a priority of 9', { priority: 9 }, 'patch.priority'],
    ['an unknown expected_status', { expected_status: 'whatever' }, 'patch.expected_status'],
    ['a patch key that is not a field', { project_id: 'ST' }, 'patch.project_id'],
  ])('refuses %s (VALIDATION_ERROR)', async (_what, patch, field) => {
    expect(fails(await t.agent.call('task_update', { task_id: 'ST-1', patch }), 'VALIDATION_ERROR').message).toContain(field);
  });

  it('refuses a reused idempotency_key with another patch (IDEMPOTENCY_CONFLICT)', async () => {
    const id = await taskIn('todo');
    ok(await t.agent.call('task_update', { task_id: id, patch: { priority: 0 }, idempotency_key: 'tu-1' }));
    expect(ok(await t.agent.call('task_update', { task_id: id, patch: { priority: 0 }, idempotency_key: 'tu-1' })).idempotent_replay).toBe(true);
    fails(await t.agent.call('task_update', { task_id: id, patch: { priority: 1 }, idempotency_key: 'tu-1' }), 'IDEMPOTENCY_CONFLICT');
  });
});

describe('task_assign', () => {
  let t: Tenant;
  let helper: Actor;
  beforeAll(async () => {
    t = await seedTenant(db);
    helper = await t.addAgent('helper');
    ok(await t.human.call('project_create', { title: 'Assign', key: 'AS' }));
  });

  it('assigns to an actor, returns the previous assignee and logs task.assigned', async () => {
    const r = await newTask(t.human, 'AS');
    const a = ok(await t.human.call('task_assign', { task_id: r.ref, actor_id: helper.id }));
    expect(a.previous_assignee_actor_id).toBeNull();
    expect(a.task.assignee_actor_id).toBe(helper.id);
    const b = ok(await t.human.call('task_assign', { task_id: r.task_id, actor_id: 'me' }));
    expect(b.previous_assignee_actor_id).toBe(helper.id);
    expect(b.task.assignee_actor_id).toBe(t.human.id);
    const log = await db.query<{ verb: string; summary: string; metadata: any }>(
      `select verb, summary, metadata from public.activity where object_id = $1 and verb = 'task.assigned' order by id`, [r.task_id]);
    expect(log).toEqual([
      { verb: 'task.assigned', summary: 'helper', metadata: { from: null, to: helper.id } },
      { verb: 'task.assigned', summary: `Human ${t.slug}`, metadata: { from: helper.id, to: t.human.id } },
    ]);
  });

  it('unassigns with null', async () => {
    const r = await newTask(t.human, 'AS', { assignee_actor_id: helper.id });
    const a = ok(await t.human.call('task_assign', { task_id: r.task_id, actor_id: null }));
    expect(a).toMatchObject({ previous_assignee_actor_id: helper.id, task: { assignee_actor_id: null } });
  });

  it('ends the lease when the holder loses the task, and keeps it when assigned to the holder', async () => {
    const r = await newTask(t.human, 'AS');
    ok(await helper.call('task_claim', { task_id: r.task_id }));
    const kept = ok(await t.human.call('task_assign', { task_id: r.task_id, actor_id: helper.id }));
    expect(kept.task.lease).toMatchObject({ actor_id: helper.id, live: true });
    const moved = ok(await t.human.call('task_assign', { task_id: r.task_id, actor_id: t.agent.id }));
    expect(moved.task.lease).toBeNull();
    expect(moved.task.status).toBe('in_progress');
  });

  it.each([
    ['an unknown task', () => ({ task_id: randomUUID(), actor_id: null }), 'task_id'],
    ['an unknown task reference', () => ({ task_id: 'AS-999', actor_id: null }), 'task_id'],
    ['an unknown actor', () => ({ task_id: 'AS-1', actor_id: randomUUID() }), 'actor_id'],
  ])('refuses %s (NOT_FOUND)', async (_what, input, field) => {
    expect(fails(await t.human.call('task_assign', input()), 'NOT_FOUND').message).toContain(`${field}:`);
  });

  it('refuses an actor of another workspace (NOT_FOUND)', async () => {
    const o = await seedTenant(db);
    fails(await t.human.call('task_assign', { task_id: 'AS-1', actor_id: o.agent.id }), 'NOT_FOUND');
  });

  it.each([
    ['a missing actor_id', { task_id: 'AS-1' }, 'actor_id'],
    ['an actor_id that is not a uuid', { task_id: 'AS-1', actor_id: 'helper' }, 'actor_id'],
    ['a missing task_id', { actor_id: null }, 'task_id'],
  ])('refuses %s (VALIDATION_ERROR)', async (_what, input, field) => {
    expect(fails(await t.human.call('task_assign', input), 'VALIDATION_ERROR').message).toContain(field);
  });

  it('refuses a reused idempotency_key with another assignee (IDEMPOTENCY_CONFLICT)', async () => {
    ok(await t.human.call('task_assign', { task_id: 'AS-1', actor_id: helper.id, idempotency_key: 'ta-1' }));
    fails(await t.human.call('task_assign', { task_id: 'AS-1', actor_id: null, idempotency_key: 'ta-1' }), 'IDEMPOTENCY_CONFLICT');
  });
});

/** Timestamps as microseconds since the epoch (JSON timestamps carry up to six fractional digits). */
function micros(ts: string): bigint {
  const m = ts.match(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(.*)$/);
  if (!m) throw new Error(`not a timestamp: ${ts}`);
  return BigInt(Date.parse(m[1] + (m[3] || 'Z'))) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0'));
}

function cmp(a: (bigint | number | string)[], b: (bigint | number | string)[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return 0;
}

const ORDERS: Record<string, { key: (x: any) => (bigint | number | string)[]; dir: 1 | -1 }> = {
  priority: { key: (x) => [x.priority, micros(x.created_at), x.id], dir: 1 },
  created_at: { key: (x) => [micros(x.created_at), x.id], dir: -1 },
  updated_at: { key: (x) => [micros(x.updated_at), x.id], dir: -1 },
  due_on: { key: (x) => [x.due_on ?? '9999-12-31', x.priority, x.id], dir: 1 },
};

describe('task_query', () => {
  let t: Tenant;
  let other: Actor;
  const id: Record<string, string> = {};
  const names = (r: Record<string, any>) => r.tasks.map((x: any) => x.title.split(' ')[0]).sort();

  beforeAll(async () => {
    t = await seedTenant(db);
    other = await t.addAgent('other');
    ok(await t.human.call('project_create', { title: 'Query A', key: 'QA' }));
    ok(await t.human.call('project_create', { title: 'Query B', key: 'QB' }));
    const made = ok(await t.human.call('task_create_many', {
      project_id: 'QA',
      tasks: [
        { title: 'alpha ready', priority: 1, labels: ['api'], due_on: '2030-01-10' },
        { title: 'beta waits on alpha', labels: ['api'], depends_on: [{ batch_index: 0 }] },
        { title: 'gamma parked', status: 'backlog' },
        { title: 'delta held by other' },
        { title: 'epsilon lease expired' },
        { title: 'zeta status blocked' },
        { title: 'eta done' },
        { title: 'theta dep done', depends_on: [{ batch_index: 6 }] },
        { title: 'iota mine', body: 'find the needle here', assignee_actor_id: t.agent.id, acceptance_criteria: [{ text: 'c', met: true }, 'd'] },
      ],
    }));
    ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota'].forEach((n, i) => (id[n] = made.task_ids[i]));
    id.kappa = ok(await t.human.call('task_create', { project_id: 'QB', title: 'kappa other project', priority: 0, labels: ['web'], due_on: '2030-01-05' })).task_id;
    ok(await other.call('task_claim', { task_id: id.delta }));
    ok(await other.call('task_claim', { task_id: id.epsilon }));
    await db.query(`update public.tasks set lease_expires_at = now() - interval '1 second' where id = $1`, [id.epsilon]);
    ok(await t.human.call('task_update', { task_id: id.zeta, patch: { status: 'blocked' } }));
    ok(await t.human.call('task_claim', { task_id: id.eta }));
    ok(await t.human.call('task_update', { task_id: id.eta, patch: { status: 'done' } }));
  });

  it('returns compact rows with derived state and no body', async () => {
    const r = ok(await t.agent.call('task_query', { project_id: 'QA' }));
    expect(r.tasks).toHaveLength(9);
    const iota = r.tasks.find((x: any) => x.id === id.iota);
    expect(iota).not.toHaveProperty('body');
    expect(iota).toMatchObject({ ref: 'QA-9', project_key: 'QA', ready: true, open_blockers: 0, criteria_met: 1, criteria_total: 2, lease: null });
    const delta = r.tasks.find((x: any) => x.id === id.delta);
    expect(delta).toMatchObject({ status: 'in_progress', ready: false, lease: { actor_id: other.id, live: true } });
    const epsilon = r.tasks.find((x: any) => x.id === id.epsilon);
    expect(epsilon).toMatchObject({ ready: true, lease: { actor_id: other.id, live: false } });
    expect(r.tasks.find((x: any) => x.id === id.beta)).toMatchObject({ ready: false, open_blockers: 1 });
  });

  it('computes state "ready" on the server: open status, every dependency done, no live lease', async () => {
    expect(names(ok(await t.agent.call('task_query', { state: 'ready' })))).toEqual(['alpha', 'epsilon', 'iota', 'kappa', 'theta']);
  });

  it('computes state "blocked" on the server: status blocked or an unfinished dependency', async () => {
    expect(names(ok(await t.agent.call('task_query', { state: 'blocked' })))).toEqual(['beta', 'zeta']);
  });

  it('follows readiness as dependencies finish and leases expire', async () => {
    const u = await seedTenant(db);
    ok(await u.human.call('project_create', { title: 'Flow', key: 'FL' }));
    const m = ok(await u.human.call('task_create_many', { project_id: 'FL', tasks: [{ title: 'first' }, { title: 'second', depends_on: [{ batch_index: 0 }] }] }));
    const ready = async () => ok(await u.agent.call('task_query', { state: 'ready' })).tasks.map((x: any) => x.title).sort();
    expect(await ready()).toEqual(['first']);
    ok(await u.agent.call('task_claim', { task_id: m.task_ids[0] }));
    expect(await ready()).toEqual([]);
    await db.query(`update public.tasks set lease_expires_at = now() - interval '1 second' where id = $1`, [m.task_ids[0]]);
    expect(await ready()).toEqual(['first']);
    ok(await u.agent.call('task_claim', { task_id: m.task_ids[0] }));
    ok(await u.agent.call('task_update', { task_id: m.task_ids[0], patch: { status: 'done' } }));
    expect(await ready()).toEqual(['second']);
    expect(ok(await u.agent.call('task_query', { state: 'blocked' })).tasks).toEqual([]);
  });

  it.each([
    ['project by key, any case', { project_id: 'qb' }, ['kappa']],
    ['project and state', { project_id: 'QA', state: 'ready' }, ['alpha', 'epsilon', 'iota', 'theta']],
    ['one status', { status: ['in_progress'] }, ['delta', 'epsilon']],
    ['several statuses', { status: ['backlog', 'blocked', 'done'] }, ['eta', 'gamma', 'zeta']],
    ['label', { label: 'api' }, ['alpha', 'beta']],
    ['q in the title, any case', { q: 'GAMMA' }, ['gamma']],
    ['q in the body', { q: 'needle' }, ['iota']],
    ['q as a reference', { q: 'qa-3' }, ['gamma']],
    ['due_before (strictly before)', { due_before: '2030-01-10' }, ['kappa']],
    ['due_before including both', { due_before: '2030-01-11' }, ['alpha', 'kappa']],
    ['assignee "me"', { assignee_actor_id: 'me' }, ['iota']],
    ['assignee "unassigned"', { assignee_actor_id: 'unassigned' }, ['alpha', 'beta', 'gamma', 'kappa', 'theta', 'zeta']],
    ['a filter nothing matches', { label: 'nothing' }, []],
  ])('filters by %s', async (_what, filter, expected) => {
    expect(names(ok(await t.agent.call('task_query', filter)))).toEqual(expected);
  });

  it('filters by project uuid and by an assignee id', async () => {
    const [pb] = await db.query<{ id: string }>(`select id from public.projects where tenant_id = $1 and key = 'QB'`, [t.id]);
    expect(names(ok(await t.agent.call('task_query', { project_id: pb.id })))).toEqual(['kappa']);
    expect(names(ok(await t.agent.call('task_query', { assignee_actor_id: other.id })))).toEqual(['delta', 'epsilon']);
    expect(names(ok(await t.agent.call('task_query', { assignee_actor_id: t.human.id })))).toEqual(['eta']);
  });

  it('matches an assignee id written in upper case', async () => {
    expect(names(ok(await t.agent.call('task_query', { assignee_actor_id: other.id.toUpperCase() })))).toEqual(['delta', 'epsilon']);
  });

  it('never lists another workspace’s tasks', async () => {
    const o = await seedTenant(db);
    expect(ok(await o.agent.call('task_query', { q: 'alpha' })).tasks).toEqual([]);
    fails(await o.agent.call('task_query', { project_id: 'QA' }), 'NOT_FOUND');
  });

  describe('ordering and pagination over 23 tasks', () => {
    let u: Tenant;
    let all: string[];
    beforeAll(async () => {
      u = await seedTenant(db);
      ok(await u.human.call('project_create', { title: 'Pages', key: 'PG' }));
      const item = (i: number) => ({ title: `page ${i}`, priority: i % 5, ...(i % 3 === 0 ? {} : { due_on: `2030-01-0${(i % 4) + 1}` }) });
      // one batch shares a created_at, so ties are broken by id; the singles get their own
      ok(await u.human.call('task_create_many', { project_id: 'PG', tasks: Array.from({ length: 10 }, (_, i) => item(i)) }));
      for (let i = 10; i < 18; i++) ok(await u.human.call('task_create', { project_id: 'PG', ...item(i) }));
      ok(await u.human.call('task_create_many', { project_id: 'PG', tasks: Array.from({ length: 5 }, (_, i) => item(18 + i)) }));
      for (const n of [2, 5, 19]) ok(await u.human.call('task_update', { task_id: `PG-${n + 1}`, patch: { body: 'touched' } }));
      all = (await db.query<{ id: string }>(`select t.id from public.tasks t join public.projects p on p.id = t.project_id where p.tenant_id = $1`, [u.id])).map((r) => r.id);
      expect(all).toHaveLength(23);
    });

    it.each(Object.keys(ORDERS))('order_by %s: sorted, and limit 5 visits every row exactly once', async (order_by) => {
      const whole = ok(await u.agent.call('task_query', { order_by, limit: 500 }));
      expect(whole.next_cursor).toBeNull();
      const { key, dir } = ORDERS[order_by];
      for (let i = 1; i < whole.tasks.length; i++) {
        expect(cmp(key(whole.tasks[i - 1]), key(whole.tasks[i])) * dir, `${order_by} row ${i}`).toBeLessThan(0);
      }
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      do {
        const r = ok(await u.agent.call('task_query', { order_by, limit: 5, ...(cursor ? { cursor } : {}) }));
        sizes.push(r.tasks.length);
        seen.push(...r.tasks.map((x: any) => x.id));
        cursor = r.next_cursor ?? undefined;
      } while (cursor && sizes.length < 10);
      expect(sizes).toEqual([5, 5, 5, 5, 3]);
      expect(seen).toEqual(whole.tasks.map((x: any) => x.id));
      expect([...seen].sort()).toEqual([...all].sort());
    });

    it('orders by priority by default', async () => {
      const a = ok(await u.agent.call('task_query', { limit: 500 }));
      const b = ok(await u.agent.call('task_query', { limit: 500, order_by: 'priority' }));
      expect(a.tasks.map((x: any) => x.id)).toEqual(b.tasks.map((x: any) => x.id));
    });

    it('keeps a page boundary stable when a row on an earlier page changes', async () => {
      const first = ok(await u.agent.call('task_query', { order_by: 'priority', limit: 5 }));
      ok(await u.human.call('task_update', { task_id: first.tasks[0].id, patch: { title: 'renamed on page one' } }));
      const second = ok(await u.agent.call('task_query', { order_by: 'priority', limit: 5, cursor: first.next_cursor }));
      const whole = ok(await u.agent.call('task_query', { order_by: 'priority', limit: 500 }));
      expect(second.tasks.map((x: any) => x.id)).toEqual(whole.tasks.slice(5, 10).map((x: any) => x.id));
    });
  });

  it('refuses an unknown project (NOT_FOUND)', async () => {
    expect(fails(await t.agent.call('task_query', { project_id: 'NOPE' }), 'NOT_FOUND').message).toContain('project_id');
    fails(await t.agent.call('task_query', { project_id: randomUUID() }), 'NOT_FOUND');
  });

  it.each([
    ['an unknown state', { state: 'stuck' }, 'state'],
    ['a page size above 500', { limit: 501 }, 'limit'],
    ['an unknown status', { status: ['open'] }, 'status[0]'],
    ['a malformed due_before', { due_before: '01/02/2030' }, 'due_before'],
    ['a cursor that does not decode', { cursor: '////' }, 'cursor'],
    ['a bare status string', { status: 'todo' }, 'status'],
  ])('refuses %s (VALIDATION_ERROR)', async (_what, input, field) => {
    expect(fails(await t.agent.call('task_query', input), 'VALIDATION_ERROR').message).toContain(field);
  });

  it('refuses a cursor from another listing (VALIDATION_ERROR)', async () => {
    const actors = ok(await t.agent.call('actor_query', { limit: 1 }));
    fails(await t.agent.call('task_query', { cursor: actors.next_cursor }), 'VALIDATION_ERROR');
  });
});

describe('task_get', () => {
  let t: Tenant;
  const id: Record<string, string> = {};
  beforeAll(async () => {
    t = await seedTenant(db);
    ok(await t.human.call('project_create', { title: 'Get', key: 'TG', summary: 'deep reads' }));
    id.parent = (await newTask(t.human, 'TG', { title: 'parent' })).task_id;
    id.blocker = (await newTask(t.human, 'TG', { title: 'blocker', priority: 1 })).task_id;
    id.target = (await newTask(t.human, 'TG', { title: 'target', body: 'the body', parent_task_id: id.parent, depends_on: [id.blocker] })).task_id;
    id.dependent = (await newTask(t.human, 'TG', { title: 'dependent', depends_on: [id.target] })).task_id;
    id.child = (await newTask(t.human, 'TG', { title: 'second child', parent_task_id: id.parent })).task_id;
    ok(await t.agent.call('task_assign', { task_id: id.target, actor_id: 'me' }));
    ok(await t.agent.call('task_release', { task_id: id.target, note: 'context for whoever is next' }));
  });

  it('reads one task in depth: body, project, blockers, dependents, parent, comments, activity', async () => {
    const r = ok(await t.agent.call('task_get', { task_id: id.target }));
    expect(r.task).toMatchObject({ id: id.target, ref: 'TG-3', title: 'target', body: 'the body', ready: false, open_blockers: 1 });
    expect(r.project).toMatchObject({ key: 'TG', title: 'Get', summary: 'deep reads', status: 'active' });
    expect(r.blockers.map((x: any) => x.id)).toEqual([id.blocker]);
    expect(r.blockers[0]).not.toHaveProperty('body');
    expect(r.dependents.map((x: any) => x.id)).toEqual([id.dependent]);
    expect(r.dependents[0]).toMatchObject({ ready: false, open_blockers: 1 });
    expect(r.parent).toMatchObject({ id: id.parent, ref: 'TG-1' });
    expect(r.subtasks).toEqual([]);
    expect(r.comments).toEqual([
      expect.objectContaining({ body: 'context for whoever is next', author_actor_id: t.agent.id, author: `Agent ${t.slug}`, author_kind: 'agent' }),
    ]);
    // the release note is a comment on the thread, written the way comment_add writes one
    expect(r.activity.map((a: any) => a.verb)).toEqual(['task.released', 'comment.added', 'task.assigned', 'task.created']);
    expect(r.activity[0]).toMatchObject({ actor_id: t.agent.id, summary: 'context for whoever is next' });
    expect(r.code_refs).toEqual([]);
    expect(r).not.toHaveProperty('brief');
  });

  it('lists subtasks in order and no parent for a top-level task', async () => {
    const r = ok(await t.agent.call('task_get', { task_id: id.parent }));
    expect(r.subtasks.map((x: any) => x.title)).toEqual(['target', 'second child']);
    expect(r.parent).toBeNull();
    expect(r.blockers).toEqual([]);
    expect(r.comments).toEqual([]);
  });

  it('finds the task by uuid, KEY-N, KEY#N and lower-case key', async () => {
    for (const ref of [id.target, id.target.toUpperCase(), 'TG-3', 'TG#3', 'tg-3']) {
      expect(ok(await t.agent.call('task_get', { task_id: ref })).task.id).toBe(id.target);
    }
  });

  it('attaches the project brief with include: ["brief"]', async () => {
    const r = ok(await t.agent.call('task_get', { task_id: 'TG-3', include: ['brief'] }));
    expect(r.brief.project).toMatchObject({ key: 'TG', title: 'Get' });
    expect(r.brief.tasks.total).toBe(5);
    expect(r.brief.top_open_tasks.length).toBe(5);
  });

  it('refuses an unknown uuid or reference, or another workspace’s task (NOT_FOUND)', async () => {
    expect(fails(await t.agent.call('task_get', { task_id: randomUUID() }), 'NOT_FOUND').message).toContain('task_id');
    fails(await t.agent.call('task_get', { task_id: 'TG-99' }), 'NOT_FOUND');
    fails(await t.agent.call('task_get', { task_id: 'XX-1' }), 'NOT_FOUND');
    const o = await seedTenant(db);
    fails(await o.agent.call('task_get', { task_id: id.target }), 'NOT_FOUND');
  });

  it.each([
    ['an unknown include', { task_id: 'TG-1', include: ['everything'] }, 'include[0]'],
    ['a missing task_id', {}, 'task_id'],
    ['a reference without a number', { task_id: 'TG-' }, 'task_id'],
  ])('refuses %s (VALIDATION_ERROR)', async (_what, input, field) => {
    expect(fails(await t.agent.call('task_get', input), 'VALIDATION_ERROR').message).toContain(field);
  });
});

describe('task_link', () => {
  let t: Tenant;
  const mk = async (title: string) => (await newTask(t.agent, 'LK', { title })).task_id;
  const deps = async (task: string) =>
    (await db.query<{ d: string }>('select depends_on_task_id as d from public.task_dependencies where task_id = $1', [task])).map((r) => r.d).sort();

  beforeAll(async () => {
    t = await seedTenant(db);
    ok(await t.human.call('project_create', { title: 'Links', key: 'LK' }));
  });

  it('adds dependencies by reference or uuid and reports them', async () => {
    const a = await mk('link a');
    const bTask = await newTask(t.agent, 'LK', { title: 'link b' });
    const b = bTask.task_id;
    const c = await mk('link c');
    const r = ok(await t.agent.call('task_link', { task_id: a, add_depends_on: [bTask.ref, c] }));
    expect(r).toMatchObject({ task_id: a, removed: [], cycle_rejected: [], parent_task_id: null });
    expect([...r.added].sort()).toEqual([b, c].sort());
    expect([...r.depends_on].sort()).toEqual([b, c].sort());
    expect(await deps(a)).toEqual([b, c].sort());
    expect(ok(await t.agent.call('task_get', { task_id: a })).task).toMatchObject({ open_blockers: 2, ready: false });
    // an edge that exists already is not added twice
    const again = ok(await t.agent.call('task_link', { task_id: a, add_depends_on: [b], idempotency_key: 'lk-again' }));
    expect(again.added).toEqual([]);
    expect(await deps(a)).toEqual([b, c].sort());
  });

  it('removes dependencies, and removing a missing edge is a no-op', async () => {
    const a = await mk('rm a');
    const b = await mk('rm b');
    const c = await mk('rm c');
    ok(await t.agent.call('task_link', { task_id: a, add_depends_on: [b] }));
    const r = ok(await t.agent.call('task_link', { task_id: a, remove_depends_on: [b, c] }));
    expect(r.removed).toEqual([b]);
    expect(r.depends_on).toEqual([]);
    expect(ok(await t.agent.call('task_get', { task_id: a })).task.ready).toBe(true);
  });

  it('rejects a direct cycle into cycle_rejected[] and adds nothing for it', async () => {
    const a = await mk('cyc a');
    const b = await mk('cyc b');
    ok(await t.agent.call('task_link', { task_id: a, add_depends_on: [b] }));
    const r = ok(await t.agent.call('task_link', { task_id: b, add_depends_on: [a] }));
    expect(r.added).toEqual([]);
    expect(r.cycle_rejected).toEqual([{ depends_on_task_id: a, reason: expect.stringContaining('depends') }]);
    expect(await deps(b)).toEqual([]);
  });

  it('rejects a transitive cycle while adding the other edges of the same call', async () => {
    const a = await mk('tr a');
    const b = await mk('tr b');
    const c = await mk('tr c');
    const d = await mk('tr d');
    ok(await t.agent.call('task_link', { task_id: a, add_depends_on: [b] }));
    ok(await t.agent.call('task_link', { task_id: b, add_depends_on: [c] }));
    const r = ok(await t.agent.call('task_link', { task_id: c, add_depends_on: [a, d] }));
    expect(r.added).toEqual([d]);
    expect(r.cycle_rejected.map((x: any) => x.depends_on_task_id)).toEqual([a]);
    expect(await deps(c)).toEqual([d]);
  });

  it('rejects a dependency on itself', async () => {
    const a = await mk('self a');
    const r = ok(await t.agent.call('task_link', { task_id: a, add_depends_on: [a] }));
    expect(r.added).toEqual([]);
    expect(r.cycle_rejected).toEqual([{ depends_on_task_id: a, reason: 'a task cannot depend on itself' }]);
    expect(await deps(a)).toEqual([]);
  });

  it('sets and clears the parent', async () => {
    const p = await mk('parent p');
    const c = await mk('child c');
    const set = ok(await t.agent.call('task_link', { task_id: c, set_parent_task_id: p }));
    expect(set.parent_task_id).toBe(p);
    expect(ok(await t.agent.call('task_get', { task_id: p })).subtasks.map((x: any) => x.id)).toEqual([c]);
    const cleared = ok(await t.agent.call('task_link', { task_id: c, clear_parent: true }));
    expect(cleared.parent_task_id).toBeNull();
    expect(ok(await t.agent.call('task_get', { task_id: p })).subtasks).toEqual([]);
  });

  it('refuses a parent that would make the task its own ancestor (CYCLE_DETECTED)', async () => {
    const a = await mk('pc a');
    const b = await mk('pc b');
    const c = await mk('pc c');
    ok(await t.agent.call('task_link', { task_id: b, set_parent_task_id: a }));
    ok(await t.agent.call('task_link', { task_id: c, set_parent_task_id: b }));
    fails(await t.agent.call('task_link', { task_id: a, set_parent_task_id: b }), 'CYCLE_DETECTED');
    fails(await t.agent.call('task_link', { task_id: a, set_parent_task_id: c }), 'CYCLE_DETECTED');
    fails(await t.agent.call('task_link', { task_id: a, set_parent_task_id: a }), 'CYCLE_DETECTED');
    const [row] = await db.query<{ parent_task_id: string | null }>('select parent_task_id from public.tasks where id = $1', [a]);
    expect(row.parent_task_id).toBeNull();
  });

  it('undoes the whole call when the parent is refused', async () => {
    const a = await mk('undo a');
    const b = await mk('undo b');
    const c = await mk('undo c');
    ok(await t.agent.call('task_link', { task_id: b, set_parent_task_id: a }));
    fails(await t.agent.call('task_link', { task_id: a, add_depends_on: [c], set_parent_task_id: b }), 'CYCLE_DETECTED');
    expect(await deps(a)).toEqual([]);
  });

  it.each([
    ['an unknown task', () => ({ task_id: randomUUID() }), 'task_id'],
    ['an unknown dependency to add', () => ({ task_id: 'LK-1', add_depends_on: ['LK-1', 'LK-999'] }), 'add_depends_on[1]'],
    ['an unknown dependency to remove', () => ({ task_id: 'LK-1', remove_depends_on: [randomUUID()] }), 'remove_depends_on[0]'],
    ['an unknown parent', () => ({ task_id: 'LK-1', set_parent_task_id: 'LK-999' }), 'set_parent_task_id'],
  ])('refuses %s (NOT_FOUND naming the field)', async (_what, input, field) => {
    expect(fails(await t.agent.call('task_link', input()), 'NOT_FOUND').message).toContain(`${field}:`);
  });

  it.each([
    ['a malformed reference', { task_id: 'LK-1', add_depends_on: ['nope'] }, 'add_depends_on[0]'],
    ['a non-boolean clear_parent', { task_id: 'LK-1', clear_parent: 'yes' }, 'clear_parent'],
  ])('refuses %s (VALIDATION_ERROR)', async (_what, input, field) => {
    expect(fails(await t.agent.call('task_link', input), 'VALIDATION_ERROR').message).toContain(field);
  });

  it('refuses a reused idempotency_key with other links (IDEMPOTENCY_CONFLICT)', async () => {
    const a = await mk('ik a');
    const b = await mk('ik b');
    ok(await t.agent.call('task_link', { task_id: a, add_depends_on: [b], idempotency_key: 'lk-1' }));
    fails(await t.agent.call('task_link', { task_id: a, remove_depends_on: [b], idempotency_key: 'lk-1' }), 'IDEMPOTENCY_CONFLICT');
  });
});
