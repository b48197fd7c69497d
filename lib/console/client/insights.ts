'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { ProjectInsightsOutput } from '../../core/insights';
import type { LiveEvent } from '../types';
import { readTool } from './api';
import { refetchAfterChange } from './cache';
import { useLiveChanges } from './live';

export type ProjectInsights = ProjectInsightsOutput;

export const insightsKey = (projectKey: string, days: number) => ['insights', projectKey, days] as const;

/** Objects whose changes move a project's figures: its tasks, and the review handoffs about them. */
const MOVES_FIGURES = new Set(['task', 'handoff', 'project']);

/**
 * A project's insights (the project_insights tool, as an agent reads them), kept live: a change
 * to the project's tasks or a handoff refetches the figures, at most about three times a second,
 * however large the burst.
 */
export function useInsights(projectKey: string, days: number, initial?: ProjectInsights) {
  const qc = useQueryClient();
  const key = insightsKey(projectKey, days);
  const projectId = useRef<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const { ready } = useLiveChanges((e: LiveEvent) => {
    if (!MOVES_FIGURES.has(e.object_type)) return;
    // a handoff event may not name the project; a task event of another project never matters
    if (e.object_type !== 'handoff' && e.project_id && projectId.current && e.project_id !== projectId.current) return;
    timer.current ??= setTimeout(() => {
      timer.current = null;
      void refetchAfterChange(qc, ['insights', projectKey]);
    }, 300);
  });
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  const q = useQuery({
    queryKey: key,
    queryFn: () => readTool<ProjectInsights>('project_insights', { project_id: projectKey, days }),
    // figures the page brought draw at once; once the feed is subscribed they are read again, so
    // a change between the page's read and the subscription is not missed
    initialData: initial,
    initialDataUpdatedAt: 0,
    enabled: ready,
    placeholderData: (prev) => prev,
  });
  projectId.current = q.data?.project.id ?? projectId.current;
  return q;
}
