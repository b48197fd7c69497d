import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JobRegistry, JobWorker } from '../../lib/jobs';
import { deliverWebhook } from '../../lib/jobs/webhooks';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver';

/**
 * The events room: event_publish writes an activity row whose verb is the event type (never a
 * reserved family); event_poll reads agents' events and the server's task.*, handoff.*,
 * decision.* after a cursor, long-polled; webhooks receive them signed, retried by the job
 * runner, logged, and disabled after a day of failures. Webhooks reach a local receiver only
 * because BULLPEN_WEBHOOK_ALLOW names it.
 */

let db: TestDb;
let T: Tenant;
let B: Tenant;
let ada: Actor;
let bob: Actor;
let rx: Receiver;
const saved = process.env.BULLPEN_WEBHOOK_ALLOW;
const quiet = { log: () => {} };
// the job runner's retries, a few ms apart instead of seconds
const registry = new JobRegistry().register('webhook.deliver', async (job, ctx) => void (await deliverWebhook(ctx.db, job, ctx.signal)), {
  backoff: { baseMs: 10, maxMs: 20 },
});

async function drain(rounds = 50): Promise<void> {
  const worker = new JobWorker(db, { registry, ...quiet });
  for (let i = 0; i < rounds; i++) {
    await worker.drain();
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from bullpen.jobs where kind = 'webhook.deliver' and status = 'pending'`);
    if (n === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'events');
  B = await seedTenant(db, 'events-other');
  ada = await T.addAgent('Ada');
  bob = await T.addAgent('Bob');
  rx = await startReceiver();
  ok(await T.human.call('project_create', { title: 'Events', key: 'EVT' }));
});
afterEach(() => {
  if (saved === undefined) delete process.env.BULLPEN_WEBHOOK_ALLOW;
  else process.env.BULLPEN_WEBHOOK_ALLOW = saved;
  rx.failFirst = 0;
  rx.always = null;
});
afterAll(async () => {
  await rx.close();
  await db.drop();
});

async function cursorNow(actor: Actor = ada): Promise<string> {
  return ok(await actor.call('event_poll', {})).next_cursor;
}

describe('event_publish', () => {
  it('writes an activity row whose verb is the event type and whose metadata is the payload', async () => {
    const e = ok(await ada.call('event_publish', { event_type: 'deploy.finished', payload: { version: '1.2.3' }, project_id: 'EVT', summary: 'shipped' })).event;
    expect(e).toMatchObject({ event_type: 'deploy.finished', payload: { version: '1.2.3' }, actor_id: ada.id, object_type: 'event', summary: 'shipped' });
    const log = ok(await ada.call('activity_query', { verb: 'deploy.*' })).activity;
    expect(log[0]).toMatchObject({ seq: e.seq, verb: 'deploy.finished', metadata: { version: '1.2.3' }, project_key: 'EVT' });
  });

  it('refuses the reserved verb families, naming the rule, and writes nothing', async () => {
    const before = await db.query<{ n: number }>(`select count(*)::int as n from public.activity where tenant_id = $1`, [T.id]);
    for (const t of ['task.done', 'handoff.created', 'decision.logged', 'webhook.added']) {
      const err = fails(await ada.call('event_publish', { event_type: t, payload: {} }), 'VALIDATION_ERROR');
      expect(err.message).toContain('event_type');
      expect(err.message).toContain('written by Bullpen itself');
    }
    fails(await ada.call('event_publish', { event_type: 'Deploy' }), 'VALIDATION_ERROR');
    const after = await db.query<{ n: number }>(`select count(*)::int as n from public.activity where tenant_id = $1`, [T.id]);
    expect(after[0].n).toBe(before[0].n);
  });

  it('the same event twice is two events (a milestone would be deduplicated; an event is not)', async () => {
    const a = ok(await ada.call('event_publish', { event_type: 'tick.beat', payload: { n: 1 }, idempotency_key: 'beat-1' })).event;
    const b = ok(await ada.call('event_publish', { event_type: 'tick.beat', payload: { n: 1 }, idempotency_key: 'beat-2' })).event;
    expect(b.seq).toBeGreaterThan(a.seq);
    const replay = ok(await ada.call('event_publish', { event_type: 'tick.beat', payload: { n: 1 }, idempotency_key: 'beat-2' }));
    expect(replay).toMatchObject({ idempotent_replay: true, event: { seq: b.seq } });
  });
});

describe('event_poll', () => {
  it('starts now without a cursor, then reads agents’ events and the server’s task.*, handoff.*, decision.*, oldest first', async () => {
    const start = await cursorNow();
    ok(await ada.call('event_publish', { event_type: 'build.started', payload: { sha: 'abc' } }));
    ok(await ada.call('task_create', { project_id: 'EVT', title: 'Poll me' }));
    ok(await ada.call('handoff_create', { to_actor_ids: [bob.id], title: 'Look at EVT-1' }));
    ok(await ada.call('decision_log', { project_id: 'EVT', title: 'Events ride the ledger', choice: 'One table', rationale: 'one order' }));
    const r = ok(await ada.call('event_poll', { since_cursor: start }));
    const types = r.events.map((e: { event_type: string }) => e.event_type);
    expect(types[0]).toBe('build.started');
    expect(types).toContain('task.created');
    expect(types).toContain('handoff.created');
    expect(types.some((t: string) => t.startsWith('decision.'))).toBe(true);
    // inbox wake-ups and notifications are not events
    expect(types.some((t: string) => t.startsWith('inbox.') || t.startsWith('notification.'))).toBe(false);
    const seqs = r.events.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(r).toMatchObject({ has_more: false, held_back: false });
    // the cursor moves on: nothing is read twice
    expect(ok(await ada.call('event_poll', { since_cursor: r.next_cursor })).events).toEqual([]);
  });

  it('filters by type, exactly or by family prefix, and pages with limit without skipping or repeating', async () => {
    const start = await cursorNow();
    for (let i = 0; i < 5; i++) ok(await ada.call('event_publish', { event_type: `ci.step_${i % 2}`, payload: { i } }));
    ok(await ada.call('task_create', { project_id: 'EVT', title: 'Not ci' }));
    const only = ok(await ada.call('event_poll', { since_cursor: start, types: ['ci.step_1'] })).events;
    expect(only.map((e: { payload: { i: number } }) => e.payload.i)).toEqual([1, 3]);
    const fam = ok(await ada.call('event_poll', { since_cursor: start, types: ['ci.*'] })).events;
    expect(fam.map((e: { payload: { i: number } }) => e.payload.i)).toEqual([0, 1, 2, 3, 4]);
    const seen: number[] = [];
    let cursor = start;
    for (let page = 0; page < 10; page++) {
      const r = ok(await ada.call('event_poll', { since_cursor: cursor, types: ['ci.*', 'task.*'], limit: 2 }));
      seen.push(...r.events.map((e: { seq: number }) => e.seq));
      cursor = r.next_cursor;
      if (!r.has_more) break;
    }
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
  });

  it('wait_seconds holds until an event arrives, then answers it', async () => {
    const start = await cursorNow(bob);
    const t0 = Date.now();
    const waiting = bob.call('event_poll', { since_cursor: start, types: ['pr_review.*'], wait_seconds: 10 });
    await new Promise((r) => setTimeout(r, 200));
    ok(await ada.call('event_publish', { event_type: 'chatter.noise', payload: {} }));
    ok(await ada.call('event_publish', { event_type: 'pr_review.ready', payload: { pr: 7 } }));
    const r = ok(await waiting);
    expect(r.events.map((e: { event_type: string }) => e.event_type)).toEqual(['pr_review.ready']);
    expect(r.waited_ms).toBeGreaterThanOrEqual(150);
    expect(Date.now() - t0).toBeLessThan(9000);
  });

  it('without a cursor, a waiting poll still answers what lands after it started', async () => {
    const waiting = bob.call('event_poll', { types: ['late.*'], wait_seconds: 10 });
    await new Promise((r) => setTimeout(r, 200));
    ok(await ada.call('event_publish', { event_type: 'late.arrival', payload: {} }));
    expect(ok(await waiting).events.map((e: { event_type: string }) => e.event_type)).toEqual(['late.arrival']);
  });

  it('refuses a cursor that is not one, and another workspace’s cursor reads NOT_FOUND', async () => {
    fails(await ada.call('event_poll', { since_cursor: 'bm9wZQ==' }), 'VALIDATION_ERROR');
    const theirs = await cursorNow(B.agent);
    expect(fails(await ada.call('event_poll', { since_cursor: theirs }), 'NOT_FOUND').message).toContain('since_cursor');
  });

  it('another workspace never sees these events', async () => {
    const start = await cursorNow(B.agent);
    ok(await ada.call('event_publish', { event_type: 'secret.plan', payload: { x: 1 } }));
    const r = ok(await B.agent.call('event_poll', { since_cursor: start }));
    expect(r.events.filter((e: { event_type: string }) => e.event_type === 'secret.plan')).toEqual([]);
  });
});

describe('webhooks', () => {
  it('only owners manage webhooks', async () => {
    process.env.BULLPEN_WEBHOOK_ALLOW = '127.0.0.1';
    expect(fails(await ada.call('webhook_add', { url: rx.url, events: ['task.*'] }), 'FORBIDDEN').message).toContain('owner');
    fails(await ada.call('webhook_list', {}), 'FORBIDDEN');
  });

  it('refuses loopback and private URLs unless BULLPEN_WEBHOOK_ALLOW names them', async () => {
    delete process.env.BULLPEN_WEBHOOK_ALLOW;
    for (const url of [rx.url, 'http://10.1.2.3/x', 'http://169.254.169.254/latest', 'http://[::1]:9/x']) {
      const err = fails(await T.human.call('webhook_add', { url, events: ['task.*'] }), 'VALIDATION_ERROR');
      expect(err.message).toContain('url');
      expect(err.hint).toContain('BULLPEN_WEBHOOK_ALLOW');
    }
    expect(ok(await T.human.call('webhook_list', {})).webhooks).toEqual([]);
  });

  it('signs every delivery; the job runner retries the two failures and the third succeeds; the log shows it', async () => {
    process.env.BULLPEN_WEBHOOK_ALLOW = '127.0.0.1';
    const added = ok(await T.human.call('webhook_add', { url: rx.url, events: ['task.done', 'handoff.created'] }));
    expect(added.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(added.webhook).toMatchObject({ url: rx.url, events: ['task.done', 'handoff.created'], status: 'active' });
    rx.secret = added.secret;
    rx.failFirst = 2;
    rx.received.length = 0;
    ok(await ada.call('handoff_create', { to_actor_ids: [bob.id], title: 'Hooked handoff' }));
    ok(await ada.call('event_publish', { event_type: 'not.subscribed', payload: {} }));
    await drain();
    expect(rx.received.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(rx.received.every((r) => r.signatureOk)).toBe(true);
    const body = rx.received[2].body;
    expect(body).toMatchObject({ webhook_id: added.webhook.id, event: { event_type: 'handoff.created', object_type: 'handoff' } });
    expect(body.event.tenant_id).toBeUndefined();
    expect(rx.received[2].headers['x-bullpen-event']).toBe('handoff.created');
    // the same delivery id on every try: a receiver deduplicates by it
    expect(new Set(rx.received.map((r) => r.headers['x-bullpen-delivery'])).size).toBe(1);
    const list = ok(await T.human.call('webhook_list', { webhook_id: added.webhook.id }));
    expect(list.webhooks[0]).toMatchObject({ delivered: 1, failed: 0, pending: 0, failing_since: null });
    expect(list.deliveries[0]).toMatchObject({ event_type: 'handoff.created', status: 'delivered', attempts: 3, response_status: 200 });
    // a tampered body fails the receiver's check
    rx.secret = 'whsec_wrong';
    ok(await ada.call('handoff_create', { to_actor_ids: [bob.id], title: 'Checked with the wrong secret' }));
    rx.always = null;
    rx.failFirst = 0;
    const n = rx.received.length;
    const worker = new JobWorker(db, { registry, ...quiet });
    await worker.drain();
    expect(rx.received[n].signatureOk).toBe(false);
    ok(await T.human.call('webhook_remove', { webhook_id: added.webhook.id }));
    await db.query(`update bullpen.jobs set status = 'failed' where kind = 'webhook.deliver' and status = 'pending'`);
  });

  it('the secret is shown once: a replay of webhook_add answers without it', async () => {
    process.env.BULLPEN_WEBHOOK_ALLOW = '127.0.0.1';
    const first = ok(await T.human.call('webhook_add', { url: rx.url, events: ['x.y'], idempotency_key: 'hook-once' }));
    const again = ok(await T.human.call('webhook_add', { url: rx.url, events: ['x.y'], idempotency_key: 'hook-once' }));
    expect(first.secret).toBeTruthy();
    expect(again).toMatchObject({ idempotent_replay: true, secret: null, webhook: { id: first.webhook.id } });
    // and no API role reads it from the table
    const leaked = await db.withClaims(T.human.claims, `select secret from public.webhooks`).catch((e: Error) => e);
    expect(leaked).toBeInstanceOf(Error);
    ok(await T.human.call('webhook_remove', { webhook_id: first.webhook.id }));
  });

  it('a webhook for a recipient is called for handoffs to that agent only', async () => {
    process.env.BULLPEN_WEBHOOK_ALLOW = '127.0.0.1';
    const added = ok(await T.human.call('webhook_add', { url: rx.url, events: ['handoff.created'], recipient: bob.id }));
    rx.secret = added.secret;
    rx.received.length = 0;
    ok(await ada.call('handoff_create', { to_actor_ids: [T.human.id], title: 'For the human' }));
    ok(await ada.call('handoff_create', { to_actor_ids: [bob.id], title: 'Wake Bob up' }));
    await drain();
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0].body.event.summary).toContain('Wake Bob up');
    ok(await T.human.call('webhook_remove', { webhook_id: added.webhook.id }));
  });

  it('a webhook failing for a day is disabled, its pending deliveries dropped, and its owner notified', async () => {
    process.env.BULLPEN_WEBHOOK_ALLOW = '127.0.0.1';
    const added = ok(await T.human.call('webhook_add', { url: rx.url, events: ['outage.*'] }));
    rx.secret = added.secret;
    rx.always = 500;
    ok(await ada.call('event_publish', { event_type: 'outage.one', payload: {} }));
    await new JobWorker(db, { registry, ...quiet }).drain(1);
    let w = ok(await T.human.call('webhook_list', { webhook_id: added.webhook.id })).webhooks[0];
    expect(w.status).toBe('active');
    expect(w.failing_since).not.toBeNull();
    // a day later (back-dated), the next failure disables it
    await db.query(`update public.webhooks set failing_since = now() - interval '25 hours' where id = $1`, [added.webhook.id]);
    ok(await ada.call('event_publish', { event_type: 'outage.two', payload: {} }));
    await drain();
    const list = ok(await T.human.call('webhook_list', { webhook_id: added.webhook.id }));
    w = list.webhooks[0];
    expect(w.status).toBe('disabled');
    expect(w.disabled_reason).toContain('failing since');
    expect(list.deliveries.every((d: { status: string }) => d.status === 'failed' || d.status === 'dropped')).toBe(true);
    const inbox = ok(await T.human.call('notification_query', {}));
    expect(inbox.notifications.some((n: { kind: string; title: string }) => n.kind === 'webhook.disabled' && n.title.includes(rx.url))).toBe(true);
    // a disabled webhook gets no more deliveries
    const before = rx.received.length;
    ok(await ada.call('event_publish', { event_type: 'outage.three', payload: {} }));
    await drain();
    expect(rx.received.length).toBe(before);
  });

  it('another workspace’s webhook ids read NOT_FOUND, and it sees none of these webhooks', async () => {
    process.env.BULLPEN_WEBHOOK_ALLOW = '127.0.0.1';
    const mine = ok(await T.human.call('webhook_add', { url: rx.url, events: ['iso.*'] })).webhook;
    fails(await B.human.call('webhook_list', { webhook_id: mine.id }), 'NOT_FOUND');
    fails(await B.human.call('webhook_remove', { webhook_id: mine.id }), 'NOT_FOUND');
    expect(ok(await B.human.call('webhook_list', {})).webhooks).toEqual([]);
    const rows = await db.withClaims(B.human.claims, `select id from public.webhooks`);
    expect(rows).toEqual([]);
    // B's events never reach A's webhook
    const n = rx.received.length;
    ok(await B.agent.call('event_publish', { event_type: 'iso.check', payload: {} }));
    await drain();
    expect(rx.received.length).toBe(n);
    ok(await T.human.call('webhook_remove', { webhook_id: mine.id }));
  });
});
