import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * handoff_create, handoff_claim, handoff_respond, handoff_resolve and handoff_query: happy paths
 * and every error code each can return; the review on-ramp and the review gate; the notifications
 * that triggers write (mentions, assignment, wake-on-resolved). The inbox itself, waiting and
 * notification tools live in tools-inbox.test.ts.
 */

let db: TestDb;
let T: Tenant;
let ada: Actor;
let bob: Actor;
let eve: Actor;
const NIL = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'handoffs');
  ada = await T.addAgent('Ada Lovelace');
  bob = await T.addAgent('Bob');
  eve = await T.addAgent('Eve');
  ok(await T.human.call('project_create', { title: 'Payments', key: 'PAY' }));
  ok(await T.human.call('project_create', { title: 'Other', key: 'OTH' }));
});
afterAll(() => db.drop());

let n = 0;
/** A handoff with a unique title from `from` to `to`. */
async function ask(from: Actor, to: Actor[], input: Record<string, unknown> = {}): Promise<Record<string, any>> {
  return ok(await from.call('handoff_create', { to_actor_ids: to.map((a) => a.id), title: `ask ${++n}`, ...input }));
}

async function notifications(actor: Actor): Promise<{ kind: string; title: string; body: string; handoff_id: string | null }[]> {
  return ok(await actor.call('notification_query', { limit: 200 })).notifications;
}

