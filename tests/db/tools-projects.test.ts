import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/** project_create, project_update, project_query, project_brief: happy paths and every error code. */

let db: TestDb;
beforeAll(async () => {
  db = await freshDb();
});
afterAll(() => db.drop());

describe('project_create', () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant(db);
  });

  it('creates an active project owned by the caller and returns {project, project_id, key}', async () => {
    const r = ok(await t.agent.call('project_create', { title: 'Payments API', summary: 'money in, money out' }));
    expect(r.key).toBe('PA');
    expect(r.project_id).toBe(r.project.id);
    expect(r.project).toMatchObject({
      key: 'PA', title: 'Payments API', summary: 'money in, money out', description: null, status: 'active',
      parent_project_id: null, owner_actor_id: t.agent.id, created_by_actor_id: t.agent.id, target_on: null, task_count: 0,
    });
    expect(r.project).not.toHaveProperty('tenant_id');
    const log = await db.query<{ verb: string; summary: string }>(
      'select verb, summary from public.activity where tenant_id = $1 and object_id = $2', [t.id, r.project_id]);
    expect(log).toEqual([{ verb: 'project.created', summary: 'PA Payments API' }]);
  });

  it.each([
    ['Platform Architecture', 'PA2'],
    ['Pricing Admin', 'PA3'],
    ['Payments', 'PAYM'],
    ['web', 'WEB'],
    ['the big mobile app rewrite', 'TBMA'],
    ['3D engine', 'P3E'],
    ['!!!', 'P'],
  ])('derives a free key from the title %j → %s', async (title, key) => {
    const r = ok(await t.agent.call('project_create', { title }));
    expect(r.key).toBe(key);
  });

  it('stores an explicit key upper-case', async () => {
    const r = ok(await t.agent.call('project_create', { title: 'Website', key: 'web_2' }));
    expect(r.key).toBe('WEB_2');
  });

  it('refuses an explicit key that exists in any case (ALREADY_EXISTS naming the key)', async () => {
    const e = fails(await t.agent.call('project_create', { title: 'Another', key: 'pa' }), 'ALREADY_EXISTS');
    expect(e.message).toContain('key');
    expect(e.message).toContain('PA');
    fails(await t.agent.call('project_create', { title: 'Another', key: 'Web_2' }), 'ALREADY_EXISTS');
  });

  it.each([['1AB'], ['A-B'], ['AB CD'], ['ABCDEFGHIJKLMNOPQ'], ['']])('refuses the invalid key %j (VALIDATION_ERROR)', async (key) => {
    const e = fails(await t.agent.call('project_create', { title: 'Bad key', key }), 'VALIDATION_ERROR');
    expect(e.message).toContain('key');
  });

  it('stores every optional field', async () => {
    const r = ok(await t.agent.call('project_create', {
      title: 'Planned thing', key: 'PLN', summary: 's', description: '# long', status: 'planned',
      owner_actor_id: t.human.id, target_on: '2031-03-04', parent_project_id: 'pa',
    }));
    expect(r.project).toMatchObject({
      summary: 's', description: '# long', status: 'planned', owner_actor_id: t.human.id, target_on: '2031-03-04',
      created_by_actor_id: t.agent.id,
    });
    const [pa] = await db.query<{ id: string }>(`select id from public.projects where tenant_id = $1 and key = 'PA'`, [t.id]);
    expect(r.project.parent_project_id).toBe(pa.id);
  });

  it('accepts the parent by uuid', async () => {
    const parent = ok(await t.agent.call('project_create', { title: 'Parent by id', key: 'PBI' }));
    const r = ok(await t.agent.call('project_create', { title: 'Child by id', key: 'CBI', parent_project_id: parent.project_id }));
    expect(r.project.parent_project_id).toBe(parent.project_id);
  });

  it('refuses an unknown parent or owner (NOT_FOUND naming the field)', async () => {
    expect(fails(await t.agent.call('project_create', { title: 'Orphan', parent_project_id: 'NOPE' }), 'NOT_FOUND').message)
      .toContain('parent_project_id');
    expect(fails(await t.agent.call('project_create', { title: 'Orphan', parent_project_id: randomUUID() }), 'NOT_FOUND').message)
      .toContain('parent_project_id');
    expect(fails(await t.agent.call('project_create', { title: 'Unowned', owner_actor_id: randomUUID() }), 'NOT_FOUND').message)
      .toContain('owner_actor_id');
  });

  it('refuses a parent or owner from another workspace as NOT_FOUND', async () => {
    const other = await seedTenant(db);
    const theirs = ok(await other.agent.call('project_create', { title: 'Theirs', key: 'THEIRS' }));
    fails(await t.agent.call('project_create', { title: 'Sneaky', parent_project_id: theirs.project_id }), 'NOT_FOUND');
    fails(await t.agent.call('project_create', { title: 'Sneaky', owner_actor_id: other.agent.id }), 'NOT_FOUND');
  });

  it.each([
    ['a missing title', {}, 'title'],
    ['an empty title', { title: '' }, 'title'],
    ['an unknown status', { title: 'x', status: 'done' }, 'status'],
    ['a malformed target date', { title: 'x', target_on: 'tomorrow' }, 'target_on'],
    ['a malformed parent reference', { title: 'x', parent_project_id: 'not a key' }, 'parent_project_id'],
    ['an owner that is not a uuid', { title: 'x', owner_actor_id: 'bob' }, 'owner_actor_id'],
  ])('refuses %s (VALIDATION_ERROR)', async (_what, input, field) => {
    expect(fails(await t.agent.call('project_create', input), 'VALIDATION_ERROR').message).toContain(field);
  });

  it('replays an explicit idempotency_key and refuses it with other input (IDEMPOTENCY_CONFLICT)', async () => {
    const a = ok(await t.agent.call('project_create', { title: 'Keyed', idempotency_key: 'pc-1' }));
    const b = ok(await t.agent.call('project_create', { title: 'Keyed', idempotency_key: 'pc-1' }));
    expect(b).toMatchObject({ idempotent_replay: true, project_id: a.project_id, key: a.key });
    fails(await t.agent.call('project_create', { title: 'Keyed differently', idempotency_key: 'pc-1' }), 'IDEMPOTENCY_CONFLICT');
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.projects where tenant_id = $1 and title like 'Keyed%'`, [t.id]);
    expect(n).toBe(1);
  });
});

describe('project_update', () => {
  let t: Tenant;
  let id: string;
  beforeAll(async () => {
    t = await seedTenant(db);
    id = ok(await t.agent.call('project_create', {
      title: 'Upd', key: 'UPD', summary: 'sum', description: 'desc', target_on: '2030-01-01',
    })).project_id;
    ok(await t.agent.call('project_create', { title: 'Top', key: 'TOP' }));
  });

  it('changes only the named fields and reports them in changed', async () => {
    const r = ok(await t.agent.call('project_update', { project_id: 'UPD', patch: { title: 'Updated', summary: 'new sum' } }));
    expect(r.changed).toEqual(['summary', 'title']);
    expect(r.project).toMatchObject({ id, key: 'UPD', title: 'Updated', summary: 'new sum', description: 'desc', target_on: '2030-01-01' });
    const [log] = await db.query<{ verb: string }>(
      'select verb from public.activity where tenant_id = $1 and object_id = $2 order by id desc limit 1', [t.id, id]);
    expect(log.verb).toBe('project.updated');
  });

  it('finds the project by key in any case or by uuid', async () => {
    ok(await t.agent.call('project_update', { project_id: 'upd', patch: { description: 'by key' } }));
    const r = ok(await t.agent.call('project_update', { project_id: id, patch: { description: 'by id' } }));
    expect(r.project.description).toBe('by id');
  });

  it('moves the status and logs project.status_changed', async () => {
    const r = ok(await t.agent.call('project_update', { project_id: 'UPD', patch: { status: 'paused' } }));
    expect(r.project.status).toBe('paused');
    const [log] = await db.query<{ verb: string }>(
      'select verb from public.activity where tenant_id = $1 and object_id = $2 order by id desc limit 1', [t.id, id]);
    expect(log.verb).toBe('project.status_changed');
  });

  it('sets a parent and an owner, and null clears every clearable field', async () => {
    const set = ok(await t.agent.call('project_update', { project_id: 'UPD', patch: { parent_project_id: 'TOP', owner_actor_id: t.human.id } }));
    expect(set.project.parent_project_id).not.toBeNull();
    expect(set.project.owner_actor_id).toBe(t.human.id);
    const r = ok(await t.agent.call('project_update', {
      project_id: 'UPD',
      patch: { summary: null, description: null, target_on: null, owner_actor_id: null, parent_project_id: null },
    }));
    expect(r.project).toMatchObject({ summary: null, description: null, target_on: null, owner_actor_id: null, parent_project_id: null });
    expect(r.changed).toEqual(['description', 'owner_actor_id', 'parent_project_id', 'summary', 'target_on']);
  });

  it('accepts an empty patch and changes nothing', async () => {
    const before = ok(await t.agent.call('project_brief', { project: 'UPD' })).project;
    const r = ok(await t.agent.call('project_update', { project_id: 'UPD', patch: {} }));
    expect(r.changed).toEqual([]);
    expect(r.project.title).toBe(before.title);
  });

  it('refuses a parent that would make a cycle (CYCLE_DETECTED), directly, transitively and to itself', async () => {
    ok(await t.agent.call('project_create', { title: 'A', key: 'CA' }));
    ok(await t.agent.call('project_create', { title: 'B', key: 'CB', parent_project_id: 'CA' }));
    ok(await t.agent.call('project_create', { title: 'C', key: 'CC', parent_project_id: 'CB' }));
    fails(await t.agent.call('project_update', { project_id: 'CA', patch: { parent_project_id: 'CB' } }), 'CYCLE_DETECTED');
    fails(await t.agent.call('project_update', { project_id: 'CA', patch: { parent_project_id: 'CC' } }), 'CYCLE_DETECTED');
    fails(await t.agent.call('project_update', { project_id: 'CA', patch: { parent_project_id: 'CA' } }), 'CYCLE_DETECTED');
    const [{ parent }] = await db.query<{ parent: string | null }>(
      `select parent_project_id as parent from public.projects where tenant_id = $1 and key = 'CA'`, [t.id]);
    expect(parent).toBeNull();
    // re-parenting within the tree is fine when it does not close a loop
    ok(await t.agent.call('project_update', { project_id: 'CC', patch: { parent_project_id: 'CA' } }));
  });

  it('refuses an unknown project, parent or owner (NOT_FOUND naming the field)', async () => {
    expect(fails(await t.agent.call('project_update', { project_id: 'NOPE', patch: { title: 'x' } }), 'NOT_FOUND').message).toContain('project_id');
    fails(await t.agent.call('project_update', { project_id: randomUUID(), patch: { title: 'x' } }), 'NOT_FOUND');
    expect(fails(await t.agent.call('project_update', { project_id: 'UPD', patch: { parent_project_id: 'NOPE' } }), 'NOT_FOUND').message)
      .toContain('patch.parent_project_id');
    expect(fails(await t.agent.call('project_update', { project_id: 'UPD', patch: { owner_actor_id: randomUUID() } }), 'NOT_FOUND').message)
      .toContain('patch.owner_actor_id');
  });

  it.each([
    ['an unknown patch key', { project_id: 'UPD', patch: { key: 'NEW' } }, 'patch.key'],
    ['a null title', { project_id: 'UPD', patch: { title: null } }, 'patch.title'],
    ['an unknown status', { project_id: 'UPD', patch: { status: 'closed' } }, 'patch.status'],
    ['a missing patch', { project_id: 'UPD' }, 'patch'],
    ['a missing project_id', { patch: {} }, 'project_id'],
  ])('refuses %s (VALIDATION_ERROR)', async (_what, input, field) => {
    expect(fails(await t.agent.call('project_update', input), 'VALIDATION_ERROR').message).toContain(field);
  });

  it('refuses a reused idempotency_key with another patch (IDEMPOTENCY_CONFLICT)', async () => {
    ok(await t.agent.call('project_update', { project_id: 'UPD', patch: { summary: 'k' }, idempotency_key: 'pu-1' }));
    const replay = ok(await t.agent.call('project_update', { project_id: 'UPD', patch: { summary: 'k' }, idempotency_key: 'pu-1' }));
    expect(replay.idempotent_replay).toBe(true);
    fails(await t.agent.call('project_update', { project_id: 'UPD', patch: { summary: 'other' }, idempotency_key: 'pu-1' }), 'IDEMPOTENCY_CONFLICT');
  });
});

describe('project_query', () => {
  let t: Tenant;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await seedTenant(db);
    for (const p of [
      { title: 'Alpha launch', key: 'ALP', status: 'active', summary: 'rocket' },
      { title: 'Beta', key: 'BET', status: 'planned' },
      { title: 'Gamma rays', key: 'GAM', status: 'paused', owner_actor_id: t.human.id },
      { title: 'Delta', key: 'DEL', status: 'completed' },
      { title: 'Epsilon', key: 'EPS', status: 'archived' },
    ]) {
      ids[p.key] = ok(await t.agent.call('project_create', p)).project_id;
    }
    ok(await t.agent.call('task_create_many', {
      project_id: 'ALP',
      tasks: [{ title: 'one' }, { title: 'two', depends_on: [{ batch_index: 0 }] }, { title: 'three', status: 'backlog' }],
    }));
  });

  it('lists every project of the workspace ordered by key', async () => {
    const r = ok(await t.agent.call('project_query'));
    expect(r.projects.map((p: any) => p.key)).toEqual(['ALP', 'BET', 'DEL', 'EPS', 'GAM']);
    expect(r.next_cursor).toBeNull();
    expect(r.projects[0]).not.toHaveProperty('tasks');
  });

  it.each([
    ['one status', { status: 'paused' }, ['GAM']],
    ['several statuses', { status: ['planned', 'completed'] }, ['BET', 'DEL']],
    ['q in the title', { q: 'RAYS' }, ['GAM']],
    ['q as a key prefix', { q: 'ep' }, ['EPS']],
    ['q in the summary', { q: 'rocket' }, ['ALP']],
    ['owner', { owner_actor_id: 'me' }, ['ALP', 'BET', 'DEL', 'EPS']],
    ['a repository (none linked yet)', { repository_id: randomUUID() }, []],
    ['an unknown project_id', { project_id: randomUUID() }, []],
  ])('filters by %s', async (_what, filter, keys) => {
    const r = ok(await t.agent.call('project_query', filter));
    expect(r.projects.map((p: any) => p.key)).toEqual(keys);
  });

  it('filters by project_id, a uuid or a key in any case', async () => {
    const r = ok(await t.agent.call('project_query', { project_id: ids.GAM }));
    expect(r.projects.map((p: any) => p.id)).toEqual([ids.GAM]);
    expect(ok(await t.agent.call('project_query', { project_id: 'GAM' })).projects.map((p: any) => p.id)).toEqual([ids.GAM]);
    expect(ok(await t.agent.call('project_query', { project_id: 'gam' })).projects.map((p: any) => p.id)).toEqual([ids.GAM]);
    expect(ok(await t.agent.call('project_query', { project_id: 'NOPE' })).projects).toEqual([]);
  });

  it('adds task counts with detail: "full"', async () => {
    const r = ok(await t.agent.call('project_query', { detail: 'full', q: 'alpha' }));
    expect(r.projects[0].tasks).toMatchObject({ total: 3, ready: 1 });
    expect(r.projects[0].tasks.by_status).toEqual({ todo: 2, backlog: 1 });
    expect(r.projects[0].task_count).toBe(3);
  });

  it('pages with a cursor that visits every project exactly once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = ok(await t.agent.call('project_query', { limit: 2, ...(cursor ? { cursor } : {}) }));
      seen.push(...r.projects.map((p: any) => p.key));
      cursor = r.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(['ALP', 'BET', 'DEL', 'EPS', 'GAM']);
    expect(pages).toBe(3);
  });

  it('never lists another workspace’s projects', async () => {
    const other = await seedTenant(db);
    const r = ok(await other.agent.call('project_query', { q: 'alpha' }));
    expect(r.projects).toEqual([]);
  });

  it.each([
    ['an unknown status', { status: 'done' }, 'status'],
    ['an unknown detail', { detail: 'everything' }, 'detail'],
    ['a project_id that is neither a uuid nor a key', { project_id: 'A-L-P' }, 'project_id'],
    ['a page size above 200', { limit: 201 }, 'limit'],
    ['a cursor that is not one', { cursor: '////' }, 'cursor'],
  ])('refuses %s (VALIDATION_ERROR)', async (_what, input, field) => {
    expect(fails(await t.agent.call('project_query', input), 'VALIDATION_ERROR').message).toContain(field);
  });
});

describe('project_brief', () => {
  let t: Tenant;
  let id: string;
  beforeAll(async () => {
    t = await seedTenant(db);
    ok(await t.human.call('project_create', { title: 'Umbrella', key: 'UMB' }));
    id = ok(await t.human.call('project_create', { title: 'Brief me', key: 'BRF', parent_project_id: 'UMB', summary: 'the summary' })).project_id;
    ok(await t.human.call('project_create', { title: 'Sub one', key: 'SUB1', parent_project_id: 'BRF' }));
    const made = ok(await t.agent.call('task_create_many', {
      project_id: 'BRF',
      tasks: [
        { title: 'low', priority: 4 },
        { title: 'urgent', priority: 0 },
        { title: 'normal' },
        { title: 'closed' },
        { title: 'blocked by normal', depends_on: [{ batch_index: 2 }] },
      ],
    }));
    ok(await t.agent.call('task_claim', { task_id: made.task_ids[3] }));
    ok(await t.agent.call('task_update', { task_id: made.task_ids[3], patch: { status: 'done' } }));
  });

  it('orients on a project by key: owner, parent, counts, top open tasks, activity, subprojects', async () => {
    const r = ok(await t.agent.call('project_brief', { project: 'BRF' }));
    expect(r.project).toMatchObject({ id, key: 'BRF', title: 'Brief me', summary: 'the summary', owner: `Human ${t.slug}` });
    expect(r.project.parent).toMatchObject({ key: 'UMB', title: 'Umbrella' });
    expect(r.tasks).toMatchObject({ total: 5, ready: 3 });
    expect(r.tasks.by_status).toEqual({ todo: 4, done: 1 });
    expect(r.top_open_tasks.map((x: any) => x.title)).toEqual(['urgent', 'normal', 'blocked by normal', 'low']);
    expect(r.top_open_tasks[2]).toMatchObject({ ready: false, open_blockers: 1, ref: 'BRF-5' });
    expect(r.top_open_tasks[0]).not.toHaveProperty('body');
    expect(r.recent_activity[0]).toMatchObject({ verb: 'task.status_changed', object_type: 'task', actor: `Agent ${t.slug}` });
    expect(r.recent_activity.at(-1)).toMatchObject({ verb: 'project.created', object_id: id });
    expect(r.subprojects).toEqual([expect.objectContaining({ key: 'SUB1', title: 'Sub one', status: 'active' })]);
    for (const k of ['recent_decisions', 'knowledge', 'repositories']) expect(r[k]).toEqual([]);
  });

  it('finds the project by uuid and by key in any case', async () => {
    expect(ok(await t.agent.call('project_brief', { project: id })).project.key).toBe('BRF');
    expect(ok(await t.agent.call('project_brief', { project: 'brf' })).project.id).toBe(id);
  });

  it('caps the lists with max_tasks and max_activity', async () => {
    const r = ok(await t.agent.call('project_brief', { project: 'BRF', max_tasks: 2, max_activity: 1 }));
    expect(r.top_open_tasks.map((x: any) => x.title)).toEqual(['urgent', 'normal']);
    expect(r.recent_activity).toHaveLength(1);
    const none = ok(await t.agent.call('project_brief', { project: 'BRF', max_tasks: 0 }));
    expect(none.top_open_tasks).toEqual([]);
  });

  it('refuses an unknown key or uuid, or another workspace’s project (NOT_FOUND)', async () => {
    expect(fails(await t.agent.call('project_brief', { project: 'NOPE' }), 'NOT_FOUND').message).toContain('NOPE');
    fails(await t.agent.call('project_brief', { project: randomUUID() }), 'NOT_FOUND');
    const other = await seedTenant(db);
    fails(await other.agent.call('project_brief', { project: id }), 'NOT_FOUND');
    fails(await other.agent.call('project_brief', { project: 'BRF' }), 'NOT_FOUND');
  });

  it.each([
    ['a missing project', {}, 'project'],
    ['a malformed reference', { project: 'two words' }, 'project'],
    ['max_tasks above 50', { project: 'BRF', max_tasks: 51 }, 'max_tasks'],
    ['max_activity above 100', { project: 'BRF', max_activity: 101 }, 'max_activity'],
  ])('refuses %s (VALIDATION_ERROR)', async (_what, input, field) => {
    expect(fails(await t.agent.call('project_brief', input), 'VALIDATION_ERROR').message).toContain(field);
  });
});
