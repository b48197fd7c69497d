import { describe, expect, it } from 'vitest';
import { ChangeHub } from './hub';
import { parseResume } from './live-stream';
import { SeqWindow } from './seq-window';

const ev = (tenant: string, seq: number) => JSON.stringify({ seq, tenant_id: tenant, project_id: null, object_type: 'task', object_id: null, verb: 'task.updated', actor_id: null, at: '' });

describe('SeqWindow', () => {
  it('drops seqs it has seen and tracks the highest', () => {
    const w = new SeqWindow();
    expect([5, 3, 5, 9, 3].map((s) => w.add(s))).toEqual([true, true, false, true, false]);
    expect(w.high).toBe(9);
    expect(w.size).toBe(3);
  });

  it('forgets the oldest beyond its capacity', () => {
    const w = new SeqWindow(3);
    for (const s of [1, 2, 3, 4]) w.add(s);
    expect(w.has(1)).toBe(false);
    expect(w.has(4)).toBe(true);
    expect(w.size).toBe(3);
    for (let s = 5; s < 10_000; s++) w.add(s);
    expect(w.size).toBe(3);
    expect(w.has(9999)).toBe(true);
  });
});

describe('ChangeHub', () => {
  it('fans an event out to its own workspace only', () => {
    const hub = new ChangeHub();
    const a: number[] = [];
    const b: number[] = [];
    const offA = hub.subscribe('tenant-a', (e) => a.push(e.seq));
    hub.subscribe('tenant-b', (e) => b.push(e.seq));
    hub.dispatch(ev('tenant-a', 1));
    hub.dispatch(ev('tenant-b', 2));
    hub.dispatch(ev('tenant-c', 3));
    hub.dispatch('not json');
    hub.dispatch(JSON.stringify({ seq: 'x', tenant_id: 'tenant-a' }));
    expect(a).toEqual([1]);
    expect(b).toEqual([2]);
    offA();
    hub.dispatch(ev('tenant-a', 4));
    expect(a).toEqual([1]);
    expect(hub.subscribers()).toBe(1);
    expect(hub.subscribers('tenant-a')).toBe(0);
  });

  it('keeps delivering when one listener throws', () => {
    const hub = new ChangeHub();
    const got: number[] = [];
    hub.subscribe('t', () => {
      throw new Error('broken stream');
    });
    hub.subscribe('t', (e) => got.push(e.seq));
    hub.dispatch(ev('t', 7));
    expect(got).toEqual([7]);
  });
});

describe('parseResume', () => {
  it('prefers Last-Event-ID, falls back to ?after=, ignores junk', () => {
    expect(parseResume('42', '7')).toBe(42);
    expect(parseResume(null, '7')).toBe(7);
    expect(parseResume('abc', '7')).toBe(7);
    expect(parseResume(null, null)).toBeNull();
    expect(parseResume('-1', '1e9')).toBeNull();
    expect(parseResume(' 12 ', null)).toBe(12);
  });
});

describe('ChangeHub shutdown', () => {
  it('ends every registered stream once, and forgets unregistered ones', () => {
    const hub = new ChangeHub();
    const ended: string[] = [];
    hub.onShutdown(() => ended.push('a'));
    const off = hub.onShutdown(() => ended.push('b'));
    hub.onShutdown(() => {
      throw new Error('already closed');
    });
    hub.onShutdown(() => ended.push('c'));
    off();
    hub.shutdown();
    hub.shutdown();
    expect(ended).toEqual(['a', 'c']);
  });
});
