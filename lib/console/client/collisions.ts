'use client';

import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { CodeCollisionsOutput } from '../types';
import { readTool } from './api';

export type Collision = CodeCollisionsOutput['tasks'][number]['collisions'][number];

/**
 * The board's collision badges: code_collisions for the project (the live feed's task and code ref
 * events re-read it), as a map from task id to the in-progress tasks it collides with.
 */
export function useCollisions(projectId: string | undefined): Map<string, Collision[]> {
  const q = useQuery({
    queryKey: ['collisions', projectId],
    queryFn: () => readTool<CodeCollisionsOutput>('code_collisions', { project_id: projectId }),
    enabled: !!projectId,
    // a workspace without a code graph answers an empty list: nothing to badge, nothing to retry
    retry: false,
  });
  return useMemo(() => new Map((q.data?.tasks ?? []).map((t) => [t.task_id, t.collisions])), [q.data]);
}
