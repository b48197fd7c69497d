'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { WorkflowGetOutput, WorkflowQueryOutput } from '../types';
import { readTool } from './api';
import { refetchAfterChange } from './cache';
import { useLiveChanges } from './live';

/**
 * The workflows page's queries. A workflow or instance event refetches them, and so does any task
 * event: an instance's status and progress are derived from its tasks.
 */
export function useWorkflows() {
  const qc = useQueryClient();
  const { ready } = useLiveChanges((e) => {
    if (e.object_type === 'workflow' || e.object_type === 'workflow_instance' || e.object_type === 'task') void refetchAfterChange(qc, ['workflows']);
  });
  return useQuery({
    queryKey: ['workflows', 'list'],
    queryFn: () => readTool<WorkflowQueryOutput>('workflow_query', { limit: 100 }),
    enabled: ready,
  });
}

export function useWorkflow(id: string | null) {
  return useQuery({
    queryKey: ['workflows', 'one', id],
    queryFn: () => readTool<WorkflowGetOutput>('workflow_get', { workflow_id: id }),
    enabled: !!id,
  });
}
