import { describe, expect, it } from 'vitest';
import { initials, timeAgo, timeLeft, verbText } from './format';
import { compareTasks, isReady, orderBetween, type TaskRow } from './types';

describe('format', () => {
  const now = Date.parse('2026-01-01T12:00:00Z');
  it('says how long ago and how long left', () => {
    expect(timeAgo(null, now)).toBe('never');
    expect(timeAgo('2026-01-01T11:59:50Z', now)).toBe('just now');
    expect(timeAgo('2026-01-01T11:30:00Z', now)).toBe('30 min ago');
    expect(timeAgo('2026-01-01T09:00:00Z', now)).toBe('3 h ago');
    expect(timeAgo('2025-12-29T12:00:00Z', now)).toBe('3 days ago');
    expect(timeLeft('2026-01-01T12:00:30Z', now)).toBe('30s left');
    expect(timeLeft('2026-01-01T12:42:00Z', now)).toBe('42m left');
    expect(timeLeft('2026-01-01T13:30:00Z', now)).toBe('1h 30m left');
    expect(timeLeft('2026-01-01T11:00:00Z', now)).toBe('expired');
  });
  it('names people and verbs', () => {
    expect(initials('Dana Reyes')).toBe('DR');
    expect(initials('claude-backend')).toBe('CB');
    expect(initials('Owner')).toBe('OW');
    expect(verbText('task.claimed')).toBe('claimed');
    expect(verbText('something.new_thing')).toBe('something new thing');
    // the drawer's activity names a weaker gate and a broken lease in words (their summaries carry the old text, who and why)
    expect(verbText('task.criteria_changed')).toBe('changed unmet criteria');
    expect(verbText('task.lease_broken')).toBe('broke the lease on');
  });
});

describe('board helpers', () => {
  const row = (p: Partial<TaskRow>): TaskRow => ({ id: 'a', status: 'todo', priority: 2, order_index: 0, created_at: '2026-01-01', open_blockers: 0, lease: null, ...p }) as TaskRow;
  it('derives readiness as the server does', () => {
    expect(isReady(row({}))).toBe(true);
    expect(isReady(row({ open_blockers: 1 }))).toBe(false);
    expect(isReady(row({ status: 'backlog' }))).toBe(false);
    expect(isReady(row({ status: 'in_progress', lease: { actor_id: 'x', expires_at: new Date(Date.now() + 60_000).toISOString(), live: true } }))).toBe(false);
    expect(isReady(row({ status: 'in_progress', lease: { actor_id: 'x', expires_at: new Date(Date.now() - 1000).toISOString(), live: false } }))).toBe(true);
  });
  it('orders a column like task_query order:"manual": order_index, then priority, then age', () => {
    const rows = [row({ id: 'c', priority: 3 }), row({ id: 'b', priority: 1, created_at: '2026-01-02' }), row({ id: 'a', priority: 1 })];
    expect(rows.sort(compareTasks).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    const moved = [row({ id: 'x', order_index: 2 }), row({ id: 'y', order_index: 1, priority: 4 }), row({ id: 'z', order_index: 1.5 })];
    expect(moved.sort(compareTasks).map((r) => r.id)).toEqual(['y', 'z', 'x']);
  });
  it('drops a card at the midpoint of its neighbours, or one step past the end', () => {
    expect(orderBetween(row({ order_index: 1 }), row({ order_index: 2 }), 9)).toBe(1.5);
    expect(orderBetween(undefined, row({ order_index: 2 }), 9)).toBe(1);
    expect(orderBetween(row({ order_index: 2 }), undefined, 9)).toBe(3);
    expect(orderBetween(undefined, undefined, 9)).toBe(9);
  });
});

