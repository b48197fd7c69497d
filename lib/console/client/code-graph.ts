'use client';

import { useQuery } from '@tanstack/react-query';
import type { CodeCriticalFilesOutput, CodeCyclesOutput } from '../types';
import { ToolFailure, readTool } from './api';

/**
 * A repository's code graph for the console: its critical files and cycles (each answer carries the
 * graph's commit and age). null when the repository has no graph yet.
 */
export function useCodeGraph(repositoryId: string) {
  return useQuery({
    queryKey: ['code-graph', repositoryId],
    queryFn: async () => {
      try {
        const [critical, cycles] = await Promise.all([
          readTool<CodeCriticalFilesOutput>('code_critical_files', { repository_id: repositoryId, limit: 5 }),
          readTool<CodeCyclesOutput>('code_cycles', { repository_id: repositoryId, limit: 5 }),
        ]);
        return { critical, cycles };
      } catch (err) {
        if (err instanceof ToolFailure && err.error.code === 'NOT_FOUND') return null;
        throw err;
      }
    },
  });
}
