'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { useCoordinationLive, useMarkRead, useNotifications } from '@/lib/console/client/coordination';
import { useNow } from '@/lib/console/client/use-now';

import type { Notification } from '@/lib/console/types';
import { useMe } from './console-providers';
import { BellIcon } from './icons';
import { TimeAgo } from './time-ago';

/** Where a notification leads: its task, else the inbox. */
function target(n: Notification): string {
  if (n.task_ref && !n.kind.startsWith('handoff.') && n.kind !== 'review.requested') return `/projects/${n.task_ref.split('-')[0]}?task=${n.task_ref}`;
  return '/inbox';
}

/** The bell: my unread notifications, live; opening one marks it read. */
export function NotificationBell() {
  useCoordinationLive(useMe().actor_id);
  const q = useNotifications();
  const markRead = useMarkRead();
  const router = useRouter();
  const now = useNow(30_000);
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const unread = q.data?.unread_count ?? 0;

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    window.addEventListener('mousedown', close);
    window.addEventListener('keydown', esc);
    return () => {
      window.removeEventListener('mousedown', close);
      window.removeEventListener('keydown', esc);
    };
  }, [open]);

  return (
    <div ref={box} className="relative">
      <button
        onClick={() => setOpen((o) => !o)}
        aria-label={`Notifications: ${unread} unread`}
        title="Notifications"
        data-testid="bell"
        className="relative rounded p-1.5 text-zinc-500 hover:bg-zinc-200/60 hover:text-zinc-800"
      >
        <BellIcon className="size-4" />
        <span
          data-testid="bell-count"
          data-count={unread}
          className={`absolute -top-0.5 -right-0.5 min-w-4 rounded-full bg-rose-500 px-1 text-center text-[10px] leading-4 font-semibold text-white ${unread ? '' : 'hidden'}`}
        >
          {unread > 99 ? '99+' : unread}
        </span>
      </button>
      {open && (
        <div role="dialog" aria-label="Notifications" data-testid="bell-panel" className="absolute bottom-9 left-0 z-50 w-80 rounded-lg border border-zinc-200 bg-white shadow-xl">
          <div className="flex items-center justify-between border-b border-zinc-100 px-3 py-2">
            <p className="text-[12px] font-semibold text-zinc-700">Notifications</p>
            <button
              disabled={!unread}
              onClick={() => void markRead({ all: true })}
              data-testid="bell-mark-all"
              className="text-[11px] text-indigo-600 hover:underline disabled:text-zinc-300 disabled:no-underline"
            >
              Mark all read
            </button>
          </div>
          <ul className="max-h-96 overflow-y-auto py-1">
            {q.data && q.data.notifications.length === 0 && (
              <li className="px-3 py-6 text-center text-[12px] text-zinc-500">
                No notifications yet. You are notified when someone hands you work, asks for your review, answers you, @mentions you or assigns you a task.
              </li>
            )}
            {q.data?.notifications.map((n) => (
              <li key={n.id}>
                <button
                  onClick={() => {
                    if (!n.read_at) void markRead({ ids: [n.id] });
                    setOpen(false);
                    router.push(target(n));
                  }}
                  data-testid="bell-item"
                  data-read={n.read_at ? 'true' : 'false'}
                  className="flex w-full gap-2 px-3 py-2 text-left hover:bg-zinc-50"
                >
                  <span className={`mt-1.5 size-1.5 shrink-0 rounded-full ${n.read_at ? 'bg-transparent' : 'bg-indigo-500'}`} />
                  <span className="min-w-0 flex-1">
                    <span className={`block text-[12px] leading-snug ${n.read_at ? 'text-zinc-500' : 'font-medium text-zinc-900'}`}>{n.title}</span>
                    <span className="text-[11px] text-zinc-500"><TimeAgo at={n.created_at} now={now} /></span>
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
