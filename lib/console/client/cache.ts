import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { STATUSES, compareTasks, type LiveEvent, type TaskDetail, type TaskRow, type TaskStatus } from '../types';
import { readTool } from './api';

/**
 * How live events become cache updates. Events carry ids only, so a changed task is re-read once
 * (task_get) and its row is moved between the board's column caches; its dependents' rows come
 * along (their open_blockers change when it finishes). Nothing is refetched wholesale unless a
 * burst touches more tasks than is worth fetching one by one.
 */

export const keys = {
  projects: ['projects'] as const,
  brief: (key: string) => ['brief', key] as const,
  board: (projectId: string, status: TaskStatus) => ['board', projectId, status] as const,
  boardAll: (projectId: string) => ['board', projectId] as const,
  task: (ref: string) => ['task', ref] as const,
  actors: ['actors'] as const,
  overview: ['actors-overview'] as const,
  activity: ['activity'] as const,
  handoffs: ['handoffs'] as const,
  notifications: ['notifications'] as const,
  runs: ['runs'] as const,
  feedback: ['feedback'] as const,
};

export type Column = { rows: TaskRow[]; next_cursor: string | null };

/** Resolves once the query is not fetching (so a patch is not overwritten by an older snapshot). */
function settled(qc: QueryClient, key: QueryKey): Promise<void> {
  const state = qc.getQueryState(key);
  if (!state || state.fetchStatus !== 'fetching') return Promise.resolve();
  return new Promise((resolve) => {
    const unsub = qc.getQueryCache().subscribe(() => {
      if (qc.getQueryState(key)?.fetchStatus !== 'fetching') {
        unsub();
        resolve();
      }
    });
  });
}

function stripBody<T extends TaskRow>(t: T): TaskRow {
  const { body: _body, ...row } = t as T & { body?: string };
  return row as TaskRow;
}

/**
 * The newest row this tab has placed for each task, and when. A column read that was already in
 * flight when a card moved carries the old placement; reconcileColumn corrects it on arrival.
 */
const latest = new Map<string, { row: TaskRow; at: number }>();

function remember(row: TaskRow): void {
  const now = performance.now();
  latest.set(row.id, { row, at: now });
  if (latest.size > 5000) for (const [id, l] of latest) if (now - l.at > 60_000) latest.delete(id);
}

/**
 * A column as read from the server, corrected for cards this tab placed after the read began:
 * moved away → dropped, moved in → added, changed → the newer row. Board order is kept.
 */
export function reconcileColumn(projectId: string, status: TaskStatus, rows: TaskRow[], startedAt: number): TaskRow[] {
  let changed = false;
  const out: TaskRow[] = [];
  for (const r of rows) {
    const l = latest.get(r.id);
    if (!l || l.at < startedAt || l.row.updated_at < r.updated_at) out.push(r);
    else if (l.row.status === status) {
      out.push(l.row);
      changed = true;
    } else changed = true;
  }
  const present = new Set(out.map((r) => r.id));
  for (const [id, l] of latest) {
    if (l.at >= startedAt && l.row.project_id === projectId && l.row.status === status && !present.has(id)) {
      out.push(l.row);
      changed = true;
    }
  }
  return changed ? out.sort(compareTasks) : out;
}

/**
 * Puts a task row in its status column and out of every other one, now. A row older than the one
 * cached (updated_at) is ignored, so a late read never undoes a newer change.
 */
export function placeRow(qc: QueryClient, incoming: TaskRow): void {
  const row = stripBody(incoming);
  const prior = latest.get(row.id);
  const shown = findRow(qc, row.project_id, row.id);
  // older than what is on screen (a read that raced a newer one): leave the board as it is
  if ((prior && prior.row.updated_at > row.updated_at) || (shown && shown.updated_at > row.updated_at)) return;
  remember(row);
  for (const s of STATUSES) {
    qc.setQueryData<Column>(keys.board(row.project_id, s), (col) => {
      if (!col) return col;
      const at = col.rows.findIndex((r) => r.id === row.id);
      if (s !== row.status) {
        return at >= 0 ? { ...col, rows: col.rows.filter((r) => r.id !== row.id) } : col;
      }
      const rows = at >= 0 ? col.rows.filter((r) => r.id !== row.id) : col.rows.slice();
      let i = rows.findIndex((r) => compareTasks(row, r) < 0);
      if (i < 0) i = rows.length;
      rows.splice(i, 0, row);
      return { ...col, rows };
    });
  }
}

