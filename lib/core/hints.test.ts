import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute } from './execute';
import { ERROR_CODES } from './errors';
import { GUIDE_TOPIC_IDS } from './guide-content';

/** Hints are read by remote agents: they name guide topics, never files in the repository. */

const root = path.resolve(import.meta.dirname, '..', '..');
function sources(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|sql)$/.test(e.name) && !e.name.endsWith('.test.ts')) out.push({ file: path.relative(root, p), text: readFileSync(p, 'utf8') });
    }
  };
  walk(path.join(root, 'lib'));
  walk(path.join(root, 'supabase', 'definitions'));
  return out;
}

describe('hints', () => {
  it('never send an agent to a file it cannot read', async () => {
    for (const [code, d] of Object.entries(ERROR_CODES)) expect(d.hint, code).not.toMatch(/docs\/|README|\.md\b/);
    const env = await execute({ db: undefined as never, claims: { sub: 'x', role: 'authenticated', tenant_id: 't', actor_id: 'a' } }, 'task_create', { title: 1 });
    expect(env.ok).toBe(false);
    if (!env.ok) {
      expect(env.error.hint).not.toMatch(/docs\/|\.md\b/);
      expect(env.error.hint).toContain('guide(');
    }
  });

  it('name only guide topics that exist', () => {
    for (const { file, text } of sources()) {
      for (const m of text.matchAll(/guide\(\{ ?topic: ?\\?["']([a-z-]+)|guide\(["']([a-z-]+)/g)) {
        expect(GUIDE_TOPIC_IDS, `${file}: ${m[0]}`).toContain(m[1] ?? m[2]);
      }
    }
  });
});
