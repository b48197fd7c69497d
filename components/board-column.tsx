'use client';

import { useEffect, useRef, type ReactNode } from 'react';
import type { Column } from '@/lib/console/client/cache';
import { STATUS_LABEL, type TaskStatus } from '@/lib/console/types';
import { ChevronRightIcon, XIcon } from './icons';
import { CardSkeleton } from './skeleton';
import { StatusIcon } from './status-icon';

/**
 * One column of the board: its header (name, count, fold) and its cards. An empty column (nothing
 * in it, no filter hiding anything) collapses to a narrow strip on wide screens, so the columns
 * that hold work fit; it stays a drop target. Below 768 px only the chosen column shows, full width.
 */
export function BoardColumn({
  status,
  data,
  count,
  filtered,
  shownCount,
  shown,
  dropping,
  onFold,
  more,
  children,
}: {
  status: TaskStatus;
  data: Column | undefined;
  /** Rows in the column (or the brief's count before it loads). */
  count: number;
  filtered: boolean;
  /** Rows that pass the filters. */
  shownCount: number;
  /** The column chosen on a phone. */
  shown: boolean;
  dropping: boolean;
  onFold: (() => void) | null;
  more: ReactNode;
  children: ReactNode;
}) {
  const collapsed = !!data && data.rows.length === 0 && !filtered;
  return (
    <section
      id={`column-${status}`}
      data-testid="column"
      data-status={status}
      data-collapsed={collapsed ? 'true' : undefined}
      aria-label={`${STATUS_LABEL[status]} column`}
      data-drop-status={status}
      className={`${shown ? 'flex' : 'hidden md:flex'} min-w-0 flex-1 flex-col rounded-lg transition-colors md:max-w-[340px] ${
        collapsed ? 'md:w-10 md:min-w-10 md:flex-none' : 'md:min-w-[208px] md:basis-0 xl:min-w-[228px]'
      } ${dropping ? 'bg-indigo-50 ring-1 ring-indigo-200' : 'bg-zinc-50'}`}
    >
      <header className={`flex h-9 shrink-0 items-center gap-2 px-2.5 ${collapsed ? 'md:h-auto md:flex-col md:px-0 md:py-2.5' : ''}`}>
        <StatusIcon status={status} />
        <h2 className={`text-[13px] font-medium text-zinc-800 ${collapsed ? 'md:text-[12px] md:[writing-mode:vertical-rl]' : ''}`}>{STATUS_LABEL[status]}</h2>
        <span className="text-[12px] text-zinc-500" data-testid="column-count">
          {!filtered || shownCount === count ? count : `${shownCount} / ${count}`}
        </span>
        {onFold && (
          <button onClick={onFold} className={`ml-auto rounded p-0.5 text-zinc-500 hover:bg-zinc-200/60 ${collapsed ? 'md:ml-0' : ''}`} aria-label={`Fold ${STATUS_LABEL[status]}`}>
            <XIcon className="size-3" />
          </button>
        )}
      </header>
      <div className={`min-h-0 flex-1 space-y-1.5 overflow-y-auto px-1.5 pb-2 ${collapsed ? 'md:hidden' : ''}`}>
        {!data && [0, 1, 2].map((i) => <CardSkeleton key={i} />)}
        {data && shownCount === 0 && (
          <p className="rounded-md border border-dashed border-zinc-200 px-2 py-4 text-center text-[12px] text-zinc-500">{data.rows.length ? 'No matching tasks' : 'Nothing here yet'}</p>
        )}
        {children}
        {more}
      </div>
    </section>
  );
}

/** A folded column (Failed, Cancelled): a strip that opens it on click, and takes drops. */
export function FoldedColumn({ status, count, dropping, onOpen }: { status: TaskStatus; count: number; dropping: boolean; onOpen: () => void }) {
  return (
    <button
      data-testid="folded-column"
      data-status={status}
      onClick={onOpen}
      data-drop-status={status}
      title={`Show ${STATUS_LABEL[status]}`}
      aria-label={`Show ${STATUS_LABEL[status]} (${count})`}
      className={`hidden w-9 shrink-0 flex-col items-center gap-2 rounded-lg py-2.5 text-zinc-600 hover:bg-zinc-100 md:flex ${dropping ? 'bg-indigo-50 ring-1 ring-indigo-200' : 'bg-zinc-50'}`}
    >
      <ChevronRightIcon className="size-3.5" />
      <StatusIcon status={status} />
      <span className="text-[12px] font-medium [writing-mode:vertical-rl]">{STATUS_LABEL[status]}</span>
      <span className="text-[11px] text-zinc-500">{count}</span>
    </button>
  );
}

/** Renders more cards when it scrolls into view (or on click). */
export function MoreSentinel({ count, onMore }: { count: number; onMore: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  const cb = useRef(onMore);
  cb.current = onMore;
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const io = new IntersectionObserver((entries) => entries.some((x) => x.isIntersecting) && cb.current(), { rootMargin: '400px' });
    io.observe(el);
    return () => io.disconnect();
  }, []);
  return (
    <button ref={ref} onClick={onMore} className="w-full rounded-md py-1.5 text-[12px] text-zinc-600 hover:bg-zinc-100">
      Show {count} more
    </button>
  );
}

/**
 * Below 768 px: the board shows one column at a time, and these tabs choose it (with counts).
 * Folded columns are listed too; choosing one opens it.
 */
export function ColumnSwitcher({
  columns,
  rendered,
  current,
  counts,
  onChoose,
}: {
  columns: TaskStatus[];
  /** Columns on the page now (a tab controls only a column that exists). */
  rendered: TaskStatus[];
  current: TaskStatus;
  counts: Partial<Record<TaskStatus, number>>;
  onChoose: (s: TaskStatus) => void;
}) {
  return (
    <div role="tablist" aria-label="Columns" data-testid="column-switcher" className="flex shrink-0 gap-1 overflow-x-auto border-b border-zinc-200 px-3 py-1.5 md:hidden">
      {columns.map((s) => (
        <button
          key={s}
          role="tab"
          aria-selected={s === current}
          aria-controls={rendered.includes(s) ? `column-${s}` : undefined}
          data-status={s}
          onClick={() => onChoose(s)}
          className={`inline-flex h-8 shrink-0 items-center gap-1.5 rounded-md px-2.5 text-[12px] ${s === current ? 'bg-zinc-900 font-medium text-white' : 'text-zinc-700 hover:bg-zinc-100'}`}
        >
          {STATUS_LABEL[s]}
          <span className={s === current ? 'text-white/80' : 'text-zinc-500'}>{counts[s] ?? 0}</span>
        </button>
      ))}
    </div>
  );
}
