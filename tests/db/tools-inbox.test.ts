import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../lib/core/execute';
import { waitRoom } from '../../lib/core/wait';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * inbox (ack after act, kinds, wait_seconds), task_claim wait_seconds, notification_query,
 * notification_mark_read, and what the room adds to whoami, task_get and project_brief.
 * Per-actor proofs: another actor of the same workspace cannot read, mark or ack what is not theirs.
 */

let db: TestDb;
let T: Tenant;
let ada: Actor;
let bob: Actor;
let eve: Actor;
const NIL = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'inbox');
  ada = await T.addAgent('Ada');
  bob = await T.addAgent('Bob');
  eve = await T.addAgent('Eve');
  ok(await T.human.call('project_create', { title: 'Inbox', key: 'INB' }));
});
afterAll(() => db.drop());

let n = 0;
async function ask(from: Actor, to: Actor[], input: Record<string, unknown> = {}): Promise<Record<string, any>> {
  return ok(await from.call('handoff_create', { to_actor_ids: to.map((a) => a.id), title: `inbox ask ${++n}`, ...input }));
}

type Item = { id: string; kind: string; summary: string; handoff?: any; notification?: any };
async function items(actor: Actor, input: Record<string, unknown> = {}): Promise<Item[]> {
  return ok(await actor.call('inbox', input)).items;
}

/** Drains an actor's inbox so a test starts from empty. */
async function drain(actor: Actor): Promise<void> {
  for (;;) {
    const got = await items(actor, { limit: 200 });
    if (!got.length) return;
    ok(await actor.call('inbox', { ack: got.map((i) => i.id) }));
  }
}

