import { describe, expect, it } from 'vitest';
import { AliasCollision, canonicalJson, resolveMe, snakeKeys } from './normalize';

describe('snakeKeys', () => {
  it('renames camelCase keys at every depth', () => {
    expect(snakeKeys({ taskId: 'x', patch: { assigneeActorId: 'me', acceptanceCriteria: [{ text: 'a', met: true }] } })).toEqual({
      task_id: 'x',
      patch: { assignee_actor_id: 'me', acceptance_criteria: [{ text: 'a', met: true }] },
    });
  });
  it('leaves free-form objects alone', () => {
    expect(snakeKeys({ metadata: { someKey: 1 } })).toEqual({ metadata: { someKey: 1 } });
  });
  it('refuses both spellings of one key, naming it', () => {
    expect(() => snakeKeys({ patch: { dueOn: '2026-01-01', due_on: '2026-01-02' } })).toThrow(AliasCollision);
    try {
      snakeKeys({ patch: { dueOn: 'a', due_on: 'b' } });
    } catch (err) {
      expect((err as AliasCollision).path).toBe('patch.due_on');
    }
  });
  it('passes scalars and arrays through', () => {
    expect(snakeKeys(['a', 1, null])).toEqual(['a', 1, null]);
    expect(snakeKeys('x')).toBe('x');
  });
});

describe('resolveMe', () => {
  it('replaces "me" in actor fields only, including arrays and nested patches', () => {
    expect(
      resolveMe({ actor_id: 'me', to_actor_ids: ['me', 'b'], patch: { assignee_actor_id: 'me' }, title: 'me', assignee: 'me' }, 'A'),
    ).toEqual({ actor_id: 'A', to_actor_ids: ['A', 'b'], patch: { assignee_actor_id: 'A' }, title: 'me', assignee: 'me' });
  });
  it('replaces "me" among a debate\'s participants', () => {
    expect(resolveMe({ participants: ['me', 'b'], options: [{ label: 'me' }] }, 'A')).toEqual({ participants: ['A', 'b'], options: [{ label: 'me' }] });
  });
  it('keeps "unassigned" and null as they are', () => {
    expect(resolveMe({ assignee_actor_id: 'unassigned', actor_id: null }, 'A')).toEqual({ assignee_actor_id: 'unassigned', actor_id: null });
  });
});

describe('canonicalJson', () => {
  it('is independent of key order and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe(canonicalJson({ a: { d: [1, { y: 2, z: 1 }] }, b: 1 }));
    expect(canonicalJson({ a: 1, b: 2 })).toBe('{"a":1,"b":2}');
  });
});
