import { describe, expect, it } from 'vitest';
import { listTools } from '../mcp/server';
import { registry } from './registry';
import { CORE_TOOLS } from './toolsets';

/** Bytes of the `tools` array a tools/list answer carries: what a model pays for in context. */
const bytes = (names?: readonly string[]) =>
  Buffer.byteLength(JSON.stringify(names ? listTools().filter((t) => names.includes(t.name)) : listTools()));

describe('the tool list a model reads', () => {
  it('keeps the core toolset within 8 KB', () => {
    expect(bytes(CORE_TOOLS)).toBeLessThanOrEqual(8 * 1024);
    for (const name of ['whoami', 'task_claim', 'task_update', 'task_get', 'task_query', 'inbox', 'guide']) expect(CORE_TOOLS).toContain(name);
  });

  it('keeps every tool within its budget', () => {
    // The target is 40 KB; the input schemas alone, every bound zod checks and not one word of
    // description, come to 37 KB for 57 tools (README: What the tool list costs a model), so this
    // ceiling is what the list measures now, to keep it from growing back.
    expect(registry.length).toBe(57);
    expect(bytes()).toBeLessThanOrEqual(66 * 1024);
  });

  it('has every tool say what it returns and when to call it', () => {
    for (const t of listTools()) {
      const sentences = t.description!.split(/(?<=[.;:]) /);
      expect(sentences.some((s) => s.startsWith('Returns ')), `${t.name}: a sentence starting "Returns"`).toBe(true);
      expect(sentences.some((s) => s.startsWith('Use when ')), `${t.name}: a sentence starting "Use when"`).toBe(true);
      expect(t.description!.length, t.name).toBeLessThanOrEqual(360);
    }
  });
});
