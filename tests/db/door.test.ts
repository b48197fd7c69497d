import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseScopes } from '../../lib/core/scopes';
import { authenticateRequest } from '../../lib/server/auth';
import { Limits, type LimitSettings } from '../../lib/server/limits';
import { addAgent, revokeKey } from '../../lib/server/workspace';
import { freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/**
 * The one door (lib/server/auth.ts authenticateRequest) on the database: scopes, expiry and
 * revocation for every route that takes a key, and rate limits charged key first, so one key
 * cannot spend its workspace's share, and unknown keys are limited per address before any lookup.
 */

let db: TestDb;
let A: Tenant;

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'door-a');
  ok(await A.agent.call('project_create', { title: 'Door', key: 'DR' }));
});

afterAll(async () => {
  await db.drop();
});

// On Postgres the buckets are rows every Limits instance shares (that is the point): each test
// starts from empty buckets, as a fresh server would
beforeEach(async () => {
  await db.query('delete from bullpen.rate_limits');
});

const settings = (over: Partial<LimitSettings> = {}): LimitSettings => ({
  keyPerSecond: 2,
  workspacePerSecond: 4,
  addressPerSecond: 2,
  windowSeconds: 5,
  workspaceConcurrency: 2,
  workspaceConcurrencyAlone: 4,
  queueTimeoutMs: 300,
  ...over,
});

const bearer = (key: string, address = '203.0.113.7') => ({ headers: new Headers({ authorization: `Bearer ${key}` }), address });

