'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef } from 'react';
import type { Handoff, HandoffKind, HandoffStatus, Notification } from '../types';
import { readTool } from './api';
import { keys, refetchAfterChange, refreshTasks } from './cache';
import { readAll } from './hooks';
import { useLiveChanges } from './live';
import { writeTool } from './mutations';
import { useToast } from './toast';

/**
 * The console's side of the coordination room: the inbox page's lists, the bell, and the actions a
 * person takes on a handoff. Everything goes through the same tools agents call, as the signed-in
 * human. Live: a handoff event refreshes the lists; an "inbox" event for this person (something
 * landed in their inbox, see supabase/definitions/0009_coordination.sql) refreshes the bell.
 */

export type InboxView = 'to_me' | 'from_me' | 'any';
export type StatusFilter = 'live' | HandoffStatus | 'all';

const LIVE: HandoffStatus[] = ['open', 'claimed', 'responded'];

/** Refreshes the coordination caches when the feed reports a change that touches them (me: my actor id). */
export function useCoordinationLive(me: string): { ready: boolean } {
  const qc = useQueryClient();
  const timers = useRef(new Map<string, number>());
  const soon = (key: string, fn: () => void) => {
    if (timers.current.has(key)) return;
    timers.current.set(key, window.setTimeout(() => {
      timers.current.delete(key);
      fn();
    }, 60));
  };
  const { ready } = useLiveChanges((e) => {
    if (e.object_type === 'handoff') {
      soon('handoffs', () => void refetchAfterChange(qc, keys.handoffs));
    } else if (e.object_type === 'inbox' && e.object_id === me) {
      soon('notifications', () => void refetchAfterChange(qc, keys.notifications));
      soon('handoffs', () => void refetchAfterChange(qc, keys.handoffs));
    }
  });
  return { ready };
}

/** Handoffs for one view of the inbox page, newest first. */
export function useHandoffs(view: InboxView, status: StatusFilter, kind: HandoffKind | '') {
  const { ready } = useLiveChanges();
  return useQuery({
    queryKey: [...keys.handoffs, view, status, kind],
    queryFn: async () =>
      (
        await readAll<Handoff>(
          'handoff_query',
          {
            direction: view,
            limit: 200,
            ...(status === 'all' ? {} : { status: status === 'live' ? LIVE : [status] }),
            ...(kind ? { type: [kind] } : {}),
          },
          'handoffs',
          1000,
        )
      ).rows,
    enabled: ready,
  });
}

/** How many open handoffs wait for me (the navigation badge). */
export function useWaitingCount() {
  const { ready } = useLiveChanges();
  return useQuery({
    queryKey: [...keys.handoffs, 'waiting-count'],
    queryFn: async () => (await readAll<Handoff>('handoff_query', { direction: 'to_me', status: ['open'], limit: 200 }, 'handoffs', 200)).rows.length,
    enabled: ready,
  });
}

/** My notifications (newest 30) and the unread count: the bell. */
export function useNotifications() {
  const { ready } = useLiveChanges();
  return useQuery({
    queryKey: keys.notifications,
    queryFn: () => readTool<{ notifications: Notification[]; unread_count: number }>('notification_query', { limit: 30 }),
    enabled: ready,
  });
}

/**
 * The actions a person takes on a handoff. After acting, the handoff is acknowledged in the
 * person's inbox (ack after act), which also reads the notification it raised.
 */
export function useHandoffActions() {
  const qc = useQueryClient();
  const toast = useToast();
  const after = useCallback(
    async (h: Handoff, ack: boolean) => {
      if (ack) await writeTool('inbox', { ack: [h.id], kinds: ['handoff'], limit: 1 }).catch(() => {});
      await Promise.all([
        qc.invalidateQueries({ queryKey: keys.handoffs }),
        qc.invalidateQueries({ queryKey: keys.notifications }),
        h.related_task_id ? refreshTasks(qc, [h.related_task_id]) : Promise.resolve(),
      ]);
    },
    [qc],
  );
  const run = useCallback(
    async (h: Handoff, tool: string, input: Record<string, unknown>, ok: string, ack: boolean): Promise<boolean> => {
      try {
        await writeTool(tool, { handoff_id: h.id, ...input });
        toast.success(ok);
        await after(h, ack);
        return true;
      } catch (err) {
        toast.error(err);
        void qc.invalidateQueries({ queryKey: keys.handoffs });
        return false;
      }
    },
    [after, qc, toast],
  );
  return {
    claim: (h: Handoff) => run(h, 'handoff_claim', {}, 'Claimed: it is yours to answer', false),
    respond: (h: Handoff, response: Record<string, unknown>) => run(h, 'handoff_respond', { response }, 'Answer sent', true),
    resolve: (h: Handoff, resolution: 'processed' | 'cancelled', note?: string) =>
      run(h, 'handoff_resolve', { resolution, ...(note ? { note } : {}) }, resolution === 'cancelled' ? 'Handoff cancelled' : 'Handoff resolved', true),
  };
}

/** Marks notifications read (some, or all) and refreshes the bell. */
export function useMarkRead() {
  const qc = useQueryClient();
  const toast = useToast();
  return useCallback(
    async (input: { ids: string[] } | { all: true }) => {
      const before = qc.getQueryData<{ notifications: Notification[]; unread_count: number }>(keys.notifications);
      qc.setQueryData<{ notifications: Notification[]; unread_count: number }>(keys.notifications, (d) => {
        if (!d) return d;
        const now = new Date().toISOString();
        const hit = (n: Notification) => !n.read_at && ('all' in input || input.ids.includes(n.id));
        const marked = d.notifications.filter(hit).length;
        return {
          notifications: d.notifications.map((n) => (hit(n) ? { ...n, read_at: now } : n)),
          unread_count: 'all' in input ? 0 : Math.max(0, d.unread_count - marked),
        };
      });
      // "Mark all read" means all that the person has seen: when every unread one is on the list,
      // name them, so one that arrives while the call is on its way stays unread
      let send: { ids: string[] } | { all: true } = input;
      if ('all' in input && before) {
        const unread = before.notifications.filter((n) => !n.read_at).map((n) => n.id);
        if (unread.length >= before.unread_count && unread.length > 0 && unread.length <= 200) send = { ids: unread };
      }
      try {
        await writeTool('notification_mark_read', send);
      } catch (err) {
        toast.error(err);
      }
      await qc.invalidateQueries({ queryKey: keys.notifications });
    },
    [qc, toast],
  );
}
