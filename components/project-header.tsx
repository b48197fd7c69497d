import Link from 'next/link';
import type { ReactNode } from 'react';

/** The bar over a project: where you are, Board / Brief / Insights tabs, and the page's actions. */
export function ProjectHeader({ projectKey, title, tab, actions }: { projectKey: string; title?: string; tab: 'board' | 'brief' | 'insights'; actions?: ReactNode }) {
  const tabClass = (on: boolean) =>
    `inline-flex h-7 items-center rounded-md px-2.5 text-[13px] ${on ? 'bg-zinc-100 font-medium text-zinc-900' : 'text-zinc-600 hover:bg-zinc-50 hover:text-zinc-800'}`;
  return (
    <header className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-3 md:gap-3 md:px-4">
      <nav className="flex min-w-0 items-center gap-1.5 text-[13px]">
        <Link href="/projects" className="hidden text-zinc-500 hover:text-zinc-800 sm:inline">
          Projects
        </Link>
        <span className="hidden text-zinc-500 sm:inline" aria-hidden="true">/</span>
        <span className="rounded bg-zinc-100 px-1.5 font-mono text-[11px] text-zinc-600">{projectKey}</span>
        <h1 className="truncate font-semibold text-zinc-900" data-testid="project-title">{title ?? ' '}</h1>
      </nav>
      <div className="flex items-center gap-0.5 md:ml-2">
        <Link href={`/projects/${projectKey}`} className={tabClass(tab === 'board')}>
          Board
        </Link>
        <Link href={`/projects/${projectKey}/brief`} className={tabClass(tab === 'brief')}>
          Brief
        </Link>
        <Link href={`/projects/${projectKey}/insights`} className={tabClass(tab === 'insights')}>
          Insights
        </Link>
      </div>
      <div className="ml-auto flex items-center gap-2">{actions}</div>
    </header>
  );
}
