import { expect, test, type Page } from '@playwright/test';
import { agent, card, column, server, sessionCookie, signIn, uniqueKey, confirmLink } from './helpers';

type Ev = { id: string | null; event: string; data: any };

/** Reads an SSE response until `until` says stop (or the deadline passes); returns what came. */
async function readSse(res: Response, until: (events: Ev[]) => boolean, ms = 8000): Promise<Ev[]> {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  const events: Ev[] = [];
  let buf = '';
  const deadline = Date.now() + ms;
  try {
    while (!until(events) && Date.now() < deadline) {
      const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), Math.max(1, deadline - Date.now())))]);
      if (!chunk || chunk.done) break;
      buf += dec.decode(chunk.value, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const f: Record<string, string> = {};
        for (const line of block.split('\n')) {
          const m = /^(id|event|data): ?(.*)$/.exec(line);
          if (m) f[m[1]] = m[2];
        }
        if (f.event) events.push({ id: f.id ?? null, event: f.event, data: JSON.parse(f.data) });
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}

function stream(cookie: string, headers: Record<string, string> = {}, query = ''): Promise<Response> {
  return fetch(`${server().url}/api/events${query}`, { headers: { cookie, accept: 'text/event-stream', ...headers } });
}

test.describe('live', () => {
  test('the SSE route resumes from Last-Event-ID (and ?after=) without a gap, and the overlap it repeats is only the window', async () => {
    const cookie = await sessionCookie();
    const a = await agent(server().agent.key);
    const key = uniqueKey('SSE');
    await a.call('project_create', { title: 'Stream', key });

    const first = await stream(cookie);
    expect(first.headers.get('content-type')).toContain('text/event-stream');
    const writesBefore = [1, 2, 3].map((i) => a.call('task_create', { project_id: key, title: `before ${i}` }));
    await Promise.all(writesBefore);
    const got = await readSse(first, (ev) => ev.filter((e) => e.event === 'change' && e.data.project_id).length >= 3);
    const ready = got.find((e) => e.event === 'ready')!;
    expect(ready.data.resumed).toBe(false);
    const changes1 = got.filter((e) => e.event === 'change');
    expect(changes1.map((e) => e.data.verb)).toEqual(['task.created', 'task.created', 'task.created']);
    const lastId = got[got.length - 1].id!;
    expect(Number(lastId)).toBe(Math.max(...changes1.map((e) => e.data.seq)));

    // cut: the stream is gone; work happens meanwhile
    for (let i = 1; i <= 5; i++) await a.call('task_create', { project_id: key, title: `while away ${i}` });
    await a.call('task_claim', { task_id: `${key}-1` });

    const resumed = await stream(cookie, { 'last-event-id': lastId });
    const after = await readSse(resumed, (ev) => ev.some((e) => e.event === 'ready'));
    const r = after.find((e) => e.event === 'ready')!;
    expect(r.data.resumed).toBe(true);
    const replay = after.filter((e) => e.event === 'change').map((e) => e.data);
    // the authoritative list: the activity log (activity_query) under the same human's claims
    const feed = (await (
      await fetch(`${server().url}/api/console/tool`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ tool: 'activity_query', input: { limit: 200 } }),
      })
    ).json()) as { activity: { seq: number }[] };
    const expected = feed.activity.map((i) => i.seq).filter((s) => s > Number(lastId)).sort((x, y) => x - y);
    expect(expected).toHaveLength(6);
    // what a client holds after the first stream: what it was sent, and what ready said its data has
    const seen = new Set<number>([...changes1.map((e) => e.data.seq), ...(ready.data.known as number[])]);
    const fresh = replay.filter((e) => !seen.has(e.seq)).map((e) => e.seq);
    expect(fresh, 'no gap: every missed event, in order, once').toEqual(expected);
    // anything repeated is an event the client already had from before the cut (the overlap window)
    const repeated = replay.filter((e: { seq: number }) => seen.has(e.seq));
    for (const e of repeated) expect(e.seq).toBeLessThanOrEqual(Number(lastId));
    // and no event repeats inside one stream
    expect(new Set(replay.map((e) => e.seq)).size).toBe(replay.length);
    expect(Number(after[after.length - 1].id)).toBe(Math.max(...expected));

    // ?after= is the same resume for clients that cannot set headers
    const viaQuery = await readSse(await stream(cookie, {}, `?after=${lastId}`), (ev) => ev.some((e) => e.event === 'ready'));
    expect(viaQuery.filter((e) => e.event === 'change').map((e) => e.data.seq).filter((s) => !seen.has(s))).toEqual(expected);
    // and the one-shot JSON catch-up (what the Supabase Realtime path uses after a reconnect)
    const once = (await (await fetch(`${server().url}/api/events?after=${lastId}`, { headers: { cookie, accept: 'application/json' } })).json()) as {
      events: { seq: number }[];
      truncated: boolean;
    };
    expect(once.truncated).toBe(false);
    expect(once.events.map((e) => e.seq).filter((s) => !seen.has(s))).toEqual(expected);
    await a.close();
  });

  test('a board cut off from the stream catches up on reconnect: every change once, nothing lost', async ({ page }) => {
    await signIn(page);
    const a = await agent(server().agent.key);
    const key = uniqueKey('CUT');
    await a.call('project_create', { title: 'Cut stream', key });
    await a.call('task_create', { project_id: key, title: 'seed' });
    await page.goto(`${server().url}/projects/${key}`);
    const badge = page.getByTestId('live-status');
    await expect(badge).toHaveAttribute('data-status', 'live');
    await expect(card(page, `${key}-1`)).toBeVisible();
    await a.call('task_update', { task_id: `${key}-1`, patch: { priority: 1 } });
    await expect(badge).not.toHaveAttribute('data-events', '0');
    const before = Number(await badge.getAttribute('data-events'));

    // cut the EventSource (as a network drop does); writes land while the tab is disconnected
    const reconnects: (string | null)[] = [];
    page.on('request', (r) => r.url().includes('/api/events') && reconnects.push(new URL(r.url()).searchParams.get('after') ?? r.headers()['last-event-id'] ?? null));
    await page.evaluate(() => window.stop());
    await expect(badge).toHaveAttribute('data-status', 'reconnecting');
    const made = [];
    for (let i = 2; i <= 6; i++) made.push((await a.call('task_create', { project_id: key, title: `made while cut ${i}` })).ref);
    await a.call('task_claim', { task_id: `${key}-2` });

    await expect(badge).toHaveAttribute('data-status', 'live', { timeout: 15_000 });
    for (const ref of made) await expect(card(page, ref)).toBeVisible();
    await expect(column(page, 'in_progress').locator(`[data-ref="${key}-2"]`)).toBeVisible();
    // six changes happened while away; each reached the page exactly once
    await expect(badge).toHaveAttribute('data-events', String(before + 6));
    expect(reconnects.length).toBeGreaterThan(0);
    expect(Number(reconnects[0])).toBeGreaterThan(0);
    await a.close();
  });

  test("a second workspace's browser receives none of the first workspace's events", async ({ browser }) => {
    const ctxA = await browser.newContext();
    const ctxB = await browser.newContext();
    const pageA = await ctxA.newPage();
    const pageB = await ctxB.newPage();
    await signIn(pageA);
    await confirmLink(pageB, server().second.link);
    await expect(pageB).toHaveURL(/\/projects$/);
    await expect(pageB.getByTestId('workspace-name')).toHaveText('second-ws');
    const tap = async (page: Page) =>
      page.evaluate(() => {
        const w = window as unknown as { __tap: unknown[] };
        w.__tap = [];
        const es = new EventSource('/api/events');
        es.addEventListener('change', (m) => w.__tap.push(JSON.parse((m as MessageEvent).data)));
        return new Promise<void>((r) => es.addEventListener('ready', () => r()));
      });
    await Promise.all([pageA.goto(`${server().url}/activity`), pageB.goto(`${server().url}/activity`)]);
    await Promise.all([tap(pageA), tap(pageB)]);
    const badgeB = pageB.getByTestId('live-status');
    await expect(badgeB).toHaveAttribute('data-status', 'live');
    const bBefore = await badgeB.getAttribute('data-events');

    const a = await agent(server().agent.key);
    const key = uniqueKey('SEC');
    await a.call('project_create', { title: 'Secret A work', key });
    const t = await a.call('task_create', { project_id: key, title: 'A-only task' });
    await a.call('task_claim', { task_id: t.task_id });
    await a.call('task_update', { task_id: t.task_id, patch: { status: 'done' } });
    await expect(pageA.getByTestId('activity-feed')).toContainText('A-only task');
    await expect.poll(() => pageA.evaluate(() => (window as unknown as { __tap: unknown[] }).__tap.length)).toBeGreaterThanOrEqual(4);

    // B's own agent works too, so B's stream is demonstrably alive
    const b = await agent(server().second.agentKey);
    await b.call('project_create', { title: 'B own work', key: uniqueKey('BOW') });
    await expect(pageB.getByTestId('activity-feed')).toContainText('B own work');
    const tapB = (await pageB.evaluate(() => (window as unknown as { __tap: { tenant_id: string; object_id: string }[] }).__tap)) as { tenant_id: string; object_id: string }[];
    const tapA = (await pageA.evaluate(() => (window as unknown as { __tap: { tenant_id: string }[] }).__tap)) as { tenant_id: string }[];
    expect(tapB.length).toBeGreaterThan(0);
    const tenantA = tapA[0].tenant_id;
    expect(tapB.every((e) => e.tenant_id !== tenantA)).toBe(true);
    expect(tapB.map((e) => e.object_id)).not.toContain(t.task_id);
    expect(tapA.every((e) => e.tenant_id === tenantA)).toBe(true);
    // B's console counted only B's event, and its feed shows nothing of A's
    await expect(badgeB).toHaveAttribute('data-events', String(Number(bBefore) + 1));
    await expect(pageB.getByTestId('activity-feed')).not.toContainText('A-only task');
    await expect(pageB.getByTestId('activity-feed')).not.toContainText('Secret A work');
    // and A's ids read as missing from B's session
    const cookieB = (await ctxB.cookies()).find((c) => c.name === 'bullpen_session')!.value;
    const probe = await fetch(`${server().url}/api/console/tool`, {
      method: 'POST',
      headers: { cookie: `bullpen_session=${cookieB}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'task_get', input: { task_id: t.task_id } }),
    });
    expect(((await probe.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    await a.close();
    await b.close();
    await ctxA.close();
    await ctxB.close();
  });
});
