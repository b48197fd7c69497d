import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKey } from '../../lib/server/workspace';
import { fails, freshDb, ok, seedTenant, type TestDb } from '../helpers/db';

/** whoami, register_actor, actor_query: every happy path and every error code each can return. */

let db: TestDb;
beforeAll(async () => {
  db = await freshDb();
});
afterAll(() => db.drop());

/** Lets the clock move past the last transaction's now(), so "since last seen" has a clean edge. */
const tick = () => new Promise((r) => setTimeout(r, 15));

describe('whoami', () => {
  it('returns the caller, its workspace and run, and every section by default', async () => {
    const t = await seedTenant(db);
    const r = ok(await t.agent.call('whoami'));
    expect(r.actor).toMatchObject({ id: t.agent.id, kind: 'agent', external_ref: `agent:${t.slug}` });
    expect(r.tenant).toEqual({ id: t.id, slug: t.slug, name: t.slug });
    expect(r.run_id).toBe(t.agent.claims.run_id);
    expect(r.open_tasks).toEqual([]);
    expect(r.inbox).toEqual([]);
    expect(r.inbox_count).toBe(0);
    expect(r.projects).toEqual([]);
    expect(r.pool).toMatchObject({ ready: 0 });
    expect(r.delta).toMatchObject({ first_visit: true, since: null });
  });

  it('returns only the sections named in include', async () => {
    const t = await seedTenant(db);
    const r = ok(await t.agent.call('whoami', { include: ['tasks'] }));
    expect(r.open_tasks).toEqual([]);
    expect(r).not.toHaveProperty('delta');
    expect(r).not.toHaveProperty('projects');
    expect(r).not.toHaveProperty('inbox');
    expect(r.hints.next).toBeDefined();
  });

  it('refuses an unknown section (VALIDATION_ERROR naming include)', async () => {
    const t = await seedTenant(db);
    const e = fails(await t.agent.call('whoami', { include: ['everything'] }), 'VALIDATION_ERROR');
    expect(e.message).toContain('include[0]');
  });

  it('hints project_create on an empty workspace', async () => {
    const t = await seedTenant(db);
    const r = ok(await t.agent.call('whoami'));
    expect(r.hints.next.tool).toBe('project_create');
    expect(r.hints.next.arguments.title).toEqual(expect.any(String));
  });

  it('hints task_query state:"blocked" when projects exist but nothing is ready', async () => {
    const t = await seedTenant(db);
    ok(await t.human.call('project_create', { title: 'Quiet', key: 'QT' }));
    ok(await t.human.call('task_create', { project_id: 'QT', title: 'parked', status: 'backlog' }));
    const r = ok(await t.agent.call('whoami'));
    expect(r.pool.ready).toBe(0);
    expect(r.hints.next).toMatchObject({ tool: 'task_query', arguments: { state: 'blocked' } });
    expect(r.projects).toEqual([expect.objectContaining({ key: 'QT', title: 'Quiet', status: 'active' })]);
  });

  it('counts only tasks the caller could claim now in pool.ready and then hints task_claim', async () => {
    const t = await seedTenant(db);
    const other = await t.addAgent('pool-other');
    ok(await t.human.call('project_create', { title: 'Pool', key: 'POOL' }));
    const made = ok(await t.human.call('task_create_many', {
      project_id: 'POOL',
      tasks: [
        { title: 'ready unassigned' },
        { title: 'ready, assigned to me', assignee_actor_id: t.agent.id },
        { title: 'assigned to someone else', assignee_actor_id: other.id },
        { title: 'waits on #1', depends_on: [{ batch_index: 0 }] },
        { title: 'parked', status: 'backlog' },
        { title: 'held by other' },
      ],
    }));
    ok(await other.call('task_claim', { task_id: made.task_ids[5] }));
    const r = ok(await t.agent.call('whoami'));
    expect(r.pool.ready).toBe(2);
    expect(r.hints.next.tool).toBe('task_claim');
    expect(r.hints.next.arguments).toEqual({});
    expect(r.hints.next.why).toContain('2 ready tasks');
    expect(r.open_tasks.map((x: any) => x.title)).toEqual(['ready, assigned to me']);
  });

  it('lists open tasks in_progress first and hints task_get for the one being worked on', async () => {
    const t = await seedTenant(db);
    ok(await t.human.call('project_create', { title: 'Work', key: 'WRK' }));
    const made = ok(await t.human.call('task_create_many', {
      project_id: 'WRK',
      tasks: [
        { title: 'urgent todo', priority: 0, assignee_actor_id: t.agent.id },
        { title: 'doing', priority: 3 },
        { title: 'finished', assignee_actor_id: t.agent.id },
        { title: 'in review', priority: 4 },
      ],
    }));
    ok(await t.agent.call('task_claim', { task_id: made.task_ids[1] }));
    ok(await t.agent.call('task_claim', { task_id: made.task_ids[3] }));
    ok(await t.agent.call('task_update', { task_id: made.task_ids[3], patch: { status: 'in_review' } }));
    ok(await t.agent.call('task_claim', { task_id: made.task_ids[2] }));
    ok(await t.agent.call('task_update', { task_id: made.task_ids[2], patch: { status: 'done' } }));
    const r = ok(await t.agent.call('whoami'));
    expect(r.open_tasks.map((x: any) => x.title)).toEqual(['doing', 'in review', 'urgent todo']);
    expect(r.open_tasks[0]).toMatchObject({ ref: 'WRK-2', status: 'in_progress', lease: { actor_id: t.agent.id, live: true } });
    expect(r.hints.next).toMatchObject({ tool: 'task_get', arguments: { task_id: made.task_ids[1] } });
    expect(r.hints.next.why).toContain('WRK-2');
  });

  it('reports what others did since the caller was last seen, and advances last_seen_at', async () => {
    const t = await seedTenant(db);
    const first = ok(await t.agent.call('whoami'));
    expect(first.delta.first_visit).toBe(true);
    const [{ seen }] = await db.query<{ seen: string }>(`select to_jsonb(last_seen_at) #>> '{}' as seen from public.actors where id = $1`, [t.agent.id]);
    expect(seen).not.toBeNull();

    await tick();
    ok(await t.human.call('project_create', { title: 'Delta', key: 'DLT' }));
    ok(await t.human.call('task_create', { project_id: 'DLT', title: 'from the human' }));
    ok(await t.agent.call('task_create', { project_id: 'DLT', title: 'from me' }));
    await tick();

    const second = ok(await t.agent.call('whoami'));
    expect(second.delta.first_visit).toBe(false);
    expect(new Date(second.delta.since).getTime()).toBe(new Date(seen).getTime());
    expect(second.delta.count).toBe(2);
    expect(second.delta.by_verb).toEqual({ 'project.created': 1, 'task.created': 1 });
    expect(second.delta.recent.map((x: any) => x.verb)).toEqual(['task.created', 'project.created']);
    expect(second.delta.recent[0]).toMatchObject({ object_type: 'task', actor: `Human ${t.slug}` });

    await tick();
    const third = ok(await t.agent.call('whoami'));
    expect(third.delta.count).toBe(0);
    expect(new Date(third.delta.since).getTime()).toBeGreaterThan(new Date(second.delta.since).getTime());
  });

  it('counts every change since last seen on either side of the 16 newest it reads first', async () => {
    const t = await seedTenant(db);
    ok(await t.human.call('project_create', { title: 'Many', key: 'MNY' }));
    ok(await t.agent.call('whoami'));
    for (const n of [15, 16, 17, 40]) {
      await tick();
      for (let i = 0; i < n; i++) ok(await t.human.call('task_create', { project_id: 'MNY', title: `change ${n}.${i}` }));
      await tick();
      const r = ok(await t.agent.call('whoami'));
      expect(r.delta).toMatchObject({ count: n, truncated: false, by_verb: { 'task.created': n } });
      expect(r.delta.recent).toHaveLength(15);
      expect(r.delta.recent[0].summary).toContain(`change ${n}.${n - 1}`);
      expect(r.delta.recent[14].summary).toContain(`change ${n}.${n - 15}`);
    }
  });
});

