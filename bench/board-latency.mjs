#!/usr/bin/env node
// Write → board latency: an agent's MCP write over streamable HTTP until the change is in the DOM of
// a board open in headless Chromium (change feed → SSE → React Query patch → render), p50/p95 over
// 220 writes after 20 warm-ups, for edits (task_update renames a card) and for creates (task_create
// adds a card at the top of Todo). Target: p95 ≤ 250 ms for both. Prints JSON lines.
import { emit, launch, mcp, percentile, signedInPage, startBoardServer } from './board-render.mjs';

const WRITES = Number(process.env.BOARD_BENCH_WRITES ?? 220);
const WARMUP = 20;
const TIMEOUT = 10_000;

const server = await startBoardServer();
const browser = await launch();
try {
  const agent = await mcp(server.url, await server.agentKey('writer'));
  await agent.call('project_create', { title: 'Latency', key: 'LAT' });
  // a realistic board around the cards that change
  for (let b = 0; b < 3; b++) {
    await agent.call('task_create_many', {
      project_id: 'LAT',
      tasks: Array.from({ length: 100 }, (_, i) => ({ title: `Background task ${b * 100 + i + 1}`, priority: i % 5, labels: ['bg'] })),
    });
  }
  // urgent ones (priority 0) sit at the top of the Todo column, so they are on screen
  const targets = Array.from({ length: 20 }, (_, i) => `LAT-${i * 5 + 1}`);
  const { page } = await signedInPage(browser, server);
  await page.goto(`${server.url}/projects/LAT`);
  await page.waitForSelector('[data-testid="board"][data-board-ready="true"]');
  await page.evaluate(() => {
    const w = window;
    w.__bench = null;
    // a card whose title reads the text (for an edit, the card of that ref)
    new MutationObserver(() => {
      const b = w.__bench;
      if (!b || b.at) return;
      const sel = b.ref ? `[data-testid="task-card"][data-ref="${b.ref}"] p` : '[data-testid="task-card"] p';
      for (const p of document.querySelectorAll(sel)) {
        if (p.textContent === b.text) {
          b.at = Date.now();
          return;
        }
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });

  /** Times `write` until a card reads `text`; returns ms from the request and from its answer. */
  const timed = async (ref, text, write) => {
    await page.evaluate(([r, t]) => (window.__bench = { ref: r, text: t, at: 0 }), [ref, text]);
    const t0 = Date.now();
    await write();
    const t1 = Date.now();
    try {
      const at = await (await page.waitForFunction(() => window.__bench.at || null, null, { polling: 5, timeout: TIMEOUT })).jsonValue();
      return [at - t0, Math.max(0, at - t1)];
    } catch {
      // never drawn within the timeout: counted at the timeout, and reported as not shown
      return [TIMEOUT, TIMEOUT, true];
    }
  };

  const measure = async (kind, one) => {
    const fromRequest = [];
    const fromResponse = [];
    let notShown = 0;
    for (let i = 0; i < WARMUP + WRITES; i++) {
      const [a, b, missed] = await one(i);
      if (i >= WARMUP) {
        fromRequest.push(a);
        fromResponse.push(b);
        if (missed) notShown++;
      }
    }
    const a = fromRequest.sort((x, y) => x - y);
    const b = fromResponse.sort((x, y) => x - y);
    const result = {
      bench: `board.${kind}_to_dom`,
      db: server.db,
      writes: WRITES,
      p50_ms: percentile(a, 50),
      p95_ms: percentile(a, 95),
      p99_ms: percentile(a, 99),
      max_ms: a[a.length - 1],
      after_response_p50_ms: percentile(b, 50),
      after_response_p95_ms: percentile(b, 95),
      not_shown_in_10s: notShown,
      target_p95_ms: 250,
      met: percentile(a, 95) <= 250 && notShown === 0,
    };
    return result;
  };

  const edit = await measure('write', (i) => {
    const ref = targets[i % targets.length];
    const text = `Renamed by the agent #${i}`;
    return timed(ref, text, () => agent.call('task_update', { task_id: ref, patch: { title: text } }));
  });
  emit({ ...edit, note: 'task_update: from the MCP request leaving the agent to the card text changing in the DOM (MutationObserver, same clock)' });

  const create = await measure('create', (i) => {
    const text = `Created by the agent #${i}`;
    return timed(null, text, () => agent.call('task_create', { project_id: 'LAT', title: text, status: 'backlog', priority: 0 }));
  });
  emit({ ...create, note: 'task_create into Backlog (a column in view with room for it): from the MCP request leaving the agent to the new card in the DOM' });
  emit({
    bench: 'board.create_vs_edit',
    db: server.db,
    p50_ratio: Math.round((create.p50_ms / edit.p50_ms) * 100) / 100,
    p95_ratio: Math.round((create.p95_ms / edit.p95_ms) * 100) / 100,
  });
  await agent.close();
} finally {
  await browser.close();
  await server.stop();
}
