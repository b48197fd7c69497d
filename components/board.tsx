'use client';

import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import type { Column } from '@/lib/console/client/cache';
import { useActors, useBrief, useColumns } from '@/lib/console/client/hooks';
import { pendingMove, useMoveTask } from '@/lib/console/client/mutations';
import { typingIn, useNow } from '@/lib/console/client/use-now';
import { FOLDED_COLUMNS, OPEN_COLUMNS, STATUSES, STATUS_LABEL, isReady, type Actor, type TaskRow, type TaskStatus } from '@/lib/console/types';
import { useMe } from './console-providers';
import { BotIcon, ChevronRightIcon, PlusIcon, SearchIcon, XIcon } from './icons';
import { NewTaskDialog } from './new-task-dialog';
import { ProjectHeader } from './project-header';
import { CardSkeleton } from './skeleton';
import { StatusIcon } from './status-icon';
import { TaskCard } from './task-card';
import { TaskDrawer } from './task-drawer';

export type BoardFilters = { assignee: string; label: string; q: string; readyOnly: boolean };
const NO_FILTERS: BoardFilters = { assignee: 'anyone', label: '', q: '', readyOnly: false };

/** Opens (or closes) a task in the drawer by putting its ref in the URL, without a server round trip. */
export function useOpenTask(): (ref: string | null) => void {
  return useCallback((ref: string | null) => {
    const url = new URL(window.location.href);
    if (ref) url.searchParams.set('task', ref);
    else url.searchParams.delete('task');
    window.history.pushState(null, '', url);
  }, []);
}

/** A project's board page: filters, the kanban columns, the task drawer and the new-task form. */
export function ProjectBoard({ projectKey }: { projectKey: string }) {
  const brief = useBrief(projectKey);
  const actors = useActors();
  const project = brief.data?.project;
  const [filters, setFilters] = useState<BoardFilters>(NO_FILTERS);
  const [creating, setCreating] = useState(false);
  const searchRef = useRef<HTMLInputElement>(null);
  const openRef = useSearchParams().get('task');
  const openTask = useOpenTask();

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typingIn(e.target) || e.metaKey || e.ctrlKey || e.altKey || creating) return;
      if (e.key === 'c') {
        e.preventDefault();
        setCreating(true);
      } else if (e.key === '/') {
        e.preventDefault();
        searchRef.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [creating]);

  const notFound = brief.isError;
  const agents = (actors.data ?? []).filter((a) => a.kind === 'agent');
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <ProjectHeader
        projectKey={projectKey}
        title={project?.title}
        tab="board"
        actions={
          <button
            onClick={() => setCreating(true)}
            disabled={!project}
            data-testid="new-task"
            className="inline-flex h-7 items-center gap-1 rounded-md bg-zinc-900 px-2.5 text-[12px] font-medium text-white hover:bg-zinc-800 disabled:opacity-40"
          >
            <PlusIcon className="size-3.5" /> New task
            <kbd className="ml-1 rounded bg-white/15 px-1 font-mono text-[10px]">C</kbd>
          </button>
        }
      />
      {notFound ? (
        <div className="flex flex-1 items-center justify-center p-10">
          <div className="max-w-sm text-center">
            <p className="text-sm font-semibold">No project {projectKey} in this workspace</p>
            <p className="mt-1 text-[13px] text-zinc-500">It may live in another workspace, or the key is mistyped.</p>
            <Link href="/projects" className="mt-4 inline-block text-[13px] font-medium text-indigo-600 hover:underline">
              See all projects
            </Link>
          </div>
        </div>
      ) : (
        <>
          <FilterBar filters={filters} onChange={setFilters} actors={actors.data ?? []} searchRef={searchRef} projectId={project?.id} />
          {actors.isSuccess && agents.length === 0 && (
            <div className="flex items-center gap-2 border-b border-violet-100 bg-violet-50/60 px-4 py-1.5 text-[12px] text-violet-800">
              <BotIcon className="size-3.5" />
              No agents yet — <Link href="/actors?connect=1" className="font-medium underline underline-offset-2">connect one</Link> and it can claim these tasks over MCP.
            </div>
          )}
          {project ? (
            <BoardColumns
              projectId={project.id}
              counts={brief.data?.tasks.by_status ?? {}}
              total={brief.data?.tasks.total ?? 0}
              filters={filters}
              actors={actors.byId}
              selectedRef={openRef}
              onOpen={(t) => openTask(t.ref)}
              onCreate={() => setCreating(true)}
            />
          ) : (
            <div className="flex min-h-0 flex-1 gap-3 overflow-hidden p-4">
              {OPEN_COLUMNS.map((s) => (
                <div key={s} className="max-w-[340px] min-w-[236px] flex-1 basis-0 space-y-2 rounded-lg bg-zinc-50 p-2">
                  <div className="h-5" />
                  <CardSkeleton />
                  <CardSkeleton />
                </div>
              ))}
            </div>
          )}
        </>
      )}
      {openRef && <TaskDrawer taskRef={openRef} onClose={() => openTask(null)} onOpenTask={openTask} />}
      {creating && project && (
        <NewTaskDialog
          project={{ id: project.id, key: project.key, title: project.title }}
          onClose={() => setCreating(false)}
          onCreated={(ref) => {
            setCreating(false);
            openTask(ref);
          }}
        />
      )}
    </div>
  );
}

