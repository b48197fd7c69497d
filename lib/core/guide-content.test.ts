import { describe, it, expect } from 'vitest';
import { registry } from './registry';
import {
  GLOSSARY,
  GUIDE_TOPIC_IDS,
  GUIDE_TOPICS,
  guideIndex,
  guideTopic,
} from './guide-content';

/** Every tool there is: the registry (the guide renders its tool list from it, never by hand). */
const KNOWN_TOOLS = registry.map((t) => t.name);

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
  'routing-work',
  'deliberation',
  'budgets-and-costs',
  'workflows',
  'before-you-change-a-file',
  'events',
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
  it('has all 17 ids, in order, in both the id list and the topics', () => {
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

  it('lists the registry’s tools by room, generated from the registry it is given', () => {
    const now = index.slice(index.indexOf('## Tools you can call now'));
    for (const t of registry) expect(now, t.name).toContain(`\`${t.name}\``);
    for (const room of new Set(registry.map((t) => t.room))) expect(now, room).toContain(`- ${room}: `);
  });

  it('follows the registry it is given: a tool that exists is listed, one that does not is not', () => {
    const withMore = guideIndex([...registry, { name: 'decision_brief', room: 'decisions', title: 'A later tool' }]);
    expect(withMore).toMatch(/- decisions: [^\n]*`decision_brief`/);
    const fewer = guideIndex(registry.filter((t) => t.name !== 'decision_log'));
    expect(fewer.slice(fewer.indexOf('## Tools you can call now'))).not.toContain('`decision_log`');
  });

  it('explains how to read a topic with the guide tool', () => {
    expect(index).toContain('"tool": "guide"');
    expect(index).toContain('"topic"');
  });
});

describe('tool names', () => {
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

  it('the guide mentions every tool somewhere', () => {
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
