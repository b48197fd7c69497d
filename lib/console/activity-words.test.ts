import { describe, expect, it } from 'vitest';
import { changePhrase, changeWords, listWords } from './activity-words';
import { exactTime, timeAgo } from './format';
import { refusalForPeople } from './refusals';

describe('activity in words', () => {
  it('says a move and a checklist the way a person would', () => {
    expect(changePhrase({ verb: 'task.status_changed', summary: 'in_review → done', metadata: { from: 'in_review', to: 'done', fields: ['status'] } })).toBe('moved to Done');
    expect(changePhrase({ verb: 'task.updated', summary: 'acceptance_criteria', metadata: { fields: ['acceptance_criteria'], criteria_met: 2, criteria_total: 3 } })).toBe('ticked the criteria: criteria 2/3 met');
    expect(changePhrase({ verb: 'task.updated', summary: 'priority, title', metadata: { fields: ['priority', 'title'] } })).toBe('changed: the priority and the title');
    expect(changePhrase({ verb: 'task.status_changed', summary: 'x', metadata: { from: 'in_progress', to: 'done', fields: ['acceptance_criteria', 'status'], criteria_met: 3, criteria_total: 3 } })).toBe('moved to Done; criteria 3/3 met');
  });
  it('never shows the machine summary of a field list, an arrow or a lease timestamp', () => {
    for (const e of [
      { verb: 'task.updated', summary: 'acceptance_criteria, due_on', metadata: { fields: ['acceptance_criteria', 'due_on'] } },
      { verb: 'task.claimed', summary: 'lease until 2026-11-26 14:00:00+00', metadata: {} },
      { verb: 'task.status_changed', summary: 'todo → in_progress', metadata: { from: 'todo', to: 'in_progress' } },
    ]) {
      const w = changeWords(e);
      expect(w.detail).toBeNull();
      expect(`${w.lead} ${w.tail}`).not.toMatch(/_|→|\d{4}-\d\d/);
    }
    expect(changeWords({ verb: 'task.released', summary: 'need the webhook secret', metadata: {} }).detail).toBe('need the webhook secret');
    expect(listWords(['a', 'b', 'c'])).toBe('a, b and c');
    expect(changeWords({ verb: 'project.created', summary: 'BOW B own work', metadata: {} })).toEqual({ lead: 'created project', tail: 'B own work', detail: null });
  });
  it('gives times as "3 min ago" with the exact time for the hover', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(timeAgo('2026-01-01T11:57:00Z', now)).toBe('3 min ago');
    expect(timeAgo('2026-01-01T10:00:00Z', now)).toBe('2 h ago');
    expect(timeAgo('2025-12-31T10:00:00Z', now)).toBe('yesterday');
    expect(exactTime('2026-01-01T11:57:00Z')).toMatch(/2026/);
  });
});

describe('refusals for people', () => {
  it('turns an unmet criterion into a sentence without field or tool names', () => {
    const r = refusalForPeople({
      code: 'GATE_UNMET',
      message: 'acceptance criterion not met: "migration applies cleanly" (1 of 1 unmet)',
      details: { gate: 'acceptance_criteria', criterion: 'migration applies cleanly', satisfied_by: 'task_update' },
    });
    expect(r.title).toBe('Not done yet: “migration applies cleanly” is not checked off');
    expect(`${r.title} ${r.advice}`).not.toMatch(/patch\.|task_update|_/);
  });
  it('names statuses in words for an illegal move and a conflict', () => {
    expect(refusalForPeople({ code: 'INVALID_TRANSITION', message: 'cannot move a task from in_progress to backlog', details: { from: 'in_progress', to: 'backlog', allowed: ['todo', 'in_review', 'done'] } })).toEqual({
      title: 'A task can’t go from In progress straight to Backlog',
      advice: 'From In progress it can move to Todo, In review, Done.',
    });
    expect(refusalForPeople({ code: 'CONFLICT', message: 'task status is done, not the expected todo', details: { current_status: 'done' } }).title).toBe('Someone moved this task to Done a moment ago');
  });
  it('has a sentence for every error code', async () => {
    const { ERROR_CODES } = await import('../core/errors');
    for (const code of Object.keys(ERROR_CODES) as (keyof typeof ERROR_CODES)[]) {
      const r = refusalForPeople({ code, message: 'something_internal happened', details: {} });
      expect(r.title.length, code).toBeGreaterThan(5);
    }
  });
});

describe('activity without metadata (a project brief)', () => {
  it('reads the move from the summary', () => {
    expect(changePhrase({ verb: 'task.status_changed', summary: 'todo → in_progress' })).toBe('moved to In progress');
    expect(changePhrase({ verb: 'task.updated', summary: 'due_on, title' })).toBe('changed: the due date and the title');
  });
});
