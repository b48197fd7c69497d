'use client';

import { useCallback, useEffect, useState, type RefObject } from 'react';
import { STATUS_LABEL, type TaskStatus } from '@/lib/console/types';
import { ChevronRightIcon } from './icons';

type Hidden = { status: TaskStatus; count: number }[];

/**
 * When the columns are wider than the screen, edge buttons name the columns out of view
 * ("Done 12 ›") and scroll to them, so a finished project never looks like an empty board.
 * They are real buttons: reachable by Tab, and read out with the columns they reveal.
 */
export function ScrollAffordance({ scroller, counts, deps }: { scroller: RefObject<HTMLDivElement | null>; counts: (s: TaskStatus) => number; deps: unknown[] }) {
  const [left, setLeft] = useState<Hidden>([]);
  const [right, setRight] = useState<Hidden>([]);

  const measure = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const box = el.getBoundingClientRect();
    const l: Hidden = [];
    const r: Hidden = [];
    for (const col of el.querySelectorAll<HTMLElement>('[data-testid="column"]')) {
      const c = col.getBoundingClientRect();
      if (c.width === 0) continue; // not shown (a phone shows one column)
      const status = col.dataset.dropStatus as TaskStatus;
      // more than half of it out of view counts as hidden
      if (c.left + c.width / 2 > box.right) r.push({ status, count: counts(status) });
      else if (c.right - c.width / 2 < box.left) l.push({ status, count: counts(status) });
    }
    setLeft((p) => (same(p, l) ? p : l));
    setRight((p) => (same(p, r) ? p : r));
  }, [scroller, counts]);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    measure();
    el.addEventListener('scroll', measure, { passive: true });
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => {
      el.removeEventListener('scroll', measure);
      ro.disconnect();
    };
    // re-measure when the columns change (loaded, collapsed, expanded)
  }, [measure, ...deps]);

  const reveal = (status: TaskStatus, edge: 'start' | 'end') => {
    const col = scroller.current?.querySelector<HTMLElement>(`[data-drop-status="${status}"]`);
    col?.scrollIntoView({ block: 'nearest', inline: edge === 'end' ? 'end' : 'start', behavior: 'smooth' });
  };

  const label = (h: Hidden) => h.map((x) => `${STATUS_LABEL[x.status]} ${x.count}`).join(', ');
  return (
    <>
      {left.length > 0 && (
        <button
          data-testid="board-scroll-left"
          onClick={() => reveal(left[0].status, 'start')}
          aria-label={`Scroll left to ${label(left)}`}
          className="absolute top-1/2 left-1 z-20 hidden -translate-y-1/2 items-center gap-1 rounded-full border border-zinc-200 bg-white/95 py-1.5 pr-2.5 pl-1.5 text-[12px] font-medium text-zinc-700 shadow-md hover:bg-zinc-50 md:inline-flex"
        >
          <ChevronRightIcon className="size-3.5 rotate-180" />
          {left.map((h) => (
            <span key={h.status} className="inline-flex items-center gap-1">
              {STATUS_LABEL[h.status]} <span className="text-zinc-500">{h.count}</span>
            </span>
          ))}
        </button>
      )}
      {right.length > 0 && (
        <button
          data-testid="board-scroll-right"
          onClick={() => reveal(right[right.length - 1].status, 'end')}
          aria-label={`Scroll right to ${label(right)}`}
          className="absolute top-1/2 right-1 z-20 hidden -translate-y-1/2 items-center gap-1 rounded-full border border-zinc-200 bg-white/95 py-1.5 pr-1.5 pl-2.5 text-[12px] font-medium text-zinc-700 shadow-md hover:bg-zinc-50 md:inline-flex"
        >
          {right.map((h) => (
            <span key={h.status} className="inline-flex items-center gap-1">
              {STATUS_LABEL[h.status]} <span className="text-zinc-500">{h.count}</span>
            </span>
          ))}
          <ChevronRightIcon className="size-3.5" />
        </button>
      )}
    </>
  );
}

function same(a: Hidden, b: Hidden): boolean {
  return a.length === b.length && a.every((x, i) => x.status === b[i].status && x.count === b[i].count);
}
