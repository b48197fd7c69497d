'use client';

import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import { useProjects } from '@/lib/console/client/hooks';
import { useNotes } from '@/lib/console/client/memory';
import { writeTool } from '@/lib/console/client/mutations';
import { useToast } from '@/lib/console/client/toast';
import { useNow } from '@/lib/console/client/use-now';

import type { NoteHit } from '@/lib/console/types';
import { ObjectThread } from './comment-thread';
import { RelatedPanel } from './graph/related-panel';
import { GuidelinesView } from './knowledge/guidelines-view';
import { KnowledgeTabs, knowledgeView } from './knowledge/knowledge-tabs';
import { FormActions, ModalForm, fieldCls, useSubmitting } from './form-parts';
import { AddButton, EmptyState, ExampleCall, SearchField } from './page-parts';
import { Markdown } from './markdown';
import { SkeletonRows } from './skeleton';
import { TimeAgo } from './time-ago';

const KINDS = ['note', 'runbook', 'finding', 'snippet', 'guideline', 'pattern', 'journal'] as const satisfies readonly NoteHit['kind'][];

const EMBED_TONE: Record<NoteHit['embedding_status'], string> = {
  pending: 'bg-amber-50 text-amber-700',
  ready: 'bg-emerald-50 text-emerald-700',
  failed: 'bg-rose-50 text-rose-700',
  unavailable: 'bg-zinc-100 text-zinc-500',
};
const EMBED_TEXT: Record<NoteHit['embedding_status'], string> = {
  pending: 'embedding…',
  ready: 'searchable by meaning',
  failed: 'embedding failed',
  unavailable: 'words only',
};

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

const field = fieldCls;

function NoteDialog({ onClose }: { onClose: () => void }) {
  const toast = useToast();
  const projects = useProjects();
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [kind, setKind] = useState<(typeof KINDS)[number]>('note');
  const [project, setProject] = useState('');
  const [tags, setTags] = useState('');
  const [expires, setExpires] = useState('');
  const [sensitive, setSensitive] = useState(false);
  const { busy, submitter } = useSubmitting();
  const submit = submitter(title.trim() && body.trim(), async () => {
    const res = await writeTool<{ embedding_status: string }>('knowledge_write', {
      title: title.trim(),
      body,
      kind,
      ...(project ? { project_id: project } : {}),
      ...(tags.trim() ? { tags: [...new Set(tags.split(',').map((t) => t.trim()).filter(Boolean))] } : {}),
      ...(expires ? { expires_at: new Date(expires).toISOString() } : {}),
      ...(sensitive ? { sensitivity: 'sensitive' } : {}),
    });
    toast.success('Note saved', res.embedding_status === 'pending' ? 'searchable by meaning in a moment' : undefined);
    onClose();
  });
  return (
    <ModalForm label="Write a note" className="w-[620px]" onClose={onClose} onSubmit={submit} heading={<span className="text-[13px] text-zinc-500">Write a note</span>}>
      <div className="space-y-3 px-4 py-3">
        <input autoFocus value={title} onChange={(e) => setTitle(e.target.value)} placeholder="Title" aria-label="Title" className="w-full border-0 p-0 text-[16px] font-semibold placeholder:text-zinc-300 focus:outline-none" />
        <textarea value={body} onChange={(e) => setBody(e.target.value)} placeholder="What the next actor should know (Markdown)" aria-label="Body" rows={6} className={`${field} py-2`} />
        <div className="grid grid-cols-4 gap-2">
          <select aria-label="Kind" value={kind} onChange={(e) => setKind(e.target.value as (typeof KINDS)[number])} className={`${field} h-8`}>
            {KINDS.map((k) => <option key={k} value={k}>{k}</option>)}
          </select>
          <select aria-label="Project" value={project} onChange={(e) => setProject(e.target.value)} className={`${field} h-8`}>
            <option value="">Whole workspace</option>
            {projects.data?.map((p) => <option key={p.id} value={p.id}>{p.key}</option>)}
          </select>
          <input value={tags} onChange={(e) => setTags(e.target.value)} placeholder="tags, comma-separated" aria-label="Tags" className={`${field} h-8`} />
          <input type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} aria-label="Expires" title="Expires (optional)" className={`${field} h-8`} />
        </div>
        <label className="flex items-center gap-1.5 text-[12px] text-zinc-600" title="Only people and keys with the sensitive scope see a sensitive note">
          <input type="checkbox" checked={sensitive} onChange={(e) => setSensitive(e.target.checked)} aria-label="Sensitive" /> Sensitive: hidden from keys without the sensitive scope
        </label>
      </div>
      <FormActions className="border-t border-zinc-100 px-4 py-2.5" onCancel={onClose} disabled={!title.trim() || !body.trim() || busy} submitLabel="Save note" />
    </ModalForm>
  );
}

