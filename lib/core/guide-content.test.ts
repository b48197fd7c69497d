import { describe, it, expect } from 'vitest';
import { registry } from './registry';
import {
  CONTRACT_TOOLS_BY_ROOM,
  GLOSSARY,
  GUIDE_TOPIC_IDS,
  GUIDE_TOPICS,
  KNOWN_TOOLS,
  guideIndex,
  guideTopic,
} from './guide-content';

const EXPECTED_IDS = [
  'getting-started',
  'entities',
  'the-loop',
  'tasks-and-deps',
  'decisions',
  'knowledge',
  'skills',
  'handoffs',
  'git-and-repos',
  'runs-and-subagents',
  'sessions-and-loops',
  'errors-and-recovery',
  'idempotency',
  'feedback',
  'insights',
  'glossary',
];

/** Tool names referenced as calls: `name(` inside backticks, or `name`( right after them. */
function calledToolNames(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(/`([a-z][a-z0-9_]*)\(/g)) names.push(m[1]!);
  for (const m of text.matchAll(/`([a-z][a-z0-9_]*)`\(/g)) names.push(m[1]!);
  return names;
}

/** Tool names in JSON examples: "tool": "name". */
function jsonToolNames(text: string): string[] {
  return [...text.matchAll(/"tool"\s*:\s*"([^"]*)"/g)].map((m) => m[1]!);
}

const allText = [guideIndex(registry), ...GUIDE_TOPICS.flatMap((t) => [t.title, t.summary, t.body])].join('\n');

describe('guide topics', () => {
  it('has all 16 ids, in order, in both the id list and the topics', () => {
    expect([...GUIDE_TOPIC_IDS]).toEqual(EXPECTED_IDS);
    expect(GUIDE_TOPICS.map((t) => t.id)).toEqual(EXPECTED_IDS);
  });

  it.each(EXPECTED_IDS)('topic %s has a title, a summary and a substantial body', (id) => {
    const t = GUIDE_TOPICS.find((x) => x.id === id)!;
    expect(t).toBeDefined();
    expect(t.title.trim().length).toBeGreaterThan(0);
    expect(t.summary.trim().length).toBeGreaterThan(0);
    expect(t.body.trim().length).toBeGreaterThanOrEqual(400);
  });

  it('guideTopic returns the matching topic', () => {
    for (const id of GUIDE_TOPIC_IDS) {
      expect(guideTopic(id).id).toBe(id);
      expect(guideTopic(id)).toBe(GUIDE_TOPICS.find((t) => t.id === id));
    }
  });

  it('has no unbalanced code fences in any body', () => {
    for (const t of GUIDE_TOPICS) {
      const fences = t.body.match(/^```/gm) ?? [];
      expect(fences.length % 2, `topic ${t.id}`).toBe(0);
    }
  });
});

describe('guideIndex', () => {
  const index = guideIndex(registry);

  it('mentions every topic id with its title and summary', () => {
    for (const t of GUIDE_TOPICS) {
      expect(index).toContain(`\`${t.id}\``);
      expect(index).toContain(`- \`${t.id}\` — ${t.title}: ${t.summary}`);
    }
  });

  it('lists the registry’s tools by room, and only the contract’s other tools as arriving later', () => {
    const cut = index.indexOf('## Arriving with later rooms');
    const now = index.slice(index.indexOf('## Tools you can call now'), cut === -1 ? undefined : cut);
    for (const t of registry) expect(now, t.name).toContain(`\`${t.name}\``);
    // with every contract tool registered the section is left out
    expect(cut === -1).toBe(KNOWN_TOOLS.every((n) => registry.some((t) => t.name === n)));
    const later = cut === -1 ? '' : index.slice(cut);
    for (const t of registry) expect(later, t.name).not.toContain(`\`${t.name}\``);
    for (const name of KNOWN_TOOLS.filter((n) => !registry.some((t) => t.name === n))) expect(later, name).toContain(`\`${name}\``);
  });

  it('follows the registry it is given: a tool that exists is listed as callable', () => {
    const withMore = guideIndex([...registry, { name: 'decision_log', room: 'decisions', title: 'Log a decision' }]);
    expect(withMore).toContain('- decisions: `decision_log`');
    expect(withMore.slice(withMore.indexOf('## Arriving with later rooms'))).not.toContain('`decision_log`');
  });

  it('explains how to read a topic with the guide tool', () => {
    expect(index).toContain('"tool": "guide"');
    expect(index).toContain('"topic"');
  });
});

describe('tool names', () => {
  it('KNOWN_TOOLS lists the 58 contract tools without duplicates, and the registry holds only contract tools', () => {
    expect(KNOWN_TOOLS.length).toBe(58);
    expect(new Set(KNOWN_TOOLS).size).toBe(KNOWN_TOOLS.length);
    expect(Object.values(CONTRACT_TOOLS_BY_ROOM).flat()).toEqual(KNOWN_TOOLS);
    for (const t of registry) expect(KNOWN_TOOLS, t.name).toContain(t.name);
  });

  it('every tool named as a call in a body is a known tool', () => {
    const found: string[] = [];
    for (const t of GUIDE_TOPICS) {
      for (const name of calledToolNames(t.body)) {
        found.push(name);
        expect(KNOWN_TOOLS, `topic ${t.id} calls \`${name}(\``).toContain(name);
      }
    }
    // Guard against the check passing vacuously.
    expect(found.length).toBeGreaterThan(0);
  });

  it('every JSON "tool": in a body is a known tool, and callable today', () => {
    const found: string[] = [];
    for (const t of GUIDE_TOPICS) {
      for (const name of jsonToolNames(t.body)) {
        found.push(name);
        expect(KNOWN_TOOLS, `topic ${t.id} uses "tool": "${name}"`).toContain(name);
        // Examples are meant to be copied, so they must only use tools that exist now.
        expect(registry.map((x) => x.name), `topic ${t.id} example uses "${name}"`).toContain(name);
      }
    }
    expect(found.length).toBeGreaterThan(10);
  });

  it('the guide mentions every contract tool somewhere', () => {
    for (const name of KNOWN_TOOLS) expect(allText, name).toContain(`\`${name}\``);
  });
});

describe('glossary', () => {
  it('has at least 20 well-formed, unique terms', () => {
    expect(GLOSSARY.length).toBeGreaterThanOrEqual(20);
    const terms = GLOSSARY.map((g) => g.term.toLowerCase());
    expect(new Set(terms).size).toBe(terms.length);
    for (const g of GLOSSARY) {
      expect(g.term.trim().length).toBeGreaterThan(0);
      expect(g.definition.trim().length).toBeGreaterThan(10);
    }
  });

  it('the glossary topic body is rendered from GLOSSARY', () => {
    const body = guideTopic('glossary').body;
    for (const g of GLOSSARY) {
      expect(body).toContain(g.term);
      expect(body).toContain(g.definition);
    }
  });
});
