import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { supabaseSessionCheck } from './supabase-live';

/** A Supabase session behind an open live stream is re-checked, as local sessions are. */
const cfg = { url: 'https://proj.supabase.example', jwtSecret: 'x'.repeat(40) };
const sub = '11111111-2222-4333-8444-555555555555';

async function token(expSeconds: number, now: number) {
  return new SignJWT({ role: 'authenticated', email: 'a@example.com' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setIssuer(`${cfg.url}/auth/v1`)
    .setAudience('authenticated')
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + expSeconds)
    .sign(new TextEncoder().encode(cfg.jwtSecret));
}

describe('the Supabase session check of a live stream', () => {
  it('ends the stream when its token expires', async () => {
    let now = Date.now();
    const check = supabaseSessionCheck({ token: await token(60, now), sub, cfg, askServer: async () => sub, recheckMs: 1e9, now: () => now });
    expect(await check()).toBe(true);
    now += 61_000;
    expect(await check()).toBe(false);
  });

  it('asks the auth server every recheckMs: a sign-out elsewhere (session gone) ends the stream', async () => {
    let now = Date.now();
    let signedIn = true;
    let asked = 0;
    const check = supabaseSessionCheck({
      token: await token(3600, now),
      sub,
      cfg,
      askServer: async () => {
        asked++;
        return signedIn ? sub : null;
      },
      recheckMs: 30_000,
      now: () => now,
    });
    expect(await check()).toBe(true);
    expect(asked).toBe(0);
    signedIn = false;
    now += 31_000;
    expect(await check()).toBe(false);
    expect(asked).toBe(1);
  });

  it('keeps the stream when the auth server cannot be reached (the token’s expiry still bounds it)', async () => {
    const now = Date.now();
    const check = supabaseSessionCheck({ token: await token(3600, now), sub, cfg, askServer: async () => Promise.reject(new Error('down')), recheckMs: 0, now: () => now });
    expect(await check()).toBe(true);
  });
});