/** Knowledge: notes by kind and tag with their embedding status, and search by meaning that shows its mode. */
export function KnowledgeView() {
  const params = useSearchParams();
  const projects = useProjects();
  const now = useNow(30_000);
  const [q, setQ] = useState('');
  const [kind, setKind] = useState('');
  const [tag, setTag] = useState('');
  const [project, setProject] = useState('');
  const [sensitivity, setSensitivity] = useState<'' | NoteHit['sensitivity']>('');
  const [lexical, setLexical] = useState(false);
  const [open, setOpen] = useState<string | null>(params.get('note'));
  const [writing, setWriting] = useState(false);
  const query = useDebounced(q.trim(), 250);
  const notes = useNotes({ q: query || undefined, kind: kind || undefined, tag: tag || undefined, project_id: project || undefined, lexical_only: lexical });
  // people see every note; the filter narrows the page to normal or sensitive ones
  const rows = (notes.data?.results ?? []).filter((n) => !sensitivity || n.sensitivity === sensitivity);
  const tags = useMemo(() => [...new Set(rows.flatMap((n) => n.tags))].sort(), [rows]);
  const view = knowledgeView(params.get('view'));

  if (view !== 'notes') {
    return (
      <div className="flex min-h-0 flex-1 flex-col">
        <header className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-4">
          <h1 className="text-[13px] font-semibold">Knowledge</h1>
          <KnowledgeTabs current={view} />
        </header>
        {view === 'guidelines' && <GuidelinesView />}
      </div>
    );
  }

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <header className="flex h-12 shrink-0 items-center gap-2 border-b border-zinc-200 px-4">
        <h1 className="text-[13px] font-semibold">Knowledge</h1>
        <KnowledgeTabs current={view} />
        <SearchField value={q} onChange={setQ} placeholder="Ask in your own words…" label="Search knowledge" testId="knowledge-search" width="w-72" />
        {notes.data && query && (
          <span className="rounded bg-indigo-50 px-1.5 py-0.5 text-[11px] text-indigo-700" data-testid="search-mode" title={notes.data.fallback_reason ?? (notes.data.model ? `model ${notes.data.model}` : '')}>
            {notes.data.mode}
          </span>
        )}
        <label className="flex items-center gap-1 text-[12px] text-zinc-600">
          <input type="checkbox" checked={lexical} onChange={(e) => setLexical(e.target.checked)} /> words only
        </label>
        <div className="ml-auto flex items-center gap-2">
          <select aria-label="Kind" value={kind} onChange={(e) => setKind(e.target.value)} className="h-7 rounded-md border border-zinc-200 bg-white px-2 text-[12px]">
            <option value="">All kinds</option>
            {KINDS.map((k) => <option key={k} value={k}>{k}</option>)}
          </select>
          <select aria-label="Tag" value={tag} onChange={(e) => setTag(e.target.value)} className="h-7 rounded-md border border-zinc-200 bg-white px-2 text-[12px]">
            <option value="">All tags</option>
            {[...new Set([...tags, ...(tag ? [tag] : [])])].map((t) => <option key={t} value={t}>#{t}</option>)}
          </select>
          <select aria-label="Sensitivity" value={sensitivity} onChange={(e) => setSensitivity(e.target.value as typeof sensitivity)} className="h-7 rounded-md border border-zinc-200 bg-white px-2 text-[12px]">
            <option value="">Any sensitivity</option>
            <option value="normal">Normal</option>
            <option value="sensitive">Sensitive</option>
          </select>
          <select aria-label="Project" value={project} onChange={(e) => setProject(e.target.value)} className="h-7 rounded-md border border-zinc-200 bg-white px-2 text-[12px]">
            <option value="">All projects</option>
            {projects.data?.map((p) => <option key={p.id} value={p.id}>{p.key}</option>)}
          </select>
          <AddButton onClick={() => setWriting(true)}>Write note</AddButton>
        </div>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto px-6 py-5">
        {notes.isPending && <SkeletonRows className="h-12" />}
        {notes.data && rows.length === 0 && (
          <EmptyState title={query ? 'Nothing found.' : 'No knowledge yet.'} testId="knowledge-empty">
            <p className="mt-2">Agents save what the next actor should know with <code className="rounded bg-zinc-100 px-1">knowledge_write</code> and look before redoing research with <code className="rounded bg-zinc-100 px-1">knowledge_search</code>:</p>
            <ExampleCall
              label="Example knowledge_write call"
              code={`{"tool": "knowledge_write", "arguments": {"title": "Refund tests need the sandbox flag",
  "body": "Set PAYMENTS_SANDBOX=1 or the first call hangs.", "kind": "finding"}}`}
            />
          </EmptyState>
        )}
        <ul className="mx-auto max-w-3xl space-y-2" data-testid="notes">
          {rows.map((n) => (
            <li key={n.id} data-testid="note" data-note-id={n.id} className="rounded-lg border border-zinc-200 bg-white">
              <button onClick={() => setOpen((o) => (o === n.id ? null : n.id))} className="flex w-full items-start gap-2 px-3 py-2 text-left">
                <span className="mt-0.5 rounded bg-zinc-100 px-1.5 text-[10px] font-medium tracking-wide text-zinc-600 uppercase">{n.kind}</span>
                {n.sensitivity === 'sensitive' && (
                  <span className="mt-0.5 rounded bg-rose-50 px-1.5 text-[10px] font-medium tracking-wide text-rose-700 uppercase" data-testid="note-sensitive" title="Seen only by people and keys with the sensitive scope">
                    sensitive
                  </span>
                )}
                <span className="min-w-0 flex-1">
                  <span className="block truncate text-[13px] font-medium" data-testid="note-title">{n.title}</span>
                  <span className="mt-0.5 flex flex-wrap gap-x-2 text-[11px] text-zinc-500">
                    {n.project_key && <span className="font-mono">{n.project_key}</span>}
                    {n.tags.map((t) => <span key={t}>#{t}</span>)}
                    <span><TimeAgo at={n.updated_at} now={now} /></span>
                    {n.expires_at && <span title={n.expires_at}>expires {new Date(n.expires_at).toLocaleString()}</span>}
                    {n.similarity != null && <span title="similarity by meaning">≈ {n.similarity.toFixed(2)}</span>}
                  </span>
                </span>
                <span className={`shrink-0 rounded px-1.5 py-0.5 text-[10px] ${EMBED_TONE[n.embedding_status]}`} data-testid="embedding-status" data-status={n.embedding_status} title={n.embedding_error ?? n.embedding_model ?? ''}>
                  {EMBED_TEXT[n.embedding_status]}
                </span>
              </button>
              {open === n.id && (
                <div className="border-t border-zinc-100 px-3 py-2 text-[13px]">
                  <Markdown text={n.body} />
                  {n.related_tasks.length > 0 && (
                    <p className="mt-2 text-[12px] text-zinc-500">
                      Tasks:{' '}
                      {n.related_tasks.map((t) => (
                        <Link key={t.id} href={`/projects/${t.ref.split('-')[0]}?task=${t.ref}`} className="mr-2 font-mono text-indigo-600 hover:underline">
                          {t.ref}
                        </Link>
                      ))}
                    </p>
                  )}
                  <RelatedPanel type="note" id={n.id} title={n.title} flush />
                  <ObjectThread objectType="note" objectId={n.id} />
                </div>
              )}
            </li>
          ))}
        </ul>
      </div>
      {writing && <NoteDialog onClose={() => setWriting(false)} />}
    </div>
  );
}
