'use client';

import { useEffect, useRef, useState } from 'react';
import type { WorkflowDefinition } from '@/lib/console/types';

/** A step's task status, when the graph shows an instance: colours the node. */
export type StepStatus = Record<string, string>;

const STATUS_FILL: Record<string, string> = {
  done: '#d1fae5',
  skipped: '#e4e4e7',
  in_progress: '#e0f2fe',
  in_review: '#ede9fe',
  failed: '#ffe4e6',
  cancelled: '#f4f4f5',
};

/**
 * The step graph of a workflow definition, drawn with cytoscape: one node per step (key and
 * title), an arrow from each dependency to the step that waits on it, laid out top to bottom from
 * the steps that wait on nothing. With `status` (an instance's step → task status) the nodes are
 * coloured by their task's status. Cytoscape is loaded in the browser only. The container carries
 * data-nodes and data-edges once drawn, for tests and assistive text.
 */
export function WorkflowGraph({ definition, status, className = '' }: { definition: WorkflowDefinition; status?: StepStatus; className?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [drawn, setDrawn] = useState<{ nodes: number; edges: number } | null>(null);
  const key = JSON.stringify([definition.steps, status]);

  useEffect(() => {
    let alive = true;
    let cy: { destroy: () => void } | null = null;
    void import('cytoscape').then(({ default: cytoscape }) => {
      if (!alive || !box.current) return;
      const elements = [
        ...definition.steps.map((s) => ({ data: { id: s.key, label: `${s.key}\n${s.title}`, fill: STATUS_FILL[status?.[s.key] ?? ''] ?? '#ffffff' } })),
        ...definition.steps.flatMap((s) => (s.depends_on ?? []).map((d) => ({ data: { id: `${d}->${s.key}`, source: d, target: s.key } }))),
      ];
      const instance = cytoscape({
        container: box.current,
        elements,
        userZoomingEnabled: false,
        boxSelectionEnabled: false,
        autoungrabify: true,
        style: [
          {
            selector: 'node',
            style: {
              shape: 'round-rectangle', width: 150, height: 44, 'background-color': 'data(fill)', 'border-width': 1, 'border-color': '#a1a1aa',
              label: 'data(label)', 'text-wrap': 'ellipsis', 'text-max-width': '140px', 'text-valign': 'center', 'font-size': 10, color: '#27272a',
            },
          },
          { selector: 'edge', style: { width: 1.5, 'line-color': '#a1a1aa', 'target-arrow-color': '#a1a1aa', 'target-arrow-shape': 'triangle', 'curve-style': 'bezier' } },
        ],
        layout: {
          name: 'breadthfirst',
          directed: true,
          roots: definition.steps.filter((s) => !(s.depends_on ?? []).length).map((s) => s.key),
          spacingFactor: 1.1,
          padding: 12,
        },
      });
      cy = instance;
      setDrawn({ nodes: instance.nodes().length, edges: instance.edges().length });
    });
    return () => {
      alive = false;
      cy?.destroy();
    };
    // keyed on the definition and statuses by value: a refetch with equal data draws nothing again
  }, [key]);

  return (
    <div
      ref={box}
      role="img"
      aria-label={`Step graph: ${definition.steps.length} steps${drawn ? `, ${drawn.edges} dependencies` : ''}`}
      data-testid="workflow-graph"
      data-nodes={drawn?.nodes}
      data-edges={drawn?.edges}
      className={`h-72 w-full rounded-md border border-zinc-200 bg-zinc-50/50 ${className}`}
    />
  );
}
