import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';
import { authenticateKey } from '../../lib/server/auth';
import { hashKey } from '../../lib/server/keys';
import { mintKey, setAgentProfile } from '../../lib/server/workspace';
import { exportWorkspace, importWorkspace } from '../../lib/server/export';

/**
 * Routing work (issue 20, items 7–9): capabilities route claims, an agent's load limit and status,
 * deactivation (keys, leases, handoffs), models on actors, and task_recover. Each rule is tried
 * by the actor it protects against, and every refusal names its rule.
 */

let db: TestDb;
beforeAll(async () => {
  db = await freshDb();
});
afterAll(() => db.drop());

async function workspace(key = 'RT'): Promise<Tenant & { other: Actor }> {
  const t = await seedTenant(db);
  ok(await t.human.call('project_create', { title: 'Routing', key }));
  return Object.assign(t, { other: await t.addAgent('other') });
}

async function make(t: Tenant, tasks: Record<string, unknown>[], project = 'RT'): Promise<string[]> {
  return ok(await t.human.call('task_create_many', { project_id: project, tasks })).task_ids;
}

async function register(who: Actor, external_ref: string, fields: Record<string, unknown>) {
  return who.call('register_actor', { external_ref, kind: 'agent', ...fields });
}

async function refOf(who: Actor): Promise<string> {
  const [r] = await db.query<{ external_ref: string }>('select external_ref from public.actors where id = $1', [who.id]);
  return r.external_ref;
}

describe('capabilities route work', () => {
  it('claim-next offers only tasks whose requirements the caller has; a claim by id names the missing capability', async () => {
    const t = await workspace();
    const [gpu, plain] = await make(t, [{ title: 'train', priority: 0, requires_capabilities: ['gpu', 'python'] }, { title: 'docs', priority: 3 }]);
    const row = ok(await t.human.call('task_get', { task_id: gpu }));
    expect(row.task.requires_capabilities).toEqual(['gpu', 'python']);
    // the agent lacks gpu: whoami counts only the work it can take, and it gets the lower-priority task it can do
    ok(await register(t.agent, await refOf(t.agent), { capabilities: ['python'] }));
    expect(ok(await t.agent.call('whoami', {})).pool.ready).toBe(1);
    ok(await register(t.other, await refOf(t.other), { capabilities: ['gpu', 'python'] }));
    expect(ok(await t.other.call('whoami', {})).pool.ready).toBe(2);
    ok(await register(t.other, await refOf(t.other), { capabilities: [] }));
    const next = ok(await t.agent.call('task_claim', {}));
    expect(next.task.id).toBe(plain);
    const err = fails(await t.other.call('task_claim', { task_id: gpu }), 'NOT_CLAIMABLE');
    expect(err.message).toContain('requires_capabilities');
    expect(err.message).toContain('gpu, python');
    expect(err.details.missing_capabilities).toEqual(['gpu', 'python']);
    // the other agent registers both: claim-next now finds it
    ok(await register(t.other, await refOf(t.other), { capabilities: ['gpu', 'python', 'frontend'] }));
    expect(ok(await t.other.call('task_claim', {})).task.id).toBe(gpu);
    const found = ok(await t.human.call('actor_query', { capability: 'gpu' }));
    expect(found.actors.map((a: { id: string }) => a.id)).toEqual([t.other.id]);
  });

  it('task_update sets and clears requirements; an agent cannot set another agent\'s capabilities, an owner can', async () => {
    const t = await workspace();
    const [id] = await make(t, [{ title: 'x' }]);
    ok(await t.human.call('task_update', { task_id: id, patch: { requires_capabilities: ['rust'] } }));
    expect(ok(await t.agent.call('task_claim', {}))).toMatchObject({ claimed: false, reason: 'pool_empty' });
    ok(await t.human.call('task_update', { task_id: id, patch: { requires_capabilities: [] } }));
    expect(ok(await t.agent.call('task_claim', {})).task.id).toBe(id);
    const err = fails(await register(t.agent, await refOf(t.other), { capabilities: ['rust'] }), 'FORBIDDEN');
    expect(err.message).toContain('capabilities');
    const done = ok(await register(t.human, await refOf(t.other), { capabilities: ['rust'] }));
    expect(done.actor.capabilities).toEqual(['rust']);
  });
});

