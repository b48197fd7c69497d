'use client';

import { useQuery } from '@tanstack/react-query';
import { Fragment, useMemo, useState } from 'react';
import { readAll } from '@/lib/console/client/hooks';
import { keys } from '@/lib/console/client/cache';
import { useLiveChanges } from '@/lib/console/client/live';
import { useNow } from '@/lib/console/client/use-now';
import { duration, exactTime, tokens, usd } from '@/lib/console/format';
import type { RunCounts, RunRow } from '@/lib/console/types';
import { ActorAvatar } from './actor-avatar';
import { ChevronDownIcon, ChevronRightIcon } from './icons';
import { Skeleton } from './skeleton';
import { TimeAgo } from './time-ago';

type Run = RunRow & { produced?: RunCounts };

const STATUS_STYLE: Record<string, string> = {
  running: 'bg-emerald-50 text-emerald-700',
  succeeded: 'bg-zinc-100 text-zinc-700',
  failed: 'bg-red-50 text-red-700',
  cancelled: 'bg-zinc-100 text-zinc-500',
  abandoned: 'bg-red-100 text-red-800',
  idle: 'bg-zinc-100 text-zinc-500',
};

const KIND_LABEL: Record<string, string> = { session: 'session', loop_tick: 'loop tick', subagent: 'subagent' };

/** Silent this long and still running: the row stands out (the reaper ends it at 30 minutes). */
const STALE_MS = 10 * 60_000;

const ENDED = ['succeeded', 'failed', 'cancelled', 'abandoned', 'idle'] as const;

/** How far back the default view reaches for ended runs: every run still going, and the last day's. */
const RECENT_MS = 24 * 3600_000;

async function fetchRuns(status: string): Promise<Run[]> {
  const read = async (filter: Record<string, unknown>) => (await readAll<Run>('run_query', { detail: 'full', limit: 200, ...filter }, 'runs', 200)).rows;
  if (status === 'recent') {
    const [running, ended] = await Promise.all([
      read({ status: ['running'] }),
      read({ status: [...ENDED], since: new Date(Date.now() - RECENT_MS).toISOString() }),
    ]);
    return [...running, ...ended].sort((a, b) => b.started_at.localeCompare(a.started_at));
  }
  return read(status === 'all' ? {} : { status: status === 'ended' ? [...ENDED] : [status] });
}

function useRuns(status: string) {
  const { ready } = useLiveChanges();
  return useQuery({
    queryKey: [...keys.runs, status],
    queryFn: () => fetchRuns(status),
    enabled: ready,
    // heartbeats are state, not events: poll for them (the live feed refreshes on everything else)
    refetchInterval: 10_000,
  });
}

/** Children under their parents (a child whose parent is not listed stands as a root). */
function tree(runs: Run[]): { roots: Run[]; children: Map<string, Run[]> } {
  const ids = new Set(runs.map((r) => r.id));
  const children = new Map<string, Run[]>();
  const roots: Run[] = [];
  for (const r of runs) {
    if (r.parent_run_id && ids.has(r.parent_run_id)) {
      const list = children.get(r.parent_run_id) ?? [];
      list.push(r);
      children.set(r.parent_run_id, list);
    } else roots.push(r);
  }
  for (const list of children.values()) list.sort((a, b) => a.started_at.localeCompare(b.started_at));
  return { roots, children };
}