describe('inbox', () => {
  it('holds open handoffs to me, answers to mine and my unread notifications, oldest first, with counts', async () => {
    await drain(ada);
    const toAda = await ask(bob, [ada], { kind: 'question' });
    const fromAda = await ask(ada, [bob]);
    ok(await bob.call('handoff_respond', { handoff_id: fromAda.handoff_id, response: { text: 'done, see PR' } }));
    const t = ok(await T.human.call('task_create', { project_id: 'INB', title: 'for ada', assignee_actor_id: ada.id }));
    const r = ok(await ada.call('inbox', {}));
    expect(r.items.map((i: Item) => [i.kind, i.id])).toEqual([
      ['handoff', toAda.handoff_id],
      ['response', fromAda.handoff_id],
      ['notification', expect.any(String)],
    ]);
    expect(r).toMatchObject({ total: 3, counts: { handoff: 1, response: 1, notification: 1 }, acked: 0 });
    expect(r.items[0].summary).toBe(`question from Bob: ${toAda.handoff.title}`);
    expect(r.items[1].summary).toBe(`Bob answered "${fromAda.handoff.title}": done, see PR`);
    expect(r.items[1].handoff.response).toEqual({ text: 'done, see PR' });
    expect(r.items[2].notification).toMatchObject({ kind: 'task.assigned', task_id: t.task_id, task_ref: t.ref, actor: 'Human inbox', read_at: null });
    // the notifications the handoff items stand for are not listed twice
    expect(r.items.filter((i: Item) => i.kind === 'notification')).toHaveLength(1);
    expect(r.hint).toContain('ack');
  });

  it('kinds[] filters what it returns', async () => {
    expect((await items(ada, { kinds: ['response'] })).map((i) => i.kind)).toEqual(['response']);
    expect((await items(ada, { kinds: ['handoff', 'notification'] })).map((i) => i.kind)).toEqual(['handoff', 'notification']);
    expect(fails(await ada.call('inbox', { kinds: ['email'] }), 'VALIDATION_ERROR').message).toContain('kinds');
    expect(fails(await ada.call('inbox', { kinds: [] }), 'VALIDATION_ERROR').message).toContain('kinds');
  });

  it('ack after act: an item never acked comes back, an acked one never does, acking twice is harmless', async () => {
    const first = await items(ada);
    expect(first).toHaveLength(3);
    // "crash" between reading and acting: the next poll returns the same items
    expect((await items(ada)).map((i) => i.id)).toEqual(first.map((i) => i.id));
    const r = ok(await ada.call('inbox', { ack: [first[0].id, first[2].id] }));
    expect(r.acked).toBe(2);
    expect(r.items.map((i: Item) => i.id)).toEqual([first[1].id]);
    const again = ok(await ada.call('inbox', { ack: [first[0].id, first[2].id] }));
    expect(again.acked).toBe(0);
    expect(again.items.map((i: Item) => i.id)).toEqual([first[1].id]);
    ok(await ada.call('inbox', { ack: [first[1].id] }));
    expect(await items(ada)).toEqual([]);
    // the acked notification is read; the acked handoff is still open for its other purposes
    const notes = ok(await ada.call('notification_query', { unread_only: true })).notifications;
    expect(notes.find((x: { id: string }) => x.id === first[2].id)).toBeUndefined();
    expect(ok(await ada.call('handoff_query', { direction: 'to_me', status: ['open'] })).handoffs.map((h: { id: string }) => h.id)).toContain(first[0].id);
    const acks = await db.query<{ item: string }>(`select item from public.handoff_acks where actor_id = $1 order by item`, [ada.id]);
    expect(acks.map((a) => a.item)).toEqual(['handoff', 'response']);
  });

  it('acking a handoff reads the notification it stood for, so the unread count falls', async () => {
    await drain(eve);
    const before = ok(await eve.call('notification_query', {})).unread_count;
    const h = await ask(bob, [eve]);
    expect(ok(await eve.call('notification_query', {})).unread_count).toBe(before + 1);
    ok(await eve.call('inbox', { ack: [h.handoff_id] }));
    expect(ok(await eve.call('notification_query', {})).unread_count).toBe(before);
  });

  it('drops a handoff another recipient claimed, keeps one I claimed until I answer', async () => {
    await drain(bob);
    await drain(eve);
    const shared = await ask(ada, [bob, eve]);
    expect((await items(eve)).map((i) => i.id)).toEqual([shared.handoff_id]);
    ok(await bob.call('handoff_claim', { handoff_id: shared.handoff_id }));
    expect(await items(eve)).toEqual([]);
    expect((await items(bob)).map((i) => i.id)).toEqual([shared.handoff_id]);
    ok(await bob.call('handoff_respond', { handoff_id: shared.handoff_id, response: { text: 'ok' } }));
    expect(await items(bob)).toEqual([]);
  });

  it('a handoff to myself lands in my inbox without notifying me', async () => {
    await drain(ada);
    const h = await ask(ada, [], { to_actor_ids: ['me'] });
    expect((await items(ada)).map((i) => [i.kind, i.id])).toEqual([['handoff', h.handoff_id]]);
    const [{ c }] = await db.query<{ c: number }>(`select count(*)::int c from public.notifications where handoff_id = $1`, [h.handoff_id]);
    expect(c).toBe(0);
    await drain(ada);
  });

  it('refuses to ack what is not mine: another’s handoff is FORBIDDEN, another’s notification and unknown ids NOT_FOUND', async () => {
    const notMine = await ask(bob, [eve]);
    const e = fails(await ada.call('inbox', { ack: [notMine.handoff_id] }), 'FORBIDDEN');
    expect(e.message).toContain('ack[0]');
    expect(e.message).toContain('from Bob to Eve');
    const evesNote = ok(await eve.call('notification_query', {})).notifications[0];
    expect(fails(await ada.call('inbox', { ack: [evesNote.id] }), 'NOT_FOUND').message).toContain('ack[0]');
    expect(fails(await ada.call('inbox', { ack: [NIL] }), 'NOT_FOUND').message).toContain(NIL);
    expect(fails(await ada.call('inbox', { ack: ['nope'] }), 'VALIDATION_ERROR').message).toContain('ack');
    // the refused acks changed nothing: Eve's notification is still unread, the handoff still in her inbox
    expect(ok(await eve.call('notification_query', { unread_only: true })).notifications.map((x: { id: string }) => x.id)).toContain(evesNote.id);
    expect((await items(eve)).map((i) => i.id)).toContain(notMine.handoff_id);
    const [{ c }] = await db.query<{ c: number }>(`select count(*)::int c from public.handoff_acks where actor_id = $1 and handoff_id = $2`, [ada.id, notMine.handoff_id]);
    expect(c).toBe(0);
  });

  it('refuses limit and wait_seconds out of range, naming the field', async () => {
    expect(fails(await ada.call('inbox', { wait_seconds: 61 }), 'VALIDATION_ERROR').message).toContain('wait_seconds');
    expect(fails(await ada.call('inbox', { wait_seconds: -1 }), 'VALIDATION_ERROR').message).toContain('wait_seconds');
    expect(fails(await ada.call('inbox', { limit: 0 }), 'VALIDATION_ERROR').message).toContain('limit');
    expect(fails(await ada.call('task_claim', { wait_seconds: 100 }), 'VALIDATION_ERROR').message).toContain('wait_seconds');
  });
});

