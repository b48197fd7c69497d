'use client';

import cytoscape, { type Core, type ElementDefinition } from 'cytoscape';
import { useEffect, useRef } from 'react';

/**
 * The picture of a neighbourhood, drawn by cytoscape on a canvas: the object in the middle, each
 * ring one link further out, edges named by their relation and as thick as they are strong. A tap
 * (or click) on a node calls `onOpen`. Loaded only where a Related panel opens (next/dynamic, no
 * server rendering), so no other page carries the library. After each layout the container lists
 * the nodes' on-screen positions in `data-nodes`, which the browser tests use to click a node.
 */

export type GraphNodeView = { id: string; type: string; label: string; distance: number };
export type GraphEdgeView = { id: string; source: string; target: string; relation: string; strength: number };

const TYPE_COLOR: Record<string, string> = {
  task: '#4f46e5',
  project: '#0f766e',
  decision: '#b45309',
  note: '#047857',
  handoff: '#be123c',
  skill: '#7c3aed',
  run: '#52525b',
  code_ref: '#334155',
  attachment: '#64748b',
};

function short(label: string): string {
  return label.length > 28 ? `${label.slice(0, 27)}…` : label;
}

export default function RelatedGraph({ nodes, edges, onOpen, label }: { nodes: GraphNodeView[]; edges: GraphEdgeView[]; onOpen: (id: string) => void; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const cy = useRef<Core | null>(null);
  const open = useRef(onOpen);
  open.current = onOpen;

  useEffect(() => {
    const el = box.current!;
    const g = cytoscape({
      container: el,
      minZoom: 0.3,
      maxZoom: 2.5,
      wheelSensitivity: 0.3,
      boxSelectionEnabled: false,
      autoungrabify: true,
      style: [
        {
          selector: 'node',
          style: {
            'background-color': (n: cytoscape.NodeSingular) => TYPE_COLOR[n.data('type') as string] ?? '#52525b',
            label: 'data(short)',
            color: '#27272a',
            'font-size': 10,
            'text-valign': 'bottom',
            'text-margin-y': 4,
            'text-wrap': 'ellipsis',
            'text-max-width': '120px',
            width: 16,
            height: 16,
          },
        },
        { selector: 'node[?root]', style: { width: 24, height: 24, 'border-width': 3, 'border-color': '#c7d2fe', 'font-weight': 'bold' } },
        {
          selector: 'edge',
          style: {
            width: (e: cytoscape.EdgeSingular) => 1 + 3 * Number(e.data('strength')),
            'line-color': '#a1a1aa',
            'target-arrow-color': '#a1a1aa',
            'target-arrow-shape': 'triangle',
            'curve-style': 'bezier',
            label: 'data(relation)',
            'font-size': 8,
            color: '#52525b',
            'text-rotation': 'autorotate',
            'text-background-color': '#ffffff',
            'text-background-opacity': 1,
            'text-background-padding': '1px',
          },
        },
      ],
    });
    g.on('tap', 'node', (e) => open.current(e.target.id() as string));
    g.on('mouseover', 'node', () => (el.style.cursor = 'pointer'));
    g.on('mouseout', 'node', () => (el.style.cursor = ''));
    const record = () => {
      el.dataset.nodes = JSON.stringify(g.nodes().map((n) => ({ id: n.id(), ...n.renderedPosition() })));
    };
    g.on('layoutstop viewport resize', record);
    cy.current = g;
    return () => {
      g.destroy();
      cy.current = null;
    };
  }, []);

  useEffect(() => {
    const g = cy.current;
    if (!g) return;
    const elements: ElementDefinition[] = [
      ...nodes.map((n) => ({ group: 'nodes' as const, data: { id: n.id, type: n.type, short: short(n.label), root: n.distance === 0, distance: n.distance } })),
      ...edges.filter((e) => nodes.some((n) => n.id === e.source) && nodes.some((n) => n.id === e.target)).map((e) => ({ group: 'edges' as const, data: { ...e, relation: e.relation.replace(/_/g, ' ') } })),
    ];
    g.batch(() => {
      g.elements().remove();
      g.add(elements);
    });
    g.layout({
      name: 'concentric',
      concentric: (n: cytoscape.NodeSingular) => 10 - Number(n.data('distance')),
      levelWidth: () => 1,
      minNodeSpacing: 30,
      padding: 24,
      animate: false,
    }).run();
  }, [nodes, edges]);

  return <div ref={box} role="img" aria-label={label} data-testid="related-graph" className="h-56 w-full rounded-md border border-zinc-100 bg-zinc-50/50 sm:h-64" />;
}
