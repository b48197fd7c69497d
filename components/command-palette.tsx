'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { readTool } from '@/lib/console/client/api';
import type { ChunkHit, SearchOutput } from '@/lib/console/types';
import { SearchIcon } from './icons';

type Hit = SearchOutput['results'][number];

const TYPE_LABEL: Record<Hit['object_type'] | 'source', string> = {
  source: 'Document',
  project: 'Project',
  task: 'Task',
  decision: 'Decision',
  note: 'Note',
  comment: 'Comment',
  handoff: 'Handoff',
  skill: 'Skill',
};

/** Where a hit opens in the console. */
export function hitHref(h: Hit): string | null {
  switch (h.object_type as Hit['object_type'] | 'source') {
    case 'source':
      return `/knowledge?view=sources&doc=${h.object_id}`;
    case 'task':
    case 'comment':
      return h.ref && /-\d+$/.test(h.ref) ? `/projects/${h.ref.replace(/-\d+$/, '')}?task=${h.ref}` : h.ref ? `/projects/${h.ref}` : null;
    case 'project':
      return h.ref ? `/projects/${h.ref}` : null;
    case 'decision':
      return `/decisions?d=${h.object_id}`;
    case 'note':
      return `/knowledge?note=${h.object_id}`;
    case 'skill':
      return h.ref ? `/skills?slug=${encodeURIComponent(h.ref)}` : '/skills';
    default:
      return null;
  }
}

/** Source documents (synced folders) matched by words: one entry per document, its best chunk's heading as the snippet. */
async function documentHits(q: string): Promise<Hit[]> {
  const res = await readTool<{ results: ChunkHit[] }>('knowledge_search', { q, types: ['chunk'], lexical_only: true, top_k: 10 });
  const seen = new Set<string>();
  return res.results
    .filter((c) => !seen.has(c.document_id) && seen.add(c.document_id))
    .slice(0, 5)
    .map((c) => ({ object_type: 'source', object_id: c.document_id, title: c.title, ref: `${c.source}/${c.path}`, snippet: c.heading ?? c.text.slice(0, 120) }) as unknown as Hit);
}

/** ⌘K / Ctrl-K: keyword search across the workspace (the `search` tool) and its source documents; Enter jumps to the hit. */
export function CommandPalette() {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<Hit[]>([]);
  const [active, setActive] = useState(0);
  const [loading, setLoading] = useState(false);
  const seq = useRef(0);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setOpen((o) => !o);
      } else if (e.key === 'Escape') setOpen(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    if (!open) {
      setQ('');
      setHits([]);
      return;
    }
    const text = q.trim();
    if (!text) {
      setHits([]);
      return;
    }
    const mine = ++seq.current;
    setLoading(true);
    const t = setTimeout(async () => {
      try {
        const [res, docs] = await Promise.all([readTool<SearchOutput>('search', { q: text, limit: 12 }), documentHits(text).catch(() => [])]);
        if (mine === seq.current) {
          setHits([...res.results.filter((h) => hitHref(h)), ...docs]);
          setActive(0);
        }
      } catch {
        if (mine === seq.current) setHits([]);
      } finally {
        if (mine === seq.current) setLoading(false);
      }
    }, 120);
    return () => clearTimeout(t);
  }, [q, open]);

  const go = (h: Hit | undefined) => {
    const href = h && hitHref(h);
    if (!href) return;
    setOpen(false);
    router.push(href);
  };

  if (!open) return null;
  return (
    <div className="fixed inset-0 z-[60] flex items-start justify-center bg-zinc-900/25 pt-[12vh] backdrop-blur-[1px]" onMouseDown={() => setOpen(false)}>
      <div role="dialog" aria-label="Search the workspace" data-testid="command-palette" onMouseDown={(e) => e.stopPropagation()} className="w-[600px] overflow-hidden rounded-xl border border-zinc-200 bg-white shadow-2xl">
        <div className="flex items-center gap-2 border-b border-zinc-100 px-3">
          <SearchIcon className="size-4 text-zinc-500" />
          <input
            autoFocus
            value={q}
            onChange={(e) => setQ(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown') { e.preventDefault(); setActive((a) => Math.min(a + 1, hits.length - 1)); }
              if (e.key === 'ArrowUp') { e.preventDefault(); setActive((a) => Math.max(a - 1, 0)); }
              if (e.key === 'Enter') { e.preventDefault(); go(hits[active]); }
            }}
            placeholder="Search tasks, decisions, notes, projects, skills, documents…"
            aria-label="Search"
            className="h-11 flex-1 border-0 text-[14px] placeholder:text-zinc-400 focus:outline-none"
          />
          <kbd className="rounded border border-zinc-200 px-1.5 font-mono text-[10px] text-zinc-500">Esc</kbd>
        </div>
        <ul className="max-h-[50vh] overflow-y-auto py-1" role="listbox">
          {hits.map((h, i) => (
            <li key={`${h.object_type}:${h.object_id}`} role="option" aria-selected={i === active}>
              <button
                onMouseEnter={() => setActive(i)}
                onClick={() => go(h)}
                data-testid="palette-hit"
                data-type={h.object_type}
                className={`flex w-full items-start gap-2 px-3 py-2 text-left ${i === active ? 'bg-indigo-50' : ''}`}
              >
                <span className="mt-0.5 w-16 shrink-0 text-[10px] font-medium tracking-wide text-zinc-500 uppercase">{TYPE_LABEL[h.object_type]}</span>
                <span className="min-w-0 flex-1">
                  <span className="flex items-center gap-2">
                    {h.ref && (h.object_type === 'task' || (h.object_type as string) === 'source') && <span className="font-mono text-[11px] text-zinc-500">{h.ref}</span>}
                    <span className="truncate text-[13px] font-medium">{h.title}</span>
                  </span>
                  {h.snippet && <span className="block truncate text-[12px] text-zinc-500">{h.snippet.replace(/[«»]/g, '')}</span>}
                </span>
              </button>
            </li>
          ))}
          {q.trim() && !loading && hits.length === 0 && <li className="px-3 py-4 text-[13px] text-zinc-500">No match. Search matches words; for meaning, use Knowledge.</li>}
          {!q.trim() && <li className="px-3 py-4 text-[12px] text-zinc-500">Type a word of a title, a task ref like PAY-12, or a project key.</li>}
        </ul>
      </div>
    </div>
  );
}
