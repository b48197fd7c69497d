'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { triageFeatureRequestAction } from '@/lib/console/actions';
import { viaAction } from '@/lib/console/client/api';
import { keys } from '@/lib/console/client/cache';
import { readAll } from '@/lib/console/client/hooks';
import { useLiveChanges } from '@/lib/console/client/live';
import { useToast } from '@/lib/console/client/toast';
import { useNow } from '@/lib/console/client/use-now';

import type { FeatureRequestRow } from '@/lib/console/types';
import { useMe } from './console-providers';
import { Markdown } from './markdown';
import { Skeleton } from './skeleton';
import { TimeAgo } from './time-ago';

const STATUSES = ['open', 'accepted', 'in_progress', 'shipped', 'declined'] as const;
const STATUS_LABEL: Record<string, string> = { open: 'Open', accepted: 'Accepted', in_progress: 'In progress', shipped: 'Shipped', declined: 'Declined' };
const STATUS_STYLE: Record<string, string> = {
  open: 'bg-sky-50 text-sky-700',
  accepted: 'bg-indigo-50 text-indigo-700',
  in_progress: 'bg-amber-50 text-amber-700',
  shipped: 'bg-emerald-50 text-emerald-700',
  declined: 'bg-zinc-100 text-zinc-600',
};
const KIND_STYLE: Record<string, string> = { bug: 'text-red-700', friction: 'text-amber-700', capability: 'text-indigo-700', docs: 'text-sky-700' };

function Triage({ fr }: { fr: FeatureRequestRow }) {
  const qc = useQueryClient();
  const toast = useToast();
  const [status, setStatus] = useState(fr.status);
  const [resolution, setResolution] = useState(fr.resolution ?? '');
  const [busy, setBusy] = useState(false);
  const dirty = status !== fr.status || resolution.trim() !== (fr.resolution ?? '');
  const save = async () => {
    setBusy(true);
    try {
      const res = await viaAction<{ notified: boolean }>(triageFeatureRequestAction({ id: fr.id, status, resolution: resolution.trim() }));
      toast.success(res.notified ? `Moved to ${STATUS_LABEL[status]}; ${fr.filed_by ?? 'the filer'} was notified` : `Moved to ${STATUS_LABEL[status]}`);
      await qc.invalidateQueries({ queryKey: keys.feedback });
    } catch (err) {
      toast.error(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="mt-3 flex items-start gap-2" data-testid="triage">
      <select aria-label="Status" data-testid="triage-status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)} className="h-7 rounded-md border border-zinc-200 bg-white px-2 text-[12px] focus:border-indigo-400 focus:outline-none">
        {STATUSES.map((s) => (
          <option key={s} value={s}>
            {STATUS_LABEL[s]}
          </option>
        ))}
      </select>
      <input
        value={resolution}
        onChange={(e) => setResolution(e.target.value)}
        placeholder="Resolution note for the filer (optional)"
        aria-label="Resolution"
        data-testid="triage-resolution"
        className="h-7 min-w-0 flex-1 rounded-md border border-zinc-200 px-2 text-[12px] focus:border-indigo-400 focus:outline-none"
      />
      <button onClick={() => void save()} disabled={!dirty || busy} data-testid="triage-save" className="h-7 rounded-md bg-zinc-900 px-2.5 text-[12px] font-medium text-white disabled:opacity-40">
        Save
      </button>
    </div>
  );
}

/** Feedback about Bullpen itself, filed by agents with feature_request_create; owners move its status. */
export function FeedbackView() {
  const { ready } = useLiveChanges();
  const me = useMe();
  const now = useNow(60_000);
  const [filter, setFilter] = useState<string>('live');
  const q = useQuery({
    queryKey: keys.feedback,
    queryFn: async () => (await readAll<FeatureRequestRow>('feature_request_query', { limit: 200 }, 'feature_requests', 2000)).rows,
    enabled: ready,
  });
  const all = q.data ?? [];
  const count = (s: string) => all.filter((f) => f.status === s).length;
  const shown = all.filter((f) => (filter === 'live' ? ['open', 'accepted', 'in_progress'].includes(f.status) : filter === 'all' ? true : f.status === filter));
  const tab = (id: string, label: string, n: number) => (
    <button
      key={id}
      onClick={() => setFilter(id)}
      className={`h-7 rounded-md px-2.5 text-[12px] ${filter === id ? 'bg-zinc-900 font-medium text-white' : 'text-zinc-600 hover:bg-zinc-100'}`}
    >
      {label} <span className="tabular-nums opacity-70">{n}</span>
    </button>
  );
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-4">
        <h1 className="text-[13px] font-semibold">Feedback</h1>
        <div className="ml-4 flex gap-1">
          {tab('live', 'Live', count('open') + count('accepted') + count('in_progress'))}
          {STATUSES.map((s) => tab(s, STATUS_LABEL[s], count(s)))}
          {tab('all', 'All', all.length)}
        </div>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto max-w-3xl px-6 py-4">
          {!me.is_owner && <p className="mb-3 text-[12px] text-zinc-500">Workspace owners move these requests; you can read them.</p>}
          {q.isPending ? (
            <Skeleton className="h-16 w-full" />
          ) : shown.length === 0 ? (
            <div className="py-10 text-center text-[13px] text-zinc-500" data-testid="feedback-empty">
              {all.length === 0
                ? 'No feedback yet. When Bullpen gets in an agent’s way (a bug, friction, a missing capability, unclear docs) it files a report with feature_request_create, and it lands here.'
                : 'Nothing in this state.'}
            </div>
          ) : (
            <ul className="space-y-3" data-testid="feedback-list">
              {shown.map((fr) => (
                <li key={fr.id} className="rounded-lg border border-zinc-200 p-4" data-testid="feedback-item" data-status={fr.status}>
                  <div className="flex items-start gap-2">
                    <div className="min-w-0 flex-1">
                      <p className="text-[14px] font-medium text-zinc-900">{fr.title}</p>
                      <p className="mt-0.5 text-[12px] text-zinc-500">
                        <span className={`font-medium ${KIND_STYLE[fr.kind]}`}>{fr.kind}</span> · {fr.severity} · {fr.filed_by ?? 'someone'} · <TimeAgo at={fr.created_at} now={now} />
                        {fr.occurrences > 1 && <span className="font-medium text-zinc-700"> · hit {fr.occurrences}×</span>}
                        {fr.tool_name && <span className="ml-1 rounded bg-zinc-100 px-1 font-mono text-[11px] text-zinc-600">{fr.tool_name}</span>}
                        {fr.error_code && <span className="ml-1 rounded bg-zinc-100 px-1 font-mono text-[11px] text-zinc-600">{fr.error_code}</span>}
                      </p>
                    </div>
                    <span className={`shrink-0 rounded px-1.5 py-px text-[11px] font-medium ${STATUS_STYLE[fr.status]}`} data-testid="feedback-status">
                      {STATUS_LABEL[fr.status]}
                    </span>
                  </div>
                  <Markdown text={fr.body} className="mt-2 text-[13px]" />
                  {fr.resolution && <p className="mt-2 rounded bg-zinc-50 px-2 py-1.5 text-[12px] text-zinc-700">Resolution: {fr.resolution}</p>}
                  {me.is_owner && <Triage key={`${fr.status}:${fr.resolution ?? ''}`} fr={fr} />}
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </div>
  );
}
