'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useWebhooks } from '@/lib/console/client/webhooks';
import { writeTool } from '@/lib/console/client/mutations';
import { useToast } from '@/lib/console/client/toast';
import { useNow } from '@/lib/console/client/use-now';
import type { WebhookAddOutput, WebhookListOutput } from '@/lib/console/types';
import { fieldCls } from './form-parts';
import { EmptyState, ExampleCall } from './page-parts';
import { SkeletonRows } from './skeleton';
import { TimeAgo } from './time-ago';

type Hook = WebhookListOutput['webhooks'][number];

const TONE: Record<string, string> = {
  active: 'bg-emerald-50 text-emerald-700 ring-emerald-200',
  disabled: 'bg-rose-50 text-rose-700 ring-rose-200',
  delivered: 'bg-emerald-50 text-emerald-700 ring-emerald-200',
  pending: 'bg-sky-50 text-sky-700 ring-sky-200',
  failed: 'bg-rose-50 text-rose-700 ring-rose-200',
  dropped: 'bg-zinc-100 text-zinc-600 ring-zinc-200',
};

function Pill({ status }: { status: string }) {
  return <span data-testid="webhook-status" className={`rounded-full px-2 py-0.5 text-[11px] font-medium ring-1 ${TONE[status] ?? TONE.dropped}`}>{status}</span>;
}

function AddForm({ onSecret }: { onSecret: (s: { url: string; secret: string }) => void }) {
  const toast = useToast();
  const qc = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('task.done,handoff.created');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!url.trim() || busy) return;
    setBusy(true);
    try {
      const types = events.split(',').map((s) => s.trim()).filter(Boolean);
      const r = await writeTool<WebhookAddOutput>('webhook_add', { url: url.trim(), events: types });
      if (r.secret) onSecret({ url: r.webhook.url, secret: r.secret });
      setUrl('');
      await qc.invalidateQueries({ queryKey: ['webhooks'] });
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} className="flex gap-2" data-testid="webhook-add">
      <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://…" aria-label="Webhook URL" className={`${fieldCls} h-8 w-72`} />
      <input value={events} onChange={(e) => setEvents(e.target.value)} aria-label="Event types (comma-separated)" className={`${fieldCls} h-8 w-56`} />
      <button type="submit" disabled={!url.trim() || busy} className="h-8 rounded-md bg-zinc-900 px-3 text-[12px] text-white disabled:opacity-40">Add</button>
    </form>
  );
}

function HookRow({ w, chosen, onChoose, now }: { w: Hook; chosen: boolean; onChoose: () => void; now: number }) {
  const toast = useToast();
  const qc = useQueryClient();
  const remove = async () => {
    if (!window.confirm(`Remove the webhook to ${w.url} and its delivery log?`)) return;
    try {
      await writeTool('webhook_remove', { webhook_id: w.id });
      await qc.invalidateQueries({ queryKey: ['webhooks'] });
    } catch (err) {
      toast.error(err);
    }
  };
  return (
    <tr className={`border-t border-zinc-100 ${chosen ? 'bg-zinc-100/70' : ''}`} data-testid="webhook-row">
      <td className="py-1.5 pr-2">
        <button type="button" onClick={onChoose} className="text-left font-medium hover:underline">{w.url}</button>
        {w.disabled_reason && <div className="text-[11px] text-rose-700">{w.disabled_reason}</div>}
      </td>
      <td className="pr-2 font-mono text-[11px]">{w.events.join(', ')}</td>
      <td className="pr-2"><Pill status={w.status} /></td>
      <td className="pr-2 tabular-nums">{w.delivered} / {w.failed} / {w.pending}</td>
      <td className="pr-2 text-zinc-500">{w.failing_since ? <>failing since <TimeAgo at={w.failing_since} now={now} /></> : w.last_success_at ? <>ok <TimeAgo at={w.last_success_at} now={now} /></> : '—'}</td>
      <td><button type="button" onClick={remove} className="text-[11px] text-rose-700 hover:underline">Remove</button></td>
    </tr>
  );
}

