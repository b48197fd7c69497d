import { describe, expect, it } from 'vitest';
import { registry } from './registry';
import { ALWAYS_ALLOWED, parseScopes, ScopeError, scopeFor, scopeRooms, toolAllowed } from './scopes';

const tool = (name: string) => registry.find((t) => t.name === name)!;

describe('parseScopes', () => {
  it('normalises, sorts and dedupes; ROOM:write is ROOM; a whole room absorbs its :read', () => {
    expect(parseScopes('tasks:read, comments')).toEqual(['comments', 'tasks:read']);
    expect(parseScopes(['TASKS:write', 'tasks:read', 'tasks'])).toEqual(['tasks']);
    expect(parseScopes('read')).toEqual(['read']);
  });
  it('means everything when empty, all or *', () => {
    expect(parseScopes(undefined)).toBeNull();
    expect(parseScopes('')).toBeNull();
    expect(parseScopes('all')).toBeNull();
    expect(parseScopes(['*'])).toBeNull();
  });
  it('refuses unknown rooms and forms, naming the scope and the rooms there are', () => {
    expect(() => parseScopes('taskz')).toThrow(ScopeError);
    expect(() => parseScopes('taskz')).toThrow(/no room "taskz".*tasks/);
    expect(() => parseScopes('tasks:admin')).toThrow(/scope "tasks:admin"/);
    expect(() => parseScopes('tasks;drop')).toThrow(ScopeError);
  });
  it('takes sensitive as a modifier: alone (or with all) it is every tool plus sensitive items', () => {
    expect(parseScopes('sensitive')).toEqual(['sensitive']);
    expect(parseScopes('all,sensitive')).toEqual(['sensitive']);
    expect(parseScopes('knowledge:read, sensitive')).toEqual(['knowledge:read', 'sensitive']);
    expect(toolAllowed(tool('task_create'), ['sensitive'])).toBe(true);
    expect(toolAllowed(tool('knowledge_search'), ['knowledge:read', 'sensitive'])).toBe(true);
    expect(toolAllowed(tool('task_create'), ['knowledge:read', 'sensitive'])).toBe(false);
  });
  it('knows every room of the registry', () => {
    expect(scopeRooms()).toEqual(expect.arrayContaining(['identity', 'projects', 'tasks', 'comments', 'guide']));
  });
});

describe('toolAllowed', () => {
  it('lets an unscoped key call everything', () => {
    for (const t of registry) expect(toolAllowed(t, null)).toBe(true);
  });
  it('tasks:read allows the task reads only, plus the tools every key has', () => {
    const s = parseScopes('tasks:read');
    const allowed = registry.filter((t) => toolAllowed(t, s)).map((t) => t.name).sort();
    const expected = registry.filter((t) => (t.room === 'tasks' && t.kind === 'read') || ALWAYS_ALLOWED.includes(t.name)).map((t) => t.name).sort();
    expect(allowed).toEqual(expected);
    expect(allowed).toContain('task_query');
    expect(allowed).not.toContain('task_update');
    expect(allowed).not.toContain('task_claim');
    expect(allowed).not.toContain('project_query');
  });
  it('read allows every read tool and no write', () => {
    const s = parseScopes('read');
    for (const t of registry) expect(toolAllowed(t, s), t.name).toBe(t.kind === 'read' || ALWAYS_ALLOWED.includes(t.name));
  });
  it('a whole room allows its writes', () => {
    const s = parseScopes('tasks:read,comments');
    expect(toolAllowed(tool('comment_add'), s)).toBe(true);
    expect(toolAllowed(tool('comment_query'), s)).toBe(true);
    expect(toolAllowed(tool('task_create'), s)).toBe(false);
  });
  it('names the scope a tool needs', () => {
    expect(scopeFor(tool('task_update'))).toBe('tasks');
    expect(scopeFor(tool('task_query'))).toBe('tasks:read');
  });
});
