'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { refreshTasks } from '@/lib/console/client/cache';
import { useActors, useTask } from '@/lib/console/client/hooks';
import { useLiveChanges } from '@/lib/console/client/live';
import { useMoveTask, useUpdateTask } from '@/lib/console/client/mutations';
import { useToast } from '@/lib/console/client/toast';
import { typingIn, useNow } from '@/lib/console/client/use-now';
import type { TaskDetail } from '@/lib/console/types';
import { LinkIcon, XIcon } from './icons';
import { Skeleton } from './skeleton';
import { StatusIcon } from './status-icon';
import { TaskCriteria, TaskDescription, TaskTitle } from './task-drawer-content';
import { TaskHistory } from './task-drawer-history';
import { Section } from './task-drawer-parts';
import { TaskProperties } from './task-drawer-properties';
import { TaskComments, TaskHandoffs, TaskMemory, TaskRelations } from './task-drawer-relations';
import { TaskProvenance, useFileDrop, useTaskUpload } from './task-provenance';
import { RelatedPanel } from './graph/related-panel';

/**
 * The task drawer (task_get): read and steer one task without leaving the board. A side panel on
 * wide screens, the whole width below 768 px. Each section is its own component (task-drawer-*.tsx);
 * this file frames them and keeps the drawer in step with the feed.
 */
export function TaskDrawer({ taskRef, onClose, onOpenTask }: { taskRef: string; onClose: () => void; onOpenTask: (ref: string) => void }) {
  const q = useTask(taskRef);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || document.querySelector('[role="dialog"][aria-modal="true"]')) return;
      if (typingIn(e.target)) return (e.target as HTMLElement).blur();
      onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  return (
    <aside
      role="complementary"
      aria-label="Task details"
      data-testid="task-drawer"
      className="fixed inset-0 z-40 flex w-full flex-col bg-white shadow-2xl shadow-zinc-900/10 md:left-auto md:w-[600px] md:max-w-[92vw] md:border-l md:border-zinc-200"
    >
      {q.isError ? (
        <div className="p-6">
          <div className="flex items-center justify-between">
            <p className="text-sm font-semibold">No task {taskRef} here</p>
            <button onClick={onClose} className="rounded p-1 text-zinc-500 hover:bg-zinc-100" aria-label="Close">
              <XIcon className="size-4" />
            </button>
          </div>
          <p className="mt-1 text-[13px] text-zinc-500">{(q.error as Error).message}</p>
        </div>
      ) : !q.data ? (
        <div className="space-y-3 p-6">
          <Skeleton className="h-3 w-20" />
          <Skeleton className="h-5 w-3/4" />
          <Skeleton className="h-3 w-full" />
          <Skeleton className="h-3 w-5/6" />
        </div>
      ) : (
        <DrawerBody key={q.data.task.id} detail={q.data} onClose={onClose} onOpenTask={onOpenTask} />
      )}
    </aside>
  );
}

function DrawerBody({ detail, onClose, onOpenTask }: { detail: TaskDetail; onClose: () => void; onOpenTask: (ref: string) => void }) {
  const t = detail.task;
  const actors = useActors();
  const update = useUpdateTask();
  const move = useMoveTask();
  const now = useNow(15_000);
  const upload = useTaskUpload(t.id);
  const drop = useFileDrop((files) => void upload.upload(files));
  useReviewRefresh(t.id, t.project_id);
  return (
    <>
      <DrawerHeader detail={detail} onClose={onClose} />
      <div className="relative min-h-0 flex-1 overflow-y-auto" data-testid="drawer-drop" {...drop.props}>
        {drop.over && (
          <div className="pointer-events-none absolute inset-2 z-10 flex items-center justify-center rounded-lg border-2 border-dashed border-indigo-400 bg-indigo-50/80 text-[13px] font-medium text-indigo-700" data-testid="drop-overlay">
            Drop to attach to {t.ref}
          </div>
        )}
        <div className="px-4 pt-4 pb-3 sm:px-5">
          <TaskTitle task={t} update={update} />
          <TaskProperties detail={detail} actors={actors} now={now} update={update} move={move} />
        </div>
        <TaskDescription task={t} update={update} />
        <TaskCriteria task={t} update={update} />
        <TaskRelations detail={detail} onOpenTask={onOpenTask} />
        <TaskProvenance detail={detail} now={now} upload={upload} onRequireEvidence={(on) => void update(t, { requires_evidence: on })} section={(p) => <Section {...p} />} />
        <TaskHandoffs detail={detail} />
        <TaskMemory detail={detail} />
        <RelatedPanel type="task" id={t.id} title={`${t.ref} ${t.title}`} />
        <TaskComments detail={detail} now={now} />
        <TaskHistory detail={detail} now={now} />
      </div>
    </>
  );
}

/** The drawer's top bar: status, ref, project, copy link, close. */
function DrawerHeader({ detail, onClose }: { detail: TaskDetail; onClose: () => void }) {
  const t = detail.task;
  const toast = useToast();
  return (
    <div className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-4 sm:px-5">
      <StatusIcon status={t.status} />
      <span className="font-mono text-[12px] text-zinc-500" data-testid="drawer-ref">
        {t.ref}
      </span>
      <span className="truncate text-[12px] text-zinc-500">in {detail.project.title}</span>
      <button
        onClick={() => {
          void navigator.clipboard?.writeText(`${window.location.origin}/projects/${t.project_key}?task=${t.ref}`);
          toast.success('Link copied');
        }}
        className="ml-auto rounded p-1.5 text-zinc-500 hover:bg-zinc-100 hover:text-zinc-700"
        title="Copy link"
        aria-label="Copy link"
      >
        <LinkIcon className="size-3.5" />
      </button>
      <button onClick={onClose} className="rounded p-1.5 text-zinc-500 hover:bg-zinc-100 hover:text-zinc-700" aria-label="Close drawer" title="Close (Esc)">
        <XIcon className="size-4" />
      </button>
    </div>
  );
}

/** A review answered (or any handoff about this project changing) re-reads the drawer. */
function useReviewRefresh(taskId: string, projectId: string) {
  const qc = useQueryClient();
  const timer = useRef<number | null>(null);
  useLiveChanges((e) => {
    if (e.object_type !== 'handoff' || e.project_id !== projectId || timer.current) return;
    timer.current = window.setTimeout(() => {
      timer.current = null;
      void refreshTasks(qc, [taskId]);
    }, 80);
  });
}