describe('handoff_create', () => {
  it('opens a question to a person with options and tells the recipient', async () => {
    const r = ok(await T.agent.call('handoff_create', {
      to_actor_ids: [T.human.id], kind: 'question', title: 'Which currency for refunds?', body: 'PAY needs it',
      options: ['EUR', 'USD'], due_at: '2030-01-02T03:04:05Z',
    }));
    expect(r).toMatchObject({ deduped: false, handoff_id: r.handoff.id });
    expect(r.handoff).toMatchObject({
      kind: 'question', title: 'Which currency for refunds?', body: 'PAY needs it', status: 'open', options: ['EUR', 'USD'],
      allow_free_text: true, from_actor_id: T.agent.id, from: { id: T.agent.id, kind: 'agent' },
      to: [{ id: T.human.id, kind: 'human' }], claimed_by: null, response: null, resolution: null, related_task_id: null,
    });
    expect(new Date(r.handoff.due_at).toISOString()).toBe('2030-01-02T03:04:05.000Z');
    expect(r.handoff).not.toHaveProperty('tenant_id');
    const log = await db.query<{ verb: string; summary: string }>('select verb, summary from public.activity where object_id = $1', [r.handoff_id]);
    expect(log).toEqual([{ verb: 'handoff.created', summary: `question to Human handoffs: Which currency for refunds?` }]);
    const mine = await notifications(T.human);
    expect(mine[0]).toMatchObject({ kind: 'handoff.received', handoff_id: r.handoff_id, title: 'Question from Agent handoffs: Which currency for refunds?' });
  });

  it('resolves "me", takes several recipients, and links a task by KEY-N (its project implied)', async () => {
    ok(await T.human.call('task_create', { project_id: 'PAY', title: 'refund rounding' }));
    const r = await ask(ada, [], { to_actor_ids: ['me', bob.id, bob.id], related_task_id: 'PAY-1' });
    expect(r.handoff.to.map((a: { id: string }) => a.id).sort()).toEqual([ada.id, bob.id].sort());
    expect(r.handoff).toMatchObject({ related_task_ref: 'PAY-1', kind: 'handoff' });
    const [{ project_id }] = await db.query<{ project_id: string }>(`select project_id from public.tasks where id = $1`, [r.handoff.related_task_id]);
    expect(r.handoff.related_project_id).toBe(project_id);
  });

  it('gives reviews and approvals their default options', async () => {
    expect((await ask(ada, [bob], { kind: 'review' })).handoff.options).toEqual(['approve', 'request_changes']);
    expect((await ask(ada, [bob], { kind: 'approval' })).handoff.options).toEqual(['approve', 'reject']);
    expect((await ask(ada, [bob], { kind: 'approval', options: ['ship', 'hold'] })).handoff.options).toEqual(['ship', 'hold']);
  });

  it('dedups a live duplicate by its derived fingerprint, however the title is spaced or cased', async () => {
    const first = ok(await ada.call('handoff_create', { to_actor_ids: [bob.id, eve.id], title: 'Please review the refund PR', idempotency_key: 'd1' }));
    const again = ok(await ada.call('handoff_create', { to_actor_ids: [eve.id, bob.id], title: '  please REVIEW the   refund PR ', idempotency_key: 'd2' }));
    expect(again).toMatchObject({ deduped: true, handoff_id: first.handoff_id });
    // another sender, or another kind, is another request
    const fromBob = ok(await bob.call('handoff_create', { to_actor_ids: [eve.id], title: 'Please review the refund PR' }));
    expect(fromBob.deduped).toBe(false);
    const [{ c }] = await db.query<{ c: number }>(`select count(*)::int as c from public.handoffs where title ilike '%review the refund%'`);
    expect(c).toBe(2);
    // a resolved handoff no longer dedups
    ok(await ada.call('handoff_resolve', { handoff_id: first.handoff_id, resolution: 'cancelled' }));
    const fresh = ok(await ada.call('handoff_create', { to_actor_ids: [bob.id, eve.id], title: 'Please review the refund PR', idempotency_key: 'd3' }));
    expect(fresh.deduped).toBe(false);
    expect(fresh.handoff_id).not.toBe(first.handoff_id);
  });

  it('dedups on an explicit fingerprint across senders and titles', async () => {
    const a = await ask(ada, [eve], { fingerprint: 'deploy-approval-42' });
    const b = await ask(bob, [T.human], { fingerprint: 'deploy-approval-42' });
    expect(b).toMatchObject({ deduped: true, handoff_id: a.handoff_id });
    expect(b.handoff.from_actor_id).toBe(ada.id);
  });

  it('replays a retry of the same call in the same run', async () => {
    const one = ok(await ada.call('handoff_create', { to_actor_ids: [bob.id], title: 'retry me' }));
    const two = ok(await ada.call('handoff_create', { to_actor_ids: [bob.id], title: 'retry me' }));
    expect(two).toMatchObject({ handoff_id: one.handoff_id, idempotent_replay: true });
  });

  it('refuses bad input with VALIDATION_ERROR naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ to_actor_ids: [], title: 'x' }, 'to_actor_ids'],
      [{ title: 'x' }, 'to_actor_ids'],
      [{ to_actor_ids: [bob.id] }, 'title'],
      [{ to_actor_ids: [bob.id], title: '   ' }, 'title'],
      [{ to_actor_ids: [bob.id], title: 'x', kind: 'memo' }, 'kind'],
      [{ to_actor_ids: ['bob'], title: 'x' }, 'to_actor_ids'],
      [{ to_actor_ids: [bob.id], title: 'x', due_at: 'tomorrow' }, 'due_at'],
      [{ to_actor_ids: [bob.id], title: 'x', options: ['a', 'a'] }, 'options'],
      [{ to_actor_ids: [bob.id], title: 'x', allow_free_text: false }, 'allow_free_text'],
      [{ to_actor_ids: [bob.id], title: 'x', related_task_id: 'PAY-1', related_project_id: 'OTH' }, 'related_project_id'],
      [{ to_actor_ids: [bob.id], title: 'x', colour: 'red' }, 'colour'],
    ];
    for (const [input, field] of cases) {
      expect(fails(await ada.call('handoff_create', input), 'VALIDATION_ERROR').message, JSON.stringify(input)).toContain(field);
    }
  });

  it('answers NOT_FOUND for an unknown recipient, task or project, naming the field', async () => {
    expect(fails(await ada.call('handoff_create', { to_actor_ids: [bob.id, NIL], title: 'x' }), 'NOT_FOUND').message).toContain('to_actor_ids[1]');
    expect(fails(await ada.call('handoff_create', { to_actor_ids: [bob.id], title: 'x', related_task_id: 'PAY-999' }), 'NOT_FOUND').message).toContain('related_task_id');
    expect(fails(await ada.call('handoff_create', { to_actor_ids: [bob.id], title: 'x', related_project_id: 'NOPE' }), 'NOT_FOUND').message).toContain('related_project_id');
  });
});