describe('waiting instead of polling', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('a waiting inbox returns within a second of the write it waits for, holding no connection meanwhile', async () => {
    await drain(eve);
    const room = await waitRoom(db);
    const started = Date.now();
    const waiting = eve.call('inbox', { wait_seconds: 20 });
    await sleep(300);
    expect(room.size()).toBe(1);
    const wroteAt = Date.now();
    const h = await ask(bob, [eve]);
    const r = ok(await waiting);
    const returnedAt = Date.now();
    expect(r.items.map((i: Item) => i.id)).toEqual([h.handoff_id]);
    expect(returnedAt - wroteAt).toBeLessThan(1000);
    expect(r.waited_ms).toBeGreaterThanOrEqual(250);
    expect(r.waited_ms).toBeLessThanOrEqual(returnedAt - started);
    expect(room.size()).toBe(0);
    ok(await eve.call('inbox', { ack: [h.handoff_id] }));
  });

  it('is woken only by its own inbox: another actor’s items leave it waiting until the timeout, empty and without error', async () => {
    await drain(eve);
    const t0 = Date.now();
    const waiting = eve.call('inbox', { wait_seconds: 1.5 });
    await sleep(200);
    await ask(bob, [ada]);
    ok(await T.human.call('task_create', { project_id: 'INB', title: 'noise' }));
    const r = ok(await waiting);
    expect(r.items).toEqual([]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
    expect(r.waited_ms).toBeGreaterThanOrEqual(1400);
    expect(r.hint).toContain('wait_seconds');
  });

  it('returns at once when something is already there, and applies ack once', async () => {
    await drain(eve);
    const h1 = await ask(bob, [eve]);
    const r = ok(await eve.call('inbox', { wait_seconds: 10 }));
    expect(r.items.map((i: Item) => i.id)).toEqual([h1.handoff_id]);
    expect(r.waited_ms).toBeLessThan(1000);
    // ack the one, then wait for the next: the ack happens in the first run only
    const waiting = eve.call('inbox', { ack: [h1.handoff_id], wait_seconds: 10 });
    await sleep(200);
    const h2 = await ask(bob, [eve]);
    const next = ok(await waiting);
    expect(next.items.map((i: Item) => i.id)).toEqual([h2.handoff_id]);
    const acks = await db.query<{ c: number }>(`select count(*)::int c from public.activity where actor_id = $1 and verb = 'inbox.acked' and metadata->'ids' ? $2`, [eve.id, h1.handoff_id]);
    expect(acks[0].c).toBe(1);
    ok(await eve.call('inbox', { ack: [h2.handoff_id] }));
  });

  it('wakes on notifications too: an @mention reaches a waiting inbox', async () => {
    await drain(ada);
    ok(await T.human.call('task_create', { project_id: 'INB', title: 'mention here' }));
    const waiting = ada.call('inbox', { wait_seconds: 10, kinds: ['notification'] });
    await sleep(200);
    ok(await bob.call('comment_add', { object_type: 'project', object_id: 'INB', body: 'ping @Ada' }));
    const r = ok(await waiting);
    expect(r.items).toEqual([expect.objectContaining({ kind: 'notification', summary: 'Bob mentioned you on INB' })]);
  });

  it('a waiting task_claim gets the task created for it', async () => {
    const w = await seedTenant(db);
    ok(await w.human.call('project_create', { title: 'Wait', key: 'WT' }));
    const worker = await w.addAgent('worker');
    const t0 = Date.now();
    const waiting = worker.call('task_claim', { wait_seconds: 20, label: 'later' });
    await sleep(300);
    ok(await w.human.call('task_create', { project_id: 'WT', title: 'not for it' }));
    await sleep(100);
    const wroteAt = Date.now();
    const t = ok(await w.human.call('task_create', { project_id: 'WT', title: 'for the waiter', labels: ['later'] }));
    const r = ok(await waiting);
    expect(r).toMatchObject({ claimed: true, task: { id: t.task_id, status: 'in_progress', assignee_actor_id: worker.id } });
    expect(Date.now() - wroteAt).toBeLessThan(1000);
    expect(r.waited_ms).toBeGreaterThanOrEqual(350);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(r.waited_ms);
  });

  it('a waiting task_claim wakes when a blocker finishes and its dependent becomes ready', async () => {
    const w = await seedTenant(db);
    ok(await w.human.call('project_create', { title: 'Chain', key: 'CH' }));
    const a = ok(await w.human.call('task_create', { project_id: 'CH', title: 'first', labels: ['x'] }));
    const b = ok(await w.human.call('task_create', { project_id: 'CH', title: 'second', depends_on: [a.task_id], labels: ['y'] }));
    const worker = await w.addAgent('chain-worker');
    ok(await w.agent.call('task_claim', { task_id: a.task_id }));
    const waiting = worker.call('task_claim', { wait_seconds: 20, label: 'y' });
    await sleep(200);
    ok(await w.agent.call('task_update', { task_id: a.task_id, patch: { status: 'done' } }));
    expect(ok(await waiting)).toMatchObject({ claimed: true, task: { id: b.task_id } });
  });

  it('at the timeout a waiting task_claim returns claimed:false without an error', async () => {
    const w = await seedTenant(db);
    ok(await w.human.call('project_create', { title: 'Empty', key: 'EM' }));
    const r = ok(await w.agent.call('task_claim', { wait_seconds: 1 }));
    expect(r).toMatchObject({ claimed: false, reason: 'pool_empty' });
    expect(r.waited_ms).toBeGreaterThanOrEqual(950);
    // wait_seconds 0 answers at once, without waited_ms
    expect(ok(await w.agent.call('task_claim', { wait_seconds: 0 }))).not.toHaveProperty('waited_ms');
  });

  it('a retry of a waiting claim with the same idempotency_key replays the claim instead of taking a second task', async () => {
    const w = await seedTenant(db);
    ok(await w.human.call('project_create', { title: 'Retry', key: 'RT' }));
    const worker = await w.addAgent('retry-worker');
    const waiting = worker.call('task_claim', { wait_seconds: 20, idempotency_key: 'claim-1' });
    await sleep(200);
    const t = ok(await w.human.call('task_create', { project_id: 'RT', title: 'one' }));
    ok(await w.human.call('task_create', { project_id: 'RT', title: 'two', priority: 3 }));
    const first = ok(await waiting);
    expect(first).toMatchObject({ claimed: true, task: { id: t.task_id } });
    // the response was "lost": the agent retries the whole call
    const retry = ok(await worker.call('task_claim', { wait_seconds: 20, idempotency_key: 'claim-1' }));
    expect(retry).toMatchObject({ claimed: true, task: { id: t.task_id }, idempotent_replay: true });
    const [{ c }] = await db.query<{ c: number }>(`select count(*)::int c from public.tasks where tenant_id = $1 and assignee_actor_id = $2`, [w.id, worker.id]);
    expect(c).toBe(1);
  });

  it('ends early when the caller goes away', async () => {
    await drain(bob);
    const controller = new AbortController();
    const t0 = Date.now();
    const waiting = execute({ ...bob.ctx, signal: controller.signal }, 'inbox', { wait_seconds: 30 });
    await sleep(200);
    controller.abort();
    const r = await waiting;
    expect(r.ok).toBe(true);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect((await waitRoom(db)).size()).toBe(0);
  });
});

