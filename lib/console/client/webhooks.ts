'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { WebhookListOutput } from '../types';
import { readTool } from './api';
import { refetchAfterChange } from './cache';
import { useLiveChanges } from './live';

/** The webhooks page's query (owners only: anyone else gets the FORBIDDEN envelope); a webhook's change on the feed refetches it. */
export function useWebhooks(webhookId: string | null) {
  const qc = useQueryClient();
  const { ready } = useLiveChanges((e) => {
    if (e.object_type === 'webhook') void refetchAfterChange(qc, ['webhooks']);
  });
  return useQuery({
    queryKey: ['webhooks', webhookId],
    queryFn: () => readTool<WebhookListOutput>('webhook_list', webhookId ? { webhook_id: webhookId } : {}),
    enabled: ready,
    // deliveries are written by the job runner, which logs no activity per attempt
    refetchInterval: 5000,
    retry: false,
  });
}