describe('handoff_claim', () => {
  it('is a compare-and-swap: the first recipient wins, a sibling gets CONFLICT naming the holder and since when', async () => {
    const h = await ask(ada, [bob, eve]);
    const won = ok(await bob.call('handoff_claim', { handoff_id: h.handoff_id }));
    expect(won).toMatchObject({ claimed: true, already_yours: false, handoff: { status: 'claimed', claimed_by_actor_id: bob.id, claimed_by: { display_name: 'Bob' } } });
    const lost = fails(await eve.call('handoff_claim', { handoff_id: h.handoff_id }), 'CONFLICT');
    expect(lost.message).toMatch(/^handoff already claimed by Bob since \d{4}-\d\d-\d\dT/);
    expect(lost.details).toMatchObject({ claimed_by_actor_id: bob.id, claimed_by: 'Bob', status: 'claimed' });
    expect(lost.retryable).toBe(true);
    // claiming again what you hold is harmless
    expect(ok(await bob.call('handoff_claim', { handoff_id: h.handoff_id, idempotency_key: 'again' }))).toMatchObject({ claimed: true, already_yours: true });
    const log = await db.query<{ verb: string }>('select verb from public.activity where object_id = $1 order by id', [h.handoff_id]);
    expect(log.map((l) => l.verb)).toEqual(['handoff.created', 'handoff.claimed']);
  });

  it('refuses a non-recipient with FORBIDDEN that says who may', async () => {
    const h = await ask(ada, [bob]);
    const e = fails(await eve.call('handoff_claim', { handoff_id: h.handoff_id }), 'FORBIDDEN');
    expect(e.message).toContain('only a recipient claims');
    expect(e.message).toContain('Bob');
    fails(await ada.call('handoff_claim', { handoff_id: h.handoff_id }), 'FORBIDDEN');
  });

  it('refuses a resolved or already answered handoff with INVALID_TRANSITION', async () => {
    const h = await ask(ada, [bob]);
    ok(await ada.call('handoff_resolve', { handoff_id: h.handoff_id, resolution: 'cancelled', note: 'not needed' }));
    expect(fails(await bob.call('handoff_claim', { handoff_id: h.handoff_id }), 'INVALID_TRANSITION').message).toContain('resolved (cancelled)');
    const h2 = await ask(ada, [bob]);
    ok(await bob.call('handoff_respond', { handoff_id: h2.handoff_id, response: { text: 'done it' } }));
    expect(fails(await bob.call('handoff_claim', { handoff_id: h2.handoff_id }), 'INVALID_TRANSITION').message).toContain('already answered');
  });

  it('answers NOT_FOUND for an unknown id and VALIDATION_ERROR for a malformed one', async () => {
    expect(fails(await bob.call('handoff_claim', { handoff_id: NIL }), 'NOT_FOUND').message).toContain('handoff_id');
    expect(fails(await bob.call('handoff_claim', { handoff_id: 'h-1' }), 'VALIDATION_ERROR').message).toContain('handoff_id');
    expect(fails(await bob.call('handoff_claim', {}), 'VALIDATION_ERROR').message).toContain('handoff_id');
  });
});