function RunRowView({ run, depth, now, kids, open, toggle }: { run: Run; depth: number; now: number; kids: Run[]; open: boolean; toggle: () => void }) {
  const last = new Date(run.last_heartbeat_at ?? run.last_active_at).getTime();
  const silentMs = now - new Date(run.last_active_at).getTime();
  const stale = run.status === 'running' && silentMs > STALE_MS;
  const p = run.produced;
  return (
    <tr
      className={`border-b border-zinc-100 text-[13px] ${stale ? 'bg-amber-50/70' : run.status === 'abandoned' ? 'bg-red-50/40' : 'hover:bg-zinc-50'}`}
      data-testid="run-row"
      data-run-key={run.run_key}
      data-status={run.status}
      data-stale={stale ? 'true' : 'false'}
    >
      <td className="py-2 pr-3 pl-4">
        <div className="flex items-center gap-1" style={{ paddingLeft: depth * 18 }}>
          {kids.length > 0 ? (
            <button onClick={toggle} className="rounded p-0.5 text-zinc-400 hover:bg-zinc-200" aria-label={open ? 'Collapse' : 'Expand'}>
              {open ? <ChevronDownIcon className="size-3.5" /> : <ChevronRightIcon className="size-3.5" />}
            </button>
          ) : (
            <span className="inline-block w-[18px]" />
          )}
          <div className="min-w-0">
            <p className="truncate font-mono text-[12px] text-zinc-800" title={run.run_key}>{run.label ?? run.run_key}</p>
            {(run.label || run.goal || run.repository) && (
              <p className="truncate text-[11px] text-zinc-500">
                {run.label ? run.run_key : ''}
                {run.goal ? `${run.label ? ' · ' : ''}${run.goal}` : ''}
                {run.repository ? ` · ${run.repository}${run.branch ? `@${run.branch}` : ''}` : ''}
              </p>
            )}
          </div>
        </div>
      </td>
      <td className="py-2 pr-3">
        <span className="flex items-center gap-1.5 whitespace-nowrap">
          <ActorAvatar name={run.actor ?? '?'} kind="agent" size="xs" />
          {run.actor}
        </span>
      </td>
      <td className="py-2 pr-3 whitespace-nowrap text-zinc-600">{KIND_LABEL[run.kind]}</td>
      <td className="py-2 pr-3">
        <span className={`rounded px-1.5 py-px text-[11px] font-medium ${STATUS_STYLE[run.status]}`}>{run.status}</span>
        {stale && <span className="ml-1 rounded bg-amber-100 px-1.5 py-px text-[11px] font-medium text-amber-800" data-testid="run-stale">stale</span>}
      </td>
      <td className={`py-2 pr-3 whitespace-nowrap tabular-nums ${stale ? 'font-medium text-amber-800' : 'text-zinc-600'}`} data-testid="run-heartbeat">
        {run.status === 'running' ? (
          <time dateTime={new Date(last).toISOString()} title={exactTime(new Date(last).toISOString())}>{`${duration((now - last) / 1000)} ago`}</time>
        ) : run.ended_at ? (
          <TimeAgo at={run.ended_at} now={now} prefix="ended " />
        ) : (
          '—'
        )}
      </td>
      <td className="py-2 pr-3 whitespace-nowrap text-zinc-600 tabular-nums" data-testid="run-counts">
        {p ? (
          <span title={`${p.tasks_created} created · ${p.tasks_completed} done · ${p.code_refs} code refs · ${p.decisions} decisions · ${p.notes} notes · ${p.handoffs} handoffs · ${p.activity} events`}>
            {p.tasks_completed}/{p.tasks_created} tasks · {p.code_refs} refs · {p.activity} events
          </span>
        ) : (
          '—'
        )}
      </td>
      <td className="py-2 pr-3 text-right whitespace-nowrap text-zinc-600 tabular-nums">{tokens(run.tokens_in + run.tokens_out)}</td>
      <td className="py-2 pr-4 text-right whitespace-nowrap font-medium tabular-nums" data-testid="run-cost">{usd(run.cost_usd)}</td>
    </tr>
  );
}

