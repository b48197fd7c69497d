import { describe, expect, it } from 'vitest';
import { getTool, registry } from './registry';
import { CORE_TOOLS, inToolsets, parseToolsets, toolsetNames } from './toolsets';

describe('toolsets', () => {
  it('core names only tools of the registry', () => {
    for (const name of CORE_TOOLS) expect(getTool(name), name).toBeDefined();
  });

  it('absent, empty and all mean every tool', () => {
    for (const raw of [null, undefined, '', ' , ', 'all', 'core,all']) {
      const sel = parseToolsets(raw);
      expect(sel.ok && sel.tools).toBe(null);
    }
  });

  it('a room selects its tools, plus guide', () => {
    const sel = parseToolsets('handoffs');
    if (!sel.ok) throw new Error('refused');
    const expected = registry.filter((t) => t.room === 'handoffs').map((t) => t.name);
    expect([...sel.tools!].sort()).toEqual([...expected, 'guide'].sort());
  });

  it('sets combine, from one value or several, case and spaces aside', () => {
    const sel = parseToolsets(['Core, decisions', 'runs']);
    if (!sel.ok) throw new Error('refused');
    expect(sel.names).toEqual(['core', 'decisions', 'runs']);
    for (const name of ['whoami', 'decision_log', 'run_end']) expect(sel.tools!.has(name), name).toBe(true);
    expect(inToolsets({ name: 'attach_add' }, sel.tools)).toBe(false);
    expect(inToolsets({ name: 'attach_add' }, null)).toBe(true);
  });

  it('an unknown name is refused with the valid names', () => {
    const sel = parseToolsets('core,handofs,nope');
    expect(sel).toEqual({ ok: false, unknown: ['handofs', 'nope'], valid: toolsetNames() });
    expect(toolsetNames()).toContain('handoffs');
    expect(toolsetNames()[0]).toBe('core');
  });
});
