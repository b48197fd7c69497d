'use client';

import { useCallback, useRef, useState, type RefObject } from 'react';
import type { TaskRow, TaskStatus } from '@/lib/console/types';

export type Drag = { task: TaskRow; x: number; y: number; w: number; dx: number; dy: number };

/**
 * Pointer-driven drag and drop (mouse, pen and touch alike): a press that travels 5 px becomes a
 * drag; the column under the pointer on release receives the card ([data-drop-status]). Esc
 * cancels. Near the scroller's edges the board scrolls sideways, so every column is a target.
 */
export function useCardDrag({
  ready,
  scroller,
  onDrop,
  onReorder,
}: {
  /** False until every column has loaded (a card needs somewhere to land). */
  ready: RefObject<boolean>;
  scroller: RefObject<HTMLDivElement | null>;
  onDrop: (task: TaskRow, to: TaskStatus) => void;
  /** A drop in the card's own column: the id of the card it lands before (null: at the end). */
  onReorder?: (task: TaskRow, beforeId: string | null) => void;
}) {
  const [drag, setDrag] = useState<Drag | null>(null);
  const [dropOn, setDropOn] = useState<TaskStatus | null>(null);
  /** True for the click that ends a drag, so it does not also open the card. */
  const suppressClick = useRef(false);
  const dropRef = useRef(onDrop);
  dropRef.current = onDrop;
  const reorderRef = useRef(onReorder);
  reorderRef.current = onReorder;

  const onPointerDown = useCallback(
    (task: TaskRow, e: React.PointerEvent<HTMLDivElement>) => {
      if (e.button !== 0 || !ready.current) return;
      const start = { x: e.clientX, y: e.clientY };
      const rect = e.currentTarget.getBoundingClientRect();
      let active = false;
      const target = (x: number, y: number) =>
        (document.elementFromPoint(x, y)?.closest<HTMLElement>('[data-drop-status]')?.dataset.dropStatus as TaskStatus | undefined) ?? null;
      const onMove = (ev: PointerEvent) => {
        if (!active) {
          if (Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < 5) return;
          active = true;
        }
        ev.preventDefault();
        setDrag({ task, x: ev.clientX, y: ev.clientY, w: rect.width, dx: start.x - rect.left, dy: start.y - rect.top });
        setDropOn(target(ev.clientX, ev.clientY));
        const box = scroller.current?.getBoundingClientRect();
        if (box && scroller.current) {
          if (ev.clientX > box.right - 48) scroller.current.scrollLeft += 24;
          else if (ev.clientX < box.left + 48) scroller.current.scrollLeft -= 24;
        }
      };
      const finish = () => {
        window.removeEventListener('pointermove', onMove);
        window.removeEventListener('pointerup', onUp);
        window.removeEventListener('keydown', onKey, true);
        setDrag(null);
        setDropOn(null);
      };
      const onUp = (ev: PointerEvent) => {
        finish();
        if (!active) return;
        suppressClick.current = true;
        window.setTimeout(() => (suppressClick.current = false), 0);
        const to = target(ev.clientX, ev.clientY);
        if (to && to !== task.status) dropRef.current(task, to);
        else if (to === task.status) reorderRef.current?.(task, cardBelow(to, task.id, ev.clientY));
      };
      const onKey = (ev: KeyboardEvent) => {
        if (ev.key !== 'Escape') return;
        ev.stopPropagation();
        active = false;
        finish();
      };
      window.addEventListener('pointermove', onMove);
      window.addEventListener('pointerup', onUp);
      window.addEventListener('keydown', onKey, true);
    },
    [ready, scroller],
  );

  return { drag, dropOn, onPointerDown, suppressClick };
}

/** In a column, the first card (other than the dragged one) whose middle lies below y; null: none. */
function cardBelow(status: TaskStatus, dragged: string, y: number): string | null {
  const column = document.querySelector(`section[data-drop-status="${status}"]`) ?? document.querySelector(`[data-drop-status="${status}"]`);
  for (const el of column?.querySelectorAll<HTMLElement>('[data-task-id]') ?? []) {
    if (el.dataset.taskId === dragged) continue;
    const r = el.getBoundingClientRect();
    if (r.top + r.height / 2 > y) return el.dataset.taskId ?? null;
  }
  return null;
}

/** The card under the pointer while it is dragged. */
export function DragGhost({ drag }: { drag: Drag }) {
  return (
    <div
      aria-hidden="true"
      className="pointer-events-none fixed z-50 rotate-[1.5deg] rounded-md border border-indigo-300 bg-white px-2.5 py-2 shadow-xl shadow-zinc-900/15"
      style={{ left: drag.x - drag.dx, top: drag.y - drag.dy, width: drag.w }}
    >
      <span className="font-mono text-[11px] text-zinc-500">{drag.task.ref}</span>
      <p className="mt-1 line-clamp-2 text-[13px] leading-snug font-medium text-zinc-800">{drag.task.title}</p>
    </div>
  );
}
