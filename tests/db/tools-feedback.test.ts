import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { triageFeatureRequest } from '../../lib/console/ops';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

let db: TestDb;
let T: Tenant;
let other: Actor;
let humanB: Actor;
const ids: Record<string, string> = {};
const as = (a: Actor) => ({ db, claims: a.claims });

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'feedback');
  other = await T.addAgent('other');
  // a second human who is not an owner
  const { ensureActor } = await import('../../lib/server/workspace');
  const h = await ensureActor(db, T.id, { kind: 'human', external_ref: 'human:feedback:guest', display_name: 'Guest' });
  humanB = { ...T.human, id: h.id, claims: { ...T.human.claims, sub: h.id, actor_id: h.id } } as Actor;
});
afterAll(() => db.drop());

describe('feature_request_create', () => {
  it('files a report with every field the contract names', async () => {
    const env = ok(await T.agent.call('feature_request_create', {
      title: 'task_claim cannot filter by priority', body: 'I wanted only P0 work and had to page through task_query.', kind: 'capability',
      severity: 'high', tool_name: 'task_claim', error_code: 'VALIDATION_ERROR', context: { input: { priority: 0 }, nestedKey: true }, fingerprint: 'claim-priority',
    }));
    expect(env).toMatchObject({ created: true, deduplicated: false, redacted: false, feature_request: {
      title: 'task_claim cannot filter by priority', kind: 'capability', severity: 'high', tool_name: 'task_claim', error_code: 'VALIDATION_ERROR',
      context: { input: { priority: 0 }, nestedKey: true }, fingerprint: 'claim-priority', status: 'open', resolution: null, occurrences: 1,
      filed_by_actor_id: T.agent.id, filed_by: 'Agent feedback' } });
    ids.fr = env.feature_request_id;
    const log = ok(await T.human.call('activity_query', { verb: 'feature_request.*' }));
    expect(log.activity[0]).toMatchObject({ verb: 'feature_request.filed', object_id: ids.fr });
  });

  it('counts repeats of a live request by fingerprint, or by kind, tool, error and title when none is given', async () => {
    const again = ok(await other.call('feature_request_create', { title: 'Priority filter on claim', body: 'same wall', kind: 'capability', fingerprint: 'claim-priority' }));
    expect(again).toMatchObject({ created: false, deduplicated: true, feature_request_id: ids.fr, feature_request: { occurrences: 2 } });
    const a = ok(await T.agent.call('feature_request_create', { title: 'Brief is slow', body: 'took 3 s', kind: 'friction', tool_name: 'project_brief' }));
    const b = ok(await other.call('feature_request_create', { title: '  brief   IS slow ', body: 'again, slow', kind: 'friction', tool_name: 'project_brief' }));
    expect(b).toMatchObject({ deduplicated: true, feature_request_id: a.feature_request_id });
    const c = ok(await other.call('feature_request_create', { title: 'Brief is slow', body: 'docs?', kind: 'docs', tool_name: 'project_brief' }));
    expect(c.created).toBe(true);
    ids.slow = a.feature_request_id;
  });

  it('redacts what looks like a secret before storing it', async () => {
    const env = ok(await T.agent.call('feature_request_create', {
      title: 'Auth fails with bp_live_abcdef0123456789abcdef', kind: 'bug',
      body: 'Sent Authorization: Bearer sk-abcdefghijklmnopqrstuvwx and password=hunter2hunter2 to https://bob:pa55word@example.com/x',
      context: { header: 'Bearer ghp_abcdefghijklmnopqrstuvwxyz0123' },
    }));
    expect(env.redacted).toBe(true);
    const stored = JSON.stringify((await db.query(`select title, body, context from public.feature_requests where tenant_id = $1 and id = $2`, [T.id, env.feature_request_id]))[0]);
    for (const secret of ['bp_live_abcdef', 'sk-abcdefgh', 'hunter2', 'pa55word', 'ghp_abcdef']) expect(stored).not.toContain(secret);
    expect(stored).toContain('[redacted]');
  });

  it('refuses incomplete or malformed reports, naming the field', async () => {
    expect(fails(await T.agent.call('feature_request_create', { body: 'x', kind: 'bug' }), 'VALIDATION_ERROR').message).toContain('title');
    ok(await T.agent.call('feature_request_create', { title: 'keyed', body: 'b', kind: 'bug', idempotency_key: 'fr-key' }));
    fails(await T.agent.call('feature_request_create', { title: 'keyed differently', body: 'b', kind: 'bug', idempotency_key: 'fr-key' }), 'IDEMPOTENCY_CONFLICT');
    expect(fails(await T.agent.call('feature_request_create', { title: 'x', kind: 'bug' }), 'VALIDATION_ERROR').message).toContain('body');
    expect(fails(await T.agent.call('feature_request_create', { title: 'x', body: 'y', kind: 'wish' }), 'VALIDATION_ERROR').message).toContain('kind');
    expect(fails(await T.agent.call('feature_request_create', { title: 'x', body: 'y', kind: 'bug', severity: 'urgent' }), 'VALIDATION_ERROR').message).toContain('severity');
    expect(fails(await T.agent.call('feature_request_create', { title: 'x', body: 'y', kind: 'bug', context: { big: 'z'.repeat(9000) } }), 'VALIDATION_ERROR').message).toContain('context');
  });
});

