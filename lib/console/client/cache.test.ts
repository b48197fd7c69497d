import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { TaskRow, TaskStatus } from '../types';
import { findRow, keys, placeRow, reconcileColumn, type Column } from './cache';

const P = 'project-1';
const row = (id: string, status: TaskStatus, p: Partial<TaskRow> = {}): TaskRow =>
  ({ id, project_id: P, status, priority: 2, created_at: `2026-01-01T00:00:0${id.slice(-1)}Z`, updated_at: '2026-01-01T00:00:00Z', ...p }) as TaskRow;

function board(qc: QueryClient, cols: Partial<Record<TaskStatus, TaskRow[]>>) {
  for (const [s, rows] of Object.entries(cols)) qc.setQueryData<Column>(keys.board(P, s as TaskStatus), { rows: rows!, next_cursor: null });
}
const ids = (qc: QueryClient, s: TaskStatus) => qc.getQueryData<Column>(keys.board(P, s))?.rows.map((r) => r.id);

describe('board cache patches', () => {
  it('move a card between column caches, in board order, and ignore older versions', () => {
    const qc = new QueryClient();
    board(qc, { todo: [row('t1', 'todo'), row('t2', 'todo')], in_progress: [row('t3', 'in_progress', { priority: 0 })] });
    placeRow(qc, row('t2', 'in_progress', { updated_at: '2026-01-01T00:00:05Z' }));
    expect(ids(qc, 'todo')).toEqual(['t1']);
    expect(ids(qc, 'in_progress')).toEqual(['t3', 't2']);
    // a late read of the old state does not move it back
    placeRow(qc, row('t2', 'todo', { updated_at: '2026-01-01T00:00:01Z' }));
    expect(ids(qc, 'todo')).toEqual(['t1']);
    expect(findRow(qc, P, 't2')?.status).toBe('in_progress');
    // columns that were never loaded stay unloaded (a folded column, say)
    expect(qc.getQueryData(keys.board(P, 'failed'))).toBeUndefined();
  });

  it('correct a column read that was in flight while a card moved', () => {
    const qc = new QueryClient();
    const started = performance.now();
    placeRow(qc, row('r1', 'done', { updated_at: '2026-01-01T00:00:09Z' }));
    // the read began before the move: it still lists r1 under todo and not under done
    expect(reconcileColumn(P, 'todo', [row('r0', 'todo'), row('r1', 'todo')], started).map((r) => r.id)).toEqual(['r0']);
    expect(reconcileColumn(P, 'done', [], started).map((r) => r.id)).toEqual(['r1']);
    // a read that began after the move is the truth as it stands
    expect(reconcileColumn(P, 'todo', [row('r1', 'todo', { updated_at: '2026-01-01T00:00:10Z' })], performance.now() + 1).map((r) => r.id)).toEqual(['r1']);
  });
});

describe('live events', () => {
  it('patch a new card before the summaries are re-read, so a heavy summary never holds the card back', async () => {
    const { LiveCacheBridge } = await import('./cache');
    const qc = new QueryClient();
    board(qc, { todo: [row('t1', 'todo')] });
    const order: string[] = [];
    // an observed brief (the board page shows one): invalidating it refetches
    const { QueryObserver } = await import('@tanstack/react-query');
    const brief = new QueryObserver(qc, { queryKey: ['brief', 'P'], queryFn: async () => (order.push(`brief read, card ${ids(qc, 'todo')?.includes('t9') ? 'on the board' : 'missing'}`), { n: 1 }) });
    const unsub = brief.subscribe(() => {});
    await new Promise((r) => setTimeout(r, 20));
    order.length = 0;
    const fresh = row('t9', 'todo', { priority: 0, ref: 'P-9', updated_at: '2026-01-01T00:00:09Z' } as Partial<TaskRow>);
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async () => {
      order.push('task_get');
      await new Promise((r) => setTimeout(r, 600)); // a slow read: longer than any summary throttle
      return new Response(JSON.stringify({ ok: true, task: fresh, dependents: [] }), { headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    try {
      const bridge = new LiveCacheBridge(qc, { delayMs: 1 });
      bridge.handle({ seq: 1, tenant_id: 'x', project_id: P, object_type: 'task', object_id: 't9', verb: 'task.created', actor_id: null, at: '' } as never);
      await expect.poll(() => ids(qc, 'todo')).toEqual(['t9', 't1']);
      // the summary is read after the card is placed, never alongside its read
      await expect.poll(() => order, { timeout: 3000 }).toEqual(['task_get', 'brief read, card on the board']);
      bridge.dispose();
    } finally {
      globalThis.fetch = realFetch;
      unsub();
    }
  });
});