/** placeRow, after any column fetch in flight has landed (so its older snapshot cannot win). */
export async function applyTaskRow(qc: QueryClient, incoming: TaskRow): Promise<void> {
  await Promise.all(STATUSES.map((s) => settled(qc, keys.board(incoming.project_id, s))));
  placeRow(qc, incoming);
}

/** The row of a task wherever the board has it. */
export function findRow(qc: QueryClient, projectId: string, taskId: string): TaskRow | undefined {
  for (const s of STATUSES) {
    const hit = qc.getQueryData<Column>(keys.board(projectId, s))?.rows.find((r) => r.id === taskId);
    if (hit) return hit;
  }
  return undefined;
}

/** Replaces the drawer caches that show this task. */
function applyDetail(qc: QueryClient, detail: TaskDetail): void {
  for (const q of qc.getQueryCache().findAll({ queryKey: ['task'] })) {
    const d = q.state.data as TaskDetail | undefined;
    if (d?.task.id === detail.task.id || q.queryKey[1] === detail.task.id || q.queryKey[1] === detail.task.ref) {
      qc.setQueryData(q.queryKey, detail);
    }
  }
}

/**
 * Writes from this tab in flight, per task. A read that started before (or during) a write may
 * carry the state from before it, and must not overwrite the optimistic change on screen; the
 * write re-reads the task itself when it completes.
 */
const writes = new Map<string, { pending: number; gen: number }>();

/** Marks a write to a task as in flight; call the returned function when it has completed. */
export function beginWrite(taskId: string): () => void {
  const w = writes.get(taskId) ?? { pending: 0, gen: 0 };
  w.pending++;
  w.gen++;
  writes.set(taskId, w);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    w.pending--;
  };
}

const generation = (id: string) => writes.get(id)?.gen ?? 0;
const stale = (id: string, gen: number) => (writes.get(id)?.pending ?? 0) > 0 || generation(id) !== gen;

/** Re-reads tasks by id and patches every cache that shows them. */
export async function refreshTasks(qc: QueryClient, ids: string[]): Promise<void> {
  const queue = ids.slice();
  const worker = async () => {
    for (let id = queue.shift(); id; id = queue.shift()) {
      const gen = generation(id);
      let detail: TaskDetail;
      try {
        detail = await readTool<TaskDetail>('task_get', { task_id: id });
      } catch {
        continue; // gone from view (another workspace's id can never get here; a failed read retries on the next event)
      }
      if (stale(detail.task.id, gen)) continue;
      applyDetail(qc, detail);
      await applyTaskRow(qc, detail.task);
      for (const dep of detail.dependents) if (!(writes.get(dep.id)?.pending ?? 0)) await applyTaskRow(qc, dep);
    }
  };
  await Promise.all(Array.from({ length: Math.min(6, queue.length) }, worker));
}

/** Coalesces bursts of events into one pass over the caches. */
export class LiveCacheBridge {
  private pending = new Map<string, Set<string>>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private throttled = new Map<string, ReturnType<typeof setTimeout>>();
  private summariesDue = false;

  constructor(
    private readonly qc: QueryClient,
    private readonly opts: { delayMs?: number; burst?: number } = {},
  ) {}

  private soon(key: string, ms: number, fn: () => void) {
    if (this.throttled.has(key)) return;
    this.throttled.set(key, setTimeout(() => {
      this.throttled.delete(key);
      fn();
    }, ms));
  }

