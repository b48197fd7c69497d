'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useState, type ReactNode } from 'react';
import { useWaitingCount } from '@/lib/console/client/coordination';
import { useProjects } from '@/lib/console/client/hooks';
import { markSigningOut, useLiveChanges } from '@/lib/console/client/live';
import { ActorAvatar } from './actor-avatar';
import { CommandPalette } from './command-palette';
import { useMe } from './console-providers';
import { BoardIcon, CheckIcon, ClockIcon, CommentIcon, FileIcon, FolderIcon, InboxIcon, KeyboardIcon, LogOutIcon, MenuIcon, PulseIcon, SearchIcon, UsersIcon, XIcon } from './icons';
import { NotificationBell } from './notification-bell';
import { Skeleton } from './skeleton';

/** The workspace-wide rooms listed under the inbox, in sidebar order. */
const ROOMS = [
  { href: '/actors', label: 'Agents & people', Icon: UsersIcon },
  { href: '/activity', label: 'Activity', Icon: PulseIcon },
  { href: '/decisions', label: 'Decisions', Icon: CheckIcon },
  { href: '/council', label: 'Council', Icon: UsersIcon },
  { href: '/costs', label: 'Costs', Icon: ClockIcon },
  { href: '/workflows', label: 'Workflows', Icon: BoardIcon },
  { href: '/webhooks', label: 'Webhooks', Icon: PulseIcon },
  { href: '/knowledge', label: 'Knowledge', Icon: FileIcon },
  { href: '/skills', label: 'Skills', Icon: KeyboardIcon },
];

function NavLink({ href, active, icon, children }: { href: string; active: boolean; icon: ReactNode; children: ReactNode }) {
  return (
    <Link
      href={href}
      aria-current={active ? 'page' : undefined}
      className={`flex h-8 md:h-7 items-center gap-2 rounded-md px-2 text-[13px] ${active ? 'bg-zinc-200/70 font-medium text-zinc-900' : 'text-zinc-600 hover:bg-zinc-200/40 hover:text-zinc-900'}`}
    >
      <span className="text-zinc-500">{icon}</span>
      {children}
    </Link>
  );
}

function LiveBadge() {
  // how many distinct changes reached this tab, and the newest: shown on hover, and read by the e2e
  // suite to prove a cut stream resumes with no gap and no repeat
  const [seen, setSeen] = useState({ count: 0, last: 0 });
  const { status } = useLiveChanges((e) => setSeen((s) => ({ count: s.count + 1, last: Math.max(s.last, e.seq) })));
  const tone = status === 'live' ? 'bg-emerald-500' : status === 'connecting' ? 'bg-zinc-400' : 'bg-amber-500';
  const text = status === 'live' ? 'Live' : status === 'connecting' ? 'Connecting…' : 'Reconnecting…';
  return (
    <span
      data-testid="live-status"
      data-status={status}
      data-events={seen.count}
      data-last-seq={seen.last}
      className="inline-flex items-center gap-1.5 text-[11px] text-zinc-500"
      title={`Changes by agents and people appear as they happen · ${seen.count} received${seen.last ? `, latest #${seen.last}` : ''}`}
    >
      <span className={`relative inline-flex size-2 rounded-full ${tone}`}>
        {status === 'live' && <span className="absolute inset-0 animate-ping rounded-full bg-emerald-400 opacity-60" />}
      </span>
      {text}
    </span>
  );
}

const SHORTCUTS: [string, string][] = [
  ['⌘K  or  Ctrl-K', 'Search everything, jump to a task, decision, note or project'],
  ['c', 'New task'],
  ['/', 'Search the board'],
  ['↑ ↓ ← →', 'Move between cards'],
  ['[  ]  or  ⇧← ⇧→', 'Move the focused card to the previous / next column'],
  ['Enter', 'Open the focused card'],
  ['Esc', 'Close the drawer or dialog'],
  ['?', 'This list'],
];

function ShortcutHelp({ onClose }: { onClose: () => void }) {
  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-zinc-900/20 backdrop-blur-[1px]" onClick={onClose}>
      <div role="dialog" aria-label="Keyboard shortcuts" className="w-[420px] max-w-[calc(100vw-2rem)] rounded-xl border border-zinc-200 bg-white p-4 shadow-xl" onClick={(e) => e.stopPropagation()}>
        <div className="mb-3 flex items-center justify-between">
          <h2 className="text-sm font-semibold">Keyboard shortcuts</h2>
          <button onClick={onClose} className="rounded p-1 text-zinc-500 hover:bg-zinc-100" aria-label="Close">
            <XIcon className="size-3.5" />
          </button>
        </div>
        <dl className="space-y-1.5 text-[13px]">
          {SHORTCUTS.map(([k, v]) => (
            <div key={k} className="flex items-center justify-between gap-4">
              <dt className="text-zinc-600">{v}</dt>
              <dd>
                <kbd className="rounded border border-zinc-200 bg-zinc-50 px-1.5 py-0.5 font-mono text-[11px] text-zinc-700">{k}</kbd>
              </dd>
            </div>
          ))}
        </dl>
      </div>
    </div>
  );
}