/** Webhooks (workspace owners): each URL with its event types and delivery counts, the latest deliveries, add and remove. */
export function WebhooksView() {
  const [chosen, setChosen] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const list = useWebhooks(chosen);
  const now = useNow(30_000);
  const hooks = list.data?.webhooks ?? [];
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex h-12 shrink-0 items-center gap-3 border-b border-zinc-200 px-4">
        <h1 className="text-[13px] font-semibold">Webhooks</h1>
        <div className="ml-auto"><AddForm onSecret={setSecret} /></div>
      </header>
      <div className="min-h-0 flex-1 space-y-5 overflow-y-auto px-6 py-5">
        {secret && (
          <div className="rounded-md border border-amber-300 bg-amber-50 p-3 text-[12px]" data-testid="webhook-secret">
            <p className="font-medium">Signing secret for {secret.url}: shown once, copy it now.</p>
            <code className="mt-1 block select-all break-all font-mono">{secret.secret}</code>
            <p className="mt-1 text-zinc-600">Each delivery carries X-Bullpen-Timestamp and X-Bullpen-Signature: sha256 of HMAC(secret, timestamp + &quot;.&quot; + body).</p>
            <button type="button" onClick={() => setSecret(null)} className="mt-2 text-[11px] underline">I have stored it</button>
          </div>
        )}
        {list.isPending && <SkeletonRows className="h-8" gap="space-y-2" />}
        {list.error && <p className="text-[12px] text-rose-700" data-testid="webhooks-refused">Only a workspace owner manages webhooks.</p>}
        {list.data && hooks.length === 0 && !chosen && (
          <EmptyState title="No webhook yet." testId="webhooks-empty">
            <p className="mt-2">A webhook POSTs matching events to a URL, signed, so an agent that is not connected gets woken:</p>
            <ExampleCall label="Example CLI call" code={`bullpen webhook add https://agent.example.com/hook --events task.done,handoff.created`} />
          </EmptyState>
        )}
        {hooks.length > 0 && (
          <table className="w-full text-left text-[12px]" data-testid="webhooks">
            <thead className="text-zinc-500"><tr><th className="py-1">URL</th><th>Events</th><th>Status</th><th>Delivered / failed / pending</th><th>Health</th><th /></tr></thead>
            <tbody>
              {hooks.map((w) => <HookRow key={w.id} w={w} chosen={w.id === chosen} onChoose={() => setChosen(w.id === chosen ? null : w.id)} now={now} />)}
            </tbody>
          </table>
        )}
        {list.data && list.data.deliveries.length > 0 && (
          <section>
            <h2 className="mb-1 text-[12px] font-semibold">Latest deliveries{chosen ? ' of this webhook' : ''}</h2>
            <table className="w-full text-left text-[12px]" data-testid="webhook-deliveries">
              <thead className="text-zinc-500"><tr><th className="py-1">Event</th><th>Status</th><th>Attempts</th><th>HTTP</th><th>Last error</th><th>When</th></tr></thead>
              <tbody>
                {list.data.deliveries.map((d) => (
                  <tr key={d.id} className="border-t border-zinc-100" data-testid="webhook-delivery">
                    <td className="py-1 font-mono text-[11px]">{d.event_type} #{d.seq}</td>
                    <td><Pill status={d.status} /></td>
                    <td className="tabular-nums">{d.attempts}</td>
                    <td className="tabular-nums">{d.response_status ?? '—'}</td>
                    <td className="max-w-64 truncate text-zinc-600" title={d.last_error ?? ''}>{d.last_error ?? ''}</td>
                    <td className="text-zinc-500"><TimeAgo at={d.last_attempt_at ?? d.created_at} now={now} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        )}
      </div>
    </div>
  );
}
