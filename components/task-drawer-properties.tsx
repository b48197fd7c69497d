'use client';

import { timeLeft } from '@/lib/console/format';
import { type Actor, type ReviewState, type TaskDetail, type TaskRow, type TaskStatus } from '@/lib/console/types';
import { ActorAvatar } from './actor-avatar';
import { useMe } from './console-providers';
import { AddOnEnterInput, PriorityOptions, StatusOptions } from './form-parts';
import { ClockIcon, XIcon } from './icons';
import { PriorityIcon, StatusIcon } from './status-icon';
import { Prop, selectCls } from './task-drawer-parts';
import { TimeAgo } from './time-ago';

type Update = (task: TaskRow, patch: Record<string, unknown>) => Promise<boolean>;

/** The task's properties as editable rows: status, priority, people, review, due date, labels, claim. */
export function TaskProperties({
  detail,
  actors,
  now,
  update,
  move,
}: {
  detail: TaskDetail;
  actors: { data?: Actor[]; byId: Map<string, Actor> };
  now: number;
  update: Update;
  move: (task: TaskRow, to: TaskStatus) => Promise<boolean>;
}) {
  const t = detail.task;
  const name = (id: string | null | undefined) => (id ? (actors.byId.get(id)?.display_name ?? 'someone') : 'nobody');
  const leaseLive = !!t.lease && new Date(t.lease.expires_at).getTime() > now;
  return (
    <dl className="mt-3 grid grid-cols-[96px_1fr] gap-x-3 gap-y-0.5">
      <Prop label="Status">
        <div className="flex items-center gap-1">
          <StatusIcon status={t.status} />
          <select aria-label="Status" data-testid="drawer-status" value={t.status} onChange={(e) => void move(t, e.target.value as TaskStatus)} className={selectCls}>
            <StatusOptions />
          </select>
        </div>
      </Prop>
      <Prop label="Priority">
        <div className="flex items-center gap-1">
          <PriorityIcon priority={t.priority} />
          <select aria-label="Priority" value={t.priority} onChange={(e) => void update(t, { priority: Number(e.target.value) })} className={selectCls}>
            <PriorityOptions />
          </select>
        </div>
      </Prop>
      <Prop label="Assignee">
        <AssigneeSelect value={t.assignee_actor_id} actors={actors.data ?? []} onChange={(v) => void update(t, { assignee_actor_id: v })} />
      </Prop>
      <Prop label="Reviewer">
        <AssigneeSelect label="Reviewer" testId="drawer-reviewer" empty="No review needed" value={t.reviewer_actor_id} actors={actors.data ?? []} onChange={(v) => void update(t, { reviewer_actor_id: v })} />
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
          className={`${selectCls} ${t.due_on ? '' : 'text-zinc-500'}`}
        />
      </Prop>
      <Prop label="Labels">
        <LabelEditor task={t} update={update} />
      </Prop>
      <Prop label="Meta">
        <MetaEditor task={t} update={update} />
      </Prop>
      <Prop label="Claim">
        <div className="flex h-7 items-center gap-1.5 px-1.5 text-[13px]" data-testid="drawer-lease">
          {leaseLive && t.lease ? (
            <>
              <ClockIcon className="size-3.5 text-amber-600" />
              <span>{name(t.lease.actor_id)}</span>
              <span className="text-zinc-500">· {timeLeft(t.lease.expires_at, now)}</span>
            </>
          ) : t.status === 'skipped' ? (
            <span className="text-zinc-500" data-testid="drawer-skipped">Skipped: its dependents treat it as resolved, as if done</span>
          ) : (
            <span className="text-zinc-500">{t.ready ? 'Ready to claim' : t.open_blockers ? `Waiting on ${t.open_blockers} task${t.open_blockers === 1 ? '' : 's'}` : 'Not claimed'}</span>
          )}
        </div>
      </Prop>
      <Prop label="Created">
        <p className="flex h-7 items-center px-1.5 text-[13px] text-zinc-600">
          {name(t.created_by_actor_id)} · <TimeAgo at={t.created_at} now={now} className="ml-1" />
        </p>
      </Prop>
    </dl>
  );
}

/** The task's labels, each removable, and a field that adds one on Enter. */
function LabelEditor({ task: t, update }: { task: TaskRow; update: Update }) {
  return (
    <div className="flex min-h-7 flex-wrap items-center gap-1 px-1.5">
      {t.labels.map((l) => (
        <span key={l} className="inline-flex items-center gap-0.5 rounded bg-zinc-100 py-px pr-0.5 pl-1.5 text-[11px] text-zinc-700">
          {l}
          <button onClick={() => void update(t, { labels: t.labels.filter((x) => x !== l) })} className="rounded p-px text-zinc-500 hover:bg-zinc-200" aria-label={`Remove label ${l}`}>
            <XIcon className="size-2.5" />
          </button>
        </span>
      ))}
      <AddOnEnterInput
        onAdd={(l) => {
          if (!t.labels.includes(l)) void update(t, { labels: [...t.labels, l] });
        }}
        placeholder={t.labels.length ? '+' : 'Add label…'}
        aria-label="Add label"
        className="h-6 w-24 min-w-0 flex-1 bg-transparent text-[12px] placeholder:text-zinc-500 focus:outline-none"
      />
    </div>
  );
}

/** A metadata value as a person reads it: strings bare, anything else as JSON. */
const metaText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** "key=value" → [key, value]; the value is JSON when it parses (3, true, {"a":1}), else the text. */
function parseMetaEntry(s: string): [string, unknown] | null {
  const at = s.indexOf('=');
  if (at <= 0) return null;
  const key = s.slice(0, at).trim();
  const raw = s.slice(at + 1).trim();
  if (!key) return null;
  try {
    return [key, JSON.parse(raw)];
  } catch {
    return [key, raw];
  }
}

/**
 * The task's metadata as a key/value list: each pair removable (a merge with null drops the key),
 * and a field that sets one on Enter ("team=infra"; a key already there is replaced).
 */
function MetaEditor({ task: t, update }: { task: TaskRow; update: Update }) {
  const entries = Object.entries(t.meta ?? {});
  return (
    <div className="flex min-h-7 flex-col gap-0.5 px-1.5 py-0.5" data-testid="drawer-meta">
      {entries.map(([k, v]) => (
        <div key={k} className="group flex items-center gap-1.5 text-[12px]" data-meta-key={k}>
          <span className="font-mono text-zinc-500">{k}</span>
          <span className="min-w-0 flex-1 truncate font-mono text-zinc-800" title={metaText(v)}>{metaText(v)}</span>
          <button onClick={() => void update(t, { meta: { [k]: null } })} className="rounded p-px text-zinc-500 hover:bg-zinc-200" aria-label={`Remove ${k}`}>
            <XIcon className="size-2.5" />
          </button>
        </div>
      ))}
      <AddOnEnterInput
        onAdd={(s) => {
          const pair = parseMetaEntry(s);
          if (pair) void update(t, { meta: { [pair[0]]: pair[1] } });
        }}
        placeholder={entries.length ? '+ key=value' : 'Add key=value…'}
        aria-label="Add metadata"
        className="h-6 w-full min-w-0 bg-transparent text-[12px] placeholder:text-zinc-500 focus:outline-none"
      />
    </div>
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
