'use client';

import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useActors, useBrief } from '@/lib/console/client/hooks';
import { typingIn } from '@/lib/console/client/use-now';
import { OPEN_COLUMNS } from '@/lib/console/types';
import { BoardColumns } from './board-columns';
import { FilterBar, NO_FILTERS, type BoardFilters } from './board-filters';
import { BotIcon, PlusIcon } from './icons';
import { NewTaskDialog } from './new-task-dialog';
import { ProjectHeader } from './project-header';
import { CardSkeleton } from './skeleton';
import { TaskDrawer } from './task-drawer';

export type { BoardFilters } from './board-filters';

/** Opens (or closes) a task in the drawer by putting its ref in the URL, without a server round trip. */
export function useOpenTask(): (ref: string | null) => void {
  return useCallback((ref: string | null) => {
    const url = new URL(window.location.href);
    if (ref) url.searchParams.set('task', ref);
    else url.searchParams.delete('task');
    window.history.pushState(null, '', url);
  }, []);
}

/** A project's board page: filters, the kanban columns, the task drawer and the new-task form. */
export function ProjectBoard({ projectKey }: { projectKey: string }) {
  const brief = useBrief(projectKey);
  const actors = useActors();
  const project = brief.data?.project;
  const [filters, setFilters] = useState<BoardFilters>(NO_FILTERS);
  const [creating, setCreating] = useState(false);
  const searchRef = useRef<HTMLInputElement>(null);
  const openRef = useSearchParams().get('task');
  const openTask = useOpenTask();

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typingIn(e.target) || e.metaKey || e.ctrlKey || e.altKey || creating) return;
      if (e.key === 'c') {
        e.preventDefault();
        setCreating(true);
      } else if (e.key === '/') {
        e.preventDefault();
        searchRef.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [creating]);

  const notFound = brief.isError;
  const agents = (actors.data ?? []).filter((a) => a.kind === 'agent');
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <ProjectHeader
        projectKey={projectKey}
        title={project?.title}
        tab="board"
        actions={
          <button
            onClick={() => setCreating(true)}
            disabled={!project}
            data-testid="new-task"
            className="inline-flex h-7 items-center gap-1 rounded-md bg-zinc-900 px-2.5 text-[12px] font-medium text-white hover:bg-zinc-800 disabled:opacity-40"
          >
            <PlusIcon className="size-3.5" /> New task
            <kbd className="ml-1 rounded bg-white/15 px-1 font-mono text-[10px]">C</kbd>
          </button>
        }
      />
      {notFound ? (
        <div className="flex flex-1 items-center justify-center p-10">
          <div className="max-w-sm text-center">
            <p className="text-sm font-semibold">No project {projectKey} in this workspace</p>
            <p className="mt-1 text-[13px] text-zinc-500">It may live in another workspace, or the key is mistyped.</p>
            <Link href="/projects" className="mt-4 inline-block text-[13px] font-medium text-indigo-600 hover:underline">
              See all projects
            </Link>
          </div>
        </div>
      ) : (
        <>
          <FilterBar filters={filters} onChange={setFilters} actors={actors.data ?? []} searchRef={searchRef} projectId={project?.id} />
          {actors.isSuccess && agents.length === 0 && (
            <div className="flex items-center gap-2 border-b border-violet-100 bg-violet-50/60 px-4 py-1.5 text-[12px] text-violet-800">
              <BotIcon className="size-3.5" />
              No agents yet — <Link href="/actors?connect=1" className="font-medium underline underline-offset-2">connect one</Link> and it can claim these tasks over MCP.
            </div>
          )}
          {project ? (
            <BoardColumns
              projectId={project.id}
              counts={brief.data?.tasks.by_status ?? {}}
              total={brief.data?.tasks.total ?? 0}
              filters={filters}
              actors={actors.byId}
              selectedRef={openRef}
              onOpen={(t) => openTask(t.ref)}
              onCreate={() => setCreating(true)}
            />
          ) : (
            <div className="flex min-h-0 flex-1 gap-3 overflow-hidden p-4">
              {OPEN_COLUMNS.map((s) => (
                <div key={s} className={`${s === 'todo' ? 'flex-1' : 'hidden md:block'} space-y-2 rounded-lg bg-zinc-50 p-2 md:max-w-[340px] md:min-w-[208px] md:flex-1 md:basis-0`}>
                  <div className="h-5" />
                  <CardSkeleton />
                  <CardSkeleton />
                </div>
              ))}
            </div>
          )}
        </>
      )}
      {openRef && <TaskDrawer taskRef={openRef} onClose={() => openTask(null)} onOpenTask={openTask} />}
      {creating && project && (
        <NewTaskDialog
          project={{ id: project.id, key: project.key, title: project.title }}
          onClose={() => setCreating(false)}
          onCreated={(ref) => {
            setCreating(false);
            openTask(ref);
          }}
        />
      )}
    </div>
  );
}

