import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from './pglite';

const root = mkdtempSync(path.join(tmpdir(), 'bullpen-modes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every entry under `dir` whose mode is not 0700 (directories) or 0600 (files). */
export function notPrivate(dir: string): string[] {
  const out: string[] = [];
  const visit = (p: string) => {
    const s = lstatSync(p);
    const want = s.isDirectory() ? 0o700 : 0o600;
    if ((s.mode & 0o777) !== want) out.push(`${(s.mode & 0o777).toString(8)} ${path.relative(dir, p)}`);
    if (s.isDirectory()) for (const e of readdirSync(p)) visit(path.join(p, e));
  };
  visit(dir);
  return out;
}

describe('files are private', () => {
  it('the embedded database creates its missing folders 0700 and keeps every file 0600, whatever the umask', async () => {
    const old = process.umask(0);
    try {
      // nested and missing: a fresh clone has no .bullpen yet
      const dataDir = path.join(root, 'state', 'data');
      const db = await openPglite(dataDir);
      await db.exec('create table t (x int primary key, y text); insert into t select g, repeat(\'x\', 300) from generate_series(1, 1000) g');
      await db.dumpDataDir!();
      await db.exec('create table u (x int)');
      await db.close();
      expect(notPrivate(path.join(root, 'state'))).toEqual([]);
    } finally {
      process.umask(old);
    }
  }, 60_000);
});
