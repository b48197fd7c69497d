'use client';

import Link from 'next/link';
import { useState } from 'react';
import {
  useCoordinationLive,
  useHandoffActions,
  useHandoffs,
  type InboxView as View,
  type StatusFilter,
} from '@/lib/console/client/coordination';
import { useNow } from '@/lib/console/client/use-now';

import { HANDOFF_KIND_LIST, type Handoff, type HandoffKind } from '@/lib/console/types';
import { ObjectThread } from './comment-thread';
import { ActorAvatar } from './actor-avatar';
import { useMe } from './console-providers';
import { TextOptions, filterSelectCls } from './form-parts';
import { CheckIcon, ClockIcon, InboxIcon } from './icons';
import { Markdown } from './markdown';
import { Skeleton } from './skeleton';
import { TimeAgo } from './time-ago';

const VIEWS: { id: View; label: string }[] = [
  { id: 'to_me', label: 'To me' },
  { id: 'from_me', label: 'From me' },
  { id: 'any', label: 'All' },
];

const KINDS: readonly HandoffKind[] = HANDOFF_KIND_LIST;

const STATUS_FILTERS: { id: StatusFilter; label: string }[] = [
  { id: 'live', label: 'Not resolved' },
  { id: 'open', label: 'Open' },
  { id: 'claimed', label: 'Claimed' },
  { id: 'responded', label: 'Answered' },
  { id: 'resolved', label: 'Resolved' },
  { id: 'all', label: 'Any status' },
];

const KIND_TONE: Record<HandoffKind, string> = {
  handoff: 'bg-sky-50 text-sky-700 ring-sky-200',
  question: 'bg-amber-50 text-amber-800 ring-amber-200',
  review: 'bg-violet-50 text-violet-700 ring-violet-200',
  collab: 'bg-teal-50 text-teal-700 ring-teal-200',
  approval: 'bg-rose-50 text-rose-700 ring-rose-200',
};

const OPTION_LABEL: Record<string, string> = { approve: 'Approve', reject: 'Reject', request_changes: 'Request changes' };

function emptyText(view: View, status: StatusFilter): { title: string; hint: string } {
  if (status !== 'live' && status !== 'all') return { title: 'Nothing with this status.', hint: 'Switch the status filter to “Not resolved” or “Any status”.' };
  if (view === 'to_me')
    return {
      title: 'Nothing is waiting for you.',
      hint: 'When an agent asks you a question, requests your review or an approval, or hands you work, it appears here at once — no reload needed. Set yourself as a task’s reviewer to be asked for reviews.',
    };
  if (view === 'from_me')
    return {
      title: 'You have not asked anyone anything yet.',
      hint: 'Set a reviewer on a task and move it to In review: the review request and its answer show up here.',
    };
  return {
    title: 'No handoffs in this workspace yet.',
    hint: 'Agents pass work, questions, reviews and approvals to each other and to people with handoff_create; every one shows up here live.',
  };
}

