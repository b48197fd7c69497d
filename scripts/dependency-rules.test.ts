import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { spliceGenerated } from '../lib/core/docs';
import { dependencyRules, dependencyRulesTable } from './dependency-rules';

const run = promisify(execFile);
const root = process.cwd();
const depcruise = path.join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

type Violation = { from: string; to: string; rule: { name: string } };

/** Runs dependency-cruiser with the project's rules (.dependency-cruiser.cjs) over paths, in cwd. */
async function violations(cwd: string, paths: string[]): Promise<Violation[]> {
  const config = path.join(root, '.dependency-cruiser.cjs');
  // exit code 1 only means "violations found"; the JSON report is on stdout either way
  const { stdout } = await run(process.execPath, [depcruise, '--config', config, '--output-type', 'json', ...paths], { cwd, maxBuffer: 64 << 20 }).catch(
    (err: { stdout?: string; code?: number }) => {
      if (err.code === 1 && err.stdout) return { stdout: err.stdout };
      throw err;
    },
  );
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('dependency rules (docs/architecture.md)', () => {
  const fixtures: string[] = [];
  afterAll(() => {
    for (const dir of fixtures) rmSync(dir, { recursive: true, force: true });
  });

  it('are the ones docs/architecture.md lists (run `npm run docs`)', () => {
    const doc = readFileSync('docs/architecture.md', 'utf8');
    expect(doc).toBe(spliceGenerated(doc, 'dependency-rules', dependencyRulesTable()));
    expect(dependencyRules().length).toBeGreaterThanOrEqual(10);
  });

  it('hold for the whole tree: no arrow runs back up', { timeout: 240_000 }, async () => {
    const found = await violations(root, ['lib', 'app', 'components', 'bin', 'proxy.ts']);
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  });

  it('refuse an arrow back up, type-only imports included, and let tests cross layers', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-layers-'));
    fixtures.push(dir);
    const file = (p: string, text: string) => {
      mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
      writeFileSync(path.join(dir, p), text);
    };
    copyFileSync(path.join(root, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
    file('lib/db/types.ts', 'export type Db = { kind: string };\n');
    file('lib/shared/claims.ts', 'export type Claims = { sub: string };\n');
    file('lib/core/execute.ts', "import type { Db } from '../db/types';\nimport type { Claims } from '../shared/claims';\nexport type X = [Db, Claims];\n");
    file('lib/core/execute.test.ts', "import type { Db } from '../db/types';\nexport type Y = Db;\n");
    file('lib/db/pg.ts', "import { go } from '../server/wire';\nexport const pg = go;\n");
    file('lib/server/wire.ts', "import type { X } from '../core/execute';\nexport const go = 1 as unknown as X;\n");
    file('components/board.tsx', "import Page from '@/app/page';\nexport const Board = Page;\n");
    file('app/page.tsx', 'export default function Page() { return null; }\n');
    const found = await violations(dir, ['lib', 'app', 'components']);
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort()).toEqual([
      'components-are-the-browser: components/board.tsx → app/page.tsx',
      'core-is-the-contract: lib/core/execute.ts → lib/db/types.ts',
      'db-is-the-port: lib/db/pg.ts → lib/server/wire.ts',
    ]);
  });
});
