'use client';

import Link from 'next/link';
import { useState, type ReactElement, type ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useInsights, type ProjectInsights } from '@/lib/console/client/insights';
import { STATUS_LABEL } from '@/lib/console/types';
import { ProjectHeader } from './project-header';
import { Skeleton } from './skeleton';
import { StatusIcon } from './status-icon';

/** Windows a person picks from; the tool takes any 1–365. */
const WINDOWS = [7, 14, 30, 90] as const;

/** Series colours, distinguishable and dark enough for text beside them on white. */
const PALETTE = ['#4f46e5', '#0d9488', '#d97706', '#db2777', '#2563eb', '#65a30d', '#9333ea', '#dc2626', '#0891b2', '#57534e'];

const AXIS = { fontSize: 11, fill: '#52525b' };

/** "Nov 26" from "2026-11-26", read as the UTC day it names. */
function shortDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** Hours in the unit a person reads best: "45 min", "3.5 h", "2.1 d". */
export function duration(hours: number | null): string {
  if (hours == null) return '—';
  if (hours < 1) return `${Math.max(1, Math.round(hours * 60))} min`;
  if (hours < 48) return `${hours < 10 ? hours.toFixed(1).replace(/\.0$/, '') : Math.round(hours)} h`;
  const d = hours / 24;
  return `${d < 10 ? d.toFixed(1).replace(/\.0$/, '') : Math.round(d)} d`;
}

/** A project's Insights page: how work flows, drawn from project_insights and kept live. */
export function InsightsView({ projectKey, initial }: { projectKey: string; initial?: ProjectInsights }) {
  const [days, setDays] = useState<number>(30);
  const q = useInsights(projectKey, days, days === 30 ? initial : undefined);
  const d = q.data;
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <ProjectHeader projectKey={projectKey} title={d?.project.title} tab="insights" />
      <div className="min-h-0 flex-1 overflow-y-auto">
        {q.isError && !d ? (
          <p className="p-10 text-center text-[13px] text-zinc-600">No project {projectKey} in this workspace.</p>
        ) : !d ? (
          <InsightsSkeleton />
        ) : (
          <div className="mx-auto max-w-6xl space-y-6 p-4 sm:p-8" aria-busy={q.isPlaceholderData} data-testid="insights">
            <div className="flex flex-wrap items-center justify-between gap-3">
              <h2 className="text-[18px] font-semibold">
                Insights
                {q.isPlaceholderData && (
                  <span role="status" className="ml-2 text-[12px] font-normal text-zinc-600" data-testid="insights-refreshing">
                    Loading the last {days} days…
                  </span>
                )}
              </h2>
              <div role="group" aria-label="Time window" className="flex flex-wrap rounded-md border border-zinc-200 p-0.5">
                {WINDOWS.map((w) => (
                  <button
                    key={w}
                    type="button"
                    aria-pressed={days === w}
                    onClick={() => setDays(w)}
                    className={`h-7 rounded px-2.5 text-[12px] ${days === w ? 'bg-zinc-900 font-medium text-white' : 'text-zinc-600 hover:bg-zinc-100'}`}
                  >
                    {w} days
                  </button>
                ))}
              </div>
            </div>
            {d.totals.tasks === 0 ? <EmptyProject projectKey={projectKey} /> : <Panels d={d} projectKey={projectKey} />}
          </div>
        )}
      </div>
    </div>
  );
}

function InsightsSkeleton() {
  return (
    <div className="mx-auto max-w-6xl space-y-6 p-4 sm:p-8" aria-busy="true" aria-label="Loading insights" data-testid="insights-loading">
      <Skeleton className="h-6 w-40" />
      <div className="grid grid-cols-2 gap-3 md:grid-cols-5">
        {Array.from({ length: 5 }, (_, i) => <Skeleton key={i} className="h-16" />)}
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        {Array.from({ length: 4 }, (_, i) => <Skeleton key={i} className="h-64" />)}
      </div>
    </div>
  );
}

function EmptyProject({ projectKey }: { projectKey: string }) {
  return (
    <div className="rounded-lg border border-dashed border-zinc-300 p-10 text-center" data-testid="insights-empty">
      <p className="text-[15px] font-medium text-zinc-900">Nothing to chart yet</p>
      <p className="mx-auto mt-2 max-w-md text-[13px] text-zinc-600">
        This project has no tasks. Plan work on the <Link className="text-indigo-700 underline" href={`/projects/${projectKey}`}>board</Link>, or ask an agent to
        create tasks (task_create). As agents claim, finish and review them, throughput, cycle time, work in progress and blocked chains appear here, live.
      </p>
    </div>
  );
}

