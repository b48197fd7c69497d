import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * lib/console/client is the console's browser-side library: app/ and components/ build on it, never
 * the other way round, so it must import nothing from them (shared code moves into lib/console).
 */

const dir = path.join(import.meta.dirname, 'client');
const root = path.resolve(import.meta.dirname, '..', '..');

function sources(d: string): string[] {
  return readdirSync(d, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(d, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.(ts|tsx|mts|js|jsx|mjs)$/.test(e.name) ? [p] : [];
  });
}

/** Every module specifier: static imports and re-exports, side-effect imports, import() and require(). */
function specifiers(code: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) out.push(m[1]);
  return out;
}

/** Whether a specifier, written in `file`, reaches into app/ or components/. */
function crossesBoundary(file: string, spec: string): boolean {
  let target: string;
  if (spec.startsWith('@/')) target = spec.slice(2);
  else if (spec.startsWith('.')) target = path.relative(root, path.resolve(path.dirname(file), spec));
  else return false;
  return /^(app|components)(\/|$)/.test(target.split(path.sep).join('/'));
}

describe('lib/console/client', () => {
  it('finds specifiers in every form and recognises app/ and components/ however they are named', () => {
    const code = [
      "import { a } from '@/app/(console)/actions';",
      "import type { B } from '../../../components/x';",
      "export { c } from './cache';",
      "import '@/components/side-effect';",
      "const d = await import('@/app/page');",
    ].join('\n');
    const specs = specifiers(code);
    expect(specs.sort()).toEqual(['../../../components/x', './cache', '@/app/(console)/actions', '@/app/page', '@/components/side-effect']);
    const file = path.join(dir, 'mutations.ts');
    expect(specs.filter((s) => crossesBoundary(file, s)).sort()).toEqual(['../../../components/x', '@/app/(console)/actions', '@/app/page', '@/components/side-effect']);
    expect(crossesBoundary(file, '@/lib/console/types')).toBe(false);
    expect(crossesBoundary(file, 'react')).toBe(false);
  });

  it('imports nothing from app/ or components/', () => {
    const files = sources(dir);
    expect(files.length).toBeGreaterThan(3);
    const offending = files.flatMap((f) =>
      specifiers(readFileSync(f, 'utf8'))
        .filter((s) => crossesBoundary(f, s))
        .map((s) => `${path.relative(root, f)} imports ${s}`),
    );
    expect(offending).toEqual([]);
  });
});
