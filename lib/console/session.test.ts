import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionCookieName, sessionCookieOptions, sessionSecret, sessionSecretPath, signSession, toDbClaims, verifySession } from './session';

const secret = new TextEncoder().encode('s'.repeat(48));
const ids = { tenant_id: '0b8f2a55-1c7e-4c1e-9f4e-2d1b7b0d0a01', actor_id: '6f1d3c2b-9a8e-4f7d-8c6b-5a4f3e2d1c0b', sid: '3c9e8d7f-2b1a-4c5d-8e9f-0a1b2c3d4e5f' };

async function craft(claims: Record<string, unknown>, opts: { key?: Uint8Array; iss?: string; aud?: string; exp?: number; alg?: string } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: opts.alg ?? 'HS256' })
    .setSubject(String(claims.actor_id ?? ids.actor_id))
    .setIssuer(opts.iss ?? 'bullpen')
    .setAudience(opts.aud ?? 'bullpen-console')
    .setExpirationTime(opts.exp ?? now + 600)
    .sign(opts.key ?? secret);
}

describe('console sessions', () => {
  it('round-trip the claim shape every caller has', async () => {
    const { token, expires_at } = await signSession(ids, { secret, ttlSeconds: 3600 });
    const claims = await verifySession(token, { secret });
    expect(claims).toMatchObject({ sub: ids.actor_id, role: 'authenticated', kind: 'human', ...ids });
    expect(claims!.exp * 1000).toBe(expires_at.getTime());
    // people in the console see sensitive notes (bullpen.can_see_sensitive())
    expect(toDbClaims(claims!)).toEqual({ sub: ids.actor_id, role: 'authenticated', kind: 'human', tenant_id: ids.tenant_id, actor_id: ids.actor_id, sensitive: true });
  });

  it('refuse a forged signature, a tampered payload and alg none', async () => {
    const { token } = await signSession(ids, { secret });
    expect(await verifySession(token, { secret: new TextEncoder().encode('t'.repeat(48)) })).toBeNull();
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, tenant_id: '00000000-0000-4000-8000-000000000000' })).toString('base64url')}.${s}`;
    expect(await verifySession(tampered, { secret })).toBeNull();
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
    expect(await verifySession(none, { secret })).toBeNull();
    expect(await verifySession(`${token}x`, { secret })).toBeNull();
    expect(await verifySession('garbage', { secret })).toBeNull();
    expect(await verifySession('', { secret })).toBeNull();
    expect(await verifySession(undefined, { secret })).toBeNull();
  });

  it('refuse an expired session, and one from the future clock', async () => {
    const { token } = await signSession(ids, { secret, ttlSeconds: 60, now: Date.now() - 3600_000 });
    expect(await verifySession(token, { secret })).toBeNull();
    const fresh = await signSession(ids, { secret, ttlSeconds: 60 });
    expect(await verifySession(fresh.token, { secret, now: Date.now() + 120_000 })).toBeNull();
  });

  it('refuse tokens of another issuer or audience, or of another shape', async () => {
    const base = { role: 'authenticated', kind: 'human', ...ids };
    expect(await verifySession(await craft(base), { secret })).not.toBeNull();
    expect(await verifySession(await craft(base, { iss: 'someone-else' }), { secret })).toBeNull();
    expect(await verifySession(await craft(base, { aud: 'authenticated' }), { secret })).toBeNull();
    expect(await verifySession(await craft({ ...base, kind: 'agent' }), { secret })).toBeNull();
    expect(await verifySession(await craft({ ...base, role: 'service_role' }), { secret })).toBeNull();
    expect(await verifySession(await craft({ ...base, tenant_id: 'not-a-uuid' }), { secret })).toBeNull();
    expect(await verifySession(await craft({ role: 'authenticated', kind: 'human', actor_id: ids.actor_id }), { secret })).toBeNull();
    expect(await verifySession(await craft(base, { alg: 'HS512' }), { secret })).toBeNull();
    // a cookie without its session row id (one signed before sessions were revocable) is no session
    expect(await verifySession(await craft({ role: 'authenticated', kind: 'human', tenant_id: ids.tenant_id, actor_id: ids.actor_id }), { secret })).toBeNull();
  });

  it('name the cookie with the __Host- prefix over https only', () => {
    expect(sessionCookieName(true)).toBe('__Host-bullpen_session');
    expect(sessionCookieName(false)).toBe('bullpen_session');
    expect(sessionCookieOptions(true, new Date())).toMatchObject({ secure: true, path: '/', httpOnly: true, sameSite: 'lax' });
    expect(sessionCookieOptions(true, new Date())).not.toHaveProperty('domain');
  });
});

describe('the session secret', () => {
  let dir: string;
  const saved = { data: process.env.BULLPEN_DATA_DIR, secret: process.env.BULLPEN_SESSION_SECRET };
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'bp-secret-'));
    process.env.BULLPEN_DATA_DIR = path.join(dir, 'data');
    delete process.env.BULLPEN_SESSION_SECRET;
    delete (globalThis as Record<symbol, unknown>)[Symbol.for('bullpen.session-secret')];
  });
  afterEach(() => {
    for (const [k, v] of [['BULLPEN_DATA_DIR', saved.data], ['BULLPEN_SESSION_SECRET', saved.secret]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    delete (globalThis as Record<symbol, unknown>)[Symbol.for('bullpen.session-secret')];
    rmSync(dir, { recursive: true, force: true });
  });

  it('is generated once beside the data directory, private to its owner, and kept', async () => {
    const a = await sessionSecret();
    expect(sessionSecretPath()).toBe(path.join(dir, 'session.secret'));
    expect(statSync(sessionSecretPath()).mode & 0o777).toBe(0o600);
    expect(readFileSync(sessionSecretPath(), 'utf8').trim().length).toBeGreaterThanOrEqual(43);
    delete (globalThis as Record<symbol, unknown>)[Symbol.for('bullpen.session-secret')];
    expect(Buffer.from(await sessionSecret()).equals(Buffer.from(a))).toBe(true);
    const { token } = await signSession(ids);
    expect(await verifySession(token)).not.toBeNull();
  });

  it('comes from BULLPEN_SESSION_SECRET when set (every instance behind a balancer shares it)', async () => {
    process.env.BULLPEN_SESSION_SECRET = 'k'.repeat(40);
    expect(Buffer.from(await sessionSecret()).toString()).toBe('k'.repeat(40));
    delete (globalThis as Record<symbol, unknown>)[Symbol.for('bullpen.session-secret')];
    process.env.BULLPEN_SESSION_SECRET = 'short';
    await expect(sessionSecret()).rejects.toThrow(/at least 32/);
  });
});
