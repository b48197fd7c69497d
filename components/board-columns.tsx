'use client';

import Link from 'next/link';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useRef, useState } from 'react';
import { runToolAction } from '@/lib/console/actions';
import { viaAction } from '@/lib/console/client/api';
import { keys as cacheKeys, type Column } from '@/lib/console/client/cache';
import { useToast } from '@/lib/console/client/toast';
import { useCollisions } from '@/lib/console/client/collisions';
import { useColumns } from '@/lib/console/client/hooks';
import { useLiveChanges } from '@/lib/console/client/live';
import { useMoveTask, useReorderTask } from '@/lib/console/client/mutations';
import { useNow } from '@/lib/console/client/use-now';
import { FOLDED_COLUMNS, OPEN_COLUMNS, STATUSES, isReady, orderBetween, type Actor, type TaskRow, type TaskStatus } from '@/lib/console/types';
import { BoardColumn, ColumnSwitcher, FoldedColumn, MoreSentinel } from './board-column';
import { DragGhost, useCardDrag } from './board-drag';
import { NO_FILTERS, type BoardFilters } from './board-filters';
import { useBoardKeys } from './board-keys';
import { ScrollAffordance } from './board-scroll';
import { useMe } from './console-providers';
import { PlusIcon } from './icons';
import { TaskCard } from './task-card';

const PAGE = 60;

/**
 * The kanban columns of one project: loads each column, filters the cards, and lays them out (every
 * column reachable at any width: empty ones collapse, the rest scroll with named edge buttons; one
 * column at a time on a phone). Keyboard and drag moves come from useBoardKeys and useCardDrag.
 */
