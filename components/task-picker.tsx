'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { readTool } from '@/lib/console/client/api';
import type { TaskRow } from '@/lib/console/types';
import { XIcon } from './icons';
import { StatusIcon } from './status-icon';

export type PickedTask = Pick<TaskRow, 'id' | 'ref' | 'title' | 'status'>;

function useDebounced<T>(v: T, ms: number): T {
  const [d, setD] = useState(v);
  useEffect(() => {
    const t = window.setTimeout(() => setD(v), ms);
    return () => clearTimeout(t);
  }, [v, ms]);
  return d;
}

/** Search the project's tasks by title or ref and pick some (dependencies, a parent). */
export function TaskPicker({
  projectId,
  value,
  onChange,
  exclude = [],
  multiple = true,
  placeholder = 'Search tasks by title or ref…',
  testId,
}: {
  projectId: string;
  value: PickedTask[];
  onChange: (v: PickedTask[]) => void;
  exclude?: string[];
  multiple?: boolean;
  placeholder?: string;
  testId?: string;
}) {
  const [q, setQ] = useState('');
  const [open, setOpen] = useState(false);
  const dq = useDebounced(q.trim(), 150);
  const results = useQuery({
    queryKey: ['task-search', projectId, dq],
    queryFn: () =>
      readTool<{ tasks: TaskRow[] }>('task_query', {
        project_id: projectId,
        limit: 8,
        ...(dq ? { q: dq } : { status: ['backlog', 'todo', 'in_progress', 'in_review', 'blocked'] }),
      }),
    enabled: open,
    staleTime: 5_000,
  });
  const taken = new Set([...exclude, ...value.map((v) => v.id)]);
  const options = (results.data?.tasks ?? []).filter((t) => !taken.has(t.id));
  const pick = (t: TaskRow) => {
    const p = { id: t.id, ref: t.ref, title: t.title, status: t.status };
    onChange(multiple ? [...value, p] : [p]);
    setQ('');
    if (!multiple) setOpen(false);
  };
  return (
    <div className="relative">
      {value.length > 0 && (
        <div className="mb-1.5 flex flex-wrap gap-1">
          {value.map((v) => (
            <span key={v.id} className="inline-flex max-w-full items-center gap-1 rounded-md border border-zinc-200 bg-zinc-50 py-0.5 pr-1 pl-1.5 text-[12px]">
              <StatusIcon status={v.status} className="size-3" />
              <span className="font-mono text-[11px] text-zinc-500">{v.ref}</span>
              <span className="max-w-[220px] truncate">{v.title}</span>
              <button type="button" onClick={() => onChange(value.filter((x) => x.id !== v.id))} className="rounded p-0.5 text-zinc-500 hover:bg-zinc-200" aria-label={`Remove ${v.ref}`}>
                <XIcon className="size-3" />
              </button>
            </span>
          ))}
        </div>
      )}
      {(multiple || value.length === 0) && (
        <input
          value={q}
          data-testid={testId}
          onChange={(e) => {
            setQ(e.target.value);
            setOpen(true);
          }}
          onFocus={() => setOpen(true)}
          onBlur={() => window.setTimeout(() => setOpen(false), 150)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              if (options[0]) pick(options[0]);
            }
          }}
          placeholder={placeholder}
          className="h-8 w-full rounded-md border border-zinc-200 px-2.5 text-[13px] placeholder:text-zinc-400 focus:border-indigo-400 focus:outline-none"
        />
      )}
      {open && (options.length > 0 || results.isFetching) && (
        <ul role="listbox" className="absolute z-10 mt-1 max-h-64 w-full overflow-y-auto rounded-md border border-zinc-200 bg-white py-1 shadow-lg">
          {results.isFetching && options.length === 0 && <li className="px-2.5 py-1.5 text-[12px] text-zinc-500">Searching…</li>}
          {options.map((t) => (
            <li key={t.id}>
              <button
                type="button"
                role="option"
                aria-selected={false}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => pick(t)}
                className="flex w-full items-center gap-2 px-2.5 py-1.5 text-left text-[13px] hover:bg-zinc-50"
              >
                <StatusIcon status={t.status} className="size-3" />
                <span className="font-mono text-[11px] text-zinc-500">{t.ref}</span>
                <span className="truncate">{t.title}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
