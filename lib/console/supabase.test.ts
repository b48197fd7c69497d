import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { supabaseConfig, verifySupabaseJwt } from './supabase';

const url = 'https://abcd.supabase.co';
const jwtSecret = 'super-secret-jwt-token-with-at-least-32-characters-long';
const user = '9a7b5c3d-1e2f-4a6b-8c9d-0e1f2a3b4c5d';

async function token(claims: Record<string, unknown>, opts: { iss?: string; aud?: string; exp?: number; key?: Uint8Array | CryptoKey; alg?: string; kid?: string } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role: 'authenticated', email: 'ada@example.com', ...claims })
    .setProtectedHeader({ alg: opts.alg ?? 'HS256', ...(opts.kid ? { kid: opts.kid } : {}) })
    .setSubject(String(claims.sub ?? user))
    .setIssuer(opts.iss ?? `${url}/auth/v1`)
    .setAudience(opts.aud ?? 'authenticated')
    .setIssuedAt(now)
    .setExpirationTime(opts.exp ?? now + 3600)
    .sign(opts.key ?? new TextEncoder().encode(jwtSecret));
}

describe('Supabase configuration', () => {
  it('is on only with both the URL and the anon (or publishable) key', () => {
    expect(supabaseConfig({})).toBeNull();
    expect(supabaseConfig({ NEXT_PUBLIC_SUPABASE_URL: url })).toBeNull();
    expect(supabaseConfig({ NEXT_PUBLIC_SUPABASE_URL: `${url}/`, NEXT_PUBLIC_SUPABASE_ANON_KEY: 'anon' })).toEqual({ url, anonKey: 'anon', jwtSecret: null });
    expect(supabaseConfig({ NEXT_PUBLIC_SUPABASE_URL: url, NEXT_PUBLIC_SUPABASE_PUBLISHABLE_KEY: 'pk', SUPABASE_JWT_SECRET: 's' })).toEqual({ url, anonKey: 'pk', jwtSecret: 's' });
  });
});

describe('Supabase access tokens, verified with jose', () => {
  const cfg = { url, jwtSecret };

  it('accept a signed-in user (HS256 with the project JWT secret)', async () => {
    const u = await verifySupabaseJwt(await token({}), cfg);
    expect(u).toMatchObject({ sub: user, role: 'authenticated', email: 'ada@example.com' });
  });

  it('refuse forged, expired, foreign and anonymous tokens', async () => {
    expect(await verifySupabaseJwt(await token({}, { key: new TextEncoder().encode('x'.repeat(48)) }), cfg)).toBeNull();
    expect(await verifySupabaseJwt(await token({}, { exp: Math.floor(Date.now() / 1000) - 10 }), cfg)).toBeNull();
    expect(await verifySupabaseJwt(await token({}, { iss: 'https://evil.supabase.co/auth/v1' }), cfg)).toBeNull();
    expect(await verifySupabaseJwt(await token({}, { aud: 'anon' }), cfg)).toBeNull();
    expect(await verifySupabaseJwt(await token({ role: 'anon' }), cfg)).toBeNull();
    expect(await verifySupabaseJwt(await token({ role: 'service_role' }), cfg)).toBeNull();
    expect(await verifySupabaseJwt(await token({ sub: 'not-a-uuid' }), cfg)).toBeNull();
    expect(await verifySupabaseJwt(null, cfg)).toBeNull();
    expect(await verifySupabaseJwt('a.b.c', cfg)).toBeNull();
  });

  it('verify asymmetric keys against the project JWKS when no shared secret is configured', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    const jwks = createLocalJWKSet({ keys: [jwk] });
    const good = await token({}, { key: privateKey, alg: 'ES256', kid: 'k1' });
    expect(await verifySupabaseJwt(good, { url, jwtSecret: null }, { jwks })).toMatchObject({ sub: user });
    const other = await generateKeyPair('ES256');
    const forged = await token({}, { key: other.privateKey, alg: 'ES256', kid: 'k1' });
    expect(await verifySupabaseJwt(forged, { url, jwtSecret: null }, { jwks })).toBeNull();
    // a symmetric token cannot pass as an asymmetric one (algorithm confusion)
    expect(await verifySupabaseJwt(await token({}), { url, jwtSecret: null }, { jwks })).toBeNull();
  });
});
