import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OpenTimeout, openDbBounded } from './open-db';

const root = mkdtempSync(path.join(tmpdir(), 'bullpen-open-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const repo = path.resolve(import.meta.dirname, '..', '..');

describe('start-up opens the database within a bounded time', () => {
  it('an open or migration that runs past BULLPEN_DB_OPEN_TIMEOUT_MS is an error naming bullpen restore, not a hang', async () => {
    const saved = { dir: process.env.BULLPEN_DATA_DIR, url: process.env.DATABASE_URL };
    process.env.BULLPEN_DATA_DIR = path.join(root, 'slow', 'data');
    delete process.env.DATABASE_URL;
    const lines: string[] = [];
    try {
      const err = await openDbBounded((l) => lines.push(l), 1).catch((e) => e);
      expect(err).toBeInstanceOf(OpenTimeout);
      expect(err.message).toContain('npx bullpen restore');
      expect(err.message).toContain('BULLPEN_DB_OPEN_TIMEOUT_MS');
    } finally {
      if (saved.dir === undefined) delete process.env.BULLPEN_DATA_DIR;
      else process.env.BULLPEN_DATA_DIR = saved.dir;
      if (saved.url !== undefined) process.env.DATABASE_URL = saved.url;
    }
    expect(lines.join('\n')).not.toContain('Migrating 16 of 16');
  });

  it('a thread blocked inside the database (no timer can fire) is ended by the watchdog, which says why', () => {
    const script = `
      import { startWatchdog } from ${JSON.stringify(path.join(repo, 'lib/cli/open-db.ts'))};
      startWatchdog(300, 'the embedded database could not be opened; bullpen restore');
      const t0 = Date.now();
      while (Date.now() - t0 < 20000) {}
      process.stdout.write('never stopped');
    `;
    const t0 = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: repo, encoding: 'utf8', timeout: 30_000 });
    expect(r.stdout).not.toContain('never stopped');
    expect(r.signal).toBe('SIGTERM');
    expect(r.stderr).toContain('bullpen: the embedded database could not be opened; bullpen restore');
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});
