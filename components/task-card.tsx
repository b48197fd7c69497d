'use client';

import { memo } from 'react';
import type { Collision } from '@/lib/console/client/collisions';
import { timeLeft } from '@/lib/console/format';
import { PRIORITY_LABEL, type Actor, type TaskRow } from '@/lib/console/types';
import { ActorAvatar } from './actor-avatar';
import { CheckIcon, ClockIcon, LockIcon } from './icons';
import { PriorityIcon } from './status-icon';

type Props = {
  task: TaskRow;
  assignee: Actor | undefined;
  leaseHolder: Actor | undefined;
  /** Only cards with a live lease re-render as time passes. */
  now: number;
  focusable: boolean;
  selected: boolean;
  onOpen: (task: TaskRow) => void;
  onFocusCard: (id: string) => void;
  /** Starts a pointer drag (the board decides when movement makes it one). */
  onPointerDown: (task: TaskRow, e: React.PointerEvent<HTMLDivElement>) => void;
  dragging: boolean;
  /** Recovers a stale card (lease lapsed, or its holder paused or deactivated); absent: no action. */
  onRecover?: (task: TaskRow) => void;
  /** In-progress tasks whose files are near this task's (code_collisions): a warning badge. */
  collisions?: Collision[];
};

/** One task on the board: ref, title, priority, assignee, labels, blockers, checklist and lease. */
export const TaskCard = memo(function TaskCard({ task, assignee, leaseHolder, now, focusable, selected, onOpen, onFocusCard, onPointerDown, dragging, onRecover, collisions }: Props) {
  const leaseLive = !!task.lease && new Date(task.lease.expires_at).getTime() > now;
  // stale: in progress with no live lease, or held by an agent that is not working (paused, deactivated)
  const stale = task.status === 'in_progress' && (!leaseLive || (!!leaseHolder && leaseHolder.status !== 'active'));
  const done = task.criteria_total > 0 && task.criteria_met === task.criteria_total;
  return (
    <div
      role="button"
      tabIndex={focusable ? 0 : -1}
      data-testid="task-card"
      data-task-id={task.id}
      data-ref={task.ref}
      data-status={task.status}
      data-stale={stale ? 'true' : undefined}
      aria-label={`${task.ref} ${task.title}`}
      onClick={() => onOpen(task)}
      onFocus={() => onFocusCard(task.id)}
      onPointerDown={(e) => onPointerDown(task, e)}
      className={`group cursor-pointer touch-none rounded-md border bg-white px-2.5 py-2 text-left shadow-[0_1px_1px_rgba(0,0,0,0.03)] outline-none transition-colors select-none hover:border-zinc-300 focus-visible:ring-2 focus-visible:ring-indigo-500/70 ${
        selected ? 'border-indigo-300 ring-1 ring-indigo-200' : 'border-zinc-200'
      } ${dragging ? 'opacity-40' : ''}`}
    >
      <div className="flex items-center gap-1.5">
        <span title={`Priority: ${PRIORITY_LABEL[task.priority] ?? task.priority}`} className="inline-flex">
          <PriorityIcon priority={task.priority} />
        </span>
        <span className="font-mono text-[11px] text-zinc-500">{task.ref}</span>
        {collisions && collisions.length > 0 && (
          <span
            data-testid="collision-badge"
            title={`Near work in progress: ${collisions.map((c) => `${c.task}${c.holder ? ` (${c.holder})` : ''} on ${c.files.join(', ')}`).join('; ')}`}
            className="inline-flex items-center gap-0.5 rounded bg-amber-50 px-1 text-[10px] font-medium text-amber-800 ring-1 ring-amber-200"
          >
            <span aria-hidden>⚠</span>
            <span className="sr-only">Collides with </span>
            {collisions.map((c) => c.task).join(', ')}
          </span>
        )}
        {task.open_blockers > 0 && (
          <span data-testid="blocked-by" title={`Waiting on ${task.open_blockers} unfinished task${task.open_blockers === 1 ? '' : 's'}`} className="inline-flex items-center gap-0.5 rounded bg-red-50 px-1 text-[10px] font-medium text-red-600 ring-1 ring-red-100">
            <LockIcon className="size-2.5" />
            {task.open_blockers}
          </span>
        )}
        <span className="ml-auto">
          {assignee ? <ActorAvatar name={assignee.display_name} kind={assignee.kind} /> : task.assignee_actor_id ? <ActorAvatar name="?" kind="agent" /> : null}
        </span>
      </div>
      <p className="mt-1 line-clamp-2 text-[13px] leading-snug font-medium text-zinc-800">{task.title}</p>
      {(task.labels.length > 0 || task.criteria_total > 0 || leaseLive || stale || task.due_on) && (
        <div className="mt-1.5 flex flex-wrap items-center gap-1">
          {task.criteria_total > 0 && (
            <span data-testid="criteria" title="Acceptance criteria met" className={`inline-flex items-center gap-0.5 rounded px-1 text-[10px] font-medium ring-1 ${done ? 'bg-emerald-50 text-emerald-700 ring-emerald-100' : 'bg-zinc-50 text-zinc-600 ring-zinc-200'}`}>
              <CheckIcon className="size-2.5" />
              {task.criteria_met}/{task.criteria_total}
            </span>
          )}
          {leaseLive && task.lease && (
            <span data-testid="lease" title={`Claimed by ${leaseHolder?.display_name ?? 'an actor'} until ${new Date(task.lease.expires_at).toLocaleTimeString()}`} className="inline-flex items-center gap-0.5 rounded bg-amber-50 px-1 text-[10px] font-medium text-amber-700 ring-1 ring-amber-100">
              <ClockIcon className="size-2.5" />
              <span className="max-w-[80px] truncate">{leaseHolder?.display_name ?? 'claimed'}</span>· {timeLeft(task.lease.expires_at, now)}
            </span>
          )}
          {stale && (
            <span data-testid="stale" title={leaseLive ? `${leaseHolder?.display_name ?? 'Its holder'} is ${leaseHolder?.status}` : 'The lease lapsed: nobody is working on it'} className="inline-flex items-center gap-1 rounded bg-red-50 px-1 text-[10px] font-medium text-red-700 ring-1 ring-red-100">
              stale
              {onRecover && (
                <button
                  data-testid="recover-task"
                  onPointerDown={(e) => e.stopPropagation()}
                  onClick={(e) => {
                    e.stopPropagation();
                    onRecover(task);
                  }}
                  className="rounded bg-white px-1 text-red-700 ring-1 ring-red-200 hover:bg-red-100"
                >
                  Recover
                </button>
              )}
            </span>
          )}
          {task.due_on && <span className="rounded px-1 text-[10px] text-zinc-500 ring-1 ring-zinc-200">due {task.due_on.slice(5)}</span>}
          {task.labels.map((l) => (
            <span key={l} className="max-w-[120px] truncate rounded bg-zinc-100 px-1.5 text-[10px] text-zinc-600">
              {l}
            </span>
          ))}
        </div>
      )}
    </div>
  );
});
