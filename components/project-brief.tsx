'use client';

import Link from 'next/link';
import { useBudgets } from '@/lib/console/client/costs';
import { useBrief } from '@/lib/console/client/hooks';
import { useNow } from '@/lib/console/client/use-now';
import { changePhrase } from '@/lib/console/activity-words';
import { shortDate } from '@/lib/console/format';
import { STATUSES, STATUS_LABEL } from '@/lib/console/types';
import { Markdown } from './markdown';
import { ProjectHeader } from './project-header';
import { ProjectRepositories } from './project-repositories';
import { Skeleton } from './skeleton';
import { PriorityIcon, StatusIcon } from './status-icon';
import { TimeAgo } from './time-ago';

/** A project's brief (project_brief): what it is, where it stands, what is open, what just happened. */
export function ProjectBriefView({ projectKey }: { projectKey: string }) {
  const brief = useBrief(projectKey);
  const now = useNow(60_000);
  const b = brief.data;
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <ProjectHeader projectKey={projectKey} title={b?.project.title} tab="brief" />
      <div className="min-h-0 flex-1 overflow-y-auto">
        {brief.isError ? (
          <p className="p-10 text-center text-[13px] text-zinc-500">No project {projectKey} in this workspace.</p>
        ) : !b ? (
          <div className="max-w-3xl space-y-3 p-8">
            <Skeleton className="h-5 w-64" />
            <Skeleton className="h-3 w-full" />
            <Skeleton className="h-3 w-4/5" />
          </div>
        ) : (
          <div className="mx-auto grid max-w-5xl grid-cols-[1fr_280px] gap-8 p-8">
            <div className="min-w-0 space-y-8">
              <section>
                <h2 className="text-[20px] font-semibold">{b.project.title}</h2>
                {b.project.summary && <p className="mt-1 text-[14px] text-zinc-600">{b.project.summary}</p>}
                {b.project.description ? (
                  <Markdown text={b.project.description} className="mt-4" />
                ) : (
                  <p className="mt-4 text-[13px] text-zinc-500">No description yet. Agents read this brief first (project_brief); a paragraph on the goal and the constraints saves them a lot of guessing.</p>
                )}
              </section>
              <section>
                <h3 className="mb-2 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Top open tasks</h3>
                {b.top_open_tasks.length === 0 ? (
                  <p className="text-[13px] text-zinc-500">Nothing open. <Link className="text-indigo-600 hover:underline" href={`/projects/${projectKey}`}>Plan work on the board</Link>.</p>
                ) : (
                  <ul className="divide-y divide-zinc-100 rounded-lg border border-zinc-200">
                    {b.top_open_tasks.map((t) => (
                      <li key={t.id}>
                        <Link href={`/projects/${projectKey}?task=${t.ref}`} className="flex items-center gap-2.5 px-3 py-2 hover:bg-zinc-50">
                          <PriorityIcon priority={t.priority} />
                          <StatusIcon status={t.status} />
                          <span className="font-mono text-[11px] text-zinc-500">{t.ref}</span>
                          <span className="truncate text-[13px]">{t.title}</span>
                          {t.ready && <span className="ml-auto rounded bg-emerald-50 px-1.5 text-[10px] font-medium text-emerald-700">ready</span>}
                        </Link>
                      </li>
                    ))}
                  </ul>
                )}
              </section>
              <section>
                <h3 className="mb-2 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Recent activity</h3>
                <ol className="space-y-1.5">
                  {b.recent_activity.map((a) => (
                    <li key={a.seq} className="text-[13px]">
                      <span className="font-medium">{a.actor ?? 'system'}</span> <span className="text-zinc-600">{changePhrase(a)}</span>
                      {a.verb === 'task.created' && <span className="text-zinc-500"> {a.summary}</span>}
                      <span className="ml-1.5 text-[12px] text-zinc-500"><TimeAgo at={a.at} now={now} /></span>
                    </li>
                  ))}
                  {b.recent_activity.length === 0 && <li className="text-[13px] text-zinc-500">Quiet so far.</li>}
                </ol>
              </section>
            </div>
            <aside className="space-y-6">
              <ProjectBudgets projectKey={projectKey} />
              <section className="rounded-lg border border-zinc-200 p-4">
                <dl className="space-y-2 text-[13px]">
                  <div className="flex justify-between"><dt className="text-zinc-500">Status</dt><dd className="capitalize">{b.project.status}</dd></div>
                  <div className="flex justify-between"><dt className="text-zinc-500">Owner</dt><dd>{b.project.owner ?? '—'}</dd></div>
                  <div className="flex justify-between"><dt className="text-zinc-500">Target</dt><dd>{b.project.target_on ? shortDate(b.project.target_on) : '—'}</dd></div>
                  {b.project.parent && (
                    <div className="flex justify-between"><dt className="text-zinc-500">Part of</dt><dd><Link className="text-indigo-600 hover:underline" href={`/projects/${b.project.parent.key}/brief`}>{b.project.parent.key}</Link></dd></div>
                  )}
                  <div className="flex justify-between"><dt className="text-zinc-500">Ready to claim</dt><dd className="font-medium text-emerald-700">{b.tasks.ready}</dd></div>
                </dl>
              </section>
              <section>
                <h3 className="mb-2 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Tasks ({b.tasks.total})</h3>
                <ul className="space-y-1">
                  {STATUSES.map((s) => (
                    <li key={s} className="flex items-center gap-2 text-[13px]">
                      <StatusIcon status={s} />
                      <span className="text-zinc-700">{STATUS_LABEL[s]}</span>
                      <span className="ml-auto tabular-nums text-zinc-500">{b.tasks.by_status[s] ?? 0}</span>
                    </li>
                  ))}
                </ul>
              </section>
              <ProjectRepositories brief={b} />
              {b.subprojects.length > 0 && (
                <section>
                  <h3 className="mb-2 text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Subprojects</h3>
                  <ul className="space-y-1">
                    {b.subprojects.map((s) => (
                      <li key={s.id}><Link href={`/projects/${s.key}/brief`} className="text-[13px] text-indigo-600 hover:underline">{s.key} · {s.title}</Link></li>
                    ))}
                  </ul>
                </section>
              )}
            </aside>
          </div>
        )}
      </div>
    </div>
  );
}

/** The budgets that apply to the project (its own and the workspace's), with their state. */
function ProjectBudgets({ projectKey }: { projectKey: string }) {
  const q = useBudgets({ scope: 'project', scope_id: projectKey });
  const budgets = q.data?.budgets ?? [];
  if (!q.data) return null;
  return (
    <section className="rounded-lg border border-zinc-200 p-4" data-testid="brief-budgets">
      <h3 className="text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Budget</h3>
      {budgets.length === 0 ? (
        <p className="mt-2 text-[12px] text-zinc-500">No budget: spending is not capped. <Link className="text-indigo-600 underline" href="/costs">Costs</Link></p>
      ) : (
        <ul className="mt-2 space-y-1 text-[12px]">
          {budgets.map((b) => (
            <li key={b.id} data-state={b.state}>
              <span className="text-zinc-700">{b.label}</span>: ${b.spent_usd.toFixed(2)} spent,{' '}
              <span className={b.state === 'exceeded' ? 'font-medium text-red-700' : b.state === 'warning' ? 'font-medium text-amber-700' : 'text-emerald-700'}>{b.state}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