describe('triage and feature_request_query', () => {
  it('owners move the status with a resolution note; others may not', async () => {
    expect(fails(await triageFeatureRequest(as(humanB), { id: ids.fr, status: 'accepted' }), 'FORBIDDEN').message).toContain('owner');
    fails(await triageFeatureRequest(as(T.agent), { id: ids.fr, status: 'accepted' }), 'FORBIDDEN');
    const accepted = ok(await triageFeatureRequest(as(T.human), { id: ids.fr, status: 'accepted' }));
    expect(accepted).toMatchObject({ changed: true, notified: true, feature_request: { status: 'accepted', status_changed_by_actor_id: T.human.id } });
    expect(ok(await triageFeatureRequest(as(T.human), { id: ids.fr, status: 'accepted' })).changed).toBe(false);
    ok(await triageFeatureRequest(as(T.human), { id: ids.fr, status: 'shipped', resolution: 'task_claim takes max_priority since 0.2' }));
    // the filer learns it: the status change is in their whoami delta and in the query
    const who = ok(await T.agent.call('whoami', {}));
    expect(who.delta.recent.some((e: { verb: string; object_id: string }) => e.verb === 'feature_request.status_changed' && e.object_id === ids.fr)).toBe(true);
    const q = ok(await T.agent.call('feature_request_query', { id: ids.fr }));
    expect(q.feature_requests[0]).toMatchObject({ status: 'shipped', resolution: 'task_claim takes max_priority since 0.2', occurrences: 2 });
    expect(fails(await triageFeatureRequest(as(T.human), { id: ids.fr, status: 'done' }), 'VALIDATION_ERROR').message).toContain('status');
    fails(await triageFeatureRequest(as(T.human), { id: '00000000-0000-4000-8000-000000000000', status: 'open' }), 'NOT_FOUND');
  });

  it('a shipped request is no longer live: the same fingerprint files a new one', async () => {
    const fresh = ok(await other.call('feature_request_create', { title: 'Priority filter, again', body: 'regressed?', kind: 'bug', fingerprint: 'claim-priority' }));
    expect(fresh.created).toBe(true);
    expect(fresh.feature_request_id).not.toBe(ids.fr);
  });

  it('notifies the filer privately (the inbox and the bell), never the owner who moved it', async () => {
    const t = ok(await triageFeatureRequest(as(T.human), { id: ids.slow, status: 'declined', resolution: 'works as designed' }));
    expect(t.notified).toBe(true);
    const mine = ok(await T.agent.call('notification_query', { unread_only: true }));
    expect(mine.notifications[0]).toMatchObject({ kind: 'feature_request.status_changed', title: 'Your request "Brief is slow" is declined (was open)', body: 'works as designed' });
    // the notification is the filer's alone
    const theirs = ok(await other.call('notification_query', {}));
    expect(theirs.notifications.some((n: { kind: string }) => n.kind === 'feature_request.status_changed')).toBe(false);
    // an owner moving a request they filed themselves is not told about it
    const own = ok(await T.human.call('feature_request_create', { title: 'Owner wish', body: 'b', kind: 'docs' }));
    expect(ok(await triageFeatureRequest(as(T.human), { id: own.feature_request_id, status: 'accepted' })).notified).toBe(false);
  });

  it('lists newest first with counts by status; filters by status, kind, filer and text; pages', async () => {
    const all = ok(await other.call('feature_request_query', {}));
    expect(all.feature_requests.length).toBe(7);
    expect(all.counts).toEqual({ open: 4, accepted: 1, shipped: 1, declined: 1 });
    const open = ok(await other.call('feature_request_query', { status: ['open', 'accepted'] }));
    expect(open.feature_requests.map((f: { status: string }) => f.status).sort()).toEqual(['accepted', 'open', 'open', 'open', 'open']);
    expect(ok(await other.call('feature_request_query', { status: 'shipped' })).feature_requests).toHaveLength(1);
    expect(ok(await other.call('feature_request_query', { kind: 'docs' })).feature_requests).toHaveLength(2);
    expect(ok(await other.call('feature_request_query', { filed_by_actor_id: 'me' })).feature_requests.every((f: { filed_by_actor_id: string }) => f.filed_by_actor_id === other.id)).toBe(true);
    expect(ok(await other.call('feature_request_query', { q: 'slow' })).feature_requests).toHaveLength(2);
    expect(ok(await other.call('feature_request_query', { q: 'task_claim' })).feature_requests.map((f: { id: string }) => f.id)).toEqual([ids.fr]);
    const p1 = ok(await other.call('feature_request_query', { limit: 4 }));
    const p2 = ok(await other.call('feature_request_query', { limit: 4, cursor: p1.next_cursor }));
    expect(p2.next_cursor).toBeNull();
    expect([...p1.feature_requests, ...p2.feature_requests].map((f: { id: string }) => f.id)).toEqual(all.feature_requests.map((f: { id: string }) => f.id));
    fails(await other.call('feature_request_query', { id: '00000000-0000-4000-8000-000000000000' }), 'NOT_FOUND');
    expect(fails(await other.call('feature_request_query', { status: 'closed' }), 'VALIDATION_ERROR').message).toContain('status');
    expect(fails(await other.call('feature_request_query', { cursor: '@@' }), 'VALIDATION_ERROR').message).toContain('cursor');
  });
});