function Panels({ d, projectKey }: { d: ProjectInsights; projectKey: string }) {
  const doneInWindow = d.throughput.reduce((n, x) => n + x.done, 0);
  const wipNow = d.wip.days.at(-1)?.total ?? 0;
  return (
    <>
      <dl className="grid grid-cols-2 gap-3 md:grid-cols-5">
        <Stat label={`Done, last ${d.window.days} days`} value={String(doneInWindow)} testId="insights-done" />
        <Stat label="Median cycle time" value={duration(d.cycle_time.p50_hours)} />
        <Stat label="In progress now" value={String(wipNow)} />
        <Stat label="Blocked tasks" value={String(d.totals.blocked)} />
        <Stat label="Reviews waiting" value={String(d.review_turnaround.waiting)} />
      </dl>
      <div className="grid gap-4 lg:grid-cols-2">
        <Panel title="Throughput" note="Tasks done per day" summary={`${doneInWindow} tasks done in the last ${d.window.days} days.`}>
          {doneInWindow === 0 ? (
            <Nothing>No task reached done in this window. Finished tasks show up here the moment they close.</Nothing>
          ) : (
            <Chart>
              <BarChart accessibilityLayer={false} data={d.throughput.map((x) => ({ ...x, label: shortDay(x.day) }))} margin={{ top: 8, right: 8, bottom: 0, left: -20 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e4e4e7" />
                <XAxis dataKey="label" tick={AXIS} interval="preserveStartEnd" minTickGap={16} />
                <YAxis allowDecimals={false} tick={AXIS} />
                <Tooltip />
                <Bar dataKey="done" name="Done" fill={PALETTE[0]} radius={[2, 2, 0, 0]} isAnimationActive={false} />
              </BarChart>
            </Chart>
          )}
        </Panel>
        <Panel
          title="Cycle time"
          note="Claim to done, tasks finished in this window"
          summary={`${d.cycle_time.count} tasks: median ${duration(d.cycle_time.p50_hours)}, 90th percentile ${duration(d.cycle_time.p90_hours)}.`}
        >
          {d.cycle_time.count === 0 ? (
            <Nothing>No claimed task finished in this window yet. Cycle time runs from an agent’s claim to done.</Nothing>
          ) : (
            <>
              <p className="mb-2 text-[12px] text-zinc-600">
                median <strong className="text-zinc-900">{duration(d.cycle_time.p50_hours)}</strong> · p90{' '}
                <strong className="text-zinc-900">{duration(d.cycle_time.p90_hours)}</strong> · {d.cycle_time.count} tasks
              </p>
              <Chart height={196}>
                <BarChart accessibilityLayer={false} data={d.cycle_time.buckets} margin={{ top: 8, right: 8, bottom: 0, left: -20 }}>
                  <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e4e4e7" />
                  <XAxis dataKey="label" tick={AXIS} interval={0} />
                  <YAxis allowDecimals={false} tick={AXIS} />
                  <Tooltip />
                  <Bar dataKey="count" name="Tasks" fill={PALETTE[1]} radius={[2, 2, 0, 0]} isAnimationActive={false} />
                </BarChart>
              </Chart>
            </>
          )}
        </Panel>
        <Panel title="Work in progress" note="Started and not finished at each day’s end, by assignee" summary={`${wipNow} tasks in progress now.`}>
          {d.wip.actors.length === 0 ? (
            <Nothing>No work was in progress in this window. A claimed task counts until it is done.</Nothing>
          ) : (
            <>
              <Chart>
                <BarChart
                  accessibilityLayer={false}
                  data={d.wip.days.map((x) => ({ label: shortDay(x.day), ...Object.fromEntries(x.counts.map((c, i) => [`a${i}`, c])) }))}
                  margin={{ top: 8, right: 8, bottom: 0, left: -20 }}
                >
                  <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e4e4e7" />
                  <XAxis dataKey="label" tick={AXIS} interval="preserveStartEnd" minTickGap={16} />
                  <YAxis allowDecimals={false} tick={AXIS} />
                  <Tooltip />
                  {d.wip.actors.map((a, i) => (
                    <Bar key={a.actor_id ?? 'unassigned'} dataKey={`a${i}`} name={a.name} stackId="wip" fill={PALETTE[i % PALETTE.length]} isAnimationActive={false} />
                  ))}
                </BarChart>
              </Chart>
              <ul className="mt-2 flex flex-wrap gap-x-3 gap-y-1 text-[12px] text-zinc-700" aria-label="Assignees">
                {d.wip.actors.map((a, i) => (
                  <li key={a.actor_id ?? 'unassigned'} className="inline-flex items-center gap-1.5">
                    <span aria-hidden className="inline-block size-2.5 rounded-sm" style={{ background: PALETTE[i % PALETTE.length] }} />
                    {a.name}
                  </li>
                ))}
              </ul>
            </>
          )}
        </Panel>
        <Panel
          title="Review turnaround"
          note="From in review to the reviewer’s answer"
          summary={`${d.review_turnaround.count} reviews answered, median ${duration(d.review_turnaround.p50_hours)}; ${d.review_turnaround.waiting} waiting.`}
        >
          <p className="mb-2 text-[12px] text-zinc-600">
            median <strong className="text-zinc-900">{duration(d.review_turnaround.p50_hours)}</strong> · p90{' '}
            <strong className="text-zinc-900">{duration(d.review_turnaround.p90_hours)}</strong> · {d.review_turnaround.count} answered ·{' '}
            {d.review_turnaround.waiting} waiting
            {d.review_turnaround.oldest_waiting_hours != null && <> (oldest {duration(d.review_turnaround.oldest_waiting_hours)})</>}
          </p>
          {d.review_turnaround.count === 0 ? (
            <Nothing>No review was answered in this window. Give a task a reviewer; moving it to in review asks them.</Nothing>
          ) : (
            <Chart height={196}>
              <BarChart
                  accessibilityLayer={false}
                data={d.review_turnaround.days.map((x) => ({ label: shortDay(x.day), hours: x.p50_hours, count: x.count }))}
                margin={{ top: 8, right: 8, bottom: 0, left: -20 }}
              >
                <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e4e4e7" />
                <XAxis dataKey="label" tick={AXIS} interval="preserveStartEnd" minTickGap={16} />
                <YAxis tick={AXIS} unit=" h" />
                <Tooltip />
                <Bar dataKey="hours" name="Median hours" fill={PALETTE[2]} radius={[2, 2, 0, 0]} isAnimationActive={false} />
              </BarChart>
            </Chart>
          )}
        </Panel>
      </div>
      <Panel
        title="Longest blocked chain"
        note="The path of open dependencies that holds the most work; finish its first task to move it"
        summary={`${d.blocked_chain.length} tasks in the longest chain; ${d.totals.blocked} tasks wait on a dependency.`}
      >
        {d.blocked_chain.length === 0 ? (
          <Nothing>Nothing waits on an unfinished dependency.</Nothing>
        ) : (
          <ol className="flex flex-col gap-1.5 md:flex-row md:flex-wrap md:items-center" data-testid="insights-chain">
            {d.blocked_chain.tasks.map((t, i) => (
              <li key={t.id} className="flex min-w-0 items-center gap-1.5">
                {i > 0 && <span aria-hidden className="hidden text-zinc-400 md:inline">→</span>}
                <Link
                  href={`/projects/${projectKey}?task=${t.ref}`}
                  className={`flex min-w-0 items-center gap-1.5 rounded-md border px-2 py-1 text-[12px] hover:bg-zinc-50 ${i === 0 ? 'border-amber-400 bg-amber-50' : 'border-zinc-200'}`}
                >
                  <StatusIcon status={t.status} />
                  <span className="shrink-0 font-mono text-[11px] text-zinc-600">{t.ref}</span>
                  <span className="min-w-0 max-w-56 truncate">{t.title}</span>
                  <span className="sr-only">, {STATUS_LABEL[t.status]}</span>
                  {t.assignee && <span className="shrink-0 text-zinc-600">· {t.assignee}</span>}
                </Link>
              </li>
            ))}
          </ol>
        )}
      </Panel>
    </>
  );
}

function Stat({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="rounded-lg border border-zinc-200 px-3 py-2.5">
      <dt className="text-[11px] text-zinc-600">{label}</dt>
      <dd className="mt-0.5 text-[20px] font-semibold tabular-nums" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

/** A chart card. The chart is a picture; `summary` says the same in words for a screen reader. */
function Panel({ title, note, summary, children }: { title: string; note: string; summary: string; children: ReactNode }) {
  return (
    <section className="min-w-0 rounded-lg border border-zinc-200 p-4" aria-label={title}>
      <h3 className="text-[14px] font-semibold">{title}</h3>
      <p className="mb-3 text-[12px] text-zinc-600">{note}</p>
      <p className="sr-only">{summary}</p>
      {children}
    </section>
  );
}

function Chart({ children, height = 220 }: { children: ReactNode; height?: number }) {
  return (
    <div aria-hidden className="w-full" style={{ height }}>
      <ResponsiveContainer width="100%" height="100%">
        {children as ReactElement}
      </ResponsiveContainer>
    </div>
  );
}

function Nothing({ children }: { children: ReactNode }) {
  return <p className="rounded-md bg-zinc-50 px-3 py-6 text-center text-[13px] text-zinc-600">{children}</p>;
}