export function BoardColumns({
  projectId,
  counts,
  total,
  filters,
  actors,
  selectedRef,
  onOpen,
  onCreate,
}: {
  projectId: string;
  counts: Partial<Record<TaskStatus, number>>;
  total: number;
  filters: BoardFilters;
  actors: Map<string, Actor>;
  selectedRef: string | null;
  onOpen: (t: TaskRow) => void;
  onCreate: () => void;
}) {
  const now = useNow(30_000);
  const moveTask = useMoveTask();
  const reorderTask = useReorderTask();
  const recover = useRecoverTask(projectId);
  const [expanded, setExpanded] = useState<Partial<Record<TaskStatus, boolean>>>({});
  const [phoneColumn, setPhoneColumn] = useState<TaskStatus | null>(null);
  const collisions = useCollisions(projectId);
  const open = useColumns(projectId, OPEN_COLUMNS);
  const folded = useColumns(projectId, FOLDED_COLUMNS, (s) => !!expanded[s]);
  const openData = open.map((c) => c.data);
  const foldedData = folded.map((c) => c.data);
  const columns = useMemo(() => {
    const out: { status: TaskStatus; data: Column | undefined }[] = OPEN_COLUMNS.map((s, i) => ({ status: s, data: openData[i] }));
    FOLDED_COLUMNS.forEach((s, i) => expanded[s] && out.push({ status: s, data: foldedData[i] }));
    return out;
    // the arrays are rebuilt each render; their elements are React Query's stable data objects
  }, [expanded, ...openData, ...foldedData]);
  const visible = useVisibleRows(columns, filters, now);

  const [limits, setLimits] = useState<Partial<Record<TaskStatus, number>>>({});
  const fresh = useFreshCards(projectId);
  // a card that just arrived is drawn even past the page of cards a column renders at first (it
  // sorts after older ones of its priority, so in a long column it would land out of the DOM)
  const limitOf = (s: TaskStatus) => {
    const base = limits[s] ?? PAGE;
    const rows = visible[s] ?? [];
    let last = -1;
    if (fresh.size) for (let i = base; i < rows.length; i++) if (fresh.has(rows[i].id)) last = i;
    return Math.max(base, last + 1);
  };
  const setLimit = (s: TaskStatus, n: number) => setLimits((l) => ({ ...l, [s]: n }));
  const scroller = useRef<HTMLDivElement>(null);
  const loaded = open.every((c) => c.isSuccess);
  const loadedRef = useRef(loaded);
  loadedRef.current = loaded;

  const countOf = useCallback(
    (s: TaskStatus) => columns.find((c) => c.status === s)?.data?.rows.length ?? counts[s] ?? 0,
    [columns, counts],
  );
  // on a phone: the chosen column, else the first one holding work
  const shownColumn = phoneColumn ?? columns.find((c) => (c.data?.rows.length ?? 0) > 0)?.status ?? 'todo';
  const showColumn = useCallback((s: TaskStatus) => {
    if (FOLDED_COLUMNS.includes(s)) setExpanded((x) => ({ ...x, [s]: true }));
    setPhoneColumn(s);
  }, []);

  const keys = useBoardKeys({ columns, visible, loaded, limitOf, setLimit, expanded, expand: setExpanded, moveTask, onOpen, onShowColumn: setPhoneColumn });
  const { drag, dropOn, onPointerDown, suppressClick } = useCardDrag({
    ready: loadedRef,
    scroller,
    onDrop: (task, to) => {
      if (FOLDED_COLUMNS.includes(to)) setExpanded((x) => ({ ...x, [to]: true }));
      void moveTask(task, to);
    },
    // within a column: between the cards it lands among (as shown, filters applied)
    onReorder: (task, beforeId) => {
      const rows = (visible[task.status] ?? []).filter((r) => r.id !== task.id);
      const at = beforeId ? rows.findIndex((r) => r.id === beforeId) : rows.length;
      const i = at < 0 ? rows.length : at;
      void reorderTask(task, orderBetween(rows[i - 1], rows[i], task.order_index));
    },
  });
  const onFocusCard = keys.setFocusId;
  const openCard = useCallback((t: TaskRow) => !suppressClick.current && onOpen(t), [onOpen, suppressClick]);

  const shown = columns.reduce((n, c) => n + visible[c.status].length, 0);
  if (loaded && total === 0 && shown === 0) return <EmptyBoard onCreate={onCreate} />;

  const filtered = filters !== NO_FILTERS;
  return (
    <>
      <ColumnSwitcher columns={[...STATUSES]} rendered={columns.map((c) => c.status)} current={shownColumn} counts={Object.fromEntries(STATUSES.map((s) => [s, countOf(s)]))} onChoose={showColumn} />
      <div className="relative flex min-h-0 flex-1 flex-col">
        <div
          ref={scroller}
          className={`flex min-h-0 flex-1 gap-3 overflow-x-auto overflow-y-hidden p-3 md:p-4 ${drag ? 'cursor-grabbing' : ''}`}
          onKeyDown={keys.onKeyDown}
          data-testid="board"
          data-board-ready={loaded ? 'true' : 'false'}
          data-task-count={loaded ? columns.reduce((n, c) => n + (c.data?.rows.length ?? 0), 0) : undefined}
        >
          {columns.map(({ status, data }) => {
            const rows = visible[status];
            const limit = limitOf(status);
            return (
              <BoardColumn
                key={status}
                status={status}
                data={data}
                count={data ? data.rows.length : (counts[status] ?? 0)}
                filtered={filtered}
                shownCount={rows.length}
                shown={status === shownColumn}
                dropping={dropOn === status && drag?.task.status !== status}
                onFold={FOLDED_COLUMNS.includes(status) ? () => setExpanded((x) => ({ ...x, [status]: false })) : null}
                more={rows.length > limit && <MoreSentinel count={rows.length - limit} onMore={() => setLimit(status, limit + PAGE * 2)} />}
              >
                {rows.slice(0, limit).map((t) => (
                  <TaskCard
                    key={t.id}
                    task={t}
                    assignee={t.assignee_actor_id ? actors.get(t.assignee_actor_id) : undefined}
                    leaseHolder={t.lease ? actors.get(t.lease.actor_id) : undefined}
                    now={t.lease ? now : 0}
                    focusable={t.id === keys.firstFocusable}
                    selected={t.ref === selectedRef}
                    onOpen={openCard}
                    onFocusCard={onFocusCard}
                    onPointerDown={onPointerDown}
                    dragging={drag?.task.id === t.id}
                    onRecover={recover}
                    collisions={collisions.get(t.id)}
                  />
                ))}
              </BoardColumn>
            );
          })}
          {FOLDED_COLUMNS.filter((s) => !expanded[s]).map((s) => (
            <FoldedColumn key={s} status={s} count={counts[s] ?? 0} dropping={dropOn === s} onOpen={() => setExpanded((x) => ({ ...x, [s]: true }))} />
          ))}
          {drag && <DragGhost drag={drag} />}
        </div>
        <ScrollAffordance scroller={scroller} counts={countOf} deps={[columns, loaded]} />
      </div>
    </>
  );
}

