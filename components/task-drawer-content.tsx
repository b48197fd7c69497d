'use client';

import { useState } from 'react';
import type { Criterion, TaskRow } from '@/lib/console/types';
import { AddOnEnterInput } from './form-parts';
import { XIcon } from './icons';
import { Markdown } from './markdown';
import { Section, revealCls } from './task-drawer-parts';

type Update = (task: TaskRow, patch: Record<string, unknown>) => Promise<boolean>;

/** The title: a heading that turns into a field on click (or Enter when focused); Enter saves, Esc keeps. */
export function TaskTitle({ task: t, update }: { task: TaskRow; update: Update }) {
  const [editing, setEditing] = useState(false);
  if (editing) {
    return (
      <input
        autoFocus
        defaultValue={t.title}
        aria-label="Title"
        maxLength={500}
        onBlur={(e) => {
          setEditing(false);
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
    );
  }
  return (
    <h2
      onClick={() => setEditing(true)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          setEditing(true);
        }
      }}
      tabIndex={0}
      className="-mx-1.5 cursor-text rounded-md px-1.5 py-0.5 text-[17px] leading-snug font-semibold break-words hover:bg-zinc-50 focus-visible:ring-2 focus-visible:ring-indigo-300 focus-visible:outline-none"
      data-testid="drawer-title"
      title="Click to edit"
    >
      {t.title}
    </h2>
  );
}

/** The description in Markdown, edited as text (⌘/Ctrl-Enter saves). */
export function TaskDescription({ task: t, update }: { task: TaskRow & { body: string }; update: Update }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(t.body);
  const save = () => {
    setEditing(false);
    void update(t, { body: draft });
  };
  return (
    <Section
      title="Description"
      right={
        !editing && (
          <button onClick={() => (setDraft(t.body), setEditing(true))} className="text-[12px] text-zinc-500 hover:text-zinc-800">
            Edit
          </button>
        )
      }
    >
      {editing ? (
        <div>
          <textarea
            autoFocus
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => e.key === 'Enter' && (e.metaKey || e.ctrlKey) && save()}
            rows={8}
            aria-label="Description"
            className="w-full rounded-md border border-zinc-200 p-2.5 font-mono text-[12px] leading-relaxed focus:border-indigo-400 focus:outline-none"
          />
          <div className="mt-2 flex justify-end gap-2">
            <button onClick={() => setEditing(false)} className="h-7 rounded-md px-2.5 text-[12px] text-zinc-600 hover:bg-zinc-100">
              Cancel
            </button>
            <button onClick={save} className="h-7 rounded-md bg-zinc-900 px-2.5 text-[12px] font-medium text-white hover:bg-zinc-800">
              Save
            </button>
          </div>
        </div>
      ) : t.body.trim() ? (
        <Markdown text={t.body} />
      ) : (
        <button onClick={() => (setDraft(''), setEditing(true))} className="text-[13px] text-zinc-500 hover:text-zinc-700">
          Add a description…
        </button>
      )}
    </Section>
  );
}

/** The acceptance criteria: tick, remove, add. They gate Done. */
export function TaskCriteria({ task: t, update }: { task: TaskRow & { acceptance_criteria: Criterion[] }; update: Update }) {
  const setCriteria = (list: Criterion[]) => update(t, { acceptance_criteria: list });
  return (
    <Section title="Acceptance criteria" testId="drawer-criteria" right={t.criteria_total > 0 && <span className="text-[12px] text-zinc-500">{t.criteria_met}/{t.criteria_total} met</span>}>
      {t.acceptance_criteria.length === 0 && <p className="mb-1.5 text-[12px] text-zinc-500">No checklist: the task can be closed any time. Add criteria to gate Done.</p>}
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
            <span className={`flex-1 text-[13px] ${c.met ? 'text-zinc-500 line-through' : 'text-zinc-800'}`}>{c.text}</span>
            <button onClick={() => void setCriteria(t.acceptance_criteria.filter((_, j) => j !== i))} className={revealCls} aria-label={`Remove criterion ${c.text}`}>
              <XIcon className="size-3" />
            </button>
          </li>
        ))}
      </ul>
      <AddOnEnterInput
        onAdd={(text) => void setCriteria([...t.acceptance_criteria, { text, met: false }])}
        placeholder="Add a criterion and press Enter"
        aria-label="Add criterion"
        className="mt-1 h-7 w-full rounded-md px-1 text-[13px] placeholder:text-zinc-500 focus:bg-zinc-50 focus:outline-none"
      />
    </Section>
  );
}