describe('notification_query and notification_mark_read', () => {
  let nq: Tenant;
  let reader: Actor;
  let other: Actor;
  beforeAll(async () => {
    nq = await seedTenant(db);
    reader = await nq.addAgent('reader');
    other = await nq.addAgent('other');
    for (let i = 0; i < 5; i++) ok(await nq.human.call('handoff_create', { to_actor_ids: [reader.id, other.id], title: `note ${i}` }));
  });

  it('lists my notifications newest first with the unread count, and pages with a cursor', async () => {
    const all = ok(await reader.call('notification_query', {}));
    expect(all.notifications.map((x: { title: string }) => x.title)).toEqual([4, 3, 2, 1, 0].map((i) => `Handoff from Human ${nq.slug}: note ${i}`));
    expect(all.unread_count).toBe(5);
    expect(all.notifications[0]).toMatchObject({ kind: 'handoff.received', actor_id: nq.human.id, read_at: null });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await reader.call('notification_query', { limit: 2, ...(cursor ? { cursor } : {}) }));
      seen.push(...page.notifications.map((x: { id: string }) => x.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all.notifications.map((x: { id: string }) => x.id));
    expect(fails(await reader.call('notification_query', { cursor: '////' }), 'VALIDATION_ERROR').message).toContain('cursor');
  });

  it('marks by ids and returns the count it marked; again is 0; all:true marks the rest', async () => {
    const [a, b, c] = ok(await reader.call('notification_query', {})).notifications;
    expect(ok(await reader.call('notification_mark_read', { ids: [a.id, b.id] }))).toMatchObject({ marked: 2, unread_count: 3 });
    expect(ok(await reader.call('notification_mark_read', { ids: [a.id, b.id], idempotency_key: 'again' }))).toMatchObject({ marked: 0, unread_count: 3 });
    const unread = ok(await reader.call('notification_query', { unread_only: true })).notifications.map((x: { id: string }) => x.id);
    expect(unread).not.toContain(a.id);
    expect(unread).toContain(c.id);
    expect(ok(await reader.call('notification_mark_read', { all: true }))).toMatchObject({ marked: 3, unread_count: 0 });
    expect(ok(await reader.call('notification_query', { unread_only: true })).notifications).toEqual([]);
    // the other recipient's copies are untouched
    expect(ok(await other.call('notification_query', {})).unread_count).toBe(5);
  });

  it('refuses another actor’s notification (NOT_FOUND: the database hides it) and bad input (VALIDATION_ERROR)', async () => {
    const theirs = ok(await other.call('notification_query', {})).notifications[0];
    expect(fails(await reader.call('notification_mark_read', { ids: [theirs.id] }), 'NOT_FOUND').message).toContain('ids[0]');
    expect(ok(await other.call('notification_query', {})).unread_count).toBe(5);
    expect(fails(await reader.call('notification_mark_read', {}), 'VALIDATION_ERROR').message).toContain('ids');
    expect(fails(await reader.call('notification_mark_read', { ids: [theirs.id], all: true }), 'VALIDATION_ERROR').message).toContain('ids');
    expect(fails(await reader.call('notification_mark_read', { ids: [] }), 'VALIDATION_ERROR').message).toContain('ids');
    expect(fails(await reader.call('notification_mark_read', { ids: ['x'] }), 'VALIDATION_ERROR').message).toContain('ids');
    expect(fails(await reader.call('notification_query', { unread_only: 'yes' }), 'VALIDATION_ERROR').message).toContain('unread_only');
  });

  it('the database keeps notifications private: another actor of the workspace reads none through the API role', async () => {
    const [{ total }] = await db.query<{ total: number }>(`select count(*)::int total from public.notifications where tenant_id = $1`, [nq.id]);
    expect(total).toBeGreaterThanOrEqual(10);
    const seenByReader = await db.withClaims<{ recipient_actor_id: string }>(reader.claims, `select recipient_actor_id from public.notifications`);
    expect(seenByReader.length).toBe(5);
    expect(new Set(seenByReader.map((r) => r.recipient_actor_id))).toEqual(new Set([reader.id]));
    const seenByOwner = await db.withClaims<{ n: number }>(nq.human.claims, `select count(*)::int n from public.notifications where recipient_actor_id = '${reader.id}'`);
    expect(seenByOwner[0].n).toBe(0);
    // and nobody writes them directly
    await expect(db.withClaims(reader.claims, `update public.notifications set read_at = null returning 1`)).rejects.toMatchObject({ code: '42501' });
    // acknowledgements are private the same way
    ok(await reader.call('inbox', { ack: ok(await reader.call('inbox', {})).items.map((i: Item) => i.id) }));
    const acksSeenByOther = await db.withClaims<{ n: number }>(other.claims, `select count(*)::int n from public.handoff_acks`);
    expect(acksSeenByOther[0].n).toBe(0);
  });
});

