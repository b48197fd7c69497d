import type { ReactNode } from 'react';
import type { TaskRow } from '@/lib/console/types';
import { LockIcon } from './icons';
import { StatusIcon } from './status-icon';

/** The drawer's building blocks: a titled section, a property row, a link to another task. */

export const selectCls = 'h-7 w-full rounded-md border border-transparent bg-transparent px-1.5 text-[13px] text-zinc-800 hover:border-zinc-200 focus:border-indigo-400 focus:outline-none';

export function Section({ title, right, children, testId }: { title: string; right?: ReactNode; children: ReactNode; testId?: string }) {
  return (
    <section className="border-t border-zinc-100 px-4 py-4 sm:px-5" data-testid={testId}>
      <div className="mb-2 flex items-center gap-2">
        <h3 className="text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">{title}</h3>
        <div className="ml-auto">{right}</div>
      </div>
      {children}
    </section>
  );
}

export function Prop({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="flex h-7 items-center text-[12px] text-zinc-500">{label}</dt>
      <dd className="min-w-0">{children}</dd>
    </>
  );
}

export function TaskLink({ task, onOpen, right }: { task: TaskRow; onOpen: (ref: string) => void; right?: ReactNode }) {
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

/** A remove button that shows on hover and whenever it has keyboard focus. */
export const revealCls = 'rounded p-0.5 text-zinc-500 opacity-0 group-hover:opacity-100 focus-visible:opacity-100 hover:bg-zinc-200';