describe('register_actor', () => {
  it('creates an actor and reports created: true', async () => {
    const t = await seedTenant(db);
    const r = ok(await t.agent.call('register_actor', {
      external_ref: 'claude-code:alice',
      kind: 'agent',
      display_name: 'Alice',
      group: 'backend',
      role: 'reviewer',
      capabilities: ['sql', 'ts'],
    }));
    expect(r.created).toBe(true);
    expect(r.actor).toMatchObject({
      kind: 'agent', external_ref: 'claude-code:alice', display_name: 'Alice', group: 'backend', role: 'reviewer',
      capabilities: ['sql', 'ts'], is_owner: false, last_seen_at: null,
    });
    const log = await db.query('select verb from public.activity where tenant_id = $1 and object_id = $2', [t.id, r.actor.id]);
    expect(log).toEqual([{ verb: 'actor.registered' }]);
  });

  it('defaults display_name to the external_ref', async () => {
    const t = await seedTenant(db);
    const r = ok(await t.agent.call('register_actor', { external_ref: 'svc:ci', kind: 'service' }));
    expect(r.actor.display_name).toBe('svc:ci');
  });

  it('is idempotent by external_ref: a second registration returns the same actor with created: false', async () => {
    const t = await seedTenant(db);
    const a = ok(await t.agent.call('register_actor', { external_ref: 'bot:one', kind: 'agent', display_name: 'One' }));
    const b = ok(await t.human.call('register_actor', { external_ref: 'bot:one', kind: 'agent', role: 'builder' }));
    expect(b.created).toBe(false);
    expect(b.idempotent_replay).toBeUndefined();
    expect(b.actor.id).toBe(a.actor.id);
    // fields not named keep their value; named ones update
    expect(b.actor).toMatchObject({ display_name: 'One', role: 'builder' });
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.actors where tenant_id = $1 and external_ref = 'bot:one'`, [t.id]);
    expect(n).toBe(1);
    const [{ logged }] = await db.query<{ logged: number }>(
      `select count(*)::int as logged from public.activity where tenant_id = $1 and object_id = $2 and verb = 'actor.registered'`,
      [t.id, a.actor.id],
    );
    expect(logged).toBe(1);
  });

  it('replays an identical retry in the same run', async () => {
    const t = await seedTenant(db);
    const input = { external_ref: 'bot:retry', kind: 'agent' };
    const a = ok(await t.agent.call('register_actor', input));
    const b = ok(await t.agent.call('register_actor', input));
    expect(b.idempotent_replay).toBe(true);
    expect(b.actor.id).toBe(a.actor.id);
  });

  it('refuses the same external_ref with another kind (CONFLICT naming the existing actor)', async () => {
    const t = await seedTenant(db);
    const a = ok(await t.human.call('register_actor', { external_ref: 'someone', kind: 'human' }));
    const e = fails(await t.agent.call('register_actor', { external_ref: 'someone', kind: 'agent' }), 'CONFLICT');
    expect(e.message).toContain('human');
    expect(e.details).toEqual({ actor_id: a.actor.id });
    const [{ kind }] = await db.query<{ kind: string }>('select kind from public.actors where id = $1', [a.actor.id]);
    expect(kind).toBe('human');
  });

  it('keeps the same external_ref in two workspaces apart', async () => {
    const a = await seedTenant(db);
    const b = await seedTenant(db);
    const ra = ok(await a.agent.call('register_actor', { external_ref: 'shared-ref', kind: 'agent' }));
    const rb = ok(await b.human.call('register_actor', { external_ref: 'shared-ref', kind: 'human' }));
    expect(rb.created).toBe(true);
    expect(rb.actor.id).not.toBe(ra.actor.id);
  });

  it('refuses a missing external_ref or an unknown kind (VALIDATION_ERROR)', async () => {
    const t = await seedTenant(db);
    expect(fails(await t.agent.call('register_actor', { kind: 'agent' }), 'VALIDATION_ERROR').message).toContain('external_ref');
    expect(fails(await t.agent.call('register_actor', { external_ref: 'x', kind: 'robot' }), 'VALIDATION_ERROR').message).toContain('kind');
    expect(fails(await t.agent.call('register_actor', { external_ref: '', kind: 'agent' }), 'VALIDATION_ERROR').message).toContain('external_ref');
  });

  it('refuses a reused idempotency_key with other input (IDEMPOTENCY_CONFLICT)', async () => {
    const t = await seedTenant(db);
    ok(await t.agent.call('register_actor', { external_ref: 'k1', kind: 'agent', idempotency_key: 'reg-1' }));
    const again = ok(await t.agent.call('register_actor', { external_ref: 'k1', kind: 'agent', idempotency_key: 'reg-1' }));
    expect(again.idempotent_replay).toBe(true);
    fails(await t.agent.call('register_actor', { external_ref: 'k2', kind: 'agent', idempotency_key: 'reg-1' }), 'IDEMPOTENCY_CONFLICT');
  });

  it('makes an actor that tasks can be assigned to', async () => {
    const t = await seedTenant(db);
    const r = ok(await t.agent.call('register_actor', { external_ref: 'helper', kind: 'agent' }));
    ok(await t.agent.call('project_create', { title: 'Assignable', key: 'ASG' }));
    const task = ok(await t.agent.call('task_create', { project_id: 'ASG', title: 'for helper', assignee_actor_id: r.actor.id }));
    expect(task.task.assignee_actor_id).toBe(r.actor.id);
  });
});

describe('actor_query', () => {
  let t: Awaited<ReturnType<typeof seedTenant>>;
  beforeAll(async () => {
    t = await seedTenant(db);
    for (const a of [
      { external_ref: 'q:ann', kind: 'agent', display_name: 'Ann', group: 'backend', role: 'builder', capabilities: ['sql'] },
      { external_ref: 'q:bob', kind: 'agent', display_name: 'bob', group: 'frontend', capabilities: ['css', 'ts'] },
      { external_ref: 'q:cara', kind: 'human', display_name: 'Cara', group: 'backend', role: 'reviewer' },
      { external_ref: 'q:dan', kind: 'service', display_name: 'Dan', capabilities: ['sql', 'ts'] },
      { external_ref: 'q:eve', kind: 'agent', display_name: 'Eve' },
    ]) {
      ok(await (a.kind === 'human' ? t.human : t.agent).call('register_actor', a));
    }
  });

  it('lists every actor of the workspace, sorted by name case-insensitively', async () => {
    const r = ok(await t.agent.call('actor_query'));
    const names = r.actors.map((a: any) => a.display_name);
    expect(names).toEqual(['Agent ' + t.slug, 'Ann', 'bob', 'Cara', 'Dan', 'Eve', 'Human ' + t.slug]);
    expect(r.next_cursor).toBeNull();
  });

  it.each([
    ['kind', { kind: 'agent' }, ['Agent', 'Ann', 'bob', 'Eve']],
    ['kind human', { kind: 'human' }, ['Cara', 'Human']],
    ['group', { group: 'backend' }, ['Ann', 'Cara']],
    ['capability', { capability: 'ts' }, ['bob', 'Dan']],
    ['q on the name', { q: 'AR' }, ['Cara']],
    ['q on external_ref', { q: 'q:e' }, ['Eve']],
    ['q on role', { q: 'review' }, ['Cara']],
    ['combined filters', { kind: 'agent', capability: 'sql' }, ['Ann']],
    ['a filter nothing matches', { group: 'nobody' }, []],
  ])('filters by %s', async (_what, filter, expected) => {
    const r = ok(await t.agent.call('actor_query', filter));
    expect(r.actors.map((a: any) => a.display_name.split(' ')[0])).toEqual(expected);
  });

  it('pages with a cursor that visits every actor exactly once', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = ok(await t.agent.call('actor_query', { limit: 2, ...(cursor ? { cursor } : {}) }));
      expect(r.actors.length).toBeLessThanOrEqual(2);
      seen.push(...r.actors.map((a: any) => a.id));
      cursor = r.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(4);
    expect(new Set(seen).size).toBe(7);
    expect(seen.length).toBe(7);
  });

  it('never shows actors of another workspace', async () => {
    const other = await seedTenant(db);
    const r = ok(await other.agent.call('actor_query', { q: 'q:' }));
    expect(r.actors).toEqual([]);
  });

  it('adds what each actor holds with include work: open tasks, the live claim, when last active', async () => {
    const u = await seedTenant(db);
    ok(await u.human.call('project_create', { title: 'Actor query', key: 'AQ' }));
    ok(await u.agent.call('task_create', { project_id: 'AQ', title: 'held' }));
    ok(await u.agent.call('task_create', { project_id: 'AQ', title: 'open', status: 'backlog', assignee_actor_id: u.agent.id }));
    const claimed = ok(await u.agent.call('task_claim', {}));
    const r = ok(await u.agent.call('actor_query', { kind: 'agent', include: ['work'] }));
    const me = r.actors.find((a: any) => a.id === u.agent.id);
    expect(me.open_tasks).toBe(2);
    expect(me.current_claim).toMatchObject({ task_id: claimed.task.id, project_key: 'AQ' });
    expect(me).toHaveProperty('last_active_at');
    expect(me).not.toHaveProperty('keys');
    // without include the rows stay plain actors
    expect(ok(await u.agent.call('actor_query', { kind: 'agent' })).actors[0]).not.toHaveProperty('open_tasks');
  });

  it('shows keys to people only: a person sees prefixes and scopes, never hashes; an agent is FORBIDDEN', async () => {
    const u = await seedTenant(db);
    const key = await mintKey(db, u.id, u.agent.id, 'ci', { scopes: ['tasks:read'], expiresInSeconds: null });
    const r = ok(await u.human.call('actor_query', { include: ['work', 'keys'] }));
    const agent = r.actors.find((a: any) => a.id === u.agent.id);
    expect(agent.keys).toEqual([expect.objectContaining({ label: 'ci', scopes: ['tasks:read'], revoked_at: null })]);
    expect(JSON.stringify(r)).not.toContain(key.api_key);
    expect(JSON.stringify(agent.keys[0])).not.toMatch(/hash/);
    expect(agent.pending_invites).toBe(0);
    const refused = fails(await u.agent.call('actor_query', { include: ['keys'] }), 'FORBIDDEN');
    expect(refused.message).toContain('keys');
    expect(refused.hint).toContain('without "keys"');
  });

  it('refuses a bad filter, page size or cursor (VALIDATION_ERROR)', async () => {
    expect(fails(await t.agent.call('actor_query', { include: ['secrets'] }), 'VALIDATION_ERROR').message).toContain('include');
    expect(fails(await t.agent.call('actor_query', { kind: 'robot' }), 'VALIDATION_ERROR').message).toContain('kind');
    expect(fails(await t.agent.call('actor_query', { limit: 0 }), 'VALIDATION_ERROR').message).toContain('limit');
    expect(fails(await t.agent.call('actor_query', { q: '' }), 'VALIDATION_ERROR').message).toContain('q');
    expect(fails(await t.agent.call('actor_query', { cursor: '////' }), 'VALIDATION_ERROR').message).toContain('cursor');
    expect(fails(await t.agent.call('actor_query', { cursor: 'abc' }), 'VALIDATION_ERROR').message).toContain('cursor');
  });
});
