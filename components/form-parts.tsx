'use client';

import { useState, type FormEvent, type InputHTMLAttributes, type KeyboardEvent, type ReactNode } from 'react';
import { useToast } from '@/lib/console/client/toast';
import { PRIORITY_LABEL, STATUSES, STATUS_LABEL } from '@/lib/console/types';
import { XIcon } from './icons';

/** The text field of a dialog form. */
export const fieldCls = 'w-full rounded-md border border-zinc-200 px-2.5 text-[13px] placeholder:text-zinc-400 focus:border-indigo-400 focus:outline-none';
/** The caption above a form field. */
export const fieldLabelCls = 'mb-1 block text-[12px] font-medium text-zinc-600';
/** The compact select of a page header or filter bar. */
export const filterSelectCls = 'h-7 rounded-md border border-zinc-200 bg-white px-2 text-[12px] text-zinc-700 focus:border-indigo-400 focus:outline-none';

/** A labelled form field: the caption above, the control below. */
export function Field({ label, className = 'block', children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <label className={className}>
      <span className={fieldLabelCls}>{label}</span>
      {children}
    </label>
  );
}

/** A labelled select of a dialog form; its caption is also its accessible name. */
export function SelectField({ label, value, onChange, children }: { label: string; value: string | number; onChange: (value: string) => void; children: ReactNode }) {
  return (
    <Field label={label}>
      <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)} className={`${fieldCls} h-8`}>
        {children}
      </select>
    </Field>
  );
}

/** The × that closes a dialog. */
export function CloseButton({ onClose }: { onClose: () => void }) {
  return (
    <button type="button" onClick={onClose} className="ml-auto rounded p-1 text-zinc-500 hover:bg-zinc-100" aria-label="Close">
      <XIcon className="size-3.5" />
    </button>
  );
}

/** A dialog that is a form: a dimmed backdrop that closes it on click, a header with a close button, then the body. */
export function ModalForm({
  label,
  heading,
  onClose,
  onSubmit,
  onKeyDown,
  testId,
  className,
  top = 'pt-[8vh]',
  children,
}: {
  label: string;
  heading: ReactNode;
  onClose: () => void;
  onSubmit: (e: FormEvent) => void;
  onKeyDown?: (e: KeyboardEvent<HTMLFormElement>) => void;
  testId?: string;
  /** the form's width and height limits */
  className: string;
  top?: string;
  children: ReactNode;
}) {
  return (
    <div className={`fixed inset-0 z-50 flex items-start justify-center bg-zinc-900/25 ${top} backdrop-blur-[1px]`} onMouseDown={onClose}>
      <form role="dialog" aria-label={label} data-testid={testId} onSubmit={onSubmit} onKeyDown={onKeyDown} onMouseDown={(e) => e.stopPropagation()} className={`rounded-xl border border-zinc-200 bg-white shadow-2xl ${className}`}>
        <div className="flex items-center gap-2 border-b border-zinc-100 px-4 py-2.5">
          {heading}
          <CloseButton onClose={onClose} />
        </div>
        {children}
      </form>
    </div>
  );
}

/** A form's Cancel and submit buttons, right-aligned, with an optional hint on the left. */
export function FormActions({
  onCancel,
  submitLabel,
  disabled,
  testId,
  hint,
  className = '',
}: {
  onCancel: () => void;
  submitLabel: ReactNode;
  disabled: boolean;
  testId?: string;
  hint?: string;
  className?: string;
}) {
  return (
    <div className={`flex items-center justify-end gap-2 ${className}`}>
      {hint && <span className="mr-auto text-[11px] text-zinc-500">{hint}</span>}
      <button type="button" onClick={onCancel} className="h-8 rounded-md px-3 text-[13px] text-zinc-600 hover:bg-zinc-100">
        Cancel
      </button>
      <button type="submit" disabled={disabled} data-testid={testId} className="h-8 rounded-md bg-zinc-900 px-3 text-[13px] font-medium text-white hover:bg-zinc-800 disabled:opacity-40">
        {submitLabel}
      </button>
    </div>
  );
}

/** The options of a project select: the "none" choice first, then each project as "KEY · Title". */
export function ProjectOptions({ projects, none }: { projects: { id: string; key: string; title: string }[] | undefined; none: string }) {
  return (
    <>
      <option value="">{none}</option>
      {projects?.map((p) => (
        <option key={p.id} value={p.id}>
          {p.key} · {p.title}
        </option>
      ))}
    </>
  );
}

/** The options of a select over plain strings, each its own value and label. */
export function TextOptions({ values }: { values: readonly string[] }) {
  return values.map((v) => (
    <option key={v} value={v}>
      {v}
    </option>
  ));
}

/** The task statuses as options, by their people's names. */
export function StatusOptions() {
  return STATUSES.map((s) => (
    <option key={s} value={s}>
      {STATUS_LABEL[s]}
    </option>
  ));
}

/** The priorities as options: "P0 · Urgent" … */
export function PriorityOptions() {
  return PRIORITY_LABEL.map((p, i) => (
    <option key={p} value={i}>
      P{i} · {p}
    </option>
  ));
}

/** A text input that hands its trimmed text to onAdd on Enter and clears itself; empty input does nothing. */
export function AddOnEnterInput({ onAdd, ...props }: Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'onKeyDown'> & { onAdd: (text: string) => void }) {
  const [draft, setDraft] = useState('');
  return (
    <input
      {...props}
      value={draft}
      onChange={(e) => setDraft(e.target.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && draft.trim()) {
          e.preventDefault();
          onAdd(draft.trim());
          setDraft('');
        }
      }}
    />
  );
}

/**
 * A form's submit state: run(work) marks it busy and awaits the work; a refusal is toasted and the form
 * is free again, while success leaves it busy (the form closes or navigates away). submitter(ready, work)
 * is the form's submit handler: it keeps the page from reloading and runs the work only when the form is
 * ready and not already busy (it may also be called with no event, e.g. from ⌘/Ctrl+Enter).
 */
export function useSubmitting() {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await work();
    } catch (err) {
      toast.error(err);
      setBusy(false);
    }
  };
  const submitter = (ready: unknown, work: () => Promise<unknown>) => (e?: FormEvent) => {
    e?.preventDefault();
    if (ready && !busy) void run(work);
  };
  return { busy, run, submitter };
}

/** The compact text input of an inline form (a link, a remote): Enter submits the form's action. */
export function InlineInput({
  value,
  onChange,
  onEnter,
  className,
  ...props
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'onKeyDown'> & { value: string; onChange: (value: string) => void; onEnter: () => void; className: string }) {
  return (
    <input
      {...props}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      onKeyDown={(e) => e.key === 'Enter' && onEnter()}
      className={`h-7 min-w-0 rounded-md border border-zinc-200 px-2 text-[12px] focus:border-indigo-400 focus:outline-none ${className}`}
    />
  );
}
