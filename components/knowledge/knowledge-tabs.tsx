'use client';

import Link from 'next/link';

/** The Knowledge page's views, as links (`/knowledge?view=…`), so each view has an address. */
export const KNOWLEDGE_VIEWS = [
  { view: 'notes', label: 'Notes' },
  { view: 'guidelines', label: 'Guidelines' },
] as const;

export function knowledgeView(param: string | null): string {
  return KNOWLEDGE_VIEWS.some((v) => v.view === param) ? param! : 'notes';
}

export function KnowledgeTabs({ current }: { current: string }) {
  return (
    <nav aria-label="Knowledge views" className="flex items-center gap-0.5 rounded-md bg-zinc-100 p-0.5">
      {KNOWLEDGE_VIEWS.map((v) => (
        <Link
          key={v.view}
          href={v.view === 'notes' ? '/knowledge' : `/knowledge?view=${v.view}`}
          aria-current={current === v.view ? 'page' : undefined}
          data-testid={`knowledge-tab-${v.view}`}
          className={`rounded px-2 py-0.5 text-[12px] ${current === v.view ? 'bg-white font-medium text-zinc-900 shadow-sm' : 'text-zinc-600 hover:text-zinc-900'}`}
        >
          {v.label}
        </Link>
      ))}
    </nav>
  );
}
