'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { DecisionQueryOutput, KnowledgeSearchOutput, NoteHit, SkillListOutput } from '../types';
import { readTool } from './api';
import { refetchAfterChange } from './cache';
import { useLiveChanges } from './live';

/** Query keys of the memory pages; a change event of a decision, note or skill refetches its kind. */
export const memoryKeys = {
  decisions: (filter: Record<string, unknown>) => ['memory', 'decision', filter] as const,
  notes: (filter: Record<string, unknown>) => ['memory', 'note', filter] as const,
  skills: (filter: Record<string, unknown>) => ['memory', 'skill', filter] as const,
};

/** Refetches the memory queries of the kind an event names (decision, note, skill). */
export function useMemoryLive(): { ready: boolean } {
  const qc = useQueryClient();
  return useLiveChanges((e) => {
    if (e.object_type === 'decision' || e.object_type === 'note' || e.object_type === 'skill') {
      void refetchAfterChange(qc, ['memory', e.object_type]);
    }
  });
}

export function useDecisions(filter: { project_id?: string; include_superseded: boolean; q?: string; semantic?: boolean }) {
  const { ready } = useMemoryLive();
  const input = {
    include_superseded: filter.include_superseded,
    ...(filter.project_id ? { project_id: filter.project_id } : {}),
    ...(filter.q ? { q: filter.q, ...(filter.semantic ? { semantic: true, top_k: 20 } : { limit: 200 }) } : { limit: 200 }),
  };
  return useQuery({
    queryKey: memoryKeys.decisions(input),
    queryFn: () => readTool<DecisionQueryOutput>('decision_query', input),
    enabled: ready,
  });
}

/** knowledge_search without `types` answers notes only. */
type NoteSearchOutput = Omit<KnowledgeSearchOutput, 'results'> & { results: NoteHit[] };

export function useNotes(filter: { q?: string; project_id?: string; kind?: string; tag?: string; lexical_only?: boolean }) {
  const { ready } = useMemoryLive();
  const input = {
    top_k: filter.q ? 20 : 50,
    ...(filter.q ? { q: filter.q } : {}),
    ...(filter.project_id ? { project_id: filter.project_id } : {}),
    ...(filter.kind ? { kind: filter.kind } : {}),
    ...(filter.tag ? { tags: [filter.tag] } : {}),
    ...(filter.lexical_only ? { lexical_only: true } : {}),
  };
  return useQuery({
    queryKey: memoryKeys.notes(input),
    queryFn: () => readTool<NoteSearchOutput>('knowledge_search', input),
    enabled: ready,
    // embedding happens in the background: look again while a note is still on its way
    refetchInterval: (q) => (q.state.data?.results.some((n) => n.embedding_status === 'pending') ? 2000 : false),
  });
}

export function useSkills(filter: { project_id?: string; status: 'active' | 'archived' }) {
  const { ready } = useMemoryLive();
  const input = { status: filter.status, include_body: true, limit: 500, ...(filter.project_id ? { project_id: filter.project_id } : {}) };
  return useQuery({
    queryKey: memoryKeys.skills(input),
    queryFn: () => readTool<SkillListOutput>('skill_list', input),
    enabled: ready,
  });
}
