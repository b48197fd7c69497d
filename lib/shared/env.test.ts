import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spliceGenerated } from '../core/docs';
import { ENV_VARS, env, envNumber, envTable } from './env';

/** The environment variables a source text reads: process.env.X, process.env['X'], env.X, and 'BULLPEN_X' names. */
export function envReads(text: string): Set<string> {
  const names = new Set<string>();
  const patterns = [
    /process\.env\.([A-Za-z_][A-Za-z0-9_]*)/g,
    /process\.env\[\s*['"`]([A-Za-z_][A-Za-z0-9_]*)['"`]\s*\]/g,
    /\benv\.([A-Z][A-Z0-9_]*)\b/g,
    /['"`]((?:BULLPEN|SUPABASE|OPENAI|NEXT_PUBLIC)_[A-Z0-9_]+)['"`]/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) names.add(m[1]);
  return names;
}

const SOURCE = /\.(ts|tsx|mts|mjs|js|cjs)$/;

/** Every non-test source file under the folders that hold the product's code. */
function sources(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(path.join(root, dir))) {
      const rel = path.join(dir, name);
      if (name === 'node_modules' || name.startsWith('.')) continue;
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else if (SOURCE.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.mts')) out.push(rel);
    }
  };
  for (const dir of ['lib', 'app', 'bin', 'scripts', 'components']) walk(dir);
  return [...out, 'proxy.ts', 'next.config.mjs'];
}

describe('the environment variables', () => {
  const root = process.cwd();
  const listed = new Set<string>(ENV_VARS.map((v) => v.name));

  it('are listed once each, with a description', () => {
    expect(listed.size).toBe(ENV_VARS.length);
    for (const v of ENV_VARS) expect(v.description.length, v.name).toBeGreaterThan(10);
  });

  it('are all in the list wherever code reads one (lib/, app/, bin/, scripts/, components/)', () => {
    const unlisted: string[] = [];
    const read = new Set<string>();
    for (const file of sources(root)) {
      for (const name of envReads(readFileSync(path.join(root, file), 'utf8'))) {
        read.add(name);
        if (!listed.has(name)) unlisted.push(`${file}: ${name}`);
      }
    }
    expect(unlisted, 'add them to lib/shared/env.ts, then run `npm run docs`').toEqual([]);
    expect([...listed].filter((n) => !read.has(n)), 'listed but read nowhere').toEqual([]);
  });

  it('finds the ways code reads a variable', () => {
    const text = "process.env.A_B; process.env['C']; env.BULLPEN_D; envInt('BULLPEN_E'); const BULLPEN_STATES = 1; `SUPABASE_F`";
    expect([...envReads(text)].sort()).toEqual(['A_B', 'BULLPEN_D', 'BULLPEN_E', 'C', 'SUPABASE_F']);
  });

  it('are documented by the table in docs/operations.md (run `npm run docs`)', () => {
    const doc = readFileSync('docs/operations.md', 'utf8');
    expect(doc).toBe(spliceGenerated(doc, 'env', envTable()));
    for (const v of ENV_VARS) expect(doc, v.name).toContain(`\`${v.name}\``);
  });

  it('read through env(): the environment first, else the list default', () => {
    expect(env('BULLPEN_FEED_POLL_MS', {})).toBe('50');
    expect(envNumber('BULLPEN_FEED_POLL_MS', { BULLPEN_FEED_POLL_MS: '20' })).toBe(20);
    expect(env('DATABASE_URL', {})).toBeUndefined();
  });
});