/** Ids of the tasks created in this project while the board is open (the newest 200). */
function useFreshCards(projectId: string): Set<string> {
  const fresh = useRef(new Set<string>());
  useLiveChanges((e) => {
    if (e.verb !== 'task.created' || e.project_id !== projectId || !e.object_id) return;
    fresh.current.add(e.object_id);
    if (fresh.current.size > 200) fresh.current.delete(fresh.current.values().next().value!);
  });
  return fresh.current;
}

/** A stale card's Recover: task_recover to todo with the person's note; the board refreshes. */
function useRecoverTask(projectId: string): (t: TaskRow) => void {
  const qc = useQueryClient();
  const toast = useToast();
  return useCallback(
    (t: TaskRow) => {
      const note = window.prompt(`Why recover ${t.ref}? (kept in its thread; the holder is told)`, 'Recovered from the board: nobody is working on it');
      if (!note) return;
      void viaAction(runToolAction('task_recover', { task_id: t.id, to_status: 'todo', note }))
        .then(() => {
          toast.success(`${t.ref} recovered`, 'back in todo, its lease ended');
          return qc.invalidateQueries({ queryKey: cacheKeys.boardAll(projectId) });
        })
        .catch((err: unknown) => toast.error(err));
    },
    [qc, toast, projectId],
  );
}

/** The rows of each column that pass the filters. */
function useVisibleRows(columns: { status: TaskStatus; data: Column | undefined }[], filters: BoardFilters, now: number): Record<TaskStatus, TaskRow[]> {
  const me = useMe();
  const match = useMemo(() => {
    const q = filters.q.trim().toLowerCase();
    return (t: TaskRow) =>
      (filters.assignee === 'anyone' ||
        (filters.assignee === 'me' ? t.assignee_actor_id === me.actor_id : filters.assignee === 'unassigned' ? !t.assignee_actor_id : t.assignee_actor_id === filters.assignee)) &&
      (!filters.label || t.labels.includes(filters.label)) &&
      (!filters.capability || t.requires_capabilities.includes(filters.capability)) &&
      (!q || t.title.toLowerCase().includes(q) || t.ref.toLowerCase().includes(q)) &&
      (!filters.readyOnly || isReady(t, now));
  }, [filters, me.actor_id, now]);
  return useMemo(() => {
    const v = {} as Record<TaskStatus, TaskRow[]>;
    for (const c of columns) v[c.status] = (c.data?.rows ?? []).filter(match);
    return v;
  }, [columns, match]);
}

function EmptyBoard({ onCreate }: { onCreate: () => void }) {
  return (
    <div className="flex flex-1 items-center justify-center p-10" data-board-ready="true" data-task-count={0}>
      <div className="max-w-md text-center">
        <p className="text-sm font-semibold">No tasks yet</p>
        <p className="mt-1 text-[13px] leading-relaxed text-zinc-600">
          Press <kbd className="rounded border border-zinc-200 bg-zinc-50 px-1 font-mono text-[11px]">C</kbd> to write the first one, or connect an agent and let it
          plan the work with <code className="font-mono text-[12px]">task_create_many</code>.
        </p>
        <div className="mt-4 flex justify-center gap-2">
          <button onClick={onCreate} className="inline-flex h-8 items-center gap-1 rounded-md bg-zinc-900 px-3 text-[13px] font-medium text-white hover:bg-zinc-800">
            <PlusIcon className="size-3.5" /> New task
          </button>
          <Link href="/actors?connect=1" className="inline-flex h-8 items-center rounded-md border border-zinc-200 px-3 text-[13px] font-medium text-zinc-700 hover:bg-zinc-50">
            Connect an agent
          </Link>
        </div>
      </div>
    </div>
  );
}
