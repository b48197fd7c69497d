'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { BudgetStatusOutput, CostSummaryOutput } from '../types';
import { readTool } from './api';
import { refetchAfterChange } from './cache';
import { useLiveChanges } from './live';

type Grouping = 'agent' | 'model' | 'task' | 'day';

/**
 * A cost_summary of the current period grouped one way (with each group's spend by day when `daily`);
 * a run's report or a budget change on the feed refetches it.
 */
export function useCostSummary(group_by: Grouping, period: 'day' | 'week' | 'month' | 'all', daily = false) {
  const qc = useQueryClient();
  const { ready } = useLiveChanges((e) => {
    if (e.object_type === 'run' || e.object_type === 'budget') void refetchAfterChange(qc, ['costs']);
  });
  return useQuery({
    queryKey: ['costs', 'summary', group_by, period, daily],
    queryFn: () => readTool<CostSummaryOutput>('cost_summary', daily ? { group_by, period, daily } : { group_by, period }),
    enabled: ready,
  });
}

/** The budgets that apply (a project's, and the workspace's, with scope and scope_id). */
export function useBudgets(scope?: { scope: 'project'; scope_id: string }) {
  return useQuery({
    queryKey: ['costs', 'budgets', scope?.scope_id ?? null],
    queryFn: () => readTool<BudgetStatusOutput>('budget_status', scope ?? {}),
  });
}