/** The runs page: the 200 newest runs as a tree, live heartbeat ages, what each produced and what it cost. */
export function RunsView() {
  const [status, setStatus] = useState('recent');
  const runs = useRuns(status);
  const now = useNow(1_000);
  const [closed, setClosed] = useState<Set<string>>(new Set());
  const { roots, children } = useMemo(() => tree(runs.data ?? []), [runs.data]);
  const totals = useMemo(() => {
    const list = runs.data ?? [];
    return {
      running: list.filter((r) => r.status === 'running').length,
      stale: list.filter((r) => r.status === 'running' && now - new Date(r.last_active_at).getTime() > STALE_MS).length,
      cost: list.reduce((s, r) => s + Number(r.cost_usd), 0),
      tokens: list.reduce((s, r) => s + r.tokens_in + r.tokens_out, 0),
    };
  }, [runs.data, now]);

  const render = (run: Run, depth: number): React.ReactNode => {
    const kids = children.get(run.id) ?? [];
    const open = !closed.has(run.id);
    return (
      <Fragment key={run.id}>
        <RunRowView
          run={run}
          depth={depth}
          now={now}
          kids={kids}
          open={open}
          toggle={() => setClosed((s) => (s.has(run.id) ? new Set([...s].filter((x) => x !== run.id)) : new Set([...s, run.id])))}
        />
        {open && kids.map((k) => render(k, depth + 1))}
      </Fragment>
    );
  };

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex h-12 shrink-0 items-center gap-3 border-b border-zinc-200 px-4">
        <h1 className="text-[13px] font-semibold">Runs</h1>
        {runs.data && (
          <p className="text-[12px] text-zinc-500" data-testid="runs-totals">
            {totals.running} running{totals.stale ? <span className="font-medium text-amber-700"> · {totals.stale} stale</span> : null} · {tokens(totals.tokens)} tokens · {usd(totals.cost)}
          </p>
        )}
        <select aria-label="Status" value={status} onChange={(e) => setStatus(e.target.value)} className="ml-auto h-7 rounded-md border border-zinc-200 bg-white px-2 text-[12px] text-zinc-700 focus:border-indigo-400 focus:outline-none">
          <option value="recent">Running and last 24 h</option>
          <option value="running">Running</option>
          <option value="ended">Ended</option>
          <option value="abandoned">Abandoned</option>
          <option value="idle">Idle</option>
          <option value="all">All runs</option>
        </select>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto">
        {runs.isPending ? (
          <div className="space-y-3 p-6">
            {[0, 1, 2].map((i) => (
              <Skeleton key={i} className="h-4 w-full" />
            ))}
          </div>
        ) : runs.isError ? (
          <p className="p-10 text-center text-[13px] text-red-600">{(runs.error as Error).message}</p>
        ) : roots.length === 0 ? (
          <div className="mx-auto max-w-lg p-10 text-center text-[13px] text-zinc-500" data-testid="runs-empty">
            <p className="font-medium text-zinc-700">No runs {status === 'all' ? 'yet' : status === 'recent' ? 'running or ended in the last 24 hours' : 'match'}.</p>
            <p className="mt-1">
              Every agent call belongs to a run, registered at its first write. Connect an agent under Agents &amp; people; it can name its run with the
              X-Bullpen-Run header and report heartbeats, usage and cost with run_heartbeat.
            </p>
          </div>
        ) : (
          <table className="w-full" data-testid="runs-table">
            <thead className="sticky top-0 bg-white text-left text-[11px] font-medium tracking-wide text-zinc-500 uppercase">
              <tr className="border-b border-zinc-200">
                <th className="py-2 pr-3 pl-4 font-medium">Run</th>
                <th className="py-2 pr-3 font-medium">Actor</th>
                <th className="py-2 pr-3 font-medium">Kind</th>
                <th className="py-2 pr-3 font-medium">Status</th>
                <th className="py-2 pr-3 font-medium">Heartbeat</th>
                <th className="py-2 pr-3 font-medium">Produced</th>
                <th className="py-2 pr-3 text-right font-medium">Tokens</th>
                <th className="py-2 pr-4 text-right font-medium">Cost</th>
              </tr>
            </thead>
            <tbody>{roots.map((r) => render(r, 0))}</tbody>
          </table>
        )}
      </div>
    </div>
  );
}
