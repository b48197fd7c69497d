'use client';

import { useLayoutEffect, useRef, useState, type Dispatch, type KeyboardEvent as ReactKeyboardEvent, type SetStateAction } from 'react';
import { pendingMove } from '@/lib/console/client/mutations';
import { typingIn } from '@/lib/console/client/use-now';
import { FOLDED_COLUMNS, OPEN_COLUMNS, STATUSES, type TaskRow, type TaskStatus } from '@/lib/console/types';

/**
 * The board from the keyboard: one card is in the tab order (roving tabindex); arrows (or h j k l)
 * move the focus, Enter or Space opens, [ ] (or Shift-arrows) move the card a column. The focus
 * follows a moved card, and the column shown on a phone follows the focus.
 */
export function useBoardKeys({
  columns,
  visible,
  loaded,
  limitOf,
  setLimit,
  expanded,
  expand,
  moveTask,
  onOpen,
  onShowColumn,
}: {
  columns: { status: TaskStatus }[];
  visible: Record<TaskStatus, TaskRow[]>;
  loaded: boolean;
  limitOf: (s: TaskStatus) => number;
  setLimit: (s: TaskStatus, n: number) => void;
  expanded: Partial<Record<TaskStatus, boolean>>;
  expand: Dispatch<SetStateAction<Partial<Record<TaskStatus, boolean>>>>;
  moveTask: (task: TaskRow, to: TaskStatus) => Promise<boolean>;
  onOpen: (t: TaskRow) => void;
  onShowColumn: (s: TaskStatus) => void;
}) {
  const [focusId, setFocusId] = useState<string | null>(null);
  const pendingFocus = useRef<string | null>(null);

  // the card element that last had the focus: a card redrawn in another column is a new element,
  // and the focus must follow it rather than fall to the page (a late answer can move it again)
  const focusedEl = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    const active = document.activeElement as HTMLElement | null;
    if (active?.dataset?.testid === 'task-card') focusedEl.current = active;
    let id = pendingFocus.current;
    const lost = focusedEl.current && !focusedEl.current.isConnected && (!active || active === document.body);
    if (!id && lost) id = focusedEl.current!.dataset.taskId ?? null;
    if (!id) return;
    const el = document.querySelector<HTMLElement>(`[data-testid="task-card"][data-task-id="${id}"]`);
    if (el && el.offsetParent !== null) {
      pendingFocus.current = null;
      focusedEl.current = el;
      el.focus();
      el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    }
  });

  const locate = (id: string) => {
    for (let ci = 0; ci < columns.length; ci++) {
      const ri = visible[columns[ci].status].findIndex((t) => t.id === id);
      if (ri >= 0) return { ci, ri };
    }
    return null;
  };

  const focusAt = (ci: number, ri: number) => {
    const s = columns[ci].status;
    const list = visible[s];
    if (!list.length) return;
    const i = Math.max(0, Math.min(ri, list.length - 1));
    if (i >= limitOf(s)) setLimit(s, i + 60);
    onShowColumn(s);
    pendingFocus.current = list[i].id;
    setFocusId(list[i].id);
  };

  const moveBy = async (shown: TaskRow, dir: -1 | 1) => {
    if (!loaded) return; // every column on screen first, so the card has somewhere to land
    const task = pendingMove(shown.id) ?? shown; // a key pressed before the last move re-rendered
    const order: TaskStatus[] = OPEN_COLUMNS.includes(task.status) ? OPEN_COLUMNS : STATUSES.slice();
    const to = order[order.indexOf(task.status) + dir];
    if (!to) return;
    pendingFocus.current = task.id;
    if (FOLDED_COLUMNS.includes(to) && !expanded[to]) expand((e) => ({ ...e, [to]: true }));
    onShowColumn(to);
    await moveTask(task, to);
    pendingFocus.current = task.id;
    setFocusId(task.id);
  };

  const onKeyDown = (e: ReactKeyboardEvent<HTMLDivElement>) => {
    const card = (e.target as HTMLElement).closest<HTMLElement>('[data-testid="task-card"]');
    if (!card || typingIn(e.target)) return;
    const at = locate(card.dataset.taskId!);
    if (!at) return;
    const task = visible[columns[at.ci].status][at.ri];
    const key = e.key;
    if (key === 'Enter' || key === ' ') {
      e.preventDefault();
      onOpen(task);
    } else if (key === ']' || (e.shiftKey && key === 'ArrowRight')) {
      e.preventDefault();
      void moveBy(task, 1);
    } else if (key === '[' || (e.shiftKey && key === 'ArrowLeft')) {
      e.preventDefault();
      void moveBy(task, -1);
    } else if (key === 'ArrowDown' || key === 'j') {
      e.preventDefault();
      focusAt(at.ci, at.ri + 1);
    } else if (key === 'ArrowUp' || key === 'k') {
      e.preventDefault();
      focusAt(at.ci, at.ri - 1);
    } else if (key === 'ArrowRight' || key === 'l' || key === 'ArrowLeft' || key === 'h') {
      e.preventDefault();
      const dir = key === 'ArrowRight' || key === 'l' ? 1 : -1;
      for (let ci = at.ci + dir; ci >= 0 && ci < columns.length; ci += dir) {
        if (visible[columns[ci].status].length) return focusAt(ci, at.ri);
      }
    }
  };

  const firstFocusable = focusId ?? columns.map((c) => visible[c.status][0]?.id).find(Boolean) ?? null;
  return { onKeyDown, focusId, setFocusId, firstFocusable };
}