function FilterBar({
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
  const active = filters.assignee !== 'anyone' || filters.label || filters.q || filters.readyOnly;
  const selectClass = 'h-7 rounded-md border border-zinc-200 bg-white px-2 text-[12px] text-zinc-700 hover:border-zinc-300 focus:border-indigo-400 focus:outline-none';
  return (
    <div className="flex shrink-0 items-center gap-2 border-b border-zinc-200 px-4 py-2">
      <label className="relative">
        <SearchIcon className="pointer-events-none absolute top-1.5 left-2 size-3.5 text-zinc-400" />
        <input
          ref={searchRef}
          value={filters.q}
          onChange={(e) => onChange({ ...filters, q: e.target.value })}
          onKeyDown={(e) => e.key === 'Escape' && (e.currentTarget.blur(), onChange({ ...filters, q: '' }))}
          placeholder="Filter by title or ref"
          aria-label="Filter by text"
          data-testid="filter-text"
          className="h-7 w-56 rounded-md border border-zinc-200 bg-white pr-2 pl-7 text-[12px] placeholder:text-zinc-400 focus:border-indigo-400 focus:outline-none"
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
        {labels.map((l) => (
          <option key={l} value={l}>
            {l}
          </option>
        ))}
      </select>
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
        <button onClick={() => onChange(NO_FILTERS)} className="inline-flex h-7 items-center gap-1 rounded-md px-2 text-[12px] text-zinc-500 hover:bg-zinc-100">
          <XIcon className="size-3" /> Clear
        </button>
      )}
      <span className="ml-auto hidden text-[11px] text-zinc-400 lg:block">
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

const PAGE = 60;

function BoardColumns({
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
  const me = useMe();
  const now = useNow(30_000);
  const moveTask = useMoveTask();
  const [expanded, setExpanded] = useState<Partial<Record<TaskStatus, boolean>>>({});
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

  const match = useMemo(() => {
    const q = filters.q.trim().toLowerCase();
    return (t: TaskRow) =>
      (filters.assignee === 'anyone' ||
        (filters.assignee === 'me' ? t.assignee_actor_id === me.actor_id : filters.assignee === 'unassigned' ? !t.assignee_actor_id : t.assignee_actor_id === filters.assignee)) &&
      (!filters.label || t.labels.includes(filters.label)) &&
      (!q || t.title.toLowerCase().includes(q) || t.ref.toLowerCase().includes(q)) &&
      (!filters.readyOnly || isReady(t, now));
  }, [filters, me.actor_id, now]);

  const visible = useMemo(() => {
    const v = {} as Record<TaskStatus, TaskRow[]>;
    for (const c of columns) v[c.status] = (c.data?.rows ?? []).filter(match);
    return v;
  }, [columns, match]);

  const [limits, setLimits] = useState<Partial<Record<TaskStatus, number>>>({});
  const limitOf = (s: TaskStatus) => limits[s] ?? PAGE;
  const [focusId, setFocusId] = useState<string | null>(null);
  const pendingFocus = useRef<string | null>(null);
  const [drag, setDrag] = useState<{ task: TaskRow; x: number; y: number; w: number; dx: number; dy: number } | null>(null);
  const [dropOn, setDropOn] = useState<TaskStatus | null>(null);
  const suppressClick = useRef(false);
  const scroller = useRef<HTMLDivElement>(null);

  useLayoutEffect(() => {
    const id = pendingFocus.current;
    if (!id) return;
    const el = document.querySelector<HTMLElement>(`[data-testid="task-card"][data-task-id="${id}"]`);
    if (el) {
      pendingFocus.current = null;
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
    const list = visible[columns[ci].status];
    if (!list.length) return;
    const i = Math.max(0, Math.min(ri, list.length - 1));
    const s = columns[ci].status;
    if (i >= limitOf(s)) setLimits((l) => ({ ...l, [s]: i + PAGE }));
    pendingFocus.current = list[i].id;
    setFocusId(list[i].id);
  };

  const moveBy = async (shown: TaskRow, dir: -1 | 1) => {
    if (!loaded) return; // every column on screen first, so the card has somewhere to land
    const task = pendingMove(shown.id) ?? shown; // a key pressed before the last move re-rendered
    const order: TaskStatus[] = (OPEN_COLUMNS as TaskStatus[]).includes(task.status) ? OPEN_COLUMNS : STATUSES.slice();
    const to = order[order.indexOf(task.status) + dir];
    if (!to) return;
    pendingFocus.current = task.id;
    if (FOLDED_COLUMNS.includes(to) && !expanded[to]) setExpanded((e) => ({ ...e, [to]: true }));
    await moveTask(task, to);
    pendingFocus.current = task.id;
    setFocusId(task.id);
  };

  const onKeyDown = (e: ReactKeyboardEvent<HTMLDivElement>) => {
    const card = (e.target as HTMLElement).closest<HTMLElement>('[data-testid="task-card"]');
    if (!card || typingIn(e.target)) return;
    const id = card.dataset.taskId!;
    const at = locate(id);
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

  const loaded = open.every((c) => c.isSuccess);
  const loadedRef = useRef(loaded);
  loadedRef.current = loaded;
  const shown = columns.reduce((n, c) => n + visible[c.status].length, 0);
  const firstFocusable = focusId ?? columns.map((c) => visible[c.status][0]?.id).find(Boolean) ?? null;
  const onFocusCard = useCallback((id: string) => setFocusId(id), []);
  const openCard = useCallback((t: TaskRow) => !suppressClick.current && onOpen(t), [onOpen]);

  // Pointer-driven drag and drop (mouse, pen and touch alike): a press that travels 5 px becomes a
  // drag; the column under the pointer on release receives the card. Esc cancels.
  const onPointerDown = useCallback(
    (task: TaskRow, e: React.PointerEvent<HTMLDivElement>) => {
      if (e.button !== 0 || !loadedRef.current) return;
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
        if (to && to !== task.status) {
          if (FOLDED_COLUMNS.includes(to)) setExpanded((x) => ({ ...x, [to]: true }));
          void moveTask(task, to);
        }
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
    [moveTask],
  );

  if (loaded && total === 0 && shown === 0) {
    return (
      <div className="flex flex-1 items-center justify-center p-10" data-board-ready="true" data-task-count={0}>
        <div className="max-w-md text-center">
          <p className="text-sm font-semibold">No tasks yet</p>
          <p className="mt-1 text-[13px] leading-relaxed text-zinc-500">
            Press <kbd className="rounded border border-zinc-200 bg-zinc-50 px-1 font-mono text-[11px]">C</kbd> to write the first one, or connect an agent
            and let it plan the work with <code className="font-mono text-[12px]">task_create_many</code>.
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

  return (
    <div
      ref={scroller}
      className={`flex min-h-0 flex-1 gap-3 overflow-x-auto overflow-y-hidden p-4 ${drag ? 'cursor-grabbing' : ''}`}
      onKeyDown={onKeyDown}
      data-testid="board"
      data-board-ready={loaded ? 'true' : 'false'}
      data-task-count={loaded ? columns.reduce((n, c) => n + (c.data?.rows.length ?? 0), 0) : undefined}
    >
      {columns.map(({ status, data }) => {
        const rows = visible[status];
        const limit = limitOf(status);
        const count = data ? data.rows.length : (counts[status] ?? 0);
        return (
          <section
            key={status}
            data-testid="column"
            data-status={status}
            aria-label={`${STATUS_LABEL[status]} column`}
            data-drop-status={status}
            className={`flex max-w-[340px] min-w-[236px] flex-1 basis-0 flex-col rounded-lg transition-colors ${dropOn === status && drag?.task.status !== status ? 'bg-indigo-50 ring-1 ring-indigo-200' : 'bg-zinc-50'}`}
          >
            <header className="flex h-9 shrink-0 items-center gap-2 px-2.5">
              <StatusIcon status={status} />
              <h2 className="text-[13px] font-medium text-zinc-800">{STATUS_LABEL[status]}</h2>
              <span className="text-[12px] text-zinc-400" data-testid="column-count">
                {filters === NO_FILTERS || rows.length === count ? count : `${rows.length} / ${count}`}
              </span>
              {FOLDED_COLUMNS.includes(status) && (
                <button onClick={() => setExpanded((x) => ({ ...x, [status]: false }))} className="ml-auto rounded p-0.5 text-zinc-400 hover:bg-zinc-200/60" aria-label={`Fold ${STATUS_LABEL[status]}`}>
                  <XIcon className="size-3" />
                </button>
              )}
            </header>
            <div className="min-h-0 flex-1 space-y-1.5 overflow-y-auto px-1.5 pb-2">
              {!data && [0, 1, 2].map((i) => <CardSkeleton key={i} />)}
              {data && rows.length === 0 && (
                <p className="rounded-md border border-dashed border-zinc-200 px-2 py-4 text-center text-[12px] text-zinc-400">
                  {data.rows.length ? 'No matching tasks' : 'Drop a card here'}
                </p>
              )}
              {rows.slice(0, limit).map((t) => (
                <TaskCard
                  key={t.id}
                  task={t}
                  assignee={t.assignee_actor_id ? actors.get(t.assignee_actor_id) : undefined}
                  leaseHolder={t.lease ? actors.get(t.lease.actor_id) : undefined}
                  now={t.lease ? now : 0}
                  focusable={t.id === firstFocusable}
                  selected={t.ref === selectedRef}
                  onOpen={openCard}
                  onFocusCard={onFocusCard}
                  onPointerDown={onPointerDown}
                  dragging={drag?.task.id === t.id}
                />
              ))}
              {rows.length > limit && <MoreSentinel count={rows.length - limit} onMore={() => setLimits((l) => ({ ...l, [status]: limit + PAGE * 2 }))} />}
            </div>
          </section>
        );
      })}
      {FOLDED_COLUMNS.filter((s) => !expanded[s]).map((s) => (
        <button
          key={s}
          data-testid="folded-column"
          data-status={s}
          onClick={() => setExpanded((x) => ({ ...x, [s]: true }))}
          data-drop-status={s}
          title={`Show ${STATUS_LABEL[s]}`}
          className={`flex w-9 shrink-0 flex-col items-center gap-2 rounded-lg py-2.5 text-zinc-500 hover:bg-zinc-100 ${dropOn === s ? 'bg-indigo-50 ring-1 ring-indigo-200' : 'bg-zinc-50'}`}
        >
          <ChevronRightIcon className="size-3.5" />
          <StatusIcon status={s} />
          <span className="text-[12px] font-medium [writing-mode:vertical-rl]">{STATUS_LABEL[s]}</span>
          <span className="text-[11px] text-zinc-400">{counts[s] ?? 0}</span>
        </button>
      ))}
      {drag && (
        <div
          aria-hidden="true"
          className="pointer-events-none fixed z-50 rotate-[1.5deg] rounded-md border border-indigo-300 bg-white px-2.5 py-2 shadow-xl shadow-zinc-900/15"
          style={{ left: drag.x - drag.dx, top: drag.y - drag.dy, width: drag.w }}
        >
          <span className="font-mono text-[11px] text-zinc-500">{drag.task.ref}</span>
          <p className="mt-1 line-clamp-2 text-[13px] leading-snug font-medium text-zinc-800">{drag.task.title}</p>
        </div>
      )}
    </div>
  );
}

function MoreSentinel({ count, onMore }: { count: number; onMore: () => void }) {
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
    <button ref={ref} onClick={onMore} className="w-full rounded-md py-1.5 text-[12px] text-zinc-500 hover:bg-zinc-100">
      Show {count} more
    </button>
  );
}