/** The console frame: workspace, navigation, projects, the live indicator and the signed-in human. */
export function ConsoleShell({ children }: { children: ReactNode }) {
  const me = useMe();
  const pathname = usePathname();
  const projects = useProjects();
  const waiting = useWaitingCount();
  const [help, setHelp] = useState(false);
  // below 768 px the sidebar is a menu behind a button; it closes on navigation and on Esc
  const [menu, setMenu] = useState(false);
  useEffect(() => setMenu(false), [pathname]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.key === 'Escape') setMenu(false);
      if (t.closest('input, textarea, select, [contenteditable="true"]')) return;
      if (e.key === '?') setHelp((h) => !h);
      if (e.key === 'Escape') setHelp(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className="flex h-dvh flex-col overflow-hidden bg-white text-zinc-900 md:flex-row">
      <div className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-2 md:hidden" data-testid="mobile-bar">
        <button
          onClick={() => setMenu(true)}
          aria-label="Open menu"
          aria-expanded={menu}
          aria-controls="console-nav"
          data-testid="open-menu"
          className="rounded-md p-2 text-zinc-700 hover:bg-zinc-100"
        >
          <MenuIcon className="size-5" />
        </button>
        <span className="truncate text-[13px] font-semibold">{me.tenant.name}</span>
        <button
          onClick={() => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'k', ctrlKey: true }))}
          aria-label="Search"
          className="ml-auto rounded-md p-2 text-zinc-700 hover:bg-zinc-100"
        >
          <SearchIcon className="size-4" />
        </button>
      </div>
      {menu && <div className="fixed inset-0 z-40 bg-zinc-900/30 md:hidden" onClick={() => setMenu(false)} aria-hidden="true" />}
      <aside
        id="console-nav"
        aria-label="Console navigation"
        data-testid="sidebar"
        data-open={menu ? 'true' : undefined}
        className={`${menu ? 'fixed inset-y-0 left-0 z-50 flex w-72 max-w-[85vw] shadow-xl' : 'hidden'} shrink-0 flex-col border-r border-zinc-200 bg-zinc-50 md:static md:z-auto md:flex md:w-60 md:max-w-none md:bg-zinc-50/80 md:shadow-none`}
      >
        <div className="flex h-12 items-center gap-2 border-b border-zinc-200 px-3">
          <span className="inline-flex size-6 items-center justify-center rounded-md bg-zinc-900 text-[11px] font-bold text-white">
            {me.tenant.name.slice(0, 1).toUpperCase()}
          </span>
          <div className="min-w-0">
            <p className="truncate text-[13px] font-semibold leading-tight" data-testid="workspace-name">{me.tenant.name}</p>
            <p className="truncate text-[11px] leading-tight text-zinc-500">{me.tenant.slug}</p>
          </div>
          <button onClick={() => setMenu(false)} aria-label="Close menu" className="ml-auto rounded p-1.5 text-zinc-500 hover:bg-zinc-200/60 md:hidden">
            <XIcon className="size-4" />
          </button>
        </div>
        <nav className="space-y-0.5 p-2">
          <NavLink href="/projects" active={pathname === '/projects'} icon={<BoardIcon className="size-4" />}>
            Projects
          </NavLink>
          <NavLink href="/inbox" active={pathname.startsWith('/inbox')} icon={<InboxIcon className="size-4" />}>
            Inbox
            {!!waiting.data && (
              <span data-testid="nav-inbox-count" className="ml-auto rounded-full bg-indigo-100 px-1.5 text-[10px] font-semibold text-indigo-700">
                {waiting.data}
              </span>
            )}
          </NavLink>
          {ROOMS.map(({ href, label, Icon }) => (
            <NavLink key={href} href={href} active={pathname.startsWith(href)} icon={<Icon className="size-4" />}>
              {label}
            </NavLink>
          ))}
          <button
            onClick={() => window.dispatchEvent(new KeyboardEvent('keydown', { key: 'k', ctrlKey: true }))}
            className="flex h-7 w-full items-center gap-2 rounded-md px-2 text-[13px] text-zinc-600 hover:bg-zinc-200/40 hover:text-zinc-900"
            data-testid="open-palette"
          >
            <span className="text-zinc-500"><SearchIcon className="size-4" /></span>
            Search
            <kbd className="ml-auto rounded border border-zinc-200 bg-white px-1 font-mono text-[10px] text-zinc-500">⌘K</kbd>
          </button>
          <NavLink href="/runs" active={pathname.startsWith('/runs')} icon={<ClockIcon className="size-4" />}>
            Runs
          </NavLink>
          {me.is_owner && (
            <NavLink href="/feedback" active={pathname.startsWith('/feedback')} icon={<CommentIcon className="size-4" />}>
              Feedback
            </NavLink>
          )}
        </nav>
        <div className="px-4 pt-3 pb-1 text-[11px] font-medium tracking-wide text-zinc-500 uppercase">Projects</div>
        <div className="min-h-0 flex-1 space-y-0.5 overflow-y-auto px-2 pb-2">
          {projects.isPending && [0, 1, 2].map((i) => <Skeleton key={i} className="mx-2 my-2 h-3" />)}
          {projects.data?.length === 0 && <p className="px-2 py-1 text-[12px] text-zinc-500">No projects yet.</p>}
          {projects.data?.map((p) => (
            <NavLink key={p.id} href={`/projects/${p.key}`} active={pathname === `/projects/${p.key}` || pathname.startsWith(`/projects/${p.key}/`)} icon={<FolderIcon className="size-3.5" />}>
              <span className="truncate">{p.title}</span>
              <span className="ml-auto font-mono text-[10px] text-zinc-600">{p.key}</span>
            </NavLink>
          ))}
        </div>
        <div className="border-t border-zinc-200 p-3">
          <div className="mb-2 flex items-center justify-between">
            <LiveBadge />
            <div className="flex items-center gap-0.5">
              <NotificationBell />
              <button onClick={() => setHelp(true)} className="rounded p-1 text-zinc-500 hover:bg-zinc-200/60 hover:text-zinc-600" title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts">
                <KeyboardIcon className="size-3.5" />
              </button>
            </div>
          </div>
          <div className="flex items-center gap-2">
            <ActorAvatar name={me.display_name} kind="human" size="md" />
            <div className="min-w-0 flex-1">
              <p className="truncate text-[13px] font-medium leading-tight" data-testid="me-name">{me.display_name}</p>
              <p className="text-[11px] leading-tight text-zinc-500">{me.is_owner ? 'Owner' : 'Member'}</p>
              <form action="/auth/signout" method="post" onSubmit={markSigningOut}>
                <input type="hidden" name="scope" value="everywhere" />
                <button type="submit" data-testid="signout-everywhere" className="text-[11px] leading-tight text-zinc-500 underline-offset-2 hover:text-zinc-700 hover:underline" title="End every session of yours, in every browser">
                  Sign out everywhere
                </button>
              </form>
            </div>
            <form action="/auth/signout" method="post" onSubmit={markSigningOut}>
              <button type="submit" className="rounded p-1.5 text-zinc-500 hover:bg-zinc-200/60 hover:text-zinc-700" title="Sign out" aria-label="Sign out">
                <LogOutIcon className="size-4" />
              </button>
            </form>
          </div>
        </div>
      </aside>
      <main className="flex min-h-0 min-w-0 flex-1 flex-col">{children}</main>
      {help && <ShortcutHelp onClose={() => setHelp(false)} />}
      <CommandPalette />
    </div>
  );
}
