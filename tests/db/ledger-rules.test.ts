import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureActor } from '../../lib/server/workspace';
import { assertOutput, fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';
import { execute } from '../../lib/core/execute';
import type { Claims } from '../../lib/db/types';

/**
 * The ledger keeps its promises between actors of one workspace (issue 15, items 2, 2b, 3 and 10):
 * a live lease protects its task from other agents, a person or owner who breaks it says so, the
 * done gate cannot be edited away in the call that closes, a review is someone else's, and search
 * text is literal. Runs on PGlite (db) and on Postgres (pg).
 */

let db: TestDb;
let t: Tenant;
let holder: Actor;
let other: Actor;
let person: Actor;
let reviewer: Actor;
let n = 0;

/** A human who is not a workspace owner (the seeded human is one). */
async function plainHuman(name: string): Promise<Actor> {
  const a = await ensureActor(db, t.id, { kind: 'human', external_ref: `human:${t.slug}:${name}`, display_name: name });
  const claims: Claims = { sub: a.id, role: 'authenticated', tenant_id: t.id, actor_id: a.id, run_id: `run-${name}`, kind: 'human' };
  const ctx = { db, claims };
  return { id: a.id, claims, ctx, call: async (tool, input = {}) => assertOutput(tool, await execute(ctx, tool, input)) };
}

async function task(input: Record<string, unknown> = {}): Promise<{ id: string; ref: string }> {
  const r = ok(await t.human.call('task_create', { project_id: 'LED', title: `ledger task ${++n}`, ...input }));
  return { id: r.task_id, ref: r.ref };
}

/** A task the holder claimed: in progress under its live lease. */
async function held(input: Record<string, unknown> = {}): Promise<{ id: string; ref: string; until: string }> {
  const x = await task(input);
  const c = ok(await holder.call('task_claim', { task_id: x.id, lease_seconds: 3600 }));
  return { ...x, until: c.lease_expires_at };
}

async function row(id: string) {
  const [r] = await db.query<Record<string, any>>(
    'select status, title, assignee_actor_id, lease_actor_id, lease_expires_at, acceptance_criteria from public.tasks where id = $1',
    [id],
  );
  return r;
}

beforeAll(async () => {
  db = await freshDb();
  t = await seedTenant(db);
  ok(await t.human.call('project_create', { title: 'Ledger', key: 'LED' }));
  holder = await t.addAgent('Holder');
  other = await t.addAgent('Other');
  reviewer = await t.addAgent('Reviewer');
  person = await plainHuman('Pat Person');
});
afterAll(() => db.drop());

describe('a live lease protects its task from other agents', () => {
  const writes: Array<[string, (id: string) => Record<string, unknown>]> = [
    ['task_update to done', (id) => ({ task_id: id, patch: { status: 'done' } })],
    ['task_update of the title', (id) => ({ task_id: id, patch: { title: 'mine now' } })],
    ['task_update of the assignee', (id) => ({ task_id: id, patch: { assignee_actor_id: 'me' } })],
    ['task_assign', (id) => ({ task_id: id, actor_id: 'me' })],
    ['task_release', (id) => ({ task_id: id, note: 'taking over' })],
  ];
  for (const [what, input] of writes) {
    it(`refuses another agent's ${what} with LEASE_HELD naming the holder and lease_expires_at, and changes nothing`, async () => {
      const x = await held();
      const before = await row(x.id);
      const tool = what.split(' ')[0];
      const e = fails(await other.call(tool, input(x.id)), 'LEASE_HELD');
      expect(e.message).toContain('Holder');
      expect(e.message).toContain(x.ref);
      expect(e.message).toContain(tool);
      expect(e.details).toMatchObject({ lease_actor_id: holder.id, lease_holder: 'Holder' });
      expect(new Date((e.details as { lease_expires_at: string }).lease_expires_at).getTime()).toBe(new Date(x.until).getTime());
      expect(e.hint).toMatch(/comment_add|handoff_create/);
      expect(await row(x.id)).toEqual(before);
      expect(before).toMatchObject({ status: 'in_progress', lease_actor_id: holder.id });
    });
  }

  it('leaves comments, code refs, attachments and links open to everyone', async () => {
    const x = await held();
    const dep = await task();
    ok(await other.call('comment_add', { object_type: 'task', object_id: x.id, body: 'spotted a bug here' }));
    ok(await other.call('attach_add', { object_type: 'task', object_id: x.id, kind: 'link', url: 'https://example.com/log' }));
    ok(await other.call('task_code_ref', { task_id: x.id, ref_type: 'pr', pr_number: 7, title: 'a fix' }));
    ok(await other.call('task_link', { task_id: x.id, add_depends_on: [dep.id] }));
    expect(await row(x.id)).toMatchObject({ status: 'in_progress', lease_actor_id: holder.id });
  });

  it('lets the holder write its own task', async () => {
    const x = await held();
    ok(await holder.call('task_update', { task_id: x.id, patch: { title: 'still mine' } }));
    expect(await row(x.id)).toMatchObject({ title: 'still mine', lease_actor_id: holder.id });
    ok(await holder.call('task_release', { task_id: x.id }));
  });

  it('protects nothing once the lease expired', async () => {
    const x = await held();
    await db.query(`update public.tasks set lease_expires_at = now() - interval '1 second' where id = $1`, [x.id]);
    ok(await other.call('task_update', { task_id: x.id, patch: { title: 'lapsed, so fair game' } }));
    ok(await other.call('task_assign', { task_id: x.id, actor_id: 'me' }));
    expect(await row(x.id)).toMatchObject({ title: 'lapsed, so fair game', assignee_actor_id: other.id });
  });

  async function brokenNotes(taskId: string) {
    return ok(await holder.call('notification_query', {})).notifications.filter(
      (x: { kind: string; task_id: string }) => x.kind === 'lease.broken' && x.task_id === taskId,
    );
  }
  async function brokenLog(taskId: string) {
    return db.query<{ verb: string; actor_id: string; summary: string; metadata: Record<string, unknown> }>(
      `select verb, actor_id, summary, metadata from public.activity where object_id = $1 and verb = 'task.lease_broken'`,
      [taskId],
    );
  }

  it('lets a person (not an owner) move the card: the lease ends, the holder is told who and why, the log records it', async () => {
    const x = await held();
    const r = ok(await person.call('task_update', { task_id: x.id, patch: { status: 'todo' } }));
    expect(r.task).toMatchObject({ status: 'todo', lease: null });
    expect(await row(x.id)).toMatchObject({ lease_actor_id: null, lease_expires_at: null });
    const [note] = await brokenNotes(x.id);
    expect(note.title).toContain('Pat Person');
    expect(note.title).toContain(x.ref);
    expect(note.title).toContain('in_progress → todo');
    expect(note.actor_id).toBe(person.id);
    const [log] = await brokenLog(x.id);
    expect(log).toMatchObject({ actor_id: person.id, metadata: { holder_actor_id: holder.id, by_kind: 'human', tool: 'task_update' } });
    expect(log.summary).toContain('Holder');
  });

  it('lets a workspace owner reassign or release it, with the same notice', async () => {
    const a = await held();
    ok(await t.human.call('task_assign', { task_id: a.id, actor_id: other.id }));
    expect(await row(a.id)).toMatchObject({ assignee_actor_id: other.id, lease_actor_id: null });
    expect((await brokenNotes(a.id))[0].title).toContain('gave it to Other');
    expect((await brokenLog(a.id))[0].metadata).toMatchObject({ by_owner: true, tool: 'task_assign' });

    const b = await held();
    ok(await t.human.call('task_release', { task_id: b.id, note: 'priorities changed' }));
    expect(await row(b.id)).toMatchObject({ status: 'todo', assignee_actor_id: null, lease_actor_id: null });
    expect((await brokenNotes(b.id))[0].title).toContain('priorities changed');
    expect(await brokenLog(b.id)).toHaveLength(1);
  });

  it('keeps the lease when a person edits without moving the card', async () => {
    const x = await held();
    ok(await person.call('task_update', { task_id: x.id, patch: { title: 'typo fixed' } }));
    expect(await row(x.id)).toMatchObject({ title: 'typo fixed', lease_actor_id: holder.id, status: 'in_progress' });
    expect(await brokenNotes(x.id)).toEqual([]);
  });
});

describe('the done gate cannot be edited away in the call that closes', () => {
  const criteria = [{ text: 'tests pass on CI', met: false }, { text: 'docs updated', met: false }];

  async function ready(): Promise<string> {
    const x = await task({ acceptance_criteria: criteria });
    ok(await holder.call('task_claim', { task_id: x.id }));
    return x.id;
  }

  it('refuses replacing the criteria with status done (GATE_UNMET naming the rule), changing nothing', async () => {
    const id = await ready();
    const e = fails(await holder.call('task_update', {
      task_id: id, patch: { status: 'done', acceptance_criteria: [{ text: 'it works on my machine', met: true }] },
    }), 'GATE_UNMET');
    expect(e.message).toContain('a move to done may only tick existing acceptance criteria');
    expect(e.message).toContain('tests pass on CI');
    expect(await row(id)).toMatchObject({ status: 'in_progress', acceptance_criteria: criteria });
  });

  it('refuses adding or dropping a criterion in the call that moves to done', async () => {
    const id = await ready();
    const add = fails(await holder.call('task_update', {
      task_id: id, patch: { status: 'done', acceptance_criteria: [...criteria.map((c) => ({ ...c, met: true })), { text: 'extra', met: true }] },
    }), 'GATE_UNMET');
    expect(add.message).toContain('adds "extra"');
    const drop = fails(await holder.call('task_update', {
      task_id: id, patch: { status: 'done', acceptance_criteria: [{ text: 'tests pass on CI', met: true }] },
    }), 'GATE_UNMET');
    expect(drop.message).toContain('drops [1] "docs updated"');
  });

  it('closes when the call only ticks the existing criteria', async () => {
    const id = await ready();
    const r = ok(await holder.call('task_update', {
      task_id: id, patch: { status: 'done', acceptance_criteria: [{ text: 'tests pass on CI', met: true }, { text: 'docs updated', met: true }] },
    }));
    expect(r.task.status).toBe('done');
  });

  it('logs an unmet criterion dropped or reworded with its old text, and task_get shows it', async () => {
    const id = await ready();
    ok(await holder.call('task_update', {
      task_id: id, patch: { acceptance_criteria: [{ text: 'tests pass somewhere', met: false }] },
    }));
    const g = ok(await holder.call('task_get', { task_id: id }));
    const entry = g.activity.find((a: { verb: string }) => a.verb === 'task.criteria_changed');
    expect(entry.summary).toContain('reworded unmet criterion "tests pass on CI" as "tests pass somewhere"');
    expect(entry.summary).toContain('dropped unmet criterion "docs updated"');
    expect(entry.metadata).toMatchObject({ dropped: ['docs updated'], reworded: [{ from: 'tests pass on CI', to: 'tests pass somewhere' }] });
    // ticking and adding are not logged as a weaker gate
    ok(await holder.call('task_update', {
      task_id: id, patch: { acceptance_criteria: [{ text: 'tests pass somewhere', met: true }, 'one more'] },
    }));
    const log = await db.query(`select 1 from public.activity where object_id = $1 and verb = 'task.criteria_changed'`, [id]);
    expect(log).toHaveLength(1);
  });
});

describe('a review is someone else\'s', () => {
  it('refuses naming yourself reviewer of your own task (FORBIDDEN with the rule)', async () => {
    const x = await held();
    const e = fails(await holder.call('task_update', { task_id: x.id, patch: { reviewer_actor_id: 'me' } }), 'FORBIDDEN');
    expect(e.message).toContain("a review is someone else's");
    expect(e.message).toContain('patch.reviewer_actor_id');
    const c = fails(await holder.call('task_create', { project_id: 'LED', title: 'self-reviewed', assignee_actor_id: 'me', reviewer_actor_id: 'me' }), 'FORBIDDEN');
    expect(c.message).toContain("a review is someone else's");
    // a claimer stays one after handing the task on
    ok(await holder.call('task_assign', { task_id: x.id, actor_id: other.id }));
    fails(await t.human.call('task_update', { task_id: x.id, patch: { reviewer_actor_id: holder.id } }), 'FORBIDDEN');
    // handing one's task on and naming oneself reviewer in the same call is still one's own work
    const y = await task({ assignee_actor_id: other.id });
    fails(await other.call('task_update', { task_id: y.id, patch: { assignee_actor_id: reviewer.id, reviewer_actor_id: 'me' } }), 'FORBIDDEN');
    // a person may name anyone else
    ok(await t.human.call('task_update', { task_id: y.id, patch: { reviewer_actor_id: reviewer.id } }));
  });

  it('refuses approving a review of your own work, and the gate stays shut', async () => {
    const x = await task({ reviewer_actor_id: holder.id });
    ok(await holder.call('task_claim', { task_id: x.id }));
    const h = ok(await holder.call('handoff_query', { direction: 'to_me' })).handoffs.find(
      (y: { related_task_id: string }) => y.related_task_id === x.id,
    );
    const e = fails(await holder.call('handoff_respond', { handoff_id: h.id, response: { chosen_option: 'approve' } }), 'FORBIDDEN');
    expect(e.message).toContain("a review is someone else's");
    fails(await holder.call('task_update', { task_id: x.id, patch: { status: 'done' } }), 'GATE_UNMET');
  });

  it('counts an approval only from an actor other than the assignee and the claimer', async () => {
    const x = await task({ reviewer_actor_id: reviewer.id });
    ok(await holder.call('task_claim', { task_id: x.id }));
    const h = ok(await reviewer.call('handoff_query', { direction: 'to_me' })).handoffs.find(
      (y: { related_task_id: string }) => y.related_task_id === x.id,
    );
    ok(await reviewer.call('handoff_respond', { handoff_id: h.id, response: { chosen_option: 'approve' } }));
    // the reviewer then takes the work over itself: its own approval no longer counts
    ok(await holder.call('task_release', { task_id: x.id }));
    ok(await reviewer.call('task_claim', { task_id: x.id }));
    const e = fails(await reviewer.call('task_update', { task_id: x.id, patch: { status: 'done' } }), 'GATE_UNMET');
    expect(e.message).toContain("a review is someone else's");
    // while an approval by another actor closes it
    const y = await task({ reviewer_actor_id: reviewer.id });
    ok(await holder.call('task_claim', { task_id: y.id }));
    const hy = ok(await reviewer.call('handoff_query', { direction: 'to_me' })).handoffs.find(
      (z: { related_task_id: string }) => z.related_task_id === y.id,
    );
    ok(await reviewer.call('handoff_respond', { handoff_id: hy.id, response: { chosen_option: 'approve' } }));
    expect(ok(await holder.call('task_update', { task_id: y.id, patch: { status: 'done' } })).task.status).toBe('done');
  });
});

describe('search text is literal', () => {
  beforeAll(async () => {
    for (const title of ['path a\\b', '100% done', 'snake_case name', 'plain words']) {
      ok(await t.human.call('task_create', { project_id: 'LED', title }));
    }
  });

  it('task_query matches \\, % and _ as themselves', async () => {
    const titles = async (q: string) =>
      ok(await t.agent.call('task_query', { q, status: ['todo'] })).tasks.map((x: { title: string }) => x.title);
    expect(await titles('\\')).toEqual(['path a\\b']);
    expect(await titles('%')).toEqual(['100% done']);
    expect(await titles('_')).toEqual(['snake_case name']);
    expect(await titles('a\\b')).toEqual(['path a\\b']);
  });

  it('every other listing that takes free text answers without INTERNAL and without wildcards', async () => {
    for (const q of ['\\', '%', '_', 'a\\', '%%']) {
      expect(ok(await t.agent.call('actor_query', { q })).actors).toEqual([]);
      expect(ok(await t.agent.call('project_query', { q })).projects).toEqual([]);
      ok(await t.agent.call('decision_query', { q }));
      ok(await t.agent.call('skill_list', { q }));
      expect(ok(await t.agent.call('repo_query', { q })).repositories).toEqual([]);
      expect(ok(await t.agent.call('feature_request_query', { q })).feature_requests).toEqual([]);
      ok(await t.agent.call('knowledge_search', { q }));
      ok(await t.agent.call('search', { q }));
    }
    expect(ok(await t.agent.call('task_query', { q: '%%', status: ['todo'] })).tasks).toEqual([]);
  });
});
