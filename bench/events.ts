/**
 * The events room on Postgres, in-process (the executor and the job runner, no HTTP front door):
 *   event_wake       — a poller waits in event_poll (wait_seconds); one event_publish at a time wakes
 *                      it: p50/p95 from the publish being sent to the waiter's return, beside the
 *                      same run's inbox wake (a handoff_create waking a waiting inbox) as baseline
 *   webhook_delivery — events fanned out to a webhook and delivered by job workers to a local
 *                      receiver that checks each signature: deliveries per second, beside a bare
 *                      signed HTTP POST loop to the same receiver at the same concurrency
 * Prints JSON lines.
 */
import { execute } from '../lib/core/execute';
import { JobRegistry, JobWorker } from '../lib/jobs';
import { deliverWebhook, signWebhook } from '../lib/jobs/webhooks';
import { startReceiver } from '../tests/helpers/webhook-receiver';
import { emit, percentile, runBench, scratchDatabase, seedWorkspace, addAgents } from './lib';

const ROUNDS = Number(process.env.BENCH_WAKES ?? 100);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 400);
const CONCURRENCY = Number(process.env.BENCH_DELIVERY_CONCURRENCY ?? 4);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function ok(p: Promise<{ ok: boolean; [k: string]: any }>): Promise<Record<string, any>> {
  const env = await p;
  if (!env.ok) throw new Error(JSON.stringify(env));
  return env;
}

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  return { n: s.length, p50_ms: Math.round(percentile(s, 50) * 10) / 10, p95_ms: Math.round(percentile(s, 95) * 10) / 10 };
}

async function main() {
  const scratch = await scratchDatabase({ prefix: 'bp_bench_events' });
  const { db } = scratch;
  process.env.BULLPEN_WEBHOOK_ALLOW = '127.0.0.1';
  emit({ bench: 'env', bench_file: 'events', node: process.version, rounds: ROUNDS, deliveries: DELIVERIES, concurrency: CONCURRENCY, feed_poll_ms: Number(process.env.BULLPEN_FEED_POLL_MS ?? 50) });
  const rx = await startReceiver();
  try {
    const ws = await seedWorkspace(db, { name: 'events' });
    const [sender, waiter] = await addAgents(db, ws.tenantId, 'ev', 2, { keys: false });
    const ownerClaims = { sub: ws.ownerId, role: 'authenticated' as const, tenant_id: ws.tenantId, actor_id: ws.ownerId, run_id: 'bench-owner' };

    // ---- wake latency: event_poll vs inbox, interleaved so both see the same machine ----------
    const evSamples: number[] = [];
    const inboxSamples: number[] = [];
    let cursor = (await ok(execute({ db, claims: waiter.claims }, 'event_poll', {}))).next_cursor as string;
    for (let i = 0; i < ROUNDS; i++) {
      const poll = execute({ db, claims: waiter.claims }, 'event_poll', { since_cursor: cursor, types: ['bench.*'], wait_seconds: 10 });
      await sleep(20);
      const t0 = performance.now();
      await ok(execute({ db, claims: sender.claims }, 'event_publish', { event_type: 'bench.tick', payload: { i } }));
      const r = await ok(poll);
      evSamples.push(performance.now() - t0);
      if ((r.events as unknown[]).length !== 1) throw new Error('event_poll answered without the event');
      cursor = r.next_cursor;

      const inbox = execute({ db, claims: waiter.claims }, 'inbox', { wait_seconds: 10 });
      await sleep(20);
      const t1 = performance.now();
      const h = await ok(execute({ db, claims: sender.claims }, 'handoff_create', { to_actor_ids: [waiter.id], title: `wake ${i}` }));
      const got = await ok(inbox);
      inboxSamples.push(performance.now() - t1);
      await ok(execute({ db, claims: waiter.claims }, 'inbox', { ack: (got.items as { id: string }[]).map((x) => x.id) }));
      await ok(execute({ db, claims: waiter.claims }, 'handoff_respond', { handoff_id: h.handoff_id, response: { text: 'ok' } })).catch(() => {});
    }
    const ev = stats(evSamples);
    const ib = stats(inboxSamples);
    emit({ bench: 'event_wake', ...ev, baseline: 'inbox_wake', baseline_p50_ms: ib.p50_ms, baseline_p95_ms: ib.p95_ms,
      ratio_p50: Math.round((ev.p50_ms / ib.p50_ms) * 100) / 100, ratio_p95: Math.round((ev.p95_ms / ib.p95_ms) * 100) / 100 });

    // ---- webhook delivery throughput ----------------------------------------------------------
    const added = await ok(execute({ db, claims: ownerClaims }, 'webhook_add', { url: rx.url, events: ['load.*'] }));
    rx.secret = added.secret;
    for (let i = 0; i < DELIVERIES; i++) {
      await ok(execute({ db, claims: sender.claims }, 'event_publish', { event_type: 'load.item', payload: { i } }));
    }
    rx.received.length = 0;
    const registry = new JobRegistry().register('webhook.deliver', async (job, ctx) => void (await deliverWebhook(ctx.db, job, ctx.signal)));
    const workers = Array.from({ length: CONCURRENCY }, () => new JobWorker(db, { registry, log: () => {} }));
    const t0 = performance.now();
    await Promise.all(workers.map((w) => w.drain()));
    const deliverMs = performance.now() - t0;
    const delivered = rx.received.filter((r) => r.signatureOk && r.status === 200).length;
    if (delivered !== DELIVERIES) throw new Error(`delivered ${delivered} of ${DELIVERIES}`);

    // baseline: the same number of signed POSTs of a delivery-sized body, same concurrency
    const body = rx.received[0].raw;
    rx.received.length = 0;
    let next = 0;
    const t1 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < DELIVERIES) {
          next++;
          const ts = String(Math.floor(Date.now() / 1000));
          const res = await fetch(rx.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bullpen-timestamp': ts, 'x-bullpen-signature': signWebhook(rx.secret!, ts, body) }, body });
          await res.text();
        }
      }),
    );
    const bareMs = performance.now() - t1;
    const perSec = Math.round((DELIVERIES / deliverMs) * 1000);
    const barePerSec = Math.round((DELIVERIES / bareMs) * 1000);
    emit({ bench: 'webhook_delivery', deliveries: DELIVERIES, concurrency: CONCURRENCY, per_second: perSec, baseline: 'bare_signed_post', baseline_per_second: barePerSec,
      ratio: Math.round((perSec / barePerSec) * 100) / 100 });
  } finally {
    await rx.close();
    await scratch.close();
  }
}

runBench(main);