  handle(e: LiveEvent): void {
    const qc = this.qc;
    if (e.object_type === 'task' && e.object_id) {
      const pid = e.project_id ?? '';
      let set = this.pending.get(pid);
      if (!set) this.pending.set(pid, (set = new Set()));
      set.add(e.object_id);
      this.timer ??= setTimeout(() => this.flush(), this.opts.delayMs ?? 8);
      // the summaries (counts on the brief, the sidebar's projects, the agents page) are re-read
      // only after the cards are patched: flush() schedules them once the rows are in
      this.summariesDue = true;
    } else if (e.object_type === 'project') {
      this.soon('projects', 150, () => void qc.invalidateQueries({ queryKey: keys.projects }));
      this.soon('brief', 150, () => void qc.invalidateQueries({ queryKey: ['brief'] }));
    } else if (e.object_type === 'run') {
      this.soon('runs', 300, () => void qc.invalidateQueries({ queryKey: keys.runs }));
    } else if (e.object_type === 'feature_request') {
      this.soon('feedback', 150, () => void qc.invalidateQueries({ queryKey: keys.feedback }));
    } else if (e.object_type === 'repository') {
      this.soon('brief', 150, () => void qc.invalidateQueries({ queryKey: ['brief'] }));
    } else if (e.object_type === 'actor') {
      this.soon('actors', 150, () => void qc.invalidateQueries({ queryKey: keys.actors }));
      this.soon('overview', 150, () => void qc.invalidateQueries({ queryKey: keys.overview }));
    }
    if (e.object_type === 'task' || e.object_type === 'code_ref' || e.object_type === 'repository') {
      // a claim, a finish or a code ref's files move the board's collision badges
      this.soon('collisions', 300, () => void qc.invalidateQueries({ queryKey: ['collisions'] }));
    }
    this.soon('activity', 250, () => void qc.invalidateQueries({ queryKey: keys.activity }));
    this.soon('runs', 2000, () => void qc.invalidateQueries({ queryKey: keys.runs }));
  }

  private flush(): void {
    this.timer = null;
    const batches = this.pending;
    this.pending = new Map();
    const reads: Promise<unknown>[] = [];
    for (const [pid, ids] of batches) {
      if (ids.size > (this.opts.burst ?? 60) && pid) {
        // a plan of hundreds of tasks landed at once: one reload beats hundreds of reads
        reads.push(this.qc.invalidateQueries({ queryKey: keys.boardAll(pid) }));
        continue;
      }
      reads.push(refreshTasks(this.qc, [...ids]));
    }
    if (!this.summariesDue) return;
    this.summariesDue = false;
    // Summary reads are heavy (project_brief counts every status; the sidebar lists every project)
    // and, on the embedded database, one query runs at a time: started together with the card's
    // task_get they held it back, so a new card waited for the summaries (creates measured ~1 s
    // while edits, which arrived between refreshes, took 40 ms). Cards first, summaries after, and
    // not more than about once a second.
    void Promise.allSettled(reads).then(() => {
      const qc = this.qc;
      this.soon('brief', 1000, () => void qc.invalidateQueries({ queryKey: ['brief'] }));
      this.soon('projects', 2000, () => void qc.invalidateQueries({ queryKey: keys.projects }));
      this.soon('overview', 1000, () => void qc.invalidateQueries({ queryKey: keys.overview }));
    });
  }

  /** Everything may be stale (a replay too long to send): reload what is on screen. */
  resync(): void {
    void this.qc.invalidateQueries();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const t of this.throttled.values()) clearTimeout(t);
  }
}

/**
 * Refetches the queries under a key because the live feed reported a change to them. In-flight
 * fetches are cancelled first: React Query's invalidation leaves a first fetch (one with no data
 * yet) running, and that fetch may have read before the change, so the list would miss it for good.
 */
export function refetchAfterChange(qc: QueryClient, queryKey: readonly unknown[]): Promise<void> {
  return qc.cancelQueries({ queryKey }).then(() => qc.invalidateQueries({ queryKey }));
}
