import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { SignJWT } from 'jose';
import { server, sessionCookie, signIn } from './helpers';

async function signed(claims: Record<string, unknown>, secret: Uint8Array, expSecondsFromNow: number): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(claims.actor_id))
    .setIssuer('bullpen')
    .setAudience('bullpen-console')
    .setIssuedAt(now - 3600)
    .setExpirationTime(now + expSecondsFromNow)
    .sign(secret);
}

test.describe('sign-in', () => {
  test('the link printed at first start opens a confirm page; Continue signs the owner in, once', async ({ browser }) => {
    // a chat or mail preview fetches the link: it sees the confirm page, and the link still works
    const preview = await fetch(server().bannerLink);
    expect(preview.status).toBe(200);
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(server().bannerLink);
    await expect(page.getByTestId('signin-confirm-who')).toHaveText('Sign in as Owner to My workspace.');
    // the token leaves the address bar before anything else can read it
    await expect(page).toHaveURL(/\/auth\/link$/);
    // reloading the confirm page spends nothing either
    await page.reload();
    await page.goto(server().bannerLink);
    await expect(page.getByTestId('signin-confirm-who')).toContainText('Owner');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page).toHaveURL(/\/projects$/);
    await expect(page.getByTestId('me-name')).toHaveText('Owner');
    await expect(page.getByTestId('workspace-name')).toHaveText('My workspace');
    const cookie = (await ctx.cookies()).find((c) => c.name === 'bullpen_session')!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe('Lax');
    // the JWT carries the claim shape every caller has, and the id of its server-side session row
    const payload = JSON.parse(Buffer.from(cookie.value.split('.')[1], 'base64url').toString());
    expect(payload).toMatchObject({ role: 'authenticated', kind: 'human', sub: payload.actor_id });
    expect(payload.tenant_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload.sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload.exp).toBeGreaterThan(Date.now() / 1000);

    // single use: a second browser opening the link is told it does not work
    const other = await browser.newContext();
    const again = await other.newPage();
    await again.goto(server().bannerLink);
    await expect(again.getByTestId('signin-confirm-invalid')).toContainText('already used, replaced by a newer link, or has expired');
    await ctx.close();
    await other.close();
  });

  test('sign out everywhere ends the session in every browser, and an open console leaves within seconds', async ({ browser }) => {
    const first = await browser.newContext();
    const a = await first.newPage();
    await signIn(a, 'Two Browsers');
    const second = await browser.newContext();
    const b = await second.newPage();
    await signIn(b, 'Two Browsers');
    await expect(a.getByTestId('live-status')).toHaveAttribute('data-status', 'live');
    const t0 = Date.now();
    await b.getByTestId('signout-everywhere').click();
    await expect(b).toHaveURL(/\/auth\/signin\?signed_out=everywhere/);
    await expect(b.getByTestId('signed-out')).toContainText('signed out everywhere');
    // the other browser's live stream ends and sends it to the sign-in page, without a click
    await expect(a).toHaveURL(/\/auth\/signin\?error=session/, { timeout: 8_000 });
    console.log(`[e2e] the other browser left the console ${Date.now() - t0} ms after sign out everywhere`);
    await expect(a.getByTestId('signin-error')).toContainText('session has ended');
    // its cookie is dead on the server too
    await a.goto(`${server().url}/projects`);
    await expect(a).toHaveURL(/\/auth\/signin/);
    await first.close();
    await second.close();
  });

  test('pages, reads and the live feed refuse forged, tampered and expired cookies', async ({ browser }) => {
    const secret = new TextEncoder().encode(readFileSync(path.join(server().dir, 'session.secret'), 'utf8').trim());
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signIn(page);
    const good = (await ctx.cookies()).find((c) => c.name === 'bullpen_session')!.value;
    const claims = JSON.parse(Buffer.from(good.split('.')[1], 'base64url').toString());
    const [h, , s] = good.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, tenant_id: '00000000-0000-0000-0000-000000000001' })).toString('base64url')}.${s}`;
    const forged = await signed(claims, new TextEncoder().encode('x'.repeat(40)), 3600);
    const expired = await signed(claims, secret, -60);
    const noneAlg = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${good.split('.')[1]}.`;
    for (const [what, value] of Object.entries({ tampered, forged, expired, noneAlg })) {
      const bad = await browser.newContext();
      await bad.addCookies([{ name: 'bullpen_session', value, url: server().url }]);
      const p = await bad.newPage();
      await p.goto(`${server().url}/projects`);
      await expect(p, what).toHaveURL(/\/auth\/signin/);
      for (const [url, init] of [
        ['/api/console/tool', { method: 'POST', body: JSON.stringify({ tool: 'task_query', input: {} }) }],
        ['/api/events', {}],
        ['/api/console/tool', { method: 'POST', body: JSON.stringify({ tool: 'activity_query', input: {} }) }],
        ['/api/console/actors', {}],
      ] as const) {
        const res = await fetch(`${server().url}${url}`, { ...init, headers: { cookie: `bullpen_session=${value}`, 'content-type': 'application/json' } });
        expect(res.status, `${what} ${url}`).toBe(401);
      }
      await bad.close();
    }
    // the genuine cookie still works, signed with the same secret the expired one used
    const ok = await fetch(`${server().url}/api/console/tool`, {
      method: 'POST',
      headers: { cookie: `bullpen_session=${good}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'whoami', input: { include: ['projects'] } }),
    });
    expect(((await ok.json()) as { ok: boolean }).ok).toBe(true);
    await ctx.close();
  });

  test('signing out ends the session', async ({ page }) => {
    await signIn(page);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await expect(page).toHaveURL(/\/auth\/signin\?signed_out=1/);
    await page.goto(`${server().url}/projects`);
    await expect(page).toHaveURL(/\/auth\/signin$/);
  });

  test('the read route needs a session and never runs a write tool', async () => {
    const anon = await fetch(`${server().url}/api/console/tool`, { method: 'POST', body: JSON.stringify({ tool: 'task_query', input: {} }) });
    expect(anon.status).toBe(401);
    const cookie = await sessionCookie();
    const write = await fetch(`${server().url}/api/console/tool`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'project_create', input: { title: 'sneaky' } }),
    });
    expect(write.status).toBe(405);
    expect(((await write.json()) as { error: { hint: string } }).error.hint).toContain('server action');
  });
});
