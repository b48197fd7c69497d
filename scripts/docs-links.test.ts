import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, brokenLinks, relativeLinks, slug } from './docs-links';

describe('links in the README and docs/', () => {
  it('all resolve: every relative file exists and every #anchor is a heading', () => {
    expect(brokenLinks(process.cwd())).toEqual([]);
  });

  it('makes anchors as GitHub does', () => {
    expect(slug('Per-call cost (`bench/tool-cost.ts`, [bench/results/x.jsonl](bench/results/x.jsonl))')).toBe(
      'per-call-cost-benchtool-costts-benchresultsxjsonl',
    );
    expect(slug('Your data: backup, restore, export, import')).toBe('your-data-backup-restore-export-import');
    expect([...anchors('# A\n## B\n```\n# not a heading\n```\n## B\n')]).toEqual(['a', 'b', 'b-1']);
  });

  it('ignores links in code and external links', () => {
    expect(relativeLinks('[a](x.md) `[b](y.md)` [c](https://e.org)\n```\n[d](z.md)\n```\n![e](p.png)')).toEqual(['x.md', 'p.png']);
  });

  it('reports a missing file and a missing anchor', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'bullpen-links-'));
    mkdirSync(path.join(root, 'docs'));
    writeFileSync(path.join(root, 'README.md'), '# Top\n[ok](docs/a.md#there) [gone](docs/none.md) [bad](docs/a.md#nowhere) [self](#top)\n');
    writeFileSync(path.join(root, 'docs', 'a.md'), '# There\n[up](../README.md#top) [out](../../x.md)\n');
    expect(brokenLinks(root)).toEqual([
      'README.md: docs/none.md (no such file)',
      'README.md: docs/a.md#nowhere (no heading #nowhere in docs/a.md)',
      'docs/a.md: ../../x.md (outside the repository)',
    ]);
  });
});
