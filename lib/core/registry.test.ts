import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_CODES } from './errors';
import { readmeToolTable, spliceGenerated, toolsMarkdown } from './docs';
import { outputBranches, outputJsonSchema } from './json-schema';
import { registry } from './registry';

describe('the registry', () => {
  it('names every tool once, in snake_case, with a model-facing description', () => {
    const names = registry.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const t of registry) {
      expect(t.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(t.description.length, t.name).toBeGreaterThan(80);
      expect(t.input.def.type, t.name).toBe('object');
    }
  });

  it('keeps docs/tools.md in step with the code (run `npm run docs` after changing a tool)', () => {
    expect(readFileSync('docs/tools.md', 'utf8')).toBe(toolsMarkdown());
  });

  it('keeps the README’s tool table in step with the registry (run `npm run docs`)', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readme).toBe(spliceGenerated(readme, 'tools', readmeToolTable()));
    for (const t of registry) expect(readme, t.name).toContain(`\`${t.name}\``);
  });

  it('documents every error code in docs/agents.md', () => {
    const doc = readFileSync('docs/agents.md', 'utf8');
    for (const code of Object.keys(ERROR_CODES)) expect(doc, code).toContain(`\`${code}\``);
  });

  it('gives every tool an output schema that describes an object and converts to JSON Schema', () => {
    for (const t of registry) {
      expect(t.output, t.name).toBeInstanceOf(z.ZodType);
      expect(() => z.toJSONSchema(t.output, { io: 'output', unrepresentable: 'throw' }), t.name).not.toThrow();
      const schema = outputJsonSchema(t);
      expect(schema.type, t.name).toBe('object');
      for (const b of outputBranches(schema)) expect(b.type, t.name).toBe('object');
    }
  });

  it('lets every write answer with idempotent_replay, and no read', () => {
    for (const t of registry) {
      for (const b of outputBranches(outputJsonSchema(t))) {
        expect(Object.keys(b.properties ?? {}).includes('idempotent_replay'), t.name).toBe(t.kind === 'write');
      }
    }
  });

  it('gives every write an idempotency_key input', () => {
    for (const t of registry.filter((x) => x.kind === 'write')) {
      expect(Object.keys(t.input.shape), t.name).toContain('idempotency_key');
    }
  });
});
