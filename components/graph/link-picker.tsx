'use client';

import { useEffect, useRef, useState } from 'react';
import { readTool } from '@/lib/console/client/api';
import { LINK_RELATIONS, type LinkableType, type LinkRelation } from '@/lib/console/client/graph';
import { writeTool } from '@/lib/console/client/mutations';
import { useToast } from '@/lib/console/client/toast';
import type { LinkAddOutput, SearchOutput } from '@/lib/console/types';
import { Field, FormActions, ModalForm, fieldCls, useSubmitting } from '../form-parts';

type Hit = SearchOutput['results'][number];
const LINKABLE = new Set<string>(['task', 'project', 'decision', 'note', 'handoff', 'skill']);

/**
 * "Add link": pick the other object by searching its title (the workspace `search`, as ⌘K does),
 * then the relation and how strong it is; saves with link_add. Linking a pair again updates it.
 */
export function LinkPicker({ from, fromTitle, onClose }: { from: { type: LinkableType; id: string }; fromTitle: string; onClose: () => void }) {
  const toast = useToast();
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<Hit[]>([]);
  const [target, setTarget] = useState<Hit | null>(null);
  const [relation, setRelation] = useState<LinkRelation>('relates_to');
  const [strength, setStrength] = useState(1);
  const seq = useRef(0);
  const { busy, submitter } = useSubmitting();
  const close = useRef(onClose);
  close.current = onClose;

  // Esc closes the picker only, not the drawer or page around it (their keys listen on bubbling)
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      close.current();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);

  useEffect(() => {
    const text = q.trim();
    if (!text || target) return setHits([]);
    const mine = ++seq.current;
    const t = setTimeout(async () => {
      try {
        const res = await readTool<SearchOutput>('search', { q: text, limit: 12 });
        if (mine === seq.current) setHits(res.results.filter((h) => LINKABLE.has(h.object_type) && h.object_id !== from.id));
      } catch {
        if (mine === seq.current) setHits([]);
      }
    }, 150);
    return () => clearTimeout(t);
  }, [q, target, from.id]);

  const submit = submitter(target, async () => {
    const res = await writeTool<LinkAddOutput>('link_add', {
      from,
      to: { type: target!.object_type, id: target!.object_id },
      relation,
      strength,
    });
    toast.success(res.created ? 'Linked' : 'Link updated', `${relation.replace(/_/g, ' ')} ${res.to.label}`);
    onClose();
  });

  return (
    <ModalForm label="Add a link" testId="link-picker" className="w-[560px] max-w-[94vw]" onClose={onClose} onSubmit={submit} heading={<span className="truncate text-[13px] text-zinc-500">Link “{fromTitle}” to…</span>}>
      <div className="space-y-3 px-4 py-3">
        {target ? (
          <div className="flex items-center gap-2 rounded-md border border-indigo-200 bg-indigo-50/50 px-2.5 py-1.5 text-[13px]" data-testid="link-target">
            <span className="text-[10px] font-medium text-zinc-500 uppercase">{target.object_type}</span>
            <span className="min-w-0 flex-1 truncate">{target.ref && target.object_type === 'task' ? `${target.ref} ` : ''}{target.title}</span>
            <button type="button" onClick={() => (setTarget(null), setQ(''))} className="text-[12px] text-indigo-700 hover:underline">
              Change
            </button>
          </div>
        ) : (
          <div>
            <Field label="Find the other object">
              <input autoFocus value={q} onChange={(e) => setQ(e.target.value)} placeholder="A word of its title, a task ref like PAY-12…" className={`${fieldCls} h-8`} data-testid="link-search" />
            </Field>
            {hits.length > 0 && (
              <ul className="mt-1 max-h-48 overflow-y-auto rounded-md border border-zinc-100" role="listbox" aria-label="Matches">
                {hits.map((h) => (
                  <li key={`${h.object_type}:${h.object_id}`} role="option" aria-selected={false}>
                    <button type="button" onClick={() => setTarget(h)} className="flex w-full items-center gap-2 px-2.5 py-1.5 text-left text-[13px] hover:bg-indigo-50" data-testid="link-hit">
                      <span className="w-16 shrink-0 text-[10px] font-medium text-zinc-500 uppercase">{h.object_type}</span>
                      <span className="truncate">{h.ref && h.object_type === 'task' ? `${h.ref} ` : ''}{h.title}</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
            {q.trim() && hits.length === 0 && <p className="mt-1 text-[12px] text-zinc-500">No match yet: search matches words of titles.</p>}
          </div>
        )}
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          <Field label="Relation">
            <select value={relation} onChange={(e) => setRelation(e.target.value as LinkRelation)} className={`${fieldCls} h-8`} data-testid="link-relation">
              {LINK_RELATIONS.map((r) => <option key={r} value={r}>{r.replace(/_/g, ' ')}</option>)}
            </select>
          </Field>
          <Field label={`Strength ${strength.toFixed(2)}`}>
            <input type="range" min={0} max={1} step={0.05} value={strength} onChange={(e) => setStrength(Number(e.target.value))} className="h-8 w-full accent-indigo-600" data-testid="link-strength" />
          </Field>
        </div>
      </div>
      <FormActions className="border-t border-zinc-100 px-4 py-2.5" onCancel={onClose} disabled={!target || busy} submitLabel="Add link" testId="link-save" hint="Two tasks that depend on each other: use Blockers instead." />
    </ModalForm>
  );
}
