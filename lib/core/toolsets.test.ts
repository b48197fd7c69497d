import { describe, expect, it } from 'vitest';
import { getTool, registry } from './registry';
import { CORE_TOOLS, OPT_IN_ROOMS, inToolsets, optInNote, optInRooms, parseToolsets, toolsetNames } from './toolsets';

describe('toolsets', () => {
  it('core names only tools of the registry', () => {
    for (const name of CORE_TOOLS) expect(getTool(name), name).toBeDefined();
  });

  it('all means every tool; absent or empty means every tool of the rooms that are not opt-in', () => {
    for (const raw of ['all', 'core,all']) {
      const sel = parseToolsets(raw);
      expect(sel.ok && sel.tools).toBe(null);
    }
    const optIn = registry.filter((t) => OPT_IN_ROOMS.has(t.room)).map((t) => t.name);
    expect(optIn.length).toBeGreaterThan(0);
    for (const raw of [null, undefined, '', ' , ']) {
      const sel = parseToolsets(raw);
      if (!sel.ok || !sel.tools) throw new Error('expected the default rooms');
      expect([...sel.tools].sort()).toEqual(registry.filter((t) => !OPT_IN_ROOMS.has(t.room)).map((t) => t.name).sort());
      for (const name of optIn) expect(sel.tools.has(name)).toBe(false);
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

describe('opt-in rooms (outside the contract)', () => {
  // a fixture registry: two contract rooms and a room beyond the contract, flagged opt-in
  const src = {
    tools: [
      { name: 'whoami', room: 'identity' },
      { name: 'task_claim', room: 'tasks' },
      { name: 'guide', room: 'guide' },
      { name: 'debate_open', room: 'council' },
      { name: 'debate_reply', room: 'council' },
    ],
    optIn: new Set(['council']),
  };

  it('a connection naming no toolsets lists every room but the opt-in ones', () => {
    const sel = parseToolsets(null, src);
    if (!sel.ok) throw new Error('refused');
    expect([...sel.tools!].sort()).toEqual(['guide', 'task_claim', 'whoami']);
    expect(inToolsets({ name: 'debate_reply' }, sel.tools)).toBe(false);
  });

  it('naming the room, or all, lists it', () => {
    const named = parseToolsets('core,council', src);
    if (!named.ok) throw new Error('refused');
    expect(named.tools!.has('debate_open') && named.tools!.has('debate_reply')).toBe(true);
    const all = parseToolsets('all', src);
    expect(all.ok && all.tools).toBe(null);
    expect(toolsetNames(src)).toEqual(['core', 'all', 'identity', 'tasks', 'guide', 'council']);
  });

  it('the note for the instructions and the guide names the rooms left out and how to add them', () => {
    expect(optInRooms(src)).toEqual(['council']);
    const note = optInNote(src);
    expect(note).toContain('council');
    expect(note).toContain('?toolsets=core,council');
    // no opt-in room: nothing is left out and nothing is said
    expect(optInNote({ ...src, optIn: new Set() })).toBe('');
    expect(parseToolsets(null, { ...src, optIn: new Set() })).toEqual({ ok: true, tools: null, names: [] });
  });

  it('the live registry: opt-in rooms are rooms of the registry, and the default list leaves out exactly them', () => {
    const rooms = new Set(registry.map((t) => t.room));
    for (const r of OPT_IN_ROOMS) expect(rooms.has(r), r).toBe(true);
    const sel = parseToolsets(null);
    if (!sel.ok) throw new Error('refused');
    const listed = registry.filter((t) => inToolsets(t, sel.tools)).map((t) => t.name);
    expect(listed).toEqual(registry.filter((t) => !OPT_IN_ROOMS.has(t.room)).map((t) => t.name));
    // the contract's rooms are never opt-in: the agent loop is always there
    for (const name of CORE_TOOLS) expect(OPT_IN_ROOMS.has(getTool(name)!.room), name).toBe(false);
  });
});