describe('handoff_respond', () => {
  it('records the answer, tells the sender, and the sender reads it with handoff_query from_me', async () => {
    const h = await ask(ada, [bob], { kind: 'question', options: ['yes', 'no'] });
    ok(await bob.call('handoff_claim', { handoff_id: h.handoff_id }));
    const r = ok(await bob.call('handoff_respond', { handoff_id: h.handoff_id, response: { chosen_option: 'yes', text: 'checked the logs', result_ref: 'PAY-1', extra: 42 } }));
    expect(r.handoff).toMatchObject({ status: 'responded', responded_by_actor_id: bob.id, responded_by: { display_name: 'Bob' },
      response: { chosen_option: 'yes', text: 'checked the logs', result_ref: 'PAY-1', extra: 42 } });
    expect(r).not.toHaveProperty('task');
    const mine = ok(await ada.call('handoff_query', { direction: 'from_me', status: ['responded'] }));
    expect(mine.handoffs.find((x: { id: string }) => x.id === h.handoff_id).response.chosen_option).toBe('yes');
    expect((await notifications(ada)).find((x) => x.handoff_id === h.handoff_id)).toMatchObject({
      kind: 'handoff.responded', title: `Bob answered "${h.handoff.title}": yes`, body: 'checked the logs',
    });
  });

  it('may answer an open handoff without claiming it first (the answer claims it)', async () => {
    const h = await ask(ada, [bob, eve]);
    const r = ok(await eve.call('handoff_respond', { handoff_id: h.handoff_id, response: { text: 'on it and done' } }));
    expect(r.handoff).toMatchObject({ status: 'responded', claimed_by_actor_id: eve.id });
    expect(fails(await bob.call('handoff_respond', { handoff_id: h.handoff_id, response: { text: 'me too' } }), 'INVALID_TRANSITION').message).toContain('already answered by Eve');
  });

  it('checks chosen_option against options and text against allow_free_text, naming the field', async () => {
    const strict = await ask(ada, [bob], { kind: 'approval', allow_free_text: false });
    const cases: [Record<string, unknown>, string][] = [
      [{ chosen_option: 'maybe' }, 'response.chosen_option: "maybe" is not one of approve, reject'],
      [{ chosen_option: 'approve', text: 'because' }, 'response.text: this handoff takes no free text'],
      [{ result_ref: 'x' }, 'response.chosen_option: required'],
    ];
    for (const [response, msg] of cases) {
      expect(fails(await bob.call('handoff_respond', { handoff_id: strict.handoff_id, response }), 'VALIDATION_ERROR').message).toContain(msg);
    }
    const open = await ask(ada, [bob]);
    expect(fails(await bob.call('handoff_respond', { handoff_id: open.handoff_id, response: { chosen_option: 'a' } }), 'VALIDATION_ERROR').message).toContain('offers no options');
    expect(fails(await bob.call('handoff_respond', { handoff_id: open.handoff_id, response: {} }), 'VALIDATION_ERROR').message).toContain('response: empty');
    expect(fails(await bob.call('handoff_respond', { handoff_id: open.handoff_id, response: { text: '   ' } }), 'VALIDATION_ERROR').message).toContain('response: empty');
    expect(fails(await bob.call('handoff_respond', { handoff_id: open.handoff_id }), 'VALIDATION_ERROR').message).toContain('response');
    expect(fails(await bob.call('handoff_respond', { handoff_id: open.handoff_id, response: 'yes' }), 'VALIDATION_ERROR').message).toContain('response');
    // none of the refusals changed it
    expect(ok(await bob.call('handoff_respond', { handoff_id: strict.handoff_id, response: { chosen_option: 'reject' } })).handoff.status).toBe('responded');
  });

  it('refuses a non-recipient (FORBIDDEN), a sibling while another holds it (CONFLICT), a resolved one, and unknown ids', async () => {
    const h = await ask(ada, [bob, eve]);
    expect(fails(await ada.call('handoff_respond', { handoff_id: h.handoff_id, response: { text: 'x' } }), 'FORBIDDEN').message).toContain('only a recipient answers');
    ok(await bob.call('handoff_claim', { handoff_id: h.handoff_id }));
    expect(fails(await eve.call('handoff_respond', { handoff_id: h.handoff_id, response: { text: 'x' } }), 'CONFLICT').message).toContain('claimed by Bob');
    ok(await ada.call('handoff_resolve', { handoff_id: h.handoff_id, resolution: 'cancelled' }));
    expect(fails(await bob.call('handoff_respond', { handoff_id: h.handoff_id, response: { text: 'x' } }), 'INVALID_TRANSITION').message).toContain('resolved');
    fails(await bob.call('handoff_respond', { handoff_id: NIL, response: { text: 'x' } }), 'NOT_FOUND');
  });
});

