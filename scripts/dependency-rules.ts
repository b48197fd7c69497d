// The layering rules of .dependency-cruiser.cjs as a table for docs/architecture.md (npm run docs).
import { createRequire } from 'node:module';
import path from 'node:path';

type Rule = { name: string; comment: string; from: { path: string }; to: { path: string } };

/** The rules of the project's dependency-cruiser config. */
export function dependencyRules(root = process.cwd()): Rule[] {
  const require = createRequire(import.meta.url);
  return (require(path.join(root, '.dependency-cruiser.cjs')) as { forbidden: Rule[] }).forbidden;
}

/** A rule's folder pattern (`^(lib/db|app)/`) as the folders it names. */
function folders(pattern: string): string {
  const inner = pattern.replace(/^\^\(/, '').replace(/\)\/$/, '');
  return inner
    .split('|')
    .map((p) => (p === 'lib/(?!shared/)[^/]+' ? 'any other lib/ folder' : `\`${p}/\``))
    .join(', ');
}

/** The table of docs/architecture.md: each layer, what it must not import, and why. */
export function dependencyRulesTable(rules = dependencyRules()): string {
  const rows = rules.map((r) => `| \`${r.name}\` | ${folders(r.from.path)} | ${folders(r.to.path)} | ${r.comment} |`);
  return [
    'Generated from `.dependency-cruiser.cjs` by `npm run docs`; `scripts/dependency-rules.test.ts` runs dependency-cruiser',
    'over the tree in `npm test` and fails on any arrow these rules forbid (type-only imports count; colocated tests may cross layers).',
    '',
    '| rule | layer | must not import | why |',
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
