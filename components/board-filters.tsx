'use client';

import { useMemo } from 'react';
import { useColumns } from '@/lib/console/client/hooks';
import { OPEN_COLUMNS, type Actor } from '@/lib/console/types';
import { TextOptions } from './form-parts';
import { SearchIcon, XIcon } from './icons';

export type BoardFilters = { assignee: string; label: string; q: string; readyOnly: boolean; capability: string };
export const NO_FILTERS: BoardFilters = { assignee: 'anyone', label: '', q: '', readyOnly: false, capability: '' };

/** The board's filter bar: text, assignee, label, ready only. Wraps onto two lines on a phone. */
export function FilterBar({
  filters,
  onChange,
  actors,
  searchRef,
  projectId,
}: {
  filters: BoardFilters;
  onChange: (f: BoardFilters) => void;
  actors: Actor[];
  searchRef: React.RefObject<HTMLInputElement | null>;
  projectId: string | undefined;
}) {
  const labels = useBoardLabels(projectId);
  const capabilities = useBoardCapabilities(projectId);
  const active = filters.assignee !== 'anyone' || filters.label || filters.q || filters.readyOnly || filters.capability;
  const selectClass = 'h-7 min-w-0 rounded-md border border-zinc-200 bg-white px-2 text-[12px] text-zinc-700 hover:border-zinc-300 focus:border-indigo-400 focus:outline-none';
  return (
    <div className="flex shrink-0 flex-wrap items-center gap-2 border-b border-zinc-200 px-3 py-2 md:px-4">
      <label className="relative min-w-0 flex-1 md:flex-none">
        <SearchIcon className="pointer-events-none absolute top-1.5 left-2 size-3.5 text-zinc-500" />
        <input
          ref={searchRef}
          value={filters.q}
          onChange={(e) => onChange({ ...filters, q: e.target.value })}
          onKeyDown={(e) => e.key === 'Escape' && (e.currentTarget.blur(), onChange({ ...filters, q: '' }))}
          placeholder="Filter by title or ref"
          aria-label="Filter by text"
          data-testid="filter-text"
          className="h-7 w-full rounded-md border border-zinc-200 bg-white pr-2 pl-7 text-[12px] placeholder:text-zinc-500 focus:border-indigo-400 focus:outline-none md:w-56"
        />
      </label>
      <select aria-label="Assignee" data-testid="filter-assignee" value={filters.assignee} onChange={(e) => onChange({ ...filters, assignee: e.target.value })} className={selectClass}>
        <option value="anyone">Anyone</option>
        <option value="me">Assigned to me</option>
        <option value="unassigned">Unassigned</option>
        <optgroup label="Agents">
          {actors.filter((a) => a.kind !== 'human').map((a) => (
            <option key={a.id} value={a.id}>
              {a.display_name}
            </option>
          ))}
        </optgroup>
        <optgroup label="People">
          {actors.filter((a) => a.kind === 'human').map((a) => (
            <option key={a.id} value={a.id}>
              {a.display_name}
            </option>
          ))}
        </optgroup>
      </select>
      <select aria-label="Label" data-testid="filter-label" value={filters.label} onChange={(e) => onChange({ ...filters, label: e.target.value })} className={selectClass}>
        <option value="">All labels</option>
        <TextOptions values={labels} />
      </select>
      {(capabilities.length > 0 || filters.capability) && (
        <select aria-label="Capability" data-testid="filter-capability" value={filters.capability} onChange={(e) => onChange({ ...filters, capability: e.target.value })} className={selectClass}>
          <option value="">Any capability</option>
          <TextOptions values={capabilities} />
        </select>
      )}
      <button
        onClick={() => onChange({ ...filters, readyOnly: !filters.readyOnly })}
        aria-pressed={filters.readyOnly}
        data-testid="filter-ready"
        title="Only tasks an agent could claim right now"
        className={`h-7 rounded-md border px-2 text-[12px] ${filters.readyOnly ? 'border-emerald-300 bg-emerald-50 text-emerald-800' : 'border-zinc-200 bg-white text-zinc-700 hover:border-zinc-300'}`}
      >
        Ready only
      </button>
      {active && (
        <button onClick={() => onChange(NO_FILTERS)} className="inline-flex h-7 items-center gap-1 rounded-md px-2 text-[12px] text-zinc-600 hover:bg-zinc-100">
          <XIcon className="size-3" /> Clear
        </button>
      )}
      <span className="ml-auto hidden text-[11px] text-zinc-500 xl:block">
        <kbd className="font-mono">/</kbd> search · <kbd className="font-mono">[ ]</kbd> move card · <kbd className="font-mono">?</kbd> shortcuts
      </span>
    </div>
  );
}

/** Labels used in the loaded columns, for the label filter. */
function useBoardLabels(projectId: string | undefined): string[] {
  const datas = useColumns(projectId, OPEN_COLUMNS).map((c) => c.data);
  // one dependency per column (a fixed number): React Query keeps each column's data object stable
  return useMemo(() => {
    const set = new Set<string>();
    for (const d of datas) for (const r of d?.rows ?? []) for (const l of r.labels) set.add(l);
    return [...set].sort();
  }, datas);
}

/** Capabilities the loaded open tasks require, for the capability filter. */
function useBoardCapabilities(projectId: string | undefined): string[] {
  const datas = useColumns(projectId, OPEN_COLUMNS).map((c) => c.data);
  return useMemo(() => {
    const set = new Set<string>();
    for (const d of datas) for (const r of d?.rows ?? []) for (const c of r.requires_capabilities ?? []) set.add(c);
    return [...set].sort();
  }, datas);
}
