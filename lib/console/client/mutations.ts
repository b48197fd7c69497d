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

/** The last move sent for each task: a card's moves reach the server one after another, in order. */
const movesInFlight = new Map<string, Promise<unknown>>();

/**
 * Moves a card to another column: the card moves at once, task_update runs with expected_status
 * (so a card someone else just moved is not overwritten), and a refusal (illegal move, unmet gate,
 * conflict) snaps the card back and shows the error's message and hint. Quick moves of one card
 * (keyboard: ] [ ]) are sent in order, each after the one before has answered: sent together, the
 * third expected the status the second had not yet written and was refused as a conflict.
 */
export function useMoveTask() {
  const qc = useQueryClient();
  const toast = useToast();
  return useCallback(
    async (task: TaskRow, to: TaskStatus): Promise<boolean> => {
      if (task.status === to) return true;
      const done = beginWrite(task.id);
      placeRow(qc, { ...task, status: to });
      const previous = movesInFlight.get(task.id);
      let release!: () => void;
      const mine = new Promise<void>((r) => (release = r));
      movesInFlight.set(task.id, mine);
      if (previous) await previous;
      try {
        const res = await writeTool<{ task: TaskFull }>('task_update', {
          task_id: task.id,
          patch: { status: to, expected_status: task.status, ...(task.status === 'done' || task.status === 'cancelled' ? { allow_reopen: true } : {}) },
        });
        placeRow(qc, res.task);
        return true;
      } catch (err) {
        placeRow(qc, task);
        toast.error(err);
        return false;
      } finally {
        release();
        if (movesInFlight.get(task.id) === mine) movesInFlight.delete(task.id);
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
        qc.setQueryData<TaskDetail>(q.queryKey, (d) => (d ? { ...d, task: { ...d.task, ...(patch as Partial<TaskFull>) } } : d));
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

export { keys };
