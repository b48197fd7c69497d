'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRef, useState } from 'react';
import { readActivity } from '@/lib/console/client/api';
import { keys } from '@/lib/console/client/cache';
import { useActors, useProjects } from '@/lib/console/client/hooks';
import { useLiveChanges } from '@/lib/console/client/live';
import { useNow } from '@/lib/console/client/use-now';
import { changeWords } from '@/lib/console/activity-words';
import type { ActivityItem } from '@/lib/console/types';
import { ActorAvatar } from './actor-avatar';
import { ProjectOptions, filterSelectCls } from './form-parts';
import { Skeleton } from './skeleton';
import { TimeAgo } from './time-ago';

type Page = { activity: ActivityItem[]; next_cursor: string | null };

/** The workspace feed: every change by anyone, newest first, live; filter by project and actor. */
export function ActivityView() {
  const { ready } = useLiveChanges();
  const projects = useProjects();
  const actors = useActors();
  const now = useNow(30_000);
  const [project, setProject] = useState('');
  const [actor, setActor] = useState('');
  const firstMax = useRef<number | null>(null);
  const feed = useInfiniteQuery({
    queryKey: [...keys.activity, { project, actor }],
    queryFn: ({ pageParam }) => readActivity<Page>({ project_id: project || undefined, actor_id: actor || undefined, cursor: pageParam ?? undefined, limit: 50 }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    enabled: ready,
  });
  // an "inbox" row only says that someone's inbox changed (it wakes waiting agents): not news here
  const items = feed.data?.pages.flatMap((p) => p.activity).filter((a) => a.object_type !== 'inbox') ?? [];
  if (firstMax.current === null && feed.data) firstMax.current = items[0]?.seq ?? 0;
  const selectCls = filterSelectCls;
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex min-h-12 shrink-0 flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-2 md:px-4">
        <h1 className="text-[13px] font-semibold">Activity</h1>
        <div className="flex min-w-0 gap-2 sm:ml-auto">
          <select aria-label="Project" data-testid="activity-project" value={project} onChange={(e) => setProject(e.target.value)} className={selectCls}>
            <ProjectOptions projects={projects.data} none="All projects" />
          </select>
          <select aria-label="Actor" data-testid="activity-actor" value={actor} onChange={(e) => setActor(e.target.value)} className={selectCls}>
            <option value="">Everyone</option>
            {actors.data?.map((a) => (
              <option key={a.id} value={a.id}>
                {a.display_name}
                {a.kind === 'agent' ? ' · agent' : ''}
              </option>
            ))}
          </select>
        </div>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto">
        <ol className="mx-auto max-w-3xl divide-y divide-zinc-100 px-3 py-2 md:px-6" data-testid="activity-feed">
          {feed.isPending &&
            [0, 1, 2, 3, 4].map((i) => (
              <li key={i} className="flex gap-3 py-3">
                <Skeleton className="size-5 rounded-full" />
                <Skeleton className="h-3 flex-1" />
              </li>
            ))}
          {feed.data && items.length === 0 && (
            <li className="py-10 text-center text-[13px] text-zinc-500">
              Nothing here yet. Every task an agent claims, every move and comment lands in this feed as it happens.
            </li>
          )}
          {items.map((a) => (
            <li key={a.seq} data-testid="activity-item" data-seq={a.seq} className={`flex items-start gap-3 py-2.5 ${firstMax.current !== null && a.seq > firstMax.current ? 'animate-[fadein_1.2s_ease-out]' : ''}`}>
              <ActorAvatar name={a.actor ?? 'system'} kind={a.actor_kind} size="sm" />
              <ActivityLine a={a} now={now} />
            </li>
          ))}
        </ol>
        {feed.hasNextPage && (
          <div className="pb-8 text-center">
            <button onClick={() => void feed.fetchNextPage()} disabled={feed.isFetchingNextPage} className="h-8 rounded-md border border-zinc-200 px-3 text-[13px] text-zinc-600 hover:bg-zinc-50">
              {feed.isFetchingNextPage ? 'Loading…' : 'Older'}
            </button>
          </div>
        )}
      </div>
    </div>
  );
}

/** One entry as a sentence: who, what in words, the task or project it touched, when. */
function ActivityLine({ a, now }: { a: ActivityItem; now: number }) {
  const w = changeWords(a);
  return (
    <>
      <div className="min-w-0 flex-1 text-[13px] leading-snug">
        <span className="font-medium text-zinc-900">{a.actor ?? 'system'}</span> <span className="text-zinc-600">{w.lead}</span>{' '}
        {a.task_ref && a.project_key ? (
          <Link href={`/projects/${a.task_ref.split('-')[0]}?task=${a.task_ref}`} className="font-medium text-zinc-800 hover:underline">
            <span className="font-mono text-[11px] text-zinc-500">{a.task_ref}</span> {a.task_title}
          </Link>
        ) : a.object_type === 'project' && a.project_key ? (
          <Link href={`/projects/${a.project_key}`} className="font-medium text-zinc-800 hover:underline">
            {a.project_key}
          </Link>
        ) : null}
        {w.tail && <span className="text-zinc-600">{w.tail.startsWith(':') || w.tail.startsWith(';') ? w.tail : ` ${w.tail}`}</span>}
        {w.detail && <p className="truncate text-[12px] text-zinc-500">{w.detail}</p>}
      </div>
      <TimeAgo at={a.at} now={now} className="shrink-0 text-[12px] text-zinc-500" />
    </>
  );
}