describe('handoff_resolve', () => {
  it('lets the sender or the claimer close it, processed by default, with a note', async () => {
    const h = await ask(ada, [bob]);
    ok(await bob.call('handoff_claim', { handoff_id: h.handoff_id }));
    const r = ok(await bob.call('handoff_resolve', { handoff_id: h.handoff_id, note: 'shipped in PAY-1' }));
    expect(r.handoff).toMatchObject({ status: 'resolved', resolution: 'processed', resolution_note: 'shipped in PAY-1', resolved_by_actor_id: bob.id });
    const h2 = await ask(ada, [bob]);
    expect(ok(await ada.call('handoff_resolve', { handoff_id: h2.handoff_id, resolution: 'cancelled' })).handoff).toMatchObject({ resolution: 'cancelled', resolved_by_actor_id: ada.id });
    const log = await db.query<{ verb: string; summary: string }>('select verb, summary from public.activity where object_id = $1 order by id', [h.handoff_id]);
    expect(log.map((l) => l.verb)).toEqual(['handoff.created', 'handoff.claimed', 'handoff.resolved']);
    expect(log[2].summary).toBe(`processed: ${h.handoff.title} — shipped in PAY-1`);
  });

  it('refuses a recipient who has not claimed it and a bystander with FORBIDDEN saying who may', async () => {
    const h = await ask(ada, [bob, eve]);
    const e = fails(await bob.call('handoff_resolve', { handoff_id: h.handoff_id }), 'FORBIDDEN');
    expect(e.message).toContain('only the sender (Ada Lovelace) or the recipient who claimed it (nobody yet)');
    expect(e.hint).toContain('handoff_claim');
    ok(await eve.call('handoff_claim', { handoff_id: h.handoff_id }));
    expect(fails(await bob.call('handoff_resolve', { handoff_id: h.handoff_id }), 'FORBIDDEN').message).toContain('(Eve)');
    fails(await T.human.call('handoff_resolve', { handoff_id: h.handoff_id }), 'FORBIDDEN');
  });

  it('refuses a second resolve with INVALID_TRANSITION, and answers NOT_FOUND / VALIDATION_ERROR', async () => {
    const h = await ask(ada, [bob]);
    ok(await bob.call('handoff_claim', { handoff_id: h.handoff_id }));
    ok(await ada.call('handoff_resolve', { handoff_id: h.handoff_id }));
    expect(fails(await bob.call('handoff_resolve', { handoff_id: h.handoff_id }), 'INVALID_TRANSITION').message).toContain('already resolved (processed) by Ada Lovelace');
    fails(await ada.call('handoff_resolve', { handoff_id: NIL }), 'NOT_FOUND');
    expect(fails(await ada.call('handoff_resolve', { handoff_id: h.handoff_id, resolution: 'done' }), 'VALIDATION_ERROR').message).toContain('resolution');
  });
});

