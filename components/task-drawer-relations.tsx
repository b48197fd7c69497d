'use client';

import { useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { addCommentAction } from '@/lib/console/actions';
import { uid, viaAction } from '@/lib/console/client/api';
import { refreshTasks } from '@/lib/console/client/cache';
import { writeTool } from '@/lib/console/client/mutations';
import { useToast } from '@/lib/console/client/toast';
import type { TaskDetail } from '@/lib/console/types';
import { CommentComposer, CommentItems } from './comment-thread';
import { PlusIcon, XIcon } from './icons';
import { Section, TaskLink, revealCls } from './task-drawer-parts';
import { TaskPicker } from './task-picker';

/** Parent, what the task waits on (add and remove), what waits on it, and its subtasks. */
export function TaskRelations({ detail, onOpenTask }: { detail: TaskDetail; onOpenTask: (ref: string) => void }) {
  const t = detail.task;
  const qc = useQueryClient();
  const toast = useToast();
  const [adding, setAdding] = useState(false);
  const link = async (input: Record<string, unknown>, touched: string[]) => {
    try {
      const res = await writeTool<{ cycle_rejected: { reason: string }[] }>('task_link', { task_id: t.id, ...input });
      if (res.cycle_rejected?.length) toast.error(new Error(`Not linked: ${res.cycle_rejected[0].reason}`));
      await refreshTasks(qc, [t.id, ...touched]);
    } catch (err) {
      toast.error(err);
    }
  };
  return (
    <Section
      title="Relations"
      right={
        <button onClick={() => setAdding((v) => !v)} aria-expanded={adding} className="inline-flex items-center gap-0.5 text-[12px] text-zinc-500 hover:text-zinc-800">
          <PlusIcon className="size-3" /> Blocked by
        </button>
      }
    >
      {adding && (
        <div className="mb-3">
          <TaskPicker
            projectId={t.project_id}
            value={[]}
            exclude={[t.id, ...detail.blockers.map((b) => b.id)]}
            onChange={(v) => {
              setAdding(false);
              if (v[0]) void link({ add_depends_on: [v[0].id] }, [v[0].id]);
            }}
            multiple={false}
            placeholder="This task waits on… (search)"
          />
        </div>
      )}
      {detail.parent && (
        <div className="mb-2">
          <p className="mb-0.5 text-[11px] font-medium text-zinc-500">Parent</p>
          <ul>
            <TaskLink task={detail.parent} onOpen={onOpenTask} />
          </ul>
        </div>
      )}
      <div className="mb-2" data-testid="drawer-blockers">
        <p className="mb-0.5 text-[11px] font-medium text-zinc-500">Blocked by {detail.blockers.length ? `(${detail.blockers.filter((b) => b.status !== 'done').length} open)` : ''}</p>
        {detail.blockers.length === 0 ? (
          <p className="px-1.5 text-[12px] text-zinc-500">Nothing: this task waits on no other work.</p>
        ) : (
          <ul>
            {detail.blockers.map((b) => (
              <TaskLink
                key={b.id}
                task={b}
                onOpen={onOpenTask}
                right={
                  <button onClick={() => void link({ remove_depends_on: [b.id] }, [b.id])} className={revealCls} aria-label={`Remove dependency on ${b.ref}`}>
                    <XIcon className="size-3" />
                  </button>
                }
              />
            ))}
          </ul>
        )}
      </div>
      <div className="mb-2" data-testid="drawer-dependents">
        <p className="mb-0.5 text-[11px] font-medium text-zinc-500">Blocks</p>
        {detail.dependents.length === 0 ? <p className="px-1.5 text-[12px] text-zinc-500">No task waits on this one.</p> : <ul>{detail.dependents.map((d) => <TaskLink key={d.id} task={d} onOpen={onOpenTask} />)}</ul>}
      </div>
      <div data-testid="drawer-subtasks">
        <p className="mb-0.5 text-[11px] font-medium text-zinc-500">Subtasks</p>
        {detail.subtasks.length === 0 ? <p className="px-1.5 text-[12px] text-zinc-500">None. Create one with a parent in the new-task form.</p> : <ul>{detail.subtasks.map((s) => <TaskLink key={s.id} task={s} onOpen={onOpenTask} />)}</ul>}
      </div>
    </Section>
  );
}

/** The handoffs about this task, with who sent them to whom and where each stands. */
export function TaskHandoffs({ detail }: { detail: TaskDetail }) {
  if (!detail.handoffs?.length) return null;
  return (
    <Section title={`Handoffs (${detail.handoffs.length})`} testId="drawer-handoffs" right={<Link href="/inbox" className="text-[11px] text-indigo-600 hover:underline">Inbox</Link>}>
      <ul className="space-y-1">
        {detail.handoffs.map((h) => (
          <li key={h.id} className="flex flex-wrap items-center gap-x-2 rounded-md px-1.5 py-1 text-[13px] hover:bg-zinc-50" data-testid="drawer-handoff" data-status={h.status}>
            <span className="rounded bg-zinc-100 px-1 text-[10px] font-medium text-zinc-600 uppercase">{h.kind}</span>
            <span className="min-w-0 flex-1 truncate text-zinc-800">{h.title}</span>
            <span className="shrink-0 text-[11px] text-zinc-500">
              {h.from.display_name} → {h.to.map((a) => a.display_name).join(', ')}
            </span>
            <span className="shrink-0 text-[11px] text-zinc-500">
              {h.status === 'open' ? 'open' : h.status === 'claimed' ? `claimed by ${h.claimed_by?.display_name}` : `answered${h.response?.chosen_option ? `: ${h.response.chosen_option}` : ''}`}
            </span>
          </li>
        ))}
      </ul>
    </Section>
  );
}

/** Decisions and notes that cite this task. */
export function TaskMemory({ detail }: { detail: TaskDetail }) {
  if (detail.decisions.length === 0 && detail.notes.length === 0) return null;
  return (
    <Section title="Memory" testId="drawer-memory">
      <ul className="space-y-1 text-[13px]">
        {detail.decisions.map((d) => (
          <li key={d.id}>
            <a href={`/decisions?d=${d.id}`} className={`hover:underline ${d.status === 'superseded' ? 'text-zinc-500 line-through' : 'text-zinc-800'}`}>
              <span className="mr-1.5 text-[10px] font-medium tracking-wide text-zinc-500 uppercase">Decision</span>
              {d.title}
            </a>
            <span className="ml-1.5 text-[11px] text-zinc-500">{d.status}</span>
          </li>
        ))}
        {detail.notes.map((n) => (
          <li key={n.id}>
            <a href={`/knowledge?note=${n.id}`} className="text-zinc-800 hover:underline">
              <span className="mr-1.5 text-[10px] font-medium tracking-wide text-zinc-500 uppercase">{n.kind}</span>
              {n.title}
            </a>
          </li>
        ))}
      </ul>
    </Section>
  );
}

/** The task's comment thread; agents read it with task_get. */
export function TaskComments({ detail, now }: { detail: TaskDetail; now: number }) {
  const qc = useQueryClient();
  const onSend = async (body: string) => {
    await viaAction(addCommentAction({ object_type: 'task', object_id: detail.task.id, body, idempotency_key: `console:${uid()}` }));
    await refreshTasks(qc, [detail.task.id]);
  };
  return (
    <Section title={`Comments${detail.comments.length ? ` (${detail.comments.length})` : ''}`} testId="drawer-comments">
      <CommentItems comments={detail.comments} now={now} />
      <CommentComposer onSend={onSend} placeholder="Leave a comment — agents read these with task_get" spaced={detail.comments.length > 0} />
    </Section>
  );
}
