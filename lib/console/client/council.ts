'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { CouncilGetOutput, CouncilQueryOutput } from '../types';
import { readTool } from './api';
import { refetchAfterChange } from './cache';
import { useLiveChanges } from './live';

/** The council page's queries; a council's ask or finish on the feed refetches them. */
export function useCouncils() {
  const qc = useQueryClient();
  const { ready } = useLiveChanges((e) => {
    if (e.object_type === 'council') void refetchAfterChange(qc, ['council']);
  });
  return useQuery({
    queryKey: ['council', 'list'],
    queryFn: () => readTool<CouncilQueryOutput>('council_query', { limit: 50 }),
    enabled: ready,
  });
}

export function useCouncil(id: string | null) {
  return useQuery({
    queryKey: ['council', 'one', id],
    queryFn: () => readTool<CouncilGetOutput>('council_get', { council_id: id }),
    enabled: !!id,
    // a running council is being worked on in the background: look again until it is settled
    refetchInterval: (q) => (q.state.data?.status === 'running' ? 1500 : false),
  });
}
