import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * One door for every key: every route under app/ that takes an API key goes through
 * authenticateRequest (lib/server/auth.ts), which applies scopes, expiry, revocation and rate
 * limits. This walks the file system for route.ts files, follows each one's imports inside the
 * repository, and fails when a route reads Authorization (a bearer key) anywhere but through the door.
 */

const root = path.resolve(import.meta.dirname, '../..');
const DOOR = path.join(root, 'lib/server/auth.ts');

function routes(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const p = path.join(dir, entry);
    if (statSync(p).isDirectory()) out.push(...routes(p));
    else if (entry === 'route.ts') out.push(p);
  }
  return out;
}

function resolve(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith('@/')) base = path.join(root, spec.slice(2));
  else if (spec.startsWith('.')) base = path.resolve(path.dirname(from), spec);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The route file and every repository module it reaches through imports, the door's own imports excluded. */
function closure(file: string): string[] {
  const seen = new Set<string>();
  const walk = (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    if (f === DOOR) return;
    for (const m of readFileSync(f, 'utf8').matchAll(IMPORT)) {
      const next = resolve(f, m[1] ?? m[2]);
      if (next) walk(next);
    }
  };
  walk(file);
  return [...seen];
}

/** Reading a key: the Authorization header, by name, or the key lookup itself. */
const READS_KEY = /\.get\(\s*['"]authorization['"]\s*\)|headers\[\s*['"]authorization['"]\s*\]|\bbearer\(|\bauthenticateKey\(/i;
const rel = (f: string) => path.relative(root, f);

describe('one door for every key', () => {
  const all = routes(path.join(root, 'app'));

  it('finds the routes under app/', () => {
    expect(all.length).toBeGreaterThan(10);
    expect(all.map(rel)).toContain('app/api/files/route.ts');
  });

  it('no route reads Authorization, or looks a key up, except through authenticateRequest', () => {
    const bypass: string[] = [];
    for (const route of all) {
      for (const f of closure(route)) {
        if (f === DOOR) continue;
        const src = readFileSync(f, 'utf8');
        if (READS_KEY.test(src)) bypass.push(`${rel(route)} reads a key in ${rel(f)}`);
      }
    }
    expect(bypass).toEqual([]);
  });

  it('every route that accepts a key calls the door: /api/mcp and /api/files (upload and download)', () => {
    const callsDoor = (route: string) => closure(route).some((f) => f !== DOOR && /\bauthenticateRequest\(/.test(readFileSync(f, 'utf8')));
    const accepting = all.filter(callsDoor).map(rel).sort();
    expect(accepting).toEqual(expect.arrayContaining(['app/api/files/[id]/route.ts', 'app/api/files/route.ts', 'app/api/mcp/route.ts']));
    // the console's routes and the live feed go through it too (sessions, limited the same way)
    expect(accepting).toEqual(expect.arrayContaining(['app/api/console/actors/route.ts', 'app/api/console/tool/route.ts', 'app/api/events/route.ts']));
  });
});