describe('handoff_query', () => {
  let q: Tenant;
  let x: Actor;
  let y: Actor;
  beforeAll(async () => {
    q = await seedTenant(db);
    x = await q.addAgent('x');
    y = await q.addAgent('y');
    ok(await q.human.call('project_create', { title: 'Q', key: 'Q' }));
    ok(await q.human.call('task_create', { project_id: 'Q', title: 'qt' }));
    for (let i = 0; i < 5; i++) ok(await x.call('handoff_create', { to_actor_ids: [y.id], title: `x to y ${i}`, kind: i % 2 ? 'question' : 'handoff' }));
    ok(await y.call('handoff_create', { to_actor_ids: [x.id], title: 'y to x', related_task_id: 'Q-1' }));
    ok(await q.human.call('handoff_create', { to_actor_ids: [q.agent.id], title: 'human to agent' }));
  });

  it('filters by direction: from_me, to_me, any (the workspace)', async () => {
    const titles = async (input: Record<string, unknown>) => ok(await x.call('handoff_query', input)).handoffs.map((h: { title: string }) => h.title);
    expect(await titles({ direction: 'from_me' })).toEqual(['x to y 4', 'x to y 3', 'x to y 2', 'x to y 1', 'x to y 0']);
    expect(await titles({ direction: 'to_me' })).toEqual(['y to x']);
    expect(await titles({})).toHaveLength(7);
    expect(await titles({ direction: 'any', type: ['question'] })).toEqual(['x to y 3', 'x to y 1']);
    expect(await titles({ related_task_id: 'Q-1' })).toEqual(['y to x']);
    expect(await titles({ related_project_id: 'Q' })).toEqual(['y to x']);
  });

  it('filters by status and pages newest first with a cursor', async () => {
    const [first] = ok(await y.call('handoff_query', { direction: 'to_me' })).handoffs;
    ok(await y.call('handoff_claim', { handoff_id: first.id }));
    expect(ok(await y.call('handoff_query', { direction: 'to_me', status: ['claimed'] })).handoffs.map((h: { id: string }) => h.id)).toEqual([first.id]);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await q.agent.call('handoff_query', { limit: 3, ...(cursor ? { cursor } : {}) }));
      expect(page.handoffs.length).toBeLessThanOrEqual(3);
      seen.push(...page.handoffs.map((h: { id: string }) => h.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
  });

  it('refuses a bad cursor or direction and answers NOT_FOUND for an unknown task', async () => {
    expect(fails(await x.call('handoff_query', { cursor: '////' }), 'VALIDATION_ERROR').message).toContain('cursor');
    expect(fails(await x.call('handoff_query', { direction: 'mine' }), 'VALIDATION_ERROR').message).toContain('direction');
    fails(await x.call('handoff_query', { related_task_id: 'Q-99' }), 'NOT_FOUND');
  });
});

describe('the review on-ramp and gate', () => {
  async function reviews(taskId: string): Promise<{ id: string; status: string; resolution: string | null; response: any }[]> {
    return db.query(`select id, status, resolution, response from public.handoffs where related_task_id = $1 and kind = 'review' order by created_at, id`, [taskId]);
  }

  it('asks the reviewer once when work starts; done is refused, naming the review and handoff_respond, and the review survives the refusal', async () => {
    const t = ok(await T.human.call('task_create', { project_id: 'PAY', title: 'reviewed work', reviewer_actor_id: T.human.id }));
    expect(await reviews(t.task_id)).toEqual([]);
    ok(await ada.call('task_claim', { task_id: t.task_id }));
    const [rv] = await reviews(t.task_id);
    expect(rv).toMatchObject({ status: 'open' });
    const h = ok(await T.human.call('handoff_query', { direction: 'to_me', type: ['review'], related_task_id: t.task_id })).handoffs[0];
    expect(h).toMatchObject({ options: ['approve', 'request_changes'], from_actor_id: ada.id, title: `Review ${t.ref}: reviewed work`, related_task_ref: t.ref });
    expect((await notifications(T.human)).find((x) => x.handoff_id === rv.id)).toMatchObject({ kind: 'review.requested' });

    const refused = fails(await ada.call('task_update', { task_id: t.task_id, patch: { status: 'done' } }), 'GATE_UNMET');
    expect(refused.message).toContain('review by Human handoffs not answered yet');
    expect(refused.hint).toContain('handoff_respond');
    expect(refused.hint).toContain(rv.id);
    expect(refused.details).toMatchObject({ gate: 'review', satisfied_by: 'handoff_respond', handoff_id: rv.id });
    // the refusal rolled back only itself: the review it waits on is still there, once
    expect(await reviews(t.task_id)).toHaveLength(1);
    ok(await ada.call('task_update', { task_id: t.task_id, patch: { status: 'in_review' } }));
    expect(await reviews(t.task_id)).toHaveLength(1);
    expect(ok(await ada.call('task_get', { task_id: t.task_id })).review).toMatchObject({ state: 'waiting', reviewer_actor_id: T.human.id, handoff_id: rv.id });

    ok(await T.human.call('handoff_respond', { handoff_id: rv.id, response: { chosen_option: 'approve' } }));
    expect(ok(await ada.call('task_get', { task_id: t.task_id })).review.state).toBe('approved');
    const done = ok(await ada.call('task_update', { task_id: t.task_id, patch: { status: 'done' } }));
    expect(done.gate.summary).toBe('approved by Human handoffs');
    expect(await reviews(t.task_id)).toEqual([expect.objectContaining({ status: 'resolved', resolution: 'processed' })]);
  });

  it('request_changes sends the task back to in_progress for its assignee with the text as a comment; resubmitting asks again', async () => {
    const t = ok(await T.human.call('task_create', { project_id: 'PAY', title: 'needs changes', reviewer_actor_id: bob.id, acceptance_criteria: [{ text: 'tests', met: true }] }));
    ok(await ada.call('task_claim', { task_id: t.task_id }));
    ok(await ada.call('task_update', { task_id: t.task_id, patch: { status: 'in_review' } }));
    const [rv] = await reviews(t.task_id);
    expect(fails(await bob.call('handoff_respond', { handoff_id: rv.id, response: { chosen_option: 'request_changes' } }), 'VALIDATION_ERROR').message).toContain('response.text');
    expect(fails(await bob.call('handoff_respond', { handoff_id: rv.id, response: { text: 'looks fine' } }), 'VALIDATION_ERROR').message).toContain('chosen_option');
    const r = ok(await bob.call('handoff_respond', { handoff_id: rv.id, response: { chosen_option: 'request_changes', text: 'round half-even, not half-up' } }));
    expect(r).toMatchObject({ task_moved: true, task: { status: 'in_progress', assignee_actor_id: ada.id } });
    const got = ok(await ada.call('task_get', { task_id: t.task_id }));
    expect(got.comments.at(-1)).toMatchObject({ author_actor_id: bob.id, body: 'Changes requested: round half-even, not half-up' });
    expect(got.review).toMatchObject({ state: 'changes_requested', text: 'round half-even, not half-up' });
    expect(got.activity.map((a: { verb: string }) => a.verb)).toContain('task.status_changed');

    const refused = fails(await ada.call('task_update', { task_id: t.task_id, patch: { status: 'done' } }), 'GATE_UNMET');
    expect(refused.message).toBe('Bob requested changes: round half-even, not half-up');
    expect(refused.details.summary).toBe('criteria 1/1 · changes requested by Bob');

    // the assignee re-claims, fixes and resubmits: the answered review closes, a new one opens
    ok(await ada.call('task_claim', { task_id: t.task_id }));
    ok(await ada.call('task_update', { task_id: t.task_id, patch: { status: 'in_review' } }));
    const all = await reviews(t.task_id);
    expect(all.map((x) => [x.status, x.resolution])).toEqual([['resolved', 'processed'], ['open', null]]);
    expect(ok(await ada.call('task_get', { task_id: t.task_id })).review.state).toBe('waiting');
    fails(await ada.call('task_update', { task_id: t.task_id, patch: { status: 'done' } }), 'GATE_UNMET');
    ok(await bob.call('handoff_respond', { handoff_id: all[1].id, response: { chosen_option: 'approve', text: 'good now' } }));
    expect(ok(await ada.call('task_update', { task_id: t.task_id, patch: { status: 'done' } })).gate.summary).toBe('criteria 1/1 · approved by Bob');
  });

  it('tells the assignee about the answer when someone else asked for the review', async () => {
    const t = ok(await T.human.call('task_create', { project_id: 'PAY', title: 'assigned elsewhere', reviewer_actor_id: bob.id, assignee_actor_id: eve.id }));
    ok(await T.human.call('task_update', { task_id: t.task_id, patch: { status: 'in_progress' } }));
    ok(await T.human.call('task_update', { task_id: t.task_id, patch: { status: 'in_review' } }));
    const [rv] = await reviews(t.task_id);
    ok(await bob.call('handoff_respond', { handoff_id: rv.id, response: { chosen_option: 'request_changes', text: 'add a test' } }));
    expect((await notifications(eve)).find((x) => x.kind === 'review.changes_requested')).toMatchObject({
      title: `Bob requested changes on ${t.ref}: assigned elsewhere`, body: 'add a test',
    });
    expect((await notifications(T.human)).find((x) => x.handoff_id === rv.id && x.kind === 'handoff.responded')).toBeDefined();
  });

  it('clearing the reviewer cancels the review and lifts the gate; replacing the reviewer asks the new one', async () => {
    const t = ok(await T.human.call('task_create', { project_id: 'PAY', title: 'reviewer changes', reviewer_actor_id: bob.id }));
    ok(await ada.call('task_claim', { task_id: t.task_id }));
    ok(await ada.call('task_update', { task_id: t.task_id, patch: { reviewer_actor_id: eve.id } }));
    const [old, cur] = await reviews(t.task_id);
    expect([old.status, old.resolution, cur.status]).toEqual(['resolved', 'cancelled', 'open']);
    expect(ok(await eve.call('handoff_query', { direction: 'to_me', type: ['review'] })).handoffs.map((h: { id: string }) => h.id)).toContain(cur.id);
    expect(fails(await ada.call('task_update', { task_id: t.task_id, patch: { status: 'done' } }), 'GATE_UNMET').message).toContain('Eve');
    ok(await ada.call('task_update', { task_id: t.task_id, patch: { reviewer_actor_id: null } }));
    expect((await reviews(t.task_id)).map((x) => x.resolution)).toEqual(['cancelled', 'cancelled']);
    expect(ok(await ada.call('task_get', { task_id: t.task_id })).review).toBeNull();
    expect(ok(await ada.call('task_update', { task_id: t.task_id, patch: { status: 'done' } })).gate.summary).toBe('no checks apply');
  });

  it('a reviewer set in the same call as done has not been asked yet: the refusal says how to ask', async () => {
    const t = ok(await T.human.call('task_create', { project_id: 'PAY', title: 'late reviewer' }));
    ok(await ada.call('task_claim', { task_id: t.task_id }));
    const e = fails(await ada.call('task_update', { task_id: t.task_id, patch: { status: 'done', reviewer_actor_id: bob.id } }), 'GATE_UNMET');
    expect(e.message).toBe('review by Bob not requested yet');
    expect(e.hint).toContain('in_review');
  });

  it('a cancelled task cancels its review; a person reviews like any agent', async () => {
    const t = ok(await T.human.call('task_create', { project_id: 'PAY', title: 'to cancel', reviewer_actor_id: T.human.id }));
    ok(await ada.call('task_claim', { task_id: t.task_id }));
    ok(await T.human.call('task_update', { task_id: t.task_id, patch: { status: 'cancelled' } }));
    expect((await reviews(t.task_id)).map((x) => x.resolution)).toEqual(['cancelled']);
  });
});

describe('notifications written by triggers', () => {
  it('notifies @mentions from mentions[] and from "@Display Name" in the body, never the author', async () => {
    ok(await T.human.call('task_create', { project_id: 'PAY', title: 'mention target' }));
    const c = ok(await bob.call('comment_add', { object_type: 'task', object_id: 'PAY-1', body: 'cc @ada lovelace and @Bob, see @Evening', mentions: [eve.id] }));
    const forAda = (await notifications(ada)).filter((x) => x.kind === 'comment.mentioned');
    expect(forAda).toEqual([expect.objectContaining({ title: 'Bob mentioned you on PAY-1', body: 'cc @ada lovelace and @Bob, see @Evening' })]);
    expect((await notifications(eve)).filter((x) => x.kind === 'comment.mentioned')).toHaveLength(1);
    expect((await notifications(bob)).filter((x) => x.kind === 'comment.mentioned')).toHaveLength(0);
    const rows = await db.query<{ recipient_actor_id: string }>(`select recipient_actor_id from public.notifications where comment_id = $1`, [c.comment_id]);
    expect(rows.map((r) => r.recipient_actor_id).sort()).toEqual([ada.id, eve.id].sort());
    ok(await bob.call('comment_add', { object_type: 'project', object_id: 'PAY', body: 'email ada@example.com is not a mention' }));
    expect((await notifications(ada)).filter((x) => x.kind === 'comment.mentioned')).toHaveLength(1);
  });

  it('notifies an assignee who did not assign themselves', async () => {
    const t = ok(await T.human.call('task_create', { project_id: 'PAY', title: 'assign me', assignee_actor_id: bob.id }));
    ok(await T.human.call('task_assign', { task_id: t.task_id, actor_id: eve.id }));
    const t2 = ok(await T.human.call('task_create', { project_id: 'PAY', title: 'self claim' }));
    ok(await eve.call('task_claim', { task_id: t2.task_id }));
    expect((await notifications(bob)).filter((x) => x.kind === 'task.assigned').map((x) => x.title)).toContain(`Human handoffs assigned you ${t.ref}: assign me`);
    const forEve = (await notifications(eve)).filter((x) => x.kind === 'task.assigned').map((x) => x.title);
    expect(forEve).toContain(`Human handoffs assigned you ${t.ref}: assign me`);
    expect(forEve.some((x) => x.includes(t2.ref))).toBe(false);
  });

  it('wakes the assignee when the last open blocker of its task is done (wake-on-resolved)', async () => {
    const a = ok(await T.human.call('task_create', { project_id: 'OTH', title: 'blocker a' }));
    const b = ok(await T.human.call('task_create', { project_id: 'OTH', title: 'blocker b' }));
    const w = ok(await T.human.call('task_create', { project_id: 'OTH', title: 'waits', depends_on: [a.task_id, b.task_id], assignee_actor_id: eve.id }));
    const unblocked = async () => (await notifications(eve)).filter((x) => x.kind === 'task.unblocked');
    ok(await ada.call('task_claim', { task_id: a.task_id }));
    ok(await ada.call('task_update', { task_id: a.task_id, patch: { status: 'done' } }));
    expect(await unblocked()).toEqual([]);
    ok(await ada.call('task_claim', { task_id: b.task_id }));
    ok(await ada.call('task_update', { task_id: b.task_id, patch: { status: 'done' } }));
    expect(await unblocked()).toEqual([expect.objectContaining({ title: `${w.ref} is unblocked: its last blocker ${b.ref} is done`, body: 'waits' })]);
  });

  it('every notification is announced on the feed as a change of the recipient’s inbox, without its content', async () => {
    const h = await ask(ada, [eve], { title: 'secret-ish title' });
    const rows = await db.query<{ verb: string; object_type: string; object_id: string; summary: string; project_id: string | null }>(
      `select verb, object_type, object_id, summary, project_id from public.activity where object_type = 'inbox' and object_id = $1 order by id desc limit 1`, [eve.id]);
    expect(rows).toEqual([{ verb: 'inbox.changed', object_type: 'inbox', object_id: eve.id, summary: 'handoff.received', project_id: null }]);
    expect(JSON.stringify(rows)).not.toContain(h.handoff.title);
  });
});