describe('load limit', () => {
  it('a claim beyond max_concurrent_tasks answers at_capacity (claim-next) or NOT_CLAIMABLE naming the limit (by id); renewing a held lease still works', async () => {
    const t = await workspace();
    const [a, b, c] = await make(t, [{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
    const set = ok(await register(t.agent, await refOf(t.agent), { max_concurrent_tasks: 1 }));
    expect(set.actor.max_concurrent_tasks).toBe(1);
    const first = ok(await t.agent.call('task_claim', { task_id: a }));
    expect(first.claimed).toBe(true);
    const next = ok(await t.agent.call('task_claim', {}));
    expect(next).toMatchObject({ claimed: false, reason: 'at_capacity' });
    expect(next.hint).toContain('max_concurrent_tasks');
    const err = fails(await t.agent.call('task_claim', { task_id: b }), 'NOT_CLAIMABLE');
    expect(err.message).toMatch(/max_concurrent_tasks: you hold 1 live lease and your limit is 1/);
    expect(ok(await t.agent.call('task_claim', { task_id: a, idempotency_key: 'renew' })).extended).toBe(true);
    // a lapsed lease does not count
    await db.query(`update public.tasks set lease_expires_at = now() - interval '1 second' where id = $1`, [a]);
    expect(ok(await t.agent.call('task_claim', { task_id: c })).claimed).toBe(true);
    // null lifts the limit
    ok(await register(t.agent, await refOf(t.agent), { max_concurrent_tasks: null }));
    expect(ok(await t.agent.call('task_claim', { task_id: b })).claimed).toBe(true);
  });
});

describe('status, models', () => {
  it('an agent pauses and resumes itself; paused claims answer paused; it cannot deactivate itself or touch another\'s status', async () => {
    const t = await workspace();
    const [a] = await make(t, [{ title: 'a' }]);
    const me = await refOf(t.agent);
    const paused = ok(await register(t.agent, me, { status: 'paused', default_model: 'model-x', model_provider: 'provider-y' }));
    expect(paused.actor).toMatchObject({ status: 'paused', default_model: 'model-x', model_provider: 'provider-y' });
    expect(ok(await t.agent.call('task_claim', {}))).toMatchObject({ claimed: false, reason: 'paused' });
    expect(fails(await t.agent.call('task_claim', { task_id: a }), 'NOT_CLAIMABLE').message).toContain('paused');
    // everything else works while paused
    ok(await t.agent.call('comment_add', { object_type: 'task', object_id: a, body: 'still here' }));
    // usage reported without a model is costed to the agent's default model, not to "unknown"
    ok(await t.agent.call('run_heartbeat', { usage: [{ tokens_in: 120, tokens_out: 30, cost_usd: 0.01 }, { model: 'other-model', tokens_in: 5 }] }));
    const summary = ok(await t.agent.call('run_summary', {}));
    expect(summary.usage.by_model.map((m: { model: string }) => m.model).sort()).toEqual(['model-x', 'other-model']);
    expect(fails(await register(t.agent, me, { status: 'deactivated' }), 'FORBIDDEN').message).toContain('status');
    expect(fails(await register(t.agent, await refOf(t.other), { status: 'paused' }), 'FORBIDDEN').message).toContain("another actor's status");
    expect(fails(await register(t.human, await refOf(t.human), { kind: 'human', status: 'paused' } as never), 'VALIDATION_ERROR').message).toContain('status');
    ok(await register(t.agent, me, { status: 'active' }));
    expect(ok(await t.agent.call('task_claim', {})).task.id).toBe(a);
  });

  it('an owner deactivates an agent: its keys stop at once, its leases return to the pool with a note, its open handoffs are marked for their senders', async () => {
    const t = await workspace();
    const [a, b] = await make(t, [{ title: 'a' }, { title: 'b' }]);
    const key = await mintKey(db, t.id, t.other.id, 'work');
    expect(await db.query('select * from bullpen.authenticate_key($1)', [hashKey(key.api_key)])).toHaveLength(1);
    // the MCP endpoint's cache believes a key for a while; a deactivation must not wait for it
    process.env.BULLPEN_KEY_CACHE_MS = '600000';
    expect(await authenticateKey(db, key.api_key, null, { cached: true })).not.toBeNull();
    ok(await t.other.call('task_claim', { task_id: a }));
    ok(await t.other.call('task_claim', { task_id: b }));
    const h = ok(await t.agent.call('handoff_create', { to_actor_ids: [t.other.id], title: 'please look', body: 'x' }));
    const r = ok(await register(t.human, await refOf(t.other), { status: 'deactivated' }));
    expect(r.actor.status).toBe('deactivated');
    expect(new Set(r.released_task_ids)).toEqual(new Set([a, b]));
    expect(r.marked_handoff_ids).toEqual([h.handoff_id]);
    expect(await db.query('select * from bullpen.authenticate_key($1)', [hashKey(key.api_key)])).toHaveLength(0);
    expect(await authenticateKey(db, key.api_key, null, { cached: true })).toBeNull();
    delete process.env.BULLPEN_KEY_CACHE_MS;
    const task = ok(await t.human.call('task_get', { task_id: a }));
    expect(task.task).toMatchObject({ status: 'todo', assignee_actor_id: null, lease: null });
    expect(JSON.stringify(task.comments)).toContain('was deactivated by');
    // the sender sees it in the inbox and on the handoff
    const inbox = ok(await t.agent.call('inbox', {}));
    expect(JSON.stringify(inbox.items)).toContain('handoff.recipient_deactivated');
    const seen = ok(await t.agent.call('handoff_query', { direction: 'from_me' }));
    expect(seen.handoffs[0].to[0].deactivated_at).not.toBeNull();
    // the work is back in the pool for others
    expect(ok(await t.agent.call('task_claim', {})).claimed).toBe(true);
    // activate reverses the status, not the released leases
    const back = ok(await register(t.human, await refOf(t.other), { status: 'active' }));
    expect(back.actor.status).toBe('active');
    expect(await db.query('select * from bullpen.authenticate_key($1)', [hashKey(key.api_key)])).toHaveLength(1);
    expect(await db.query('select id from public.tasks where lease_actor_id = $1', [t.other.id])).toEqual([]);
    const log = await db.query<{ verb: string }>(`select verb from public.activity where tenant_id = $1 and verb like 'actor.%' order by id`, [t.id]);
    expect(log.map((l) => l.verb)).toEqual(expect.arrayContaining(['actor.deactivated', 'actor.activated']));
  });
});

describe('task_recover', () => {
  async function held(t: Tenant & { other: Actor }) {
    const [id] = await make(t, [{ title: 'stuck' }]);
    ok(await t.other.call('task_claim', { task_id: id }));
    return id;
  }

  it('an agent cannot recover a live lease of a working agent; a person can, and the holder is told', async () => {
    const t = await workspace();
    const id = await held(t);
    const err = fails(await t.agent.call('task_recover', { task_id: id, to_status: 'todo', note: 'mine now' }), 'LEASE_HELD');
    expect(err.message).toContain('task_recover');
    expect(err.message).toContain('live lease');
    const r = ok(await t.human.call('task_recover', { task_id: id, to_status: 'failed', note: 'the run crashed' }));
    expect(r).toMatchObject({ previous_status: 'in_progress', previous_holder_actor_id: t.other.id, lease_was_live: true });
    expect(r.task).toMatchObject({ status: 'failed', lease: null });
    const inbox = ok(await t.other.call('inbox', {}));
    expect(JSON.stringify(inbox.items)).toContain('the run crashed');
    const get = ok(await t.human.call('task_get', { task_id: id }));
    expect(JSON.stringify(get.comments)).toContain('Recovered in_progress → failed');
    const [row] = await db.query<{ metadata: Record<string, unknown> }>(`select metadata from public.activity where object_id = $1 and verb = 'task.recovered'`, [id]);
    expect(row.metadata).toMatchObject({ from: 'in_progress', to: 'failed', note: 'the run crashed', by_kind: 'human' });
  });

  it('an agent recovers a lapsed lease, or one whose holder is paused; past the transition guards', async () => {
    const t = await workspace();
    const lapsed = await held(t);
    await db.query(`update public.tasks set lease_expires_at = now() - interval '1 second' where id = $1`, [lapsed]);
    const r = ok(await t.agent.call('task_recover', { task_id: lapsed, to_status: 'todo', note: 'lease lapsed' }));
    expect(r.task).toMatchObject({ status: 'todo', assignee_actor_id: null, lease: null });
    const [second] = await make(t, [{ title: 'second' }]);
    ok(await t.other.call('task_claim', { task_id: second }));
    ok(await register(t.other, await refOf(t.other), { status: 'paused' }));
    // in_progress → in_review is a guarded move elsewhere too; here it is forced
    expect(ok(await t.agent.call('task_recover', { task_id: second, to_status: 'in_review', note: 'holder paused' })).task.status).toBe('in_review');
  });

  it('refuses without a note, a finished task, and an agent on an unleased task', async () => {
    const t = await workspace();
    const [id, idle] = await make(t, [{ title: 'x' }, { title: 'idle', status: 'backlog' }]);
    fails(await t.human.call('task_recover', { task_id: id, to_status: 'todo' }), 'VALIDATION_ERROR');
    ok(await t.human.call('task_update', { task_id: id, patch: { status: 'cancelled' } }));
    expect(fails(await t.human.call('task_recover', { task_id: id, to_status: 'todo', note: 'x' }), 'INVALID_TRANSITION').message).toContain('cancelled');
    expect(fails(await t.agent.call('task_recover', { task_id: idle, to_status: 'failed', note: 'x' }), 'FORBIDDEN').message).toContain('no lease');
    // a person may force backlog → failed, which no ordinary move allows
    expect(ok(await t.human.call('task_recover', { task_id: idle, to_status: 'failed', note: 'abandoned' })).task.status).toBe('failed');
  });
});

describe('another workspace', () => {
  it('cannot see or route to actors, capabilities or status of another workspace', async () => {
    const t = await workspace('RA');
    const u = await workspace('RB');
    ok(await register(t.human, await refOf(t.other), { capabilities: ['secret-cap'], max_concurrent_tasks: 2, default_model: 'secret-model' }));
    expect(ok(await u.human.call('actor_query', { capability: 'secret-cap' })).actors).toEqual([]);
    // registering the same external_ref in another workspace makes a new actor there, never touching this one
    const theirs = ok(await register(u.human, await refOf(t.other), { status: 'paused' }));
    expect(theirs.created).toBe(true);
    const [mine] = await db.query<{ status: string; default_model: string }>('select status, default_model from public.actors where id = $1', [t.other.id]);
    expect(mine).toEqual({ status: 'active', default_model: 'secret-model' });
    const [id] = await make(t, [{ title: 'needs', requires_capabilities: ['secret-cap'] }], 'RA');
    fails(await u.human.call('task_recover', { task_id: id, to_status: 'todo', note: 'x' }), 'NOT_FOUND');
    fails(await u.other.call('task_claim', { task_id: id }), 'NOT_FOUND');
  });
});

describe('handoffs to many', () => {
  it('to_capabilities reaches every active agent with all of them, fixed at creation and listed; zero recipients is refused naming the rule', async () => {
    const t = await workspace();
    const third = await t.addAgent('third');
    const paused = await t.addAgent('paused');
    ok(await register(t.human, await refOf(t.other), { capabilities: ['python', 'gpu'] }));
    ok(await register(t.human, await refOf(third), { capabilities: ['python'] }));
    ok(await register(t.human, await refOf(paused), { capabilities: ['python', 'gpu'], status: 'paused' }));
    const h = ok(await t.agent.call('handoff_create', { to_capabilities: ['python', 'gpu'], title: 'who can train?', priority: 'high', tags: ['ml', 'q3'] }));
    expect(h.handoff.to.map((a: { id: string }) => a.id)).toEqual([t.other.id]);
    expect(h.handoff).toMatchObject({ priority: 'high', tags: ['ml', 'q3'], to_capabilities: ['python', 'gpu'] });
    // fixed at creation: an agent gaining the capabilities later is not added
    ok(await register(t.human, await refOf(third), { capabilities: ['python', 'gpu'] }));
    expect(ok(await third.call('inbox', {})).items).toEqual([]);
    // both: named actors and capabilities, without duplicates
    const both = ok(await t.agent.call('handoff_create', { to_actor_ids: [t.other.id], to_capabilities: ['gpu'], title: 'both' }));
    expect(both.handoff.to.map((a: { id: string }) => a.id).sort()).toEqual([t.other.id, third.id].sort());
    const err = fails(await t.agent.call('handoff_create', { to_capabilities: ['cobol'], title: 'anyone?' }), 'VALIDATION_ERROR');
    expect(err.message).toContain('to_capabilities: no active agent');
    fails(await t.agent.call('handoff_create', { title: 'nobody' }), 'VALIDATION_ERROR');
  });

  it('the inbox orders by priority, then age; handoff_query filters by priority and tags', async () => {
    const t = await workspace();
    const low = ok(await t.agent.call('handoff_create', { to_actor_ids: [t.other.id], title: 'low one', priority: 'low', tags: ['a'] }));
    const normal = ok(await t.agent.call('handoff_create', { to_actor_ids: [t.other.id], title: 'normal one', tags: ['a', 'b'] }));
    const urgent = ok(await t.agent.call('handoff_create', { to_actor_ids: [t.other.id], title: 'urgent one', priority: 'urgent' }));
    const inbox = ok(await t.other.call('inbox', { kinds: ['handoff'] }));
    expect(inbox.items.map((i: { id: string }) => i.id)).toEqual([urgent.handoff_id, normal.handoff_id, low.handoff_id]);
    const byPriority = ok(await t.other.call('handoff_query', { priority: ['urgent', 'low'] }));
    expect(byPriority.handoffs.map((h: { id: string }) => h.id).sort()).toEqual([urgent.handoff_id, low.handoff_id].sort());
    const byTags = ok(await t.other.call('handoff_query', { tags: ['a', 'b'] }));
    expect(byTags.handoffs.map((h: { id: string }) => h.id)).toEqual([normal.handoff_id]);
    // another workspace sees none of them
    const u = await workspace('RX');
    expect(ok(await u.agent.call('handoff_query', { tags: ['a'] })).handoffs).toEqual([]);
  });
});

describe('export, import and the CLI\'s path', () => {
  it('an export keeps the routing fields of actors, tasks and handoffs, and an import restores them', async () => {
    const t = await workspace('RE');
    ok(await register(t.human, await refOf(t.other), { capabilities: ['gpu'], max_concurrent_tasks: 2, default_model: 'm-1', model_provider: 'p-1', status: 'paused' }));
    await make(t, [{ title: 'needs gpu', requires_capabilities: ['gpu'] }], 'RE');
    ok(await t.agent.call('handoff_create', { to_actor_ids: [t.other.id], to_capabilities: ['gpu'], title: 'gpu anyone', priority: 'urgent', tags: ['ml'] }));
    const doc = await exportWorkspace(db, t.slug);
    const copy = await importWorkspace(db, doc, { slug: `${t.slug}-copy` });
    const [actor] = await db.query<Record<string, unknown>>(
      `select capabilities, max_concurrent_tasks, default_model, model_provider, status from public.actors where tenant_id = $1 and display_name = 'other'`,
      [copy.workspace.id],
    );
    expect(actor).toEqual({ capabilities: ['gpu'], max_concurrent_tasks: 2, default_model: 'm-1', model_provider: 'p-1', status: 'paused' });
    const [task] = await db.query<{ requires_capabilities: string[] }>(`select requires_capabilities from public.tasks where tenant_id = $1`, [copy.workspace.id]);
    expect(task.requires_capabilities).toEqual(['gpu']);
    const [h] = await db.query<Record<string, unknown>>(`select priority, tags, to_capabilities from public.handoffs where tenant_id = $1`, [copy.workspace.id]);
    expect(h).toEqual({ priority: 'urgent', tags: ['ml'], to_capabilities: ['gpu'] });
  });

  it('bullpen agent pause/deactivate acts as the workspace owner, with the same rules and effects', async () => {
    const t = await workspace('RC');
    const [id] = await make(t, [{ title: 'held' }], 'RC');
    ok(await t.other.call('task_claim', { task_id: id }));
    const caps = await setAgentProfile(db, { workspace: t.slug, name: 'other', capabilities: ['python'], max_concurrent_tasks: 3, default_model: 'm' });
    expect(caps.actor).toMatchObject({ capabilities: ['python'], max_concurrent_tasks: 3, default_model: 'm', status: 'active' });
    const off = await setAgentProfile(db, { workspace: t.slug, name: 'other', status: 'deactivated' });
    expect(off.actor.status).toBe('deactivated');
    expect(off.released_task_ids).toEqual([id]);
    await expect(setAgentProfile(db, { workspace: t.slug, name: 'nobody', status: 'paused' })).rejects.toThrow(/no agent "nobody"/);
  });
});
