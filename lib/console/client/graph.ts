'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef } from 'react';
import type { FindRelatedOutput, GuidelinesGetOutput } from '../types';
import { readTool } from './api';
import { refetchAfterChange } from './cache';
import { useLiveChanges } from './live';

/**
 * The memory graph in the console: an object's neighbourhood (find_related) and the guidelines in
 * force (guidelines_get), read through the console's tool route like every other page, and kept
 * live from the change feed: a link added or removed anywhere, or a change to a node on screen,
 * re-reads the neighbourhoods that are open.
 */

export type RelatedNode = FindRelatedOutput['nodes'][number];
export type GraphRoot = FindRelatedOutput['root'];
export type LinkRelation = RelatedNode['path'][number]['relation'];
export type LinkableType = GraphRoot['type'];

export const LINK_RELATIONS = ['relates_to', 'depends_on', 'implements', 'extends', 'supersedes', 'explains', 'duplicates', 'contradicts'] as const satisfies readonly LinkRelation[];

export const graphKeys = {
  related: (type: string, id: string) => ['graph', 'related', type, id] as const,
  guidelines: (filter: Record<string, unknown>) => ['graph', 'guidelines', filter] as const,
};

/** The neighbourhood of one object, two links deep, re-read live. */
export function useRelated(type: LinkableType, id: string, depth = 2) {
  const qc = useQueryClient();
  const onScreen = useRef(new Set<string>());
  const timer = useRef<number | null>(null);
  const { ready } = useLiveChanges((e) => {
    const touches = e.verb.startsWith('link.') || (e.object_id !== null && onScreen.current.has(e.object_id));
    if (!touches || timer.current) return;
    // a burst of events (a batch of links) re-reads once
    timer.current = window.setTimeout(() => {
      timer.current = null;
      void refetchAfterChange(qc, ['graph', 'related']);
    }, 60);
  });
  const q = useQuery({
    queryKey: graphKeys.related(type, id),
    queryFn: () => readTool<FindRelatedOutput>('find_related', { type, id, depth, limit: 60 }),
    enabled: ready && !!id,
  });
  onScreen.current = new Set([id, ...(q.data?.nodes.map((n) => n.id) ?? [])]);
  return q;
}

/** The guidelines in force for a project (or the shared ones alone), re-read when a note changes. */
export function useGuidelines(filter: { project_id?: string; language?: string; category?: string }) {
  const qc = useQueryClient();
  const { ready } = useLiveChanges((e) => {
    if (e.object_type === 'note') void refetchAfterChange(qc, ['graph', 'guidelines']);
  });
  const input = Object.fromEntries(Object.entries(filter).filter(([, v]) => v)) as Record<string, string>;
  return useQuery({
    queryKey: graphKeys.guidelines(input),
    queryFn: () => readTool<GuidelinesGetOutput>('guidelines_get', input),
    enabled: ready,
  });
}

/** Where an object of the graph opens in the console (null: it has no page of its own). */
export function objectHref(n: { type: string; id: string; label: string; project_id: string | null }, projectKeys: Map<string, string>): string | null {
  switch (n.type) {
    case 'task': {
      const ref = /^([A-Z][A-Z0-9]*-\d+)\b/.exec(n.label)?.[1];
      return ref ? `/projects/${ref.replace(/-\d+$/, '')}?task=${ref}` : null;
    }
    case 'project': {
      const key = projectKeys.get(n.id) ?? n.label.split(' ')[0];
      return `/projects/${key}`;
    }
    case 'decision':
      return `/decisions?d=${n.id}`;
    case 'note':
      return `/knowledge?note=${n.id}`;
    case 'skill':
      return `/skills?slug=${encodeURIComponent(n.label)}`;
    case 'handoff':
      return '/inbox';
    case 'run':
      return '/runs';
    default:
      return null;
  }
}
