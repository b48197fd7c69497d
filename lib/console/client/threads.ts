'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { CommentQueryOutput } from '@/lib/core/comments';
import { readTool } from './api';
import { refetchAfterChange } from './cache';
import { useLiveChanges } from './live';

/** The objects besides tasks whose threads the console shows: decisions, notes and handoffs. */
export type ThreadObject = 'decision' | 'note' | 'handoff';

export const threadKey = (objectType: ThreadObject, objectId: string) => ['thread', objectType, objectId] as const;

/**
 * The comment thread on one object (comment_query), kept live: a comment added anywhere (an agent
 * over MCP, another browser) writes an activity row naming the object, and that refetches it.
 */
export function useThread(objectType: ThreadObject, objectId: string) {
  const qc = useQueryClient();
  const { ready } = useLiveChanges((e) => {
    if (e.object_id === objectId) void refetchAfterChange(qc, threadKey(objectType, objectId));
  });
  return useQuery({
    queryKey: threadKey(objectType, objectId),
    queryFn: () => readTool<CommentQueryOutput>('comment_query', { object_type: objectType, object_id: objectId, limit: 500 }),
    enabled: ready,
  });
}
