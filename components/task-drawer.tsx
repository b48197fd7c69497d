'use client';

import { useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { addCommentAction } from '@/lib/console/actions';
import { uid, viaAction } from '@/lib/console/client/api';
import { refreshTasks } from '@/lib/console/client/cache';
import { useActors, useTask } from '@/lib/console/client/hooks';
import { useLiveChanges } from '@/lib/console/client/live';
import { useMoveTask, useUpdateTask, writeTool } from '@/lib/console/client/mutations';
import { typingIn, useNow } from '@/lib/console/client/use-now';
import { timeAgo, timeLeft, verbText } from '@/lib/console/format';
import { PRIORITY_LABEL, STATUSES, STATUS_LABEL, type Actor, type Criterion, type ReviewState, type TaskDetail, type TaskRow, type TaskStatus } from '@/lib/console/types';
import { ActorAvatar } from './actor-avatar';
import { CommentComposer, CommentItems } from './comment-thread';
import { useMe } from './console-providers';
import { ClockIcon, CommentIcon, LinkIcon, LockIcon, PlusIcon, XIcon } from './icons';
import { Markdown } from './markdown';
import { Skeleton } from './skeleton';
import { PriorityIcon, StatusIcon } from './status-icon';
import { TaskPicker } from './task-picker';
import { TaskProvenance, useFileDrop, useTaskUpload } from './task-provenance';
import { useToast } from '@/lib/console/client/toast';

const selectCls = 'h-7 w-full rounded-md border border-transparent bg-transparent px-1.5 text-[13px] text-zinc-800 hover:border-zinc-200 focus:border-indigo-400 focus:outline-none';

function Section({ title, right, children, testId }: { title: string; right?: ReactNode; children: ReactNode; testId?: string }) {
  return (
    <section className="border-t border-zinc-100 px-5 py-4" data-testid={testId}>
      <div className="mb-2 flex items-center gap-2">
        <h3 className="text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">{title}</h3>
        <div className="ml-auto">{right}</div>
      </div>
      {children}
    </section>
  );
}

function Prop({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="flex h-7 items-center text-[12px] text-zinc-500">{label}</dt>
      <dd className="min-w-0">{children}</dd>
    </>
  );
}

function TaskLink({ task, onOpen, right }: { task: TaskRow; onOpen: (ref: string) => void; right?: ReactNode }) {
  return (
    <li className="group flex items-center gap-2 rounded-md px-1.5 py-1 hover:bg-zinc-50">
      <StatusIcon status={task.status} className="size-3" />
      <button onClick={() => onOpen(task.ref)} className="flex min-w-0 flex-1 items-center gap-2 text-left">
        <span className="font-mono text-[11px] text-zinc-500">{task.ref}</span>
        <span className="truncate text-[13px] text-zinc-800">{task.title}</span>
      </button>
      {task.open_blockers > 0 && <LockIcon className="size-3 text-red-500" />}
      {right}
    </li>
  );
}

/** The task drawer (task_get): read and steer one task without leaving the board. */
export function TaskDrawer({ taskRef, onClose, onOpenTask }: { taskRef: string; onClose: () => void; onOpenTask: (ref: string) => void }) {
  const q = useTask(taskRef);
  const panel = useRef<HTMLDivElement>(null);

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
      ref={panel}
      role="complementary"
      aria-label="Task details"
      data-testid="task-drawer"
      className="fixed top-0 right-0 bottom-0 z-40 flex w-[600px] max-w-[92vw] flex-col border-l border-zinc-200 bg-white shadow-2xl shadow-zinc-900/10"
    >
      {q.isError ? (
        <div className="p-6">
          <div className="flex items-center justify-between">
            <p className="text-sm font-semibold">No task {taskRef} here</p>
            <button onClick={onClose} className="rounded p-1 text-zinc-400 hover:bg-zinc-100" aria-label="Close">
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
  const toast = useToast();
  const qc = useQueryClient();
  const now = useNow(15_000);
  const [editingTitle, setEditingTitle] = useState(false);
  const [editingBody, setEditingBody] = useState(false);
  const [bodyDraft, setBodyDraft] = useState(t.body);
  const [labelDraft, setLabelDraft] = useState('');
  const [criterionDraft, setCriterionDraft] = useState('');
  const [addingDep, setAddingDep] = useState(false);
  const byId = actors.byId;
  const name = (id: string | null | undefined) => (id ? (byId.get(id)?.display_name ?? 'someone') : 'nobody');
  const leaseLive = !!t.lease && new Date(t.lease.expires_at).getTime() > now;
  const upload = useTaskUpload(t.id);
  const drop = useFileDrop((files) => void upload.upload(files));
  // a review answered (or any handoff about this project changing) re-reads the drawer
  const handoffTimer = useRef<number | null>(null);
  useLiveChanges((e) => {
    if (e.object_type !== 'handoff' || e.project_id !== t.project_id || handoffTimer.current) return;
    handoffTimer.current = window.setTimeout(() => {
      handoffTimer.current = null;
      void refreshTasks(qc, [t.id]);
    }, 80);
  });

  const link = async (input: Record<string, unknown>, touched: string[]) => {
    try {
      const res = await writeTool<{ cycle_rejected: { reason: string }[] }>('task_link', { task_id: t.id, ...input });
      if (res.cycle_rejected?.length) toast.error(new Error(`Not linked: ${res.cycle_rejected[0].reason}`));
      await refreshTasks(qc, [t.id, ...touched]);
    } catch (err) {
      toast.error(err);
    }
  };

  const setCriteria = (list: Criterion[]) => update(t, { acceptance_criteria: list });

  return (
    <>
      <div className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-5">
        <StatusIcon status={t.status} />
        <span className="font-mono text-[12px] text-zinc-500" data-testid="drawer-ref">{t.ref}</span>
        <span className="truncate text-[12px] text-zinc-400">in {detail.project.title}</span>
        <button
          onClick={() => {
            void navigator.clipboard?.writeText(`${window.location.origin}/projects/${t.project_key}?task=${t.ref}`);
            toast.success('Link copied');
          }}
          className="ml-auto rounded p-1.5 text-zinc-400 hover:bg-zinc-100 hover:text-zinc-600"
          title="Copy link"
          aria-label="Copy link"
        >
          <LinkIcon className="size-3.5" />
        </button>
        <button onClick={onClose} className="rounded p-1.5 text-zinc-400 hover:bg-zinc-100 hover:text-zinc-600" aria-label="Close drawer" title="Close (Esc)">
          <XIcon className="size-4" />
        </button>
      </div>
      <div className="relative min-h-0 flex-1 overflow-y-auto" data-testid="drawer-drop" {...drop.props}>
        {drop.over && (
          <div className="pointer-events-none absolute inset-2 z-10 flex items-center justify-center rounded-lg border-2 border-dashed border-indigo-400 bg-indigo-50/80 text-[13px] font-medium text-indigo-700" data-testid="drop-overlay">
            Drop to attach to {t.ref}
          </div>
        )}
        <div className="px-5 pt-4 pb-3">
          {editingTitle ? (
            <input
              autoFocus
              defaultValue={t.title}
              aria-label="Title"
              maxLength={500}
              onBlur={(e) => {
                setEditingTitle(false);
                const v = e.target.value.trim();
                if (v && v !== t.title) void update(t, { title: v });
              }}
              onKeyDown={(e) => {
                if (e.key === 'Enter') e.currentTarget.blur();
                if (e.key === 'Escape') {
                  e.currentTarget.value = t.title;
                  e.currentTarget.blur();
                }
              }}
              className="w-full rounded-md border border-indigo-300 px-1.5 py-0.5 text-[17px] font-semibold focus:outline-none"
            />
          ) : (
            <h2 onClick={() => setEditingTitle(true)} className="-mx-1.5 cursor-text rounded-md px-1.5 py-0.5 text-[17px] leading-snug font-semibold hover:bg-zinc-50" data-testid="drawer-title" title="Click to edit">
              {t.title}
            </h2>
          )}
          <dl className="mt-3 grid grid-cols-[96px_1fr] gap-x-3 gap-y-0.5">
            <Prop label="Status">
              <div className="flex items-center gap-1">
                <StatusIcon status={t.status} />
                <select aria-label="Status" data-testid="drawer-status" value={t.status} onChange={(e) => void move(t, e.target.value as TaskStatus)} className={selectCls}>
                  {STATUSES.map((s) => (
                    <option key={s} value={s}>
                      {STATUS_LABEL[s]}
                    </option>
                  ))}
                </select>
              </div>
            </Prop>
            <Prop label="Priority">
              <div className="flex items-center gap-1">
                <PriorityIcon priority={t.priority} />
                <select aria-label="Priority" value={t.priority} onChange={(e) => void update(t, { priority: Number(e.target.value) })} className={selectCls}>
                  {PRIORITY_LABEL.map((p, i) => (
                    <option key={p} value={i}>
                      P{i} · {p}
                    </option>
                  ))}
                </select>
              </div>
            </Prop>
            <Prop label="Assignee">
              <AssigneeSelect value={t.assignee_actor_id} actors={actors.data ?? []} onChange={(v) => void update(t, { assignee_actor_id: v })} />
            </Prop>
            <Prop label="Reviewer">
              <AssigneeSelect
                label="Reviewer"
                testId="drawer-reviewer"
                empty="No review needed"
                value={t.reviewer_actor_id}
                actors={actors.data ?? []}
                onChange={(v) => void update(t, { reviewer_actor_id: v })}
              />
            </Prop>
            {detail.review && (
              <Prop label="Review">
                <ReviewBadge review={detail.review} />
              </Prop>
            )}
            <Prop label="Due">
              <input
                type="date"
                aria-label="Due date"
                value={t.due_on ?? ''}
                onChange={(e) => void update(t, { due_on: e.target.value || null })}
                className={`${selectCls} ${t.due_on ? '' : 'text-zinc-400'}`}
              />
            </Prop>
            <Prop label="Labels">
              <div className="flex min-h-7 flex-wrap items-center gap-1 px-1.5">
                {t.labels.map((l) => (
                  <span key={l} className="inline-flex items-center gap-0.5 rounded bg-zinc-100 py-px pr-0.5 pl-1.5 text-[11px] text-zinc-700">
                    {l}
                    <button onClick={() => void update(t, { labels: t.labels.filter((x) => x !== l) })} className="rounded p-px text-zinc-400 hover:bg-zinc-200" aria-label={`Remove label ${l}`}>
                      <XIcon className="size-2.5" />
                    </button>
                  </span>
                ))}
                <input
                  value={labelDraft}
                  onChange={(e) => setLabelDraft(e.target.value)}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter' && labelDraft.trim()) {
                      e.preventDefault();
                      const l = labelDraft.trim();
                      setLabelDraft('');
                      if (!t.labels.includes(l)) void update(t, { labels: [...t.labels, l] });
                    }
                  }}
                  placeholder={t.labels.length ? '+' : 'Add label…'}
                  aria-label="Add label"
                  className="h-6 w-24 min-w-0 flex-1 bg-transparent text-[12px] placeholder:text-zinc-400 focus:outline-none"
                />
              </div>
            </Prop>
            <Prop label="Claim">
              <div className="flex h-7 items-center gap-1.5 px-1.5 text-[13px]" data-testid="drawer-lease">
                {leaseLive && t.lease ? (
                  <>
                    <ClockIcon className="size-3.5 text-amber-600" />
                    <span>{name(t.lease.actor_id)}</span>
                    <span className="text-zinc-400">· {timeLeft(t.lease.expires_at, now)}</span>
                  </>
                ) : (
                  <span className="text-zinc-400">{t.ready ? 'Ready to claim' : t.open_blockers ? `Waiting on ${t.open_blockers} task${t.open_blockers === 1 ? '' : 's'}` : 'Not claimed'}</span>
                )}
              </div>
            </Prop>
            <Prop label="Created">
              <p className="flex h-7 items-center px-1.5 text-[13px] text-zinc-600">
                {name(t.created_by_actor_id)} · {timeAgo(t.created_at, now)}
              </p>
            </Prop>
          </dl>
        </div>

        <Section
          title="Description"
          right={
            !editingBody && (
              <button onClick={() => (setBodyDraft(t.body), setEditingBody(true))} className="text-[12px] text-zinc-500 hover:text-zinc-800">
                Edit
              </button>
            )
          }
        >
          {editingBody ? (
            <div>
              <textarea
                autoFocus
                value={bodyDraft}
                onChange={(e) => setBodyDraft(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
                    setEditingBody(false);
                    void update(t, { body: bodyDraft });
                  }
                }}
                rows={8}
                aria-label="Description"
                className="w-full rounded-md border border-zinc-200 p-2.5 font-mono text-[12px] leading-relaxed focus:border-indigo-400 focus:outline-none"
              />
              <div className="mt-2 flex justify-end gap-2">
                <button onClick={() => setEditingBody(false)} className="h-7 rounded-md px-2.5 text-[12px] text-zinc-600 hover:bg-zinc-100">
                  Cancel
                </button>
                <button
                  onClick={() => {
                    setEditingBody(false);
                    void update(t, { body: bodyDraft });
                  }}
                  className="h-7 rounded-md bg-zinc-900 px-2.5 text-[12px] font-medium text-white hover:bg-zinc-800"
                >
                  Save
                </button>
              </div>
            </div>
          ) : t.body.trim() ? (
            <Markdown text={t.body} />
          ) : (
            <button onClick={() => (setBodyDraft(''), setEditingBody(true))} className="text-[13px] text-zinc-400 hover:text-zinc-600">
              Add a description…
            </button>
          )}
        </Section>

        <Section
          title="Acceptance criteria"
          testId="drawer-criteria"
          right={t.criteria_total > 0 && <span className="text-[12px] text-zinc-500">{t.criteria_met}/{t.criteria_total} met</span>}
        >
          {t.acceptance_criteria.length === 0 && <p className="mb-1.5 text-[12px] text-zinc-400">No checklist: the task can be closed any time. Add criteria to gate Done.</p>}
          <ul className="space-y-0.5">
            {t.acceptance_criteria.map((c, i) => (
              <li key={i} className="group flex items-start gap-2 rounded-md px-1 py-1 hover:bg-zinc-50">
                <input
                  type="checkbox"
                  checked={c.met}
                  aria-label={c.text}
                  data-testid="criterion"
                  onChange={() => void setCriteria(t.acceptance_criteria.map((x, j) => (j === i ? { ...x, met: !x.met } : x)))}
                  className="mt-0.5 size-3.5 cursor-pointer accent-emerald-600"
                />
                <span className={`flex-1 text-[13px] ${c.met ? 'text-zinc-400 line-through' : 'text-zinc-800'}`}>{c.text}</span>
                <button
                  onClick={() => void setCriteria(t.acceptance_criteria.filter((_, j) => j !== i))}
                  className="invisible rounded p-0.5 text-zinc-400 group-hover:visible hover:bg-zinc-200"
                  aria-label={`Remove criterion ${c.text}`}
                >
                  <XIcon className="size-3" />
                </button>
              </li>
            ))}
          </ul>
          <input
            value={criterionDraft}
            onChange={(e) => setCriterionDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && criterionDraft.trim()) {
                e.preventDefault();
                void setCriteria([...t.acceptance_criteria, { text: criterionDraft.trim(), met: false }]);
                setCriterionDraft('');
              }
            }}
            placeholder="Add a criterion and press Enter"
            aria-label="Add criterion"
            className="mt-1 h-7 w-full rounded-md px-1 text-[13px] placeholder:text-zinc-400 focus:bg-zinc-50 focus:outline-none"
          />
        </Section>

        <Section
          title="Relations"
          right={
            <button onClick={() => setAddingDep((v) => !v)} className="inline-flex items-center gap-0.5 text-[12px] text-zinc-500 hover:text-zinc-800">
              <PlusIcon className="size-3" /> Blocked by
            </button>
          }
        >
          {addingDep && (
            <div className="mb-3">
              <TaskPicker
                projectId={t.project_id}
                value={[]}
                exclude={[t.id, ...detail.blockers.map((b) => b.id)]}
                onChange={(v) => {
                  setAddingDep(false);
                  if (v[0]) void link({ add_depends_on: [v[0].id] }, [v[0].id]);
                }}
                multiple={false}
                placeholder="This task waits on… (search)"
              />
            </div>
          )}
          {detail.parent && (
            <div className="mb-2">
              <p className="mb-0.5 text-[11px] font-medium text-zinc-400">Parent</p>
              <ul>
                <TaskLink task={detail.parent} onOpen={onOpenTask} />
              </ul>
            </div>
          )}
          <div className="mb-2" data-testid="drawer-blockers">
            <p className="mb-0.5 text-[11px] font-medium text-zinc-400">Blocked by {detail.blockers.length ? `(${detail.blockers.filter((b) => b.status !== 'done').length} open)` : ''}</p>
            {detail.blockers.length === 0 ? (
              <p className="px-1.5 text-[12px] text-zinc-400">Nothing: this task waits on no other work.</p>
            ) : (
              <ul>
                {detail.blockers.map((b) => (
                  <TaskLink
                    key={b.id}
                    task={b}
                    onOpen={onOpenTask}
                    right={
                      <button onClick={() => void link({ remove_depends_on: [b.id] }, [b.id])} className="invisible rounded p-0.5 text-zinc-400 group-hover:visible hover:bg-zinc-200" aria-label={`Remove dependency on ${b.ref}`}>
                        <XIcon className="size-3" />
                      </button>
                    }
                  />
                ))}
              </ul>
            )}
          </div>
          <div className="mb-2" data-testid="drawer-dependents">
            <p className="mb-0.5 text-[11px] font-medium text-zinc-400">Blocks</p>
            {detail.dependents.length === 0 ? <p className="px-1.5 text-[12px] text-zinc-400">No task waits on this one.</p> : <ul>{detail.dependents.map((d) => <TaskLink key={d.id} task={d} onOpen={onOpenTask} />)}</ul>}
          </div>
          <div data-testid="drawer-subtasks">
            <p className="mb-0.5 text-[11px] font-medium text-zinc-400">Subtasks</p>
            {detail.subtasks.length === 0 ? <p className="px-1.5 text-[12px] text-zinc-400">None. Create one with a parent in the new-task form.</p> : <ul>{detail.subtasks.map((s) => <TaskLink key={s.id} task={s} onOpen={onOpenTask} />)}</ul>}
          </div>
        </Section>

        <TaskProvenance
          detail={detail}
          now={now}
          upload={upload}
          onRequireEvidence={(on) => void update(t, { requires_evidence: on })}
          section={(p) => <Section {...p} />}
        />
        {!!detail.handoffs?.length && (
          <Section title={`Handoffs (${detail.handoffs.length})`} testId="drawer-handoffs" right={<Link href="/inbox" className="text-[11px] text-indigo-600 hover:underline">Inbox</Link>}>
            <ul className="space-y-1">
              {detail.handoffs.map((h) => (
                <li key={h.id} className="flex items-center gap-2 rounded-md px-1.5 py-1 text-[13px] hover:bg-zinc-50" data-testid="drawer-handoff" data-status={h.status}>
                  <span className="rounded bg-zinc-100 px-1 text-[10px] font-medium text-zinc-600 uppercase">{h.kind}</span>
                  <span className="min-w-0 flex-1 truncate text-zinc-800">{h.title}</span>
                  <span className="shrink-0 text-[11px] text-zinc-500">
                    {h.from.display_name} → {h.to.map((a) => a.display_name).join(', ')}
                  </span>
                  <span className="shrink-0 text-[11px] text-zinc-400">
                    {h.status === 'open' ? 'open' : h.status === 'claimed' ? `claimed by ${h.claimed_by?.display_name}` : `answered${h.response?.chosen_option ? `: ${h.response.chosen_option}` : ''}`}
                  </span>
                </li>
              ))}
            </ul>
          </Section>
        )}

        {(detail.decisions.length > 0 || detail.notes.length > 0) && (
          <Section title="Memory" testId="drawer-memory">
            <ul className="space-y-1 text-[13px]">
              {detail.decisions.map((d) => (
                <li key={d.id}>
                  <a href={`/decisions?d=${d.id}`} className={`hover:underline ${d.status === 'superseded' ? 'text-zinc-400 line-through' : 'text-zinc-800'}`}>
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
        )}

        <Comments detail={detail} now={now} />

        <Section title="Activity" testId="drawer-activity">
          <ol className="relative space-y-2.5 border-l border-zinc-200 pl-4">
            {detail.activity.map((a) => (
              <li key={a.seq} className="text-[12px] leading-snug">
                <span className="absolute -left-[4.5px] mt-1 size-2 rounded-full border border-white bg-zinc-300" />
                <span className="font-medium text-zinc-800">{a.actor ?? 'system'}</span> <span className="text-zinc-600">{verbText(a.verb)}</span>
                {a.summary && <span className="text-zinc-500"> — {a.summary}</span>}
                <span className="ml-1 text-zinc-400">{timeAgo(a.at, now)}</span>
              </li>
            ))}
          </ol>
        </Section>
      </div>
    </>
  );
}

/** Where the task's review stands: "waiting for Ada", "changes requested", "approved". */
function ReviewBadge({ review }: { review: ReviewState }) {
  const [text, tone] =
    review.state === 'approved'
      ? [`Approved by ${review.reviewer}`, 'text-emerald-700']
      : review.state === 'changes_requested'
        ? [`Changes requested by ${review.reviewer}`, 'text-rose-700']
        : review.state === 'waiting'
          ? [`Waiting for ${review.reviewer}`, 'text-amber-700']
          : [`Not requested yet: moving to In review asks ${review.reviewer}`, 'text-zinc-500'];
  return (
    <p className={`flex min-h-7 items-center px-1.5 text-[13px] ${tone}`} data-testid="drawer-review" data-state={review.state} title={review.text ?? undefined}>
      {text}
    </p>
  );
}

function AssigneeSelect({
  value,
  actors,
  onChange,
  label = 'Assignee',
  testId = 'drawer-assignee',
  empty = 'Unassigned',
}: {
  value: string | null;
  actors: Actor[];
  onChange: (v: string | null) => void;
  label?: string;
  testId?: string;
  empty?: string;
}) {
  const me = useMe();
  const current = actors.find((a) => a.id === value);
  return (
    <div className="flex items-center gap-1">
      {current ? <ActorAvatar name={current.display_name} kind={current.kind} size="xs" /> : <span className="size-4" />}
      <select aria-label={label} data-testid={testId} value={value ?? ''} onChange={(e) => onChange(e.target.value || null)} className={selectCls}>
        <option value="">{empty}</option>
        {actors.map((a) => (
          <option key={a.id} value={a.id}>
            {a.display_name}
            {a.id === me.actor_id ? ' (me)' : a.kind === 'agent' ? ' · agent' : ''}
          </option>
        ))}
      </select>
    </div>
  );
}

function Comments({ detail, now }: { detail: TaskDetail; now: number }) {
  const qc = useQueryClient();
  const toast = useToast();
  const onSend = async (body: string) => {
    try {
      await viaAction(addCommentAction({ object_type: 'task', object_id: detail.task.id, body, idempotency_key: `console:${uid()}` }));
      await refreshTasks(qc, [detail.task.id]);
      return true;
    } catch (err) {
      toast.error(err);
      return false;
    }
  };
  return (
    <Section title={`Comments${detail.comments.length ? ` (${detail.comments.length})` : ''}`} testId="drawer-comments">
      <CommentItems comments={detail.comments} now={now} />
      <CommentComposer onSend={onSend} placeholder="Leave a comment — agents read these with task_get" spaced={detail.comments.length > 0} />
    </Section>
  );
}