describe('whoami, task_get and project_brief', () => {
  let w: Tenant;
  let asker: Actor;
  beforeAll(async () => {
    w = await seedTenant(db);
    asker = await w.addAgent('asker');
    ok(await w.human.call('project_create', { title: 'Brief', key: 'BR' }));
    ok(await w.human.call('task_create', { project_id: 'BR', title: 'about this' }));
  });

  it('whoami shows the top inbox items, the count, and hints.next names the handoff to claim', async () => {
    const empty = ok(await w.agent.call('whoami', {}));
    expect(empty).toMatchObject({ inbox: [], inbox_count: 0, inbox_counts: { handoff: 0, response: 0, notification: 0 } });
    const h = ok(await asker.call('handoff_create', { to_actor_ids: [w.agent.id], title: 'Can you look at BR-1?', kind: 'question', related_task_id: 'BR-1' }));
    for (let i = 0; i < 6; i++) ok(await asker.call('handoff_create', { to_actor_ids: [w.agent.id], title: `later ${i}` }));
    const who = ok(await w.agent.call('whoami', {}));
    expect(who.inbox_count).toBe(7);
    expect(who.inbox).toHaveLength(5);
    expect(who.inbox[0].id).toBe(h.handoff_id);
    expect(who.hints.next).toMatchObject({ tool: 'handoff_claim', arguments: { handoff_id: h.handoff_id } });
    expect(who.hints.next.why).toContain('Can you look at BR-1?');
    ok(await w.agent.call('handoff_claim', { handoff_id: h.handoff_id }));
    expect(ok(await w.agent.call('whoami', {})).hints.next).toMatchObject({ tool: 'handoff_respond', arguments: { handoff_id: h.handoff_id } });
    // a task in progress outranks the inbox
    ok(await w.agent.call('task_claim', { task_id: 'BR-1' }));
    expect(ok(await w.agent.call('whoami', {})).hints.next.tool).toBe('task_get');
  });

  it('task_get and project_brief list the open handoffs related to them', async () => {
    const got = ok(await w.human.call('task_get', { task_id: 'BR-1' }));
    expect(got.handoffs.map((h: { title: string }) => h.title)).toEqual(['Can you look at BR-1?']);
    expect(got.review).toBeNull();
    const brief = ok(await w.human.call('project_brief', { project: 'BR' }));
    expect(brief.open_handoffs.map((h: { title: string }) => h.title)).toEqual(['Can you look at BR-1?']);
    ok(await asker.call('handoff_resolve', { handoff_id: got.handoffs[0].id }));
    expect(ok(await w.human.call('task_get', { task_id: 'BR-1' })).handoffs).toEqual([]);
    expect(ok(await w.human.call('project_brief', { project: 'BR' })).open_handoffs).toEqual([]);
  });
});

describe('whoami delta', () => {
  it('reports the handoff, not the inbox wake-up rows that announce it', async () => {
    const fresh = await T.addAgent('Delta');
    ok(await fresh.call('whoami'));
    await ask(ada, [fresh]);
    const who = ok(await fresh.call('whoami', { include: ['delta'] }));
    expect(who.delta.by_verb['handoff.created']).toBe(1);
    expect(who.delta.by_verb).not.toHaveProperty('inbox.changed');
    expect(who.delta.recent.map((r: { verb: string }) => r.verb)).not.toContain('inbox.changed');
  });
});