/** The inbox page: handoffs to me, from me and in the whole workspace, live, with their actions. */
export function InboxView() {
  const [view, setView] = useState<View>('to_me');
  const [status, setStatus] = useState<StatusFilter>('live');
  const [kind, setKind] = useState<HandoffKind | ''>('');
  useCoordinationLive(useMe().actor_id);
  const list = useHandoffs(view, status, kind);
  const selectCls = filterSelectCls;
  const empty = emptyText(view, status);
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex min-h-12 shrink-0 flex-wrap items-center gap-x-3 gap-y-2 border-b border-zinc-200 px-3 py-2 md:px-4">
        <h1 className="text-[13px] font-semibold">Inbox</h1>
        <div role="tablist" aria-label="Whose handoffs" className="flex rounded-md bg-zinc-100 p-0.5">
          {VIEWS.map((v) => (
            <button
              key={v.id}
              role="tab"
              aria-selected={view === v.id}
              data-testid={`inbox-tab-${v.id}`}
              onClick={() => setView(v.id)}
              className={`h-6 rounded px-2.5 text-[12px] ${view === v.id ? 'bg-white font-medium text-zinc-900 shadow-sm' : 'text-zinc-600 hover:text-zinc-900'}`}
            >
              {v.label}
            </button>
          ))}
        </div>
        <div className="flex w-full gap-2 sm:ml-auto sm:w-auto">
          <select aria-label="Kind" data-testid="inbox-kind" value={kind} onChange={(e) => setKind(e.target.value as HandoffKind | '')} className={selectCls}>
            <option value="">Every kind</option>
            <TextOptions values={KINDS} />
          </select>
          <select aria-label="Status" data-testid="inbox-status" value={status} onChange={(e) => setStatus(e.target.value as StatusFilter)} className={selectCls}>
            {STATUS_FILTERS.map((s) => (
              <option key={s.id} value={s.id}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto">
        <ul className="mx-auto max-w-3xl space-y-3 px-3 py-3 md:px-6 md:py-4" data-testid="inbox-list" data-view={view}>
          {list.isPending &&
            [0, 1, 2].map((i) => (
              <li key={i} className="space-y-2 rounded-lg border border-zinc-200 p-4">
                <Skeleton className="h-3 w-1/3" />
                <Skeleton className="h-4 w-2/3" />
              </li>
            ))}
          {list.data && list.data.length === 0 && (
            <li className="flex flex-col items-center gap-2 py-16 text-center" data-testid="inbox-empty">
              <InboxIcon className="size-6 text-zinc-300" />
              <p className="text-[13px] font-medium text-zinc-700">{empty.title}</p>
              <p className="max-w-md text-[12px] text-zinc-500">{empty.hint}</p>
            </li>
          )}
          {list.data?.map((h) => <HandoffCard key={h.id} h={h} />)}
        </ul>
      </div>
    </div>
  );
}

function StatusPill({ h }: { h: Handoff }) {
  const text =
    h.status === 'open'
      ? 'Open'
      : h.status === 'claimed'
        ? `Claimed by ${h.claimed_by?.display_name ?? 'someone'}`
        : h.status === 'responded'
          ? `Answered by ${h.responded_by?.display_name ?? 'someone'}`
          : h.resolution === 'cancelled'
            ? 'Cancelled'
            : 'Resolved';
  const tone =
    h.status === 'open' ? 'bg-emerald-50 text-emerald-700' : h.status === 'resolved' ? 'bg-zinc-100 text-zinc-500' : 'bg-indigo-50 text-indigo-700';
  return (
    <span data-testid="handoff-status" className={`rounded px-1.5 py-px text-[11px] font-medium ${tone}`}>
      {text}
    </span>
  );
}

function HandoffCard({ h }: { h: Handoff }) {
  const me = useMe();
  const now = useNow(30_000);
  const act = useHandoffActions();
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [discuss, setDiscuss] = useState(false);
  const recipient = h.to.some((a) => a.id === me.actor_id);
  const mineToAnswer = recipient && (h.status === 'open' || (h.status === 'claimed' && h.claimed_by_actor_id === me.actor_id));
  const mayResolve = h.status !== 'resolved' && (h.from_actor_id === me.actor_id || h.claimed_by_actor_id === me.actor_id);
  const needsText = h.kind === 'review';
  const go = async (fn: () => Promise<boolean>) => {
    setBusy(true);
    try {
      if (await fn()) setText('');
    } finally {
      setBusy(false);
    }
  };
  const answer = (option?: string) =>
    go(() => act.respond(h, { ...(option ? { chosen_option: option } : {}), ...(text.trim() ? { text: text.trim() } : {}) }));
  return (
    <li className="rounded-lg border border-zinc-200 bg-white p-4 shadow-xs" data-testid="handoff-item" data-id={h.id} data-status={h.status} data-kind={h.kind}>
      <div className="flex items-center gap-2 text-[12px]">
        <span className={`rounded px-1.5 py-px text-[11px] font-medium ring-1 ${KIND_TONE[h.kind]}`}>{h.kind}</span>
        <ActorAvatar name={h.from.display_name} kind={h.from.kind} size="xs" />
        <span className="text-zinc-700">
          <span className="font-medium">{h.from.id === me.actor_id ? 'You' : h.from.display_name}</span>
          <span className="text-zinc-500"> → </span>
          {h.to.map((a) => (a.id === me.actor_id ? 'you' : a.display_name)).join(', ')}
        </span>
        <span className="text-zinc-500">· <TimeAgo at={h.created_at} now={now} /></span>
        {h.due_at && (
          <span className="inline-flex items-center gap-0.5 text-amber-700" title={new Date(h.due_at).toLocaleString()}>
            <ClockIcon className="size-3" /> due {new Date(h.due_at).toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}
          </span>
        )}
        <span className="ml-auto">
          <StatusPill h={h} />
        </span>
      </div>
      <p className="mt-2 text-[14px] font-semibold text-zinc-900" data-testid="handoff-title">
        {h.title}
      </p>
      {h.related_task_ref && (
        <Link href={`/projects/${h.related_task_ref.split('-')[0]}?task=${h.related_task_ref}`} className="mt-0.5 inline-block font-mono text-[11px] text-indigo-600 hover:underline">
          {h.related_task_ref}
        </Link>
      )}
      {h.body && <Markdown text={h.body} className="mt-1.5 text-[13px] text-zinc-700" />}

      {h.response && (
        <div className="mt-3 rounded-md bg-zinc-50 px-3 py-2 text-[13px]" data-testid="handoff-response">
          <p className="text-[11px] text-zinc-500">
            {h.responded_by?.id === me.actor_id ? 'You' : h.responded_by?.display_name} answered {h.responded_at ? <TimeAgo at={h.responded_at} now={now} /> : ''}
          </p>
          {h.response.chosen_option && <p className="font-medium text-zinc-900">{OPTION_LABEL[h.response.chosen_option] ?? h.response.chosen_option}</p>}
          {h.response.text && <p className="whitespace-pre-wrap text-zinc-700">{h.response.text}</p>}
          {h.response.result_ref && <p className="font-mono text-[11px] text-zinc-500">{h.response.result_ref}</p>}
        </div>
      )}
      {h.status === 'resolved' && h.resolution_note && <p className="mt-2 text-[12px] text-zinc-500">Note: {h.resolution_note}</p>}

      {mineToAnswer && (
        <div className="mt-3 space-y-2" data-testid="handoff-answer">
          {h.allow_free_text && (
            <textarea
              value={text}
              onChange={(e) => setText(e.target.value)}
              rows={2}
              aria-label="Answer"
              data-testid="handoff-text"
              placeholder={needsText ? 'What should change? (needed to request changes; becomes a comment on the task)' : 'Your answer'}
              className="w-full rounded-md border border-zinc-200 px-2.5 py-2 text-[13px] placeholder:text-zinc-400 focus:border-indigo-400 focus:outline-none"
            />
          )}
          <div className="flex flex-wrap items-center gap-2">
            {h.options.map((o) => (
              <button
                key={o}
                disabled={busy || (o === 'request_changes' && !text.trim())}
                onClick={() => void answer(o)}
                data-testid={`handoff-option-${o}`}
                className={`h-7 rounded-md px-2.5 text-[12px] font-medium disabled:opacity-40 ${
                  o === 'approve' ? 'bg-emerald-600 text-white hover:bg-emerald-700' : o === 'reject' || o === 'request_changes' ? 'border border-rose-200 text-rose-700 hover:bg-rose-50' : 'border border-zinc-200 text-zinc-800 hover:bg-zinc-50'
                }`}
              >
                {OPTION_LABEL[o] ?? o}
              </button>
            ))}
            {h.options.length === 0 && (
              <button
                disabled={busy || !text.trim()}
                onClick={() => void answer()}
                data-testid="handoff-send"
                className="inline-flex h-7 items-center gap-1 rounded-md bg-zinc-900 px-2.5 text-[12px] font-medium text-white hover:bg-zinc-800 disabled:opacity-40"
              >
                <CheckIcon className="size-3.5" /> Send answer
              </button>
            )}
            {h.status === 'open' && (
              <button disabled={busy} onClick={() => void go(() => act.claim(h))} data-testid="handoff-claim" className="h-7 rounded-md border border-zinc-200 px-2.5 text-[12px] text-zinc-700 hover:bg-zinc-50">
                Claim
              </button>
            )}
          </div>
        </div>
      )}
      {mayResolve && (
        <div className="mt-3 flex gap-2 border-t border-zinc-100 pt-3">
          <button disabled={busy} onClick={() => void go(() => act.resolve(h, 'processed'))} data-testid="handoff-resolve" className="h-7 rounded-md border border-zinc-200 px-2.5 text-[12px] text-zinc-700 hover:bg-zinc-50">
            Resolve
          </button>
          {h.status !== 'responded' && (
            <button disabled={busy} onClick={() => void go(() => act.resolve(h, 'cancelled'))} data-testid="handoff-cancel" className="h-7 rounded-md px-2.5 text-[12px] text-zinc-500 hover:bg-zinc-50">
              Cancel it
            </button>
          )}
        </div>
      )}
      <button onClick={() => setDiscuss((v) => !v)} data-testid="handoff-discuss" aria-expanded={discuss} className="mt-3 text-[12px] text-indigo-600 hover:underline">
        {discuss ? 'Hide the discussion' : 'Discussion'}
      </button>
      {discuss && <ObjectThread objectType="handoff" objectId={h.id} />}
    </li>
  );
}
