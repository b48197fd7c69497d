'use client';

import dynamic from 'next/dynamic';
import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';
import { objectHref, useRelated, type LinkableType, type RelatedNode } from '@/lib/console/client/graph';
import { useProjects } from '@/lib/console/client/hooks';
import { Skeleton } from '../skeleton';
import type { GraphEdgeView, GraphNodeView } from './related-graph';
import { LinkPicker } from './link-picker';

// cytoscape loads only where a Related panel opens, in the browser
const RelatedGraph = dynamic(() => import('./related-graph'), { ssr: false, loading: () => <Skeleton className="h-56 w-full sm:h-64" /> });

const TYPE_LABEL: Record<string, string> = {
  task: 'Task',
  project: 'Project',
  decision: 'Decision',
  note: 'Note',
  handoff: 'Handoff',
  skill: 'Skill',
  run: 'Run',
  code_ref: 'Code',
  attachment: 'File',
};

/** The tree edges of the walk: each node hangs off the node its path reached it through. */
function edgesOf(rootId: string, nodes: RelatedNode[]): GraphEdgeView[] {
  const byPath = new Map<string, string>([['', rootId]]);
  for (const n of nodes) byPath.set(n.path.map((s) => s.link_id).join(','), n.id);
  const out: GraphEdgeView[] = [];
  for (const n of nodes) {
    const last = n.path[n.path.length - 1];
    const prev = byPath.get(n.path.slice(0, -1).map((s) => s.link_id).join(','));
    if (!last || !prev) continue;
    const [source, target] = last.direction === 'out' ? [prev, n.id] : [n.id, prev];
    out.push({ id: last.link_id, source, target, relation: last.relation, strength: last.strength });
  }
  return out;
}

/** How a node was reached, in words: "explains → … ← implements". */
function pathWords(n: RelatedNode): string {
  return n.path.map((s) => (s.direction === 'out' ? `${s.relation.replace(/_/g, ' ')} →` : `← ${s.relation.replace(/_/g, ' ')}`)).join(' · ');
}

/**
 * The Related panel of a task, decision or note: its neighbourhood over typed links (find_related,
 * two links deep) as a picture whose nodes open their object, the same nodes as a list for the
 * keyboard and screen readers, and "Add link" (link_add). It follows the live feed.
 */
export function RelatedPanel({ type, id, title, flush = false }: { type: LinkableType; id: string; title: string; flush?: boolean }) {
  const q = useRelated(type, id);
  const router = useRouter();
  const projects = useProjects();
  const [adding, setAdding] = useState(false);
  const keys = useMemo(() => new Map((projects.data ?? []).map((p) => [p.id, p.key])), [projects.data]);
  const nodes = q.data?.nodes;
  const picture = useMemo(() => {
    if (!q.data || !nodes?.length) return null;
    const root = q.data.root;
    const gnodes: GraphNodeView[] = [{ id: root.id, type: root.type, label: root.label, distance: 0 }, ...nodes.map((n) => ({ id: n.id, type: n.type, label: n.label, distance: n.distance }))];
    return { nodes: gnodes, edges: edgesOf(root.id, nodes) };
  }, [q.data, nodes]);
  const openNode = (nodeId: string) => {
    if (nodeId === q.data?.root.id) return;
    const n = nodes?.find((x) => x.id === nodeId);
    const href = n && objectHref(n, keys);
    if (href) router.push(href);
  };

  return (
    <section className={`border-t border-zinc-100 ${flush ? 'mt-2 pt-3' : 'px-4 py-4 sm:px-5'}`} data-testid="related-panel" aria-label={`Related to ${title}`}>
      <div className="mb-2 flex items-center gap-2">
        <h3 className="text-[12px] font-semibold tracking-wide text-zinc-500 uppercase">Related</h3>
        {q.data && q.data.total > 0 && <span className="text-[12px] text-zinc-500">{q.data.total}</span>}
        <button onClick={() => setAdding(true)} className="ml-auto h-7 rounded-md border border-zinc-200 px-2 text-[12px] text-zinc-700 hover:bg-zinc-50" data-testid="add-link">
          Add link
        </button>
      </div>
      {q.isPending && <Skeleton className="h-24 w-full" />}
      {q.isError && <p className="text-[12px] text-rose-700">{(q.error as Error).message}</p>}
      {q.data && !nodes?.length && (
        <p className="rounded-md border border-dashed border-zinc-300 p-3 text-[12px] text-zinc-600" data-testid="related-empty">
          Nothing is linked to this yet. <strong className="font-medium text-zinc-800">Add link</strong> ties it to a note that explains it, a decision it implements, or work it
          duplicates; agents do the same with <code className="rounded bg-zinc-100 px-1">link_add</code>, and the links show here as they land.
        </p>
      )}
      {picture && (
        <>
          <RelatedGraph nodes={picture.nodes} edges={picture.edges} onOpen={openNode} label={`Graph of ${nodes!.length} objects linked to ${title}; the list below names them`} />
          <ul className="mt-2 space-y-0.5" data-testid="related-list">
            {nodes!.map((n) => {
              const href = objectHref(n, keys);
              return (
                <li key={n.id} data-testid="related-node" data-node-id={n.id} data-type={n.type} className="flex items-center gap-2 rounded-md px-1.5 py-1 hover:bg-zinc-50">
                  <span className="w-16 shrink-0 text-[10px] font-medium tracking-wide text-zinc-500 uppercase">{TYPE_LABEL[n.type] ?? n.type}</span>
                  {href ? (
                    <button onClick={() => router.push(href)} className="min-w-0 flex-1 truncate text-left text-[13px] text-zinc-800 hover:underline">
                      {n.label}
                    </button>
                  ) : (
                    <span className="min-w-0 flex-1 truncate text-[13px] text-zinc-800">{n.label}</span>
                  )}
                  <span className="hidden shrink-0 text-[11px] text-zinc-500 sm:inline" title={`distance ${n.distance}, strength ${n.strength}`}>
                    {pathWords(n)}
                  </span>
                  {n.shared_tags.length > 0 && <span className="hidden shrink-0 text-[11px] text-zinc-500 sm:inline">{n.shared_tags.map((t) => `#${t}`).join(' ')}</span>}
                </li>
              );
            })}
          </ul>
        </>
      )}
      {adding && <LinkPicker from={{ type, id }} fromTitle={title} onClose={() => setAdding(false)} />}
    </section>
  );
}
