'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { runToolAction } from '@/lib/console/actions';
import { useToast } from './toast';
import type { TaskDetail, TaskFull, TaskRow, TaskStatus } from '../types';
import { uid, viaAction } from './api';
import { beginWrite, keys, placeRow, refreshTasks } from './cache';

/**
 * Runs a write tool through the console's server action; throws ToolFailure on {ok:false}. Every
 * click is its own intent, so each gets a fresh idempotency key: a derived key would replay the
 * first of two identical moves made within the replay window (todo → doing → todo → doing).
 */
export function writeTool<T>(tool: string, input: Record<string, unknown>): Promise<T> {
  return viaAction<T>(runToolAction(tool, { idempotency_key: `console:${uid()}`, ...input }));
}

/**
 * A card's moves that have not all answered yet. `tail` is the last one queued, `intended` the row
 * as the last of them leaves it, `confirmed` the newest row the server has answered with, and
 * `failed` is set once one of them is refused.
 */
type MoveChain = { tail: Promise<void>; intended: TaskRow; confirmed: TaskRow; failed: boolean };
const chains = new Map<string, MoveChain>();

/**
 * The row a card's queued moves will leave, while any are on their way. A key pressed before the
 * board has re-rendered still sees the card where it was; the next move is computed from this.
 */
export function pendingMove(taskId: string): TaskRow | undefined {
  return chains.get(taskId)?.intended;
}

/**
 * Moves a card to another column: the card moves at once, task_update runs with expected_status
 * (so a card someone else just moved is not overwritten), and a refusal (illegal move, unmet gate,
 * conflict) snaps the card back and shows the error's message and hint.
 *
 * Quick moves of one card (keyboard: [ ] [) form a chain, sent one after another in order, each
 * expecting the status the one before writes. While later moves are queued, an earlier answer is
 * not drawn: the card stays where the last key put it, so a key pressed mid-chain moves it from
 * there (drawing the in-between answers made the card flicker back, and the next key was computed
 * from a column the card was about to leave). Once a move is refused the rest of its chain is not
 * sent, and the card lands on the newest row the server confirmed.
 */
export function useMoveTask() {
  const qc = useQueryClient();
  const toast = useToast();
  return useCallback(
    async (shown: TaskRow, to: TaskStatus): Promise<boolean> => {
      const chain = chains.get(shown.id);
      const task = chain?.intended ?? shown; // moved from where the queued moves leave it
      if (task.status === to) return true;
      const done = beginWrite(task.id);
      const intended = { ...task, status: to };
      placeRow(qc, intended);
      let release!: () => void;
      const mine = new Promise<void>((r) => (release = r));
      const previous = chain?.tail;
      const link: MoveChain = chain ?? { tail: mine, intended, confirmed: task, failed: false };
      link.tail = mine;
      link.intended = intended;
      chains.set(task.id, link);
      const last = () => link.tail === mine;
      if (previous) await previous;
      try {
        if (link.failed) return false; // premised on a move the server refused
        const res = await writeTool<{ task: TaskFull }>('task_update', {
          task_id: task.id,
          patch: { status: to, expected_status: task.status, ...(task.status === 'done' || task.status === 'cancelled' ? { allow_reopen: true } : {}) },
        });
        link.confirmed = res.task;
        return true;
      } catch (err) {
        link.failed = true;
        toast.error(err);
        return false;
      } finally {
        if (last()) {
          chains.delete(task.id);
          placeRow(qc, link.confirmed);
        }
        release();
        done();
        void refreshTasks(qc, [task.id]);
      }
    },
    [qc, toast],
  );
}

/**
 * Patches one task from the drawer: the drawer shows the change at once, the server answers, and
 * the task is re-read so the drawer and board carry the server's truth (a refusal rolls back).
 */
export function useUpdateTask() {
  const qc = useQueryClient();
  const toast = useToast();
  return useCallback(
    async (task: TaskRow, patch: Record<string, unknown>): Promise<boolean> => {
      const done = beginWrite(task.id);
      const drawerKeys = qc.getQueryCache().findAll({ queryKey: ['task'] }).filter((q) => (q.state.data as TaskDetail | undefined)?.task.id === task.id);
      const before = drawerKeys.map((q) => [q.queryKey, q.state.data] as const);
      for (const q of drawerKeys) {
        qc.setQueryData<TaskDetail>(q.queryKey, (d) => (d ? { ...d, task: { ...d.task, ...(patch as Partial<TaskFull>), ...metaAfter(d.task, patch) } } : d));
      }
      try {
        const res = await writeTool<{ task: TaskFull }>('task_update', { task_id: task.id, patch });
        placeRow(qc, res.task);
        done();
        await refreshTasks(qc, [task.id]);
        return true;
      } catch (err) {
        for (const [k, d] of before) qc.setQueryData(k, d);
        toast.error(err);
        done();
        void refreshTasks(qc, [task.id]);
        return false;
      }
    },
    [qc, toast],
  );
}

/** What a meta patch leaves, as the server merges it: keys replaced, a null value drops its key. */
function metaAfter(task: TaskFull, patch: Record<string, unknown>): Partial<TaskFull> {
  const m = patch.meta;
  if (!m || typeof m !== 'object') return {};
  const out: Record<string, unknown> = { ...task.meta };
  for (const [k, v] of Object.entries(m)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return { meta: out };
}

/**
 * Reorders a card within its column: one task_update of order_index (the midpoint between its new
 * neighbours, so no other card is written). The board shows the new place at once; other viewers
 * see it from the change feed (the task.updated event re-reads the row, and columns sort by it).
 */
export function useReorderTask() {
  const qc = useQueryClient();
  const toast = useToast();
  return useCallback(
    async (task: TaskRow, orderIndex: number): Promise<boolean> => {
      if (orderIndex === task.order_index) return true;
      const done = beginWrite(task.id);
      placeRow(qc, { ...task, order_index: orderIndex });
      try {
        const res = await writeTool<{ task: TaskFull }>('task_update', { task_id: task.id, patch: { order_index: orderIndex } });
        placeRow(qc, res.task);
        return true;
      } catch (err) {
        toast.error(err);
        return false;
      } finally {
        done();
        void refreshTasks(qc, [task.id]);
      }
    },
    [qc, toast],
  );
}

export { keys };