describe('the door', () => {
  it('applies a key’s scopes to the route’s tool: a tasks:read key may not upload or download files', async () => {
    const limits = new Limits(settings({ keyPerSecond: 100, workspacePerSecond: 100 }), db);
    const scoped = await addAgent(db, { workspace: 'door-a', name: 'reader', scopes: parseScopes('tasks:read') });
    const up = await authenticateRequest(bearer(scoped.api_key), { db, limits, tool: 'attach_add', address: '203.0.113.1' });
    expect(up).toMatchObject({ ok: false, refusal: { status: 403, error: { code: 'FORBIDDEN', details: { required_scope: 'attachments' } } } });
    expect(up.ok ? '' : up.refusal.error.message).toContain('attach_add');
    const down = await authenticateRequest(bearer(scoped.api_key), { db, limits, tool: 'attachment_query', address: '203.0.113.1' });
    expect(down).toMatchObject({ ok: false, refusal: { status: 403, error: { details: { required_scope: 'attachments:read' } } } });
    const files = await addAgent(db, { workspace: 'door-a', name: 'filer', scopes: parseScopes('attachments') });
    const allowed = await authenticateRequest(bearer(files.api_key), { db, limits, tool: 'attach_add', address: '203.0.113.1' });
    expect(allowed.ok && allowed.caller.claims.tenant_id).toBe(A.id);
  });

  it('refuses revoked and expired keys', async () => {
    const limits = new Limits(settings({ keyPerSecond: 100, workspacePerSecond: 100, addressPerSecond: 100 }), db);
    const made = await addAgent(db, { workspace: 'door-a', name: 'soon-gone', expires_in_seconds: 60 });
    expect((await authenticateRequest(bearer(made.api_key), { db, limits })).ok).toBe(true);
    await revokeKey(db, A.id, made.key_id);
    expect(await authenticateRequest(bearer(made.api_key), { db, limits })).toMatchObject({ ok: false, refusal: { status: 401 } });
    const late = await addAgent(db, { workspace: 'door-a', name: 'expired' });
    await db.query(`update public.api_keys set created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' where id = $1`, [late.key_id]);
    expect(await authenticateRequest(bearer(late.api_key), { db, limits })).toMatchObject({ ok: false, refusal: { status: 401 } });
  });

  it('charges the key first: a flooding key is refused for itself and leaves its workspace’s share to the others', async () => {
    const limits = new Limits(settings(), db);
    const flood = await addAgent(db, { workspace: 'door-a', name: 'flooder' });
    const quiet = await addAgent(db, { workspace: 'door-a', name: 'quiet-one' });
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push(await authenticateRequest(bearer(flood.api_key), { db, limits }));
    // a bucket holds rate × window calls: 2 × 5 for the key, 4 × 5 for the workspace
    expect(answers.filter((a) => a.ok)).toHaveLength(10);
    const refused = answers.find((a) => !a.ok);
    expect(refused).toMatchObject({ ok: false, refusal: { status: 429, headers: { 'retry-after': expect.any(String) }, error: { code: 'RATE_LIMITED', details: { scope: 'key' } } } });
    // the workspace paid for the flooder's ten answered calls only: the quiet key has all of its own
    for (let i = 0; i < 10; i++) expect((await authenticateRequest(bearer(quiet.api_key), { db, limits })).ok).toBe(true);
  });

  it('charges the workspace only once the route admits the call (deferred): a call refused for its scopes costs it nothing', async () => {
    const limits = new Limits(settings({ keyPerSecond: 100, workspacePerSecond: 1 }), db);
    const reader = await addAgent(db, { workspace: 'door-a', name: 'deferred-reader', scopes: parseScopes('read') });
    // the workspace's bucket holds 5 calls; 10 refused calls leave it whole
    for (let i = 0; i < 10; i++) {
      const d = await authenticateRequest(bearer(reader.api_key), { db, limits, deferWorkspace: true });
      expect(d.ok).toBe(true);
      // the route refuses the call (out of scope) and never admits it
    }
    const d = await authenticateRequest(bearer(reader.api_key), { db, limits, deferWorkspace: true });
    expect(d.ok && (await d.admit())).toBeNull();
  });

  it('limits unknown and malformed keys per client address before any lookup', async () => {
    const limits = new Limits(settings({ addressPerSecond: 2 }), db);
    const lookups: string[] = [];
    const watched = Object.assign(Object.create(db), {
      query: (sql: string, args?: unknown[]) => {
        if (sql.includes('authenticate_key')) lookups.push(sql);
        return db.query(sql, args);
      },
    }) as TestDb;
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const key = i % 2 ? `bp_live_${Math.random().toString(36).slice(2)}${'x'.repeat(20)}` : 'not-a-key';
      const r = await authenticateRequest(bearer(key, '198.51.100.9'), { db: watched, limits });
      statuses.push(r.ok ? 200 : r.refusal.status);
    }
    // 2 per second × 5 s: ten lookups, then refusals
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    // past the bucket, nothing reaches the database
    expect(lookups.length).toBeLessThanOrEqual(5);
    expect(statuses.slice(10).every((s) => s === 429)).toBe(true);
    // another address is not touched, and a key that authenticated skips the address bucket
    expect((await authenticateRequest(bearer('bp_live_nope_nope_nope_nope', '198.51.100.10'), { db: watched, limits })).ok ? 200 : 401).toBe(401);
    const good = await addAgent(db, { workspace: 'door-a', name: 'known-good' });
    const fresh = new Limits(settings({ addressPerSecond: 0.2, keyPerSecond: 100, workspacePerSecond: 100 }), db);
    for (let i = 0; i < 5; i++) expect((await authenticateRequest(bearer(good.api_key, '198.51.100.11'), { db, limits: fresh })).ok).toBe(true);
  });

  it('admits a console session through the same limits, charged to the person', async () => {
    const limits = new Limits(settings({ keyPerSecond: 2, workspacePerSecond: 100 }), db);
    const session = { claims: A.human.ctx.claims, actor_id: A.human.ctx.claims.actor_id as string };
    const req = { headers: new Headers(), address: '192.0.2.1' };
    const results = [];
    for (let i = 0; i < 12; i++) results.push(await authenticateRequest(req, { db, limits, session: async () => session, keys: false }));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    expect(results[11]).toMatchObject({ ok: false, refusal: { status: 429 } });
    // no session: 401, charged to the address
    const none = await authenticateRequest(req, { db, limits, session: async () => null, keys: false });
    expect(none).toMatchObject({ ok: false, refusal: { status: 401, error: { code: 'UNAUTHENTICATED' } } });
    // a console-only route does not read Authorization: a key is no session
    const agentKey = await addAgent(db, { workspace: 'door-a', name: 'not-a-person' });
    const withKey = await authenticateRequest(bearer(agentKey.api_key), { db, limits, session: async () => null, keys: false });
    expect(withKey).toMatchObject({ ok: false, refusal: { status: 401 } });
  });
});
