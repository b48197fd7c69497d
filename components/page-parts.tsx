import type { ReactNode } from 'react';
import { PlusIcon, SearchIcon } from './icons';

/** The dark "+ New …" button of a page header. */
export function AddButton({ onClick, testId, className = '', children }: { onClick: () => void; testId?: string; className?: string; children: ReactNode }) {
  return (
    <button onClick={onClick} data-testid={testId} className={`inline-flex h-7 items-center gap-1 rounded-md bg-zinc-900 px-2.5 text-[12px] font-medium text-white hover:bg-zinc-800 ${className}`}>
      <PlusIcon className="size-3.5" /> {children}
    </button>
  );
}

/** The dashed box a page shows in place of an empty list: what is missing, then how agents fill it. */
export function EmptyState({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  return (
    <div className="mx-auto mt-10 max-w-lg rounded-xl border border-dashed border-zinc-300 p-6 text-[13px] text-zinc-600" data-testid={testId}>
      <p className="font-medium text-zinc-800">{title}</p>
      {children}
    </div>
  );
}

/** An example tool call, as a code block that scrolls and is reachable by keyboard. */
export function ExampleCall({ label, code }: { label: string; code: string }) {
  return (
    <pre tabIndex={0} aria-label={label} className="mt-2 overflow-x-auto rounded-md bg-zinc-50 p-2 text-[11px] focus-visible:ring-2 focus-visible:ring-indigo-300 focus-visible:outline-none">
      {code}
    </pre>
  );
}

/** The search box of a page header: a magnifier inside a compact text field. */
export function SearchField({ value, onChange, placeholder, label, testId, width }: { value: string; onChange: (q: string) => void; placeholder: string; label: string; testId?: string; width: string }) {
  return (
    <div className="relative ml-4">
      <SearchIcon className="pointer-events-none absolute top-1/2 left-2 size-3.5 -translate-y-1/2 text-zinc-500" />
      <input value={value} onChange={(e) => onChange(e.target.value)} placeholder={placeholder} aria-label={label} data-testid={testId} className={`h-7 ${width} rounded-md border border-zinc-200 pr-2 pl-7 text-[12px] focus:border-indigo-400 focus:outline-none`} />
    </div>
  );
}
