import { describe, expect, it } from 'vitest';
import { listTools } from '../mcp/server';
import { registry } from './registry';
import { CORE_TOOLS } from './toolsets';

/** Bytes of the `tools` array a tools/list answer carries: what a model pays for in context. */
const bytes = (names?: readonly string[]) =>
  Buffer.byteLength(JSON.stringify(names ? listTools().filter((t) => names.includes(t.name)) : listTools()));

describe('the tool list a model reads', () => {
  it('keeps the core toolset, the whole agent loop, within 8 KB', () => {
    expect(bytes(CORE_TOOLS)).toBeLessThanOrEqual(8 * 1024);
    const loop = ['whoami', 'guide', 'project_brief', 'task_claim', 'task_get', 'task_query', 'task_update', 'task_release', 'task_create', 'comment_add', 'inbox', 'handoff_create'];
    expect([...CORE_TOOLS].sort()).toEqual(loop.sort());
  });

  it('keeps all 62 tools within 720 bytes per tool on average', () => {
    expect(registry.length).toBe(62);
    expect(bytes()).toBeLessThanOrEqual(720 * registry.length);
  });

  it('has every tool say what it returns and when to call it', () => {
    for (const t of listTools()) {
      const sentences = t.description!.split(/(?<=[.;:]) /);
      expect(sentences.some((s) => s.startsWith('Returns ')), `${t.name}: a sentence starting "Returns"`).toBe(true);
      expect(sentences.some((s) => s.startsWith('Use when ')), `${t.name}: a sentence starting "Use when"`).toBe(true);
      // one short pass: what it does, what it returns, when to call it; the rest is the guide's
      expect(t.description!.length, t.name).toBeLessThanOrEqual(160);
    }
  });
});
