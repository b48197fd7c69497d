import { createHmac } from 'node:crypto';
import type { Db } from '../db/types';
import { envNumber } from '../shared/env';
import { checkWebhookUrl } from '../shared/webhook-url';
import type { Job } from './registry';
import { registerJob } from './registry';

/**
 * webhook.deliver: sends one event to one webhook (the fan-out trigger of
 * supabase/definitions/0028_events.sql enqueues one job per delivery, in the writing transaction).
 *
 * The request: POST, JSON body `{delivery_id, webhook_id, event}`, headers
 *   X-Bullpen-Event: the event type
 *   X-Bullpen-Delivery: the delivery id (the same on every retry: receivers deduplicate by it)
 *   X-Bullpen-Timestamp: unix seconds of this attempt
 *   X-Bullpen-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" with the webhook's secret>
 * Binding the timestamp into the signature lets a receiver refuse a replayed old request.
 *
 * A 2xx answer delivers it. Anything else (or no answer within BULLPEN_WEBHOOK_TIMEOUT_MS) is
 * recorded and thrown, so the job runner retries with its backoff (2 s doubling to an hour);
 * after a day of failures the webhook is disabled and its owner notified (bullpen.webhook_delivery_record).
 * Redirects are not followed: the allowlist checked the address the URL names, not another one.
 */

export const SIGNATURE_HEADER = 'x-bullpen-signature';
export const TIMESTAMP_HEADER = 'x-bullpen-timestamp';

/** The signature of one request: what a receiver recomputes with its secret. */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

type Loaded = {
  delivery_id: number;
  status: string;
  webhook_id: string;
  url: string;
  secret: string;
  webhook_status: string;
  event: Record<string, unknown>;
};

export type DeliveryOutcome = { status: string; disabled: boolean; http?: number };

/** Runs one delivery attempt; throws (to be retried) when it failed and tries are left. */
export async function deliverWebhook(db: Db, job: Pick<Job, 'tenant_id' | 'payload' | 'attempts' | 'max_attempts'>, signal?: AbortSignal): Promise<DeliveryOutcome> {
  const tenant = job.tenant_id!;
  const deliveryId = Number(job.payload.delivery_id);
  const [row] = await db.query<{ d: Loaded | null }>(`select bullpen.webhook_delivery_load($1, $2) as d`, [tenant, deliveryId]);
  const d = row?.d;
  if (!d || d.status !== 'pending') return { status: d?.status ?? 'gone', disabled: false };
  if (d.webhook_status !== 'active') {
    await db.query(`select bullpen.webhook_delivery_drop($1, $2, $3)`, [tenant, deliveryId, 'webhook disabled']);
    return { status: 'dropped', disabled: true };
  }
  const check = await checkWebhookUrl(d.url);
  if (!check.ok) {
    await db.query(`select bullpen.webhook_delivery_drop($1, $2, $3)`, [tenant, deliveryId, `url refused: ${check.reason}`]);
    return { status: 'dropped', disabled: false };
  }
  const { tenant_id: _t, ...event } = d.event;
  const body = JSON.stringify({ delivery_id: d.delivery_id, webhook_id: d.webhook_id, event });
  const timestamp = String(Math.floor(Date.now() / 1000));
  let ok = false;
  let http: number | null = null;
  let error: string | null = null;
  const timeout = AbortSignal.timeout(envNumber('BULLPEN_WEBHOOK_TIMEOUT_MS') || 10_000);
  try {
    const res = await fetch(check.url, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Bullpen-Webhooks/1',
        'x-bullpen-event': String(event.event_type),
        'x-bullpen-delivery': String(d.delivery_id),
        [TIMESTAMP_HEADER]: timestamp,
        [SIGNATURE_HEADER]: signWebhook(d.secret, timestamp, body),
      },
      body,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    http = res.status;
    ok = res.status >= 200 && res.status < 300;
    if (!ok) error = `HTTP ${res.status}: ${(await res.text().catch(() => '')).replace(/\s+/g, ' ').slice(0, 300)}`;
    else await res.body?.cancel().catch(() => {});
  } catch (err) {
    error = (err as Error)?.name === 'TimeoutError' ? 'no answer in time' : String((err as Error)?.message ?? err).slice(0, 300);
  }
  const final = !ok && job.attempts >= job.max_attempts;
  const [rec] = await db.query<{ r: { status: string; disabled: boolean } }>(
    `select bullpen.webhook_delivery_record($1, $2, $3, $4, $5, $6) as r`,
    [tenant, deliveryId, ok, http, error, final],
  );
  const outcome = { ...rec.r, http: http ?? undefined };
  if (outcome.status === 'pending') throw new Error(error ?? 'delivery failed');
  return outcome;
}

registerJob('webhook.deliver', async (job, { db, signal }) => {
  await deliverWebhook(db, job, signal);
}, { leaseSeconds: 60 });
