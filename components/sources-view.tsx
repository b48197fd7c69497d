'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { readTool } from '@/lib/console/client/api';
import { refetchAfterChange } from '@/lib/console/client/cache';
import { useLiveChanges } from '@/lib/console/client/live';
import { useNow } from '@/lib/console/client/use-now';
import type { ChunkHit, SourceGetOutput as SourceGet, SourceRow } from '@/lib/console/types';
import { KnowledgeView } from './knowledge-view';
import { Markdown } from './markdown';
import { EmptyState, SearchField } from './page-parts';
import { TimeAgo } from './time-ago';

/** The Knowledge page: notes, or (`?view=sources`, or a document in `?doc=`) the synced document sources. */
export function KnowledgeWithSources() {
  const params = useSearchParams();
  const sources = params.get('view') === 'sources' || !!params.get('doc');
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <nav className="flex h-8 shrink-0 items-center gap-3 border-b border-zinc-100 px-4 text-[12px]" aria-label="Knowledge views">
        <Link href="/knowledge" className={sources ? 'text-zinc-500' : 'font-semibold text-zinc-900'} data-testid="knowledge-tab-notes">Notes</Link>
        <Link href="/knowledge?view=sources" className={sources ? 'font-semibold text-zinc-900' : 'text-zinc-500'} data-testid="knowledge-tab-sources">Sources</Link>
      </nav>
      {sources ? <SourcesView /> : <KnowledgeView />}
    </div>
  );
}

function useSourcesLive(): { ready: boolean } {
  const qc = useQueryClient();
  return useLiveChanges((e) => {
    if (e.object_type === 'source') void refetchAfterChange(qc, ['sources']);
  });
}

/** Sources: each synced folder with its documents, chunks, embedding progress, sync state and errors; search and read its documents. */
export function SourcesView() {
  const params = useSearchParams();
  const router = useRouter();
  const now = useNow(30_000);
  const { ready } = useSourcesLive();
  const [q, setQ] = useState('');
  const [query, setQuery] = useState('');
  useEffect(() => {
    const t = setTimeout(() => setQuery(q.trim()), 250);
    return () => clearTimeout(t);
  }, [q]);
  const doc = params.get('doc');
  const list = useQuery({
    queryKey: ['sources', 'list'],
    queryFn: () => readTool<{ sources: SourceRow[] }>('source_list', {}),
    enabled: ready,
    // embedding runs in the background: look again while chunks are on their way
    refetchInterval: (s) => (s.state.data?.sources.some((x) => x.syncing || x.chunks_embedded < x.chunks) ? 3000 : false),
  });
  const hits = useQuery({
    queryKey: ['sources', 'search', query],
    queryFn: () => readTool<{ results: ChunkHit[] }>('knowledge_search', { q: query, types: ['chunk'], top_k: 20 }),
    enabled: ready && !!query,
  });
  const rows = list.data?.sources ?? [];

  return (
    <div className="flex min-h-0 flex-1">
      <div className="min-w-0 flex-1 overflow-y-auto">
        <header className="flex h-12 items-center gap-2 border-b border-zinc-200 px-4">
          <h1 className="text-[13px] font-semibold">Sources</h1>
          <SearchField value={q} onChange={setQ} placeholder="Search documents…" label="Search documents" testId="sources-search" width="w-72" />
        </header>
        {rows.length === 0 && list.isSuccess && (
          <EmptyState title="No document sources yet" testId="sources-empty">
            Index a folder of Markdown and text files where it lives: <code className="font-mono">bullpen knowledge sync docs/ --source handbook</code>
          </EmptyState>
        )}
        {rows.length > 0 && (
          <table className="w-full text-[12px]" data-testid="sources-table">
            <thead className="text-left text-zinc-500">
              <tr><th className="px-4 py-2 font-medium">Source</th><th className="font-medium">Documents</th><th className="font-medium">Chunks</th><th className="font-medium">Sync</th><th className="font-medium">Errors</th></tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.id} className="border-t border-zinc-100 align-top" data-testid="source-row" data-name={s.name}>
                  <td className="px-4 py-2 font-medium">{s.name}{s.project_key && <span className="ml-1 font-mono text-zinc-500">{s.project_key}</span>}</td>
                  <td>{s.documents}{s.tombstoned > 0 && <span className="text-zinc-500"> · {s.tombstoned} gone</span>}</td>
                  <td>{s.chunks}{s.chunks_embedded < s.chunks && <span className="text-amber-700"> · {s.chunks - s.chunks_embedded} embedding</span>}</td>
                  <td data-testid="source-sync-state">
                    {s.syncing ? <span className="text-indigo-700">syncing…</span> : s.last_sync_at ? <TimeAgo at={s.last_sync_at} now={now} prefix="synced " /> : 'never'}
                  </td>
                  <td>
                    {s.errors.length === 0 ? <span className="text-zinc-400">none</span> : (
                      <ul className="text-red-700">{s.errors.slice(0, 5).map((e) => <li key={e.path}><span className="font-mono">{e.path}</span>: {e.message}</li>)}</ul>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {query && (
          <ul className="border-t border-zinc-200" data-testid="source-hits">
            {(hits.data?.results ?? []).map((h) => (
              <li key={h.id}>
                <button onClick={() => router.push(`/knowledge?view=sources&doc=${h.document_id}`)} className="block w-full px-4 py-2 text-left hover:bg-zinc-50" data-testid="source-hit">
                  <span className="text-[13px] font-medium">{h.title}</span> <span className="font-mono text-[11px] text-zinc-500">{h.source}/{h.path}</span>
                  {h.heading && <span className="block text-[12px] text-zinc-600">§ {h.heading}</span>}
                  <span className="block truncate text-[12px] text-zinc-500">{h.text.slice(0, 200)}</span>
                </button>
              </li>
            ))}
            {hits.isSuccess && hits.data.results.length === 0 && <li className="px-4 py-3 text-[12px] text-zinc-500">Nothing near enough in the synced documents.</li>}
          </ul>
        )}
      </div>
      {doc && <DocumentPanel id={doc} onClose={() => router.push('/knowledge?view=sources')} />}
    </div>
  );
}

function DocumentPanel({ id, onClose }: { id: string; onClose: () => void }) {
  const got = useQuery({ queryKey: ['sources', 'doc', id], queryFn: () => readTool<SourceGet>('source_get', { document_id: id }) });
  const d = got.data?.document;
  return (
    <aside className="w-[520px] shrink-0 overflow-y-auto border-l border-zinc-200 bg-white" data-testid="source-document">
      <header className="flex items-center gap-2 border-b border-zinc-200 px-4 py-3">
        <div className="min-w-0 flex-1">
          <h2 className="truncate text-[14px] font-semibold">{d?.title ?? '…'}</h2>
          {d && <p className="font-mono text-[11px] text-zinc-500">{d.source}/{d.path}{d.tombstoned_at && ' · gone from its folder'}</p>}
        </div>
        <button onClick={onClose} aria-label="Close" className="text-zinc-500">✕</button>
      </header>
      {got.isError && <p className="px-4 py-3 text-[12px] text-red-700">{(got.error as Error).message}</p>}
      {got.data?.chunks.map((c) => (
        <section key={c.id} className="border-b border-zinc-100 px-4 py-3" data-testid="source-chunk">
          <p className="mb-1 font-mono text-[10px] text-zinc-400">chars {c.start_offset}–{c.end_offset}</p>
          <Markdown text={c.text} className="text-[13px]" />
        </section>
      ))}
    </aside>
  );
}
