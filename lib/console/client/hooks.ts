'use client';

import { useQueries, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { Actor, Project, ProjectBrief, TaskDetail, TaskRow, TaskStatus } from '../types';
import { readTool } from './api';
import { keys, reconcileColumn, type Column } from './cache';
import { useLiveChanges } from './live';

/** Pages through a cursor-paginated tool until it ends (or `max` rows). */
export async function readAll<T>(tool: string, input: Record<string, unknown>, field: string, max = 10_000): Promise<{ rows: T[]; next_cursor: string | null }> {
  const rows: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Record<string, unknown> = await readTool(tool, cursor ? { ...input, cursor } : input);
    rows.push(...(page[field] as T[]));
    cursor = (page.next_cursor as string | null) ?? null;
  } while (cursor && rows.length < max);
  return { rows, next_cursor: cursor };
}

export function useProjects() {
  const { ready } = useLiveChanges();
  return useQuery({
    queryKey: keys.projects,
    queryFn: async () => (await readAll<Project>('project_query', { detail: 'full', limit: 200 }, 'projects')).rows,
    enabled: ready,
  });
}

export function useActors() {
  const { ready } = useLiveChanges();
  const q = useQuery({
    queryKey: keys.actors,
    queryFn: async () => (await readAll<Actor>('actor_query', { limit: 200 }, 'actors')).rows,
    enabled: ready,
    staleTime: 60_000,
  });
  const byId = useMemo(() => new Map((q.data ?? []).map((a) => [a.id, a])), [q.data]);
  return { ...q, byId };
}

export function useBrief(projectKey: string) {
  const { ready } = useLiveChanges();
  return useQuery({
    queryKey: keys.brief(projectKey),
    queryFn: () => readTool<ProjectBrief>('project_brief', { project: projectKey, max_tasks: 10, max_activity: 15 }),
    enabled: ready,
  });
}

/** Rows per column load in pages of 500 (task_query's maximum) up to this many before "load more". */
export const COLUMN_CAP = 5000;

/**
 * Board columns: every task of the project in each status, in board order, one query per column
 * (so a change refetches or patches only the columns it touches). `open` says which to load.
 */
export function useColumns(projectId: string | undefined, statuses: readonly TaskStatus[], open: (s: TaskStatus) => boolean = () => true) {
  const { ready } = useLiveChanges();
  return useQueries({
    queries: statuses.map((status) => ({
      queryKey: keys.board(projectId ?? '', status),
      queryFn: async (): Promise<Column> => {
        const started = performance.now();
        const col = await readAll<TaskRow>('task_query', { project_id: projectId, status: [status], limit: 500, order: 'manual' }, 'tasks', COLUMN_CAP);
        return { ...col, rows: reconcileColumn(projectId!, status, col.rows, started) };
      },
      enabled: ready && !!projectId && open(status),
      staleTime: Infinity,
    })),
  });
}

export function useTask(ref: string | null) {
  const { ready } = useLiveChanges();
  return useQuery({
    queryKey: keys.task(ref ?? ''),
    queryFn: () => readTool<TaskDetail>('task_get', { task_id: ref }),
    enabled: ready && !!ref,
    staleTime: Infinity,
  });
}
