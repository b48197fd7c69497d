import { changeFeed } from '../../lib/core/change-feed';
import { waitRoom } from '../../lib/core/wait';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { execute } from '../../lib/core/execute';
import { parseScopes } from '../../lib/core/scopes';
import { ChangeHub } from '../../lib/console/hub';
import { liveStream } from '../../lib/console/live-stream';
import { openSession, revokeSessions, sessionLive } from '../../lib/console/session';
import { consumeSignInToken, createSignInToken, peekSignInToken } from '../../lib/console/signin';
import { authenticateKey } from '../../lib/server/auth';
import { isRefusal, Limits, type LimitSettings } from '../../lib/server/limits';
import { addAgent, findKey, listKeys, mintKey, revokeKey, rotateKey } from '../../lib/server/workspace';
import { mapDbError } from '../../lib/core/sql-errors';
import { sweepSessions, sweepSignInTokens } from '../../lib/jobs/sweeps';
import { fails, freshDb, ok, seedTenant, target, type Tenant, type TestDb } from '../helpers/db';

/**
 * Hardening on the database: scoped and expiring keys and their rotation, sign-in links read
 * before they are spent and revoked by a newer one, revocable console sessions (and the live stream
 * that notices), shared rate-limit buckets and the per-workspace concurrency cap.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'hard-a');
  B = await seedTenant(db, 'hard-b');
  ok(await A.agent.call('project_create', { title: 'Hardening', key: 'HA' }));
  ok(await A.agent.call('task_create', { project_id: 'HA', title: 'first' }));
});

afterAll(async () => {
  await db.drop();
});

describe('scoped keys', () => {
  it('mint a key with scopes and an expiry; authentication carries both', async () => {
    const made = await addAgent(db, { workspace: 'hard-a', name: 'ci-bot', scopes: parseScopes('tasks:read,comments'), expires_in_seconds: 3600 });
    expect(made.scopes).toEqual(['comments', 'tasks:read']);
    expect(new Date(made.expires_at!).getTime()).toBeGreaterThan(Date.now() + 3500_000);
    const id = await authenticateKey(db, made.api_key, null);
    expect(id).toMatchObject({ key_id: made.key_id, scopes: ['comments', 'tasks:read'], expires_at: made.expires_at });
    const full = await addAgent(db, { workspace: 'hard-a', name: 'full-bot' });
    expect((await authenticateKey(db, full.api_key, null))?.scopes).toBeNull();
  });

  it('run only the tools the scopes cover: others are FORBIDDEN, naming the tool and the scope it needs', async () => {
    const ctx = { ...A.agent.ctx, scopes: parseScopes('tasks:read') };
    expect(ok(await execute(ctx, 'task_query', { project_id: 'HA' })).tasks).toHaveLength(1);
    ok(await execute(ctx, 'whoami', {}));
    ok(await execute(ctx, 'guide', {}));
    const refused = fails(await execute(ctx, 'task_create', { project_id: 'HA', title: 'nope' }), 'FORBIDDEN');
    expect(refused.message).toContain('task_create');
    expect(refused.hint).toContain('tasks');
    expect(refused.details).toEqual({ required_scope: 'tasks' });
    fails(await execute(ctx, 'project_query', {}), 'FORBIDDEN');
    // nothing was written
    expect(ok(await A.agent.call('task_query', { project_id: 'HA' })).tasks).toHaveLength(1);
    const readOnly = { ...A.agent.ctx, scopes: parseScopes('read') };
    ok(await execute(readOnly, 'project_query', {}));
    fails(await execute(readOnly, 'comment_add', { object_type: 'task', object_id: 'HA-1', body: 'x' }), 'FORBIDDEN');
  });

  it('refuse a malformed scope list in the table itself', async () => {
    const [agent] = await db.query<{ id: string }>(`select id from public.actors where tenant_id = $1 and kind = 'agent' limit 1`, [A.id]);
    await expect(
      db.query(`insert into public.api_keys (tenant_id, actor_id, key_hash, prefix, scopes) values ($1, $2, $3, 'bp_live_x', array['tasks;drop'])`, [A.id, agent.id, 'c'.repeat(64)]),
    ).rejects.toMatchObject({ code: '23514' });
  });

  it('stop authenticating at their expiry', async () => {
    const made = await addAgent(db, { workspace: 'hard-a', name: 'short-lived', expires_in_seconds: 60 });
    expect(await authenticateKey(db, made.api_key, null)).not.toBeNull();
    await db.query(`update public.api_keys set created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' where id = $1`, [made.key_id]);
    expect(await authenticateKey(db, made.api_key, null)).toBeNull();
    const [row] = (await listKeys(db, { workspace: 'hard-a', includeEnded: true })).filter((k) => k.id === made.key_id);
    expect(row.state).toBe('expired');
    expect((await listKeys(db, { workspace: 'hard-a' })).some((k) => k.id === made.key_id)).toBe(false);
  });

  it('rotate with a grace period in which both keys work, keeping actor, label and scopes', async () => {
    const made = await addAgent(db, { workspace: 'hard-a', name: 'rotor', scopes: parseScopes('tasks') });
    const rotated = await rotateKey(db, A.id, made.key_id, 600);
    expect(rotated.key_id).not.toBe(made.key_id);
    expect(rotated.scopes).toEqual(['tasks']);
    const oldId = await authenticateKey(db, made.api_key, null);
    const newId = await authenticateKey(db, rotated.api_key, null);
    expect(oldId?.claims.actor_id).toBe(made.actor_id);
    expect(newId?.claims.actor_id).toBe(made.actor_id);
    expect(newId?.scopes).toEqual(['tasks']);
    expect(new Date(rotated.old_expires_at).getTime() - Date.now()).toBeGreaterThan(590_000);
    const states = Object.fromEntries((await listKeys(db, { workspace: 'hard-a' })).map((k) => [k.id, k.state]));
    expect(states[made.key_id]).toBe('rotating');
    expect(states[rotated.key_id]).toBe('live');
    // a rotated key does not rotate again (two rotations racing make one new key)
    await expect(rotateKey(db, A.id, made.key_id, 600)).rejects.toMatchObject({ code: 'BPCNF' });
    expect(mapDbError(await rotateKey(db, A.id, made.key_id, 600).catch((e) => e)).code).toBe('CONFLICT');
    // the grace period ends: only the new key works
    await db.query(`update public.api_keys set expires_at = now() - interval '1 second' where id = $1`, [made.key_id]);
    expect(await authenticateKey(db, made.api_key, null)).toBeNull();
    expect(await authenticateKey(db, rotated.api_key, null)).not.toBeNull();
    // a zero grace period ends the old key at once
    const again = await rotateKey(db, A.id, rotated.key_id, 0);
    expect(await authenticateKey(db, rotated.api_key, null)).toBeNull();
    expect(await authenticateKey(db, again.api_key, null)).not.toBeNull();
  });

  it('races of two rotations leave exactly one replacement', async () => {
    const made = await addAgent(db, { workspace: 'hard-a', name: 'racer' });
    const results = await Promise.allSettled([rotateKey(db, A.id, made.key_id, 60), rotateKey(db, A.id, made.key_id, 60)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const [n] = await db.query<{ n: number }>(`select count(*)::int as n from public.api_keys where tenant_id = $1 and actor_id = $2`, [A.id, made.actor_id]);
    expect(n.n).toBe(2);
  });

  it('are found by id or printed prefix, and revoked', async () => {
    const made = await addAgent(db, { workspace: 'hard-a', name: 'finder' });
    const byId = await findKey(db, made.key_id);
    const byPrefix = await findKey(db, made.api_key.slice(0, 12), 'hard-a');
    expect(byPrefix.id).toBe(byId.id);
    await expect(findKey(db, 'bp_live_none')).rejects.toMatchObject({ code: 'BPNTF' });
    expect(await revokeKey(db, A.id, made.key_id)).toBe(true);
    expect(await revokeKey(db, A.id, made.key_id)).toBe(false);
    expect(await authenticateKey(db, made.api_key, null)).toBeNull();
    await expect(rotateKey(db, A.id, made.key_id, 60)).rejects.toMatchObject({ code: 'BPCNF' });
  });
});

describe('sign-in links', () => {
  it('are read by the confirm page without being spent', async () => {
    const { token } = await createSignInToken(db, { tenantId: A.id, actorId: A.human.id });
    const who = await peekSignInToken(db, token);
    expect(who).toMatchObject({ display_name: `Human hard-a`, tenant_name: 'hard-a' });
    expect(await peekSignInToken(db, token)).not.toBeNull();
    expect((await consumeSignInToken(db, token))?.actor_id).toBe(A.human.id);
    expect(await peekSignInToken(db, token)).toBeNull();
    expect(await peekSignInToken(db, 'bpsi_short')).toBeNull();
  });

  it('are revoked by a newer link for the same person, and only for that person', async () => {
    const older = await createSignInToken(db, { tenantId: A.id, actorId: A.human.id });
    const other = await createSignInToken(db, { tenantId: B.id, actorId: B.human.id });
    const newer = await createSignInToken(db, { tenantId: A.id, actorId: A.human.id });
    expect(await peekSignInToken(db, older.token)).toBeNull();
    expect(await consumeSignInToken(db, older.token)).toBeNull();
    expect((await consumeSignInToken(db, newer.token))?.actor_id).toBe(A.human.id);
    expect((await consumeSignInToken(db, other.token))?.actor_id).toBe(B.human.id);
  });

  it('issued at the same moment leave one live link', async () => {
    const links = await Promise.all([1, 2, 3, 4].map(() => createSignInToken(db, { tenantId: A.id, actorId: A.human.id })));
    const live = (await Promise.all(links.map((l) => peekSignInToken(db, l.token)))).filter(Boolean);
    expect(live).toHaveLength(1);
  });
});

describe('console sessions', () => {
  it('are live until signed out; sign out ends this one, sign out everywhere ends them all', async () => {
    const who = { tenant_id: A.id, actor_id: A.human.id };
    const s1 = await openSession(db, who, { userAgent: 'browser one' });
    const s2 = await openSession(db, who, { userAgent: 'browser two' });
    const s3 = await openSession(db, who);
    for (const s of [s1, s2, s3]) expect(await sessionLive(db, { ...who, sid: s.sid })).toBe(true);
    expect(await revokeSessions(db, { ...who, sid: s1.sid }, false)).toBe(1);
    expect(await sessionLive(db, { ...who, sid: s1.sid })).toBe(false);
    expect(await sessionLive(db, { ...who, sid: s2.sid })).toBe(true);
    expect(await revokeSessions(db, { ...who, sid: s2.sid }, true)).toBe(2);
    expect(await sessionLive(db, { ...who, sid: s2.sid })).toBe(false);
    expect(await sessionLive(db, { ...who, sid: s3.sid })).toBe(false);
    const feed = await db.query<{ verb: string; summary: string }>(
      `select verb, summary from public.activity where tenant_id = $1 and actor_id = $2 and verb = 'actor.signed_out' order by id`,
      [A.id, A.human.id],
    );
    expect(feed.map((f) => f.summary)).toEqual([`Human hard-a signed out`, `Human hard-a signed out everywhere`]);
  });

  it('end at their expiry, and are only for humans of the workspace', async () => {
    const who = { tenant_id: A.id, actor_id: A.human.id };
    const s = await openSession(db, who, { ttlSeconds: 60 });
    await db.query(`update bullpen.sessions set created_at = now() - interval '2 hours', expires_at = now() - interval '1 second' where id = $1`, [s.sid]);
    expect(await sessionLive(db, { ...who, sid: s.sid })).toBe(false);
    await expect(openSession(db, { tenant_id: A.id, actor_id: A.agent.id })).rejects.toThrow(/human/);
    await expect(openSession(db, { tenant_id: A.id, actor_id: B.human.id })).rejects.toThrow(/human/);
    // a session row names its actor: another actor cannot ride on it
    const mine = await openSession(db, who);
    expect(await sessionLive(db, { tenant_id: A.id, actor_id: A.agent.id, sid: mine.sid })).toBe(false);
  });

  it('that ended, and links that were revoked, are swept away', async () => {
    const who = { tenant_id: B.id, actor_id: B.human.id };
    const live = await openSession(db, who);
    const out = await openSession(db, who);
    await revokeSessions(db, { ...who, sid: out.sid }, false);
    const old = await openSession(db, who, { ttlSeconds: 60 });
    await db.query(`update bullpen.sessions set created_at = now() - interval '2 hours', expires_at = now() - interval '1 hour' where id = $1`, [old.sid]);
    expect(await sweepSessions(db)).toBeGreaterThanOrEqual(2);
    const left = await db.query<{ id: string }>(`select id from bullpen.sessions where tenant_id = $1`, [B.id]);
    expect(left.map((r) => r.id)).toEqual([live.sid]);
    expect(await sessionLive(db, { ...who, sid: live.sid })).toBe(true);
    const older = await createSignInToken(db, { tenantId: B.id, actorId: B.human.id });
    const newer = await createSignInToken(db, { tenantId: B.id, actorId: B.human.id });
    await sweepSignInTokens(db);
    const tokens = await db.query<{ n: number }>(`select count(*)::int as n from bullpen.signin_tokens where tenant_id = $1 and revoked_at is not null`, [B.id]);
    expect(tokens[0].n).toBe(0);
    expect(await peekSignInToken(db, older.token)).toBeNull();
    expect(await peekSignInToken(db, newer.token)).not.toBeNull();
  });

  it('end an open live stream within seconds of signing out everywhere', async () => {
    const who = { tenant_id: A.id, actor_id: A.human.id };
    const s = await openSession(db, who);
    const hub = new ChangeHub();
    const abort = new AbortController();
    const stream = liveStream({
      who: { db, claims: A.human.claims },
      hub,
      resume: null,
      signal: abort.signal,
      sessionLive: () => sessionLive(db, { ...who, sid: s.sid }),
      sessionCheckMs: 200,
    });
    const reader = stream.getReader();
    const dec = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string, ms: number) => {
      const until = Date.now() + ms;
      while (!text.includes(needle)) {
        if (Date.now() > until) throw new Error(`no ${needle} within ${ms} ms: ${text}`);
        const { value, done } = await reader.read();
        if (done) break;
        text += dec.decode(value);
      }
    };
    await readUntil('event: ready', 10_000);
    const t0 = Date.now();
    await revokeSessions(db, { ...who, sid: s.sid }, true);
    await readUntil('event: signed_out', 5_000);
    expect(Date.now() - t0).toBeLessThan(3000);
    const end = await reader.read();
    expect(end.done).toBe(true);
    abort.abort();
  });
});

describe('rate limits and fair sharing', () => {
  const settings = (over: Partial<LimitSettings> = {}): LimitSettings => ({
    keyPerSecond: 1,
    workspacePerSecond: 2,
    addressPerSecond: 10,
    windowSeconds: 5,
    workspaceConcurrency: 2,
    workspaceConcurrencyAlone: 4,
    queueTimeoutMs: 300,
    ...over,
  });
  const uniq = () => `${Date.now()}-${Math.random().toString(36).slice(2)}`;

  it('refuse a key past its bucket with 429, a Retry-After and a retryable RATE_LIMITED', async () => {
    const limits = new Limits(settings(), db);
    const key = `k-${uniq()}`;
    const ws = `w-${uniq()}`;
    for (let i = 0; i < 5; i++) expect(await limits.consume(key, ws)).toBeNull();
    const refused = await limits.consume(key, ws);
    expect(refused).toMatchObject({ status: 429, error: { code: 'RATE_LIMITED', retryable: true } });
    expect(refused!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // the bucket's refill (at most the 5 s window) plus up to a second of jitter
    expect(refused!.retryAfterSeconds).toBeLessThanOrEqual(6);
    expect(refused!.error.details).toMatchObject({ scope: 'key', limit: 5, window_seconds: 5 });
  });

  it('spread the Retry-After of a refused key’s calls: never before the refill, jittered per call, and refused without the store', async () => {
    const limits = new Limits(settings(), db);
    const key = `k-${uniq()}`;
    for (let i = 0; i < 5; i++) expect(await limits.consumeKey(key)).toBeNull();
    const first = await limits.consumeKey(key);
    const refill = first!.refillMs!;
    expect(refill).toBeGreaterThan(0);
    // refused from memory from now on: a closed-over store would not be asked (the bucket's row stays as it was)
    const before = await db.query(`select points from bullpen.rate_limits where key = $1`, [`key:${key}`]).catch(() => []);
    const random = vi.spyOn(Math, 'random');
    const again = await Promise.all(Array.from({ length: 60 }, () => limits.consumeKey(key)));
    // the jitter is drawn per refused call
    expect(random.mock.calls.length).toBeGreaterThanOrEqual(60);
    random.mockRestore();
    expect(again.every((r) => r?.error.code === 'RATE_LIMITED' && r.status === 429)).toBe(true);
    expect(await db.query(`select points from bullpen.rate_limits where key = $1`, [`key:${key}`]).catch(() => [])).toEqual(before);
    // never before the refill, at most a second (and the rounding up) after it
    for (const r of again) {
      expect(r!.retryAfterSeconds * 1000).toBeGreaterThanOrEqual(r!.refillMs!);
      expect(r!.retryAfterSeconds * 1000).toBeLessThan(r!.refillMs! + 2000);
      expect(r!.error.details).toMatchObject({ retry_after_seconds: r!.retryAfterSeconds, scope: 'key' });
    }
    expect(Math.max(...again.map((r) => r!.refillMs!))).toBeLessThanOrEqual(refill);
  });

  it('keep a key exact across two instances on one database: never past the limit, and most checks cost no database round trip', async () => {
    // on Postgres two instances share the bucket's row; the embedded database is one process, so
    // there the "second instance" is the same one
    let storeCalls = 0;
    const counted = Object.assign(Object.create(db) as TestDb, {
      query: (sql: string, params?: unknown[]) => {
        storeCalls++;
        return db.query(sql, params);
      },
    });
    const opts = settings({ keyPerSecond: 50, windowSeconds: 10 }); // 500 calls a window, reserved 50 at a time
    const a = new Limits(opts, counted);
    const b = target === 'pg' ? new Limits(opts, counted) : a;
    const key = `k-${uniq()}`;
    let admitted = 0;
    for (let i = 0; i < 800; i++) if ((await (i % 2 ? b : a).consumeKey(key)) === null) admitted++;
    // never more than the bucket in total; at most one reservation per instance left unused
    expect(admitted).toBeLessThanOrEqual(500);
    expect(admitted).toBeGreaterThanOrEqual(target === 'pg' ? 450 : 500);
    // one store round trip per reservation (a tenth of the bucket), none for the refusals after it
    // emptied: 800 checks, at most a dozen queries on Postgres (none on the embedded store)
    expect(storeCalls).toBeLessThanOrEqual(target === 'pg' ? 12 : 0);
  });

  it('count every key of a workspace against the workspace bucket', async () => {
    const limits = new Limits(settings(), db);
    const ws = `w-${uniq()}`;
    for (let i = 0; i < 10; i++) expect(await limits.consume(`k${i}-${uniq()}`, ws)).toBeNull();
    const refused = await limits.consume(`k-last-${uniq()}`, ws);
    expect(refused?.error.details).toMatchObject({ scope: 'workspace', limit: 10 });
    // another workspace is not touched
    expect(await limits.consume(`k-${uniq()}`, `w-${uniq()}`)).toBeNull();
  });

  const measure = () => {
    const state = { inFlight: 0, peak: 0 };
    const work = (ms: number) => async () => {
      state.inFlight++;
      state.peak = Math.max(state.peak, state.inFlight);
      await new Promise((r) => setTimeout(r, ms));
      state.inFlight--;
      return 'done';
    };
    return { state, work };
  };

  it('let a workspace that is alone use more of the pool (no throughput lost without neighbours)', async () => {
    const limits = new Limits(settings({ workspaceConcurrency: 2, workspaceConcurrencyAlone: 4, queueTimeoutMs: 2000 }), db);
    const { state, work } = measure();
    const results = await Promise.all(Array.from({ length: 8 }, () => limits.withSlot('solo', work(60))));
    expect(results.every((r) => r === 'done')).toBe(true);
    expect(state.peak).toBe(4);
    expect(limits.capFor('solo')).toBe(4);
  });

  it('gate a workspace’s database calls: a tool call that cannot get a slot in time answers a retryable BUSY', async () => {
    const limits = new Limits(settings({ workspaceConcurrency: 1, workspaceConcurrencyAlone: 1, queueTimeoutMs: 100 }), db);
    const gated = { ...A.agent.ctx, db: limits.gate(db, A.id) };
    expect(ok(await execute(gated, 'task_query', { project_id: 'HA' })).tasks.length).toBeGreaterThan(0);
    // another call of the same workspace holds the only slot for longer than the queue waits
    const holder = limits.withSlot(A.id, () => new Promise((r) => setTimeout(r, 400)));
    const busy = fails(await execute(gated, 'task_query', { project_id: 'HA' }), 'BUSY');
    expect(busy.retryable).toBe(true);
    expect(busy.message).toContain('in flight');
    // another workspace is not held up by it
    ok(await execute({ ...B.agent.ctx, db: limits.gate(db, B.id) }, 'whoami', {}));
    await holder;
    ok(await execute(gated, 'task_query', { project_id: 'HA' }));
    expect(limits.inFlight(A.id)).toBe(0);
  });

  it('hold a flooding key beside another active key to the workspace’s fair share of the machine, not half the pool', async () => {
    // two cores: a fair share of 1 while others are active; alone the workspace may use 6
    const limits = new Limits(settings({ workspaceConcurrency: 1, workspaceConcurrencyAlone: 6, queueTimeoutMs: 5000 }), db);
    let active = 0;
    let peakBeside = 0;
    let quietSeen = false;
    const work = async () => {
      active++;
      if (quietSeen) peakBeside = Math.max(peakBeside, active);
      await new Promise((r) => setTimeout(r, 40));
      active--;
    };
    const flood = Array.from({ length: 12 }, () => limits.withSlot('cap-ws', work, 'noisy-key'));
    await new Promise((r) => setTimeout(r, 10));
    expect(limits.inFlight('cap-ws', 'noisy-key')).toBe(6);
    quietSeen = true;
    await limits.withSlot('cap-ws', async () => 'quiet', 'quiet-key');
    await new Promise((r) => setTimeout(r, 60));
    // the six it held drain; from then on the flooding key holds one slot at a time (not 6 / 2 = 3)
    peakBeside = 0;
    await Promise.all(flood);
    expect(peakBeside).toBe(1);
  });

  it('share a workspace’s slots among its keys: a flooding key alone takes them all; beside another key it holds at most half, and the other key is served at the next free slot, before the flood’s queue', async () => {
    const limits = new Limits(settings({ workspaceConcurrency: 2, workspaceConcurrencyAlone: 4, queueTimeoutMs: 5000 }), db);
    const events: string[] = [];
    let noisyActive = 0;
    let noisyPeakAfterQuiet = 0;
    let quietArrived = false;
    const noisyWork = (i: number) => async () => {
      noisyActive++;
      if (quietArrived) noisyPeakAfterQuiet = Math.max(noisyPeakAfterQuiet, noisyActive);
      events.push(`noisy-${i}`);
      await new Promise((r) => setTimeout(r, 80));
      noisyActive--;
      return 'done';
    };
    const flood = Array.from({ length: 10 }, (_, i) => limits.withSlot('shared-ws', noisyWork(i), 'noisy-key'));
    await new Promise((r) => setTimeout(r, 20));
    // alone in its workspace, the key may use every slot
    expect(limits.inFlight('shared-ws', 'noisy-key')).toBe(4);
    quietArrived = true;
    const quiet = limits.withSlot('shared-ws', async () => void events.push('quiet'), 'quiet-key');
    await quiet;
    // the quiet call ran before any of the six calls the flood had queued before it arrived
    expect(events.indexOf('quiet')).toBe(4);
    await Promise.all(flood);
    expect(events.filter((e) => e.startsWith('noisy'))).toHaveLength(10);
    // once another key was active, the flooding key never held more than half of the slots again
    // (the four it already held drained first)
    const after = events.slice(events.indexOf('quiet') + 1);
    expect(after.length).toBe(6);
    expect(noisyPeakAfterQuiet).toBe(2);
    expect(limits.inFlight('shared-ws')).toBe(0);
  });

  it('keep one change feed and one wait room per database, however many gated views the keys get', async () => {
    const limits = new Limits(settings(), db);
    const views = [limits.gate(db, A.id, 'key-1'), limits.gate(db, A.id, 'key-2'), limits.gate(db, B.id, 'key-3')];
    const room = await waitRoom(db);
    for (const v of views) {
      expect(v).not.toBe(db);
      expect(await waitRoom(v)).toBe(room);
      expect(await changeFeed(v)).toBe(await changeFeed(db));
    }
  });

  it('count a key’s share while it is active: a second key that just made a call halves the first key’s slots', async () => {
    const limits = new Limits(settings({ workspaceConcurrency: 2, workspaceConcurrencyAlone: 4, queueTimeoutMs: 5000 }), db);
    expect(await limits.withSlot('ws-two', async () => 'hello', 'quiet-key')).toBe('hello');
    let peak = 0;
    let active = 0;
    const work = async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 40));
      active--;
      return 'done';
    };
    const results = await Promise.all(Array.from({ length: 8 }, () => limits.withSlot('ws-two', work, 'noisy-key')));
    expect(results.every((r) => r === 'done')).toBe(true);
    expect(peak).toBe(2);
  });

  it('hold a workspace to its fair share while another is active: the quiet one passes at once, the noisy one queues, and a call that waits too long is BUSY', async () => {
    const limits = new Limits(settings({ workspaceConcurrency: 2, workspaceConcurrencyAlone: 4, queueTimeoutMs: 200 }), db);
    // the quiet workspace has just made a call: it is active
    expect(await limits.withSlot('quiet', async () => 'hello')).toBe('hello');
    expect(limits.capFor('noisy')).toBe(2);
    const { state, work } = measure();
    const noisy = Array.from({ length: 6 }, () => limits.withSlot('noisy', work(120)));
    const t0 = Date.now();
    expect(await limits.withSlot('quiet', async () => 'quiet')).toBe('quiet');
    expect(Date.now() - t0).toBeLessThan(100);
    const results = await Promise.all(noisy);
    expect(state.peak).toBe(2);
    const busy = results.filter(isRefusal);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0]).toMatchObject({ status: 503, error: { code: 'BUSY', retryable: true } });
    expect(results.filter((r) => r === 'done').length).toBeGreaterThanOrEqual(2);
    expect(limits.inFlight('noisy')).toBe(0);
  });
});
