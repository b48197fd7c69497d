import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeServerFile, serverFilePath, writeServerFile } from './server-file';

const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-serverfile-'));
const saved = process.env.BULLPEN_DATA_DIR;
beforeAll(() => {
  process.env.BULLPEN_DATA_DIR = path.join(dir, 'state', 'data');
});
afterAll(() => {
  if (saved === undefined) delete process.env.BULLPEN_DATA_DIR;
  else process.env.BULLPEN_DATA_DIR = saved;
  rmSync(dir, { recursive: true, force: true });
});

describe('server.json', () => {
  it('is removed only by the process that wrote it', async () => {
    const theirs = { url: 'http://127.0.0.1:4001', pid: process.pid + 1, admin_token: 'theirs', data_dir: null, started_at: new Date().toISOString() };
    await writeServerFile(theirs);
    expect(serverFilePath()).toBe(path.join(dir, 'state', 'server.json'));
    // a server that did not write it (a second one, stopping) leaves it alone
    expect(await removeServerFile({ pid: process.pid, admin_token: 'mine' })).toBe(false);
    expect(JSON.parse(readFileSync(serverFilePath(), 'utf8'))).toMatchObject({ pid: theirs.pid, admin_token: 'theirs' });
    // same pid, another start's token: not this start's file either
    expect(await removeServerFile({ pid: theirs.pid, admin_token: 'mine' })).toBe(false);
    expect(await removeServerFile({ pid: theirs.pid, admin_token: 'theirs' })).toBe(true);
    expect(existsSync(serverFilePath())).toBe(false);
  });
});

describe('the CLI on a data directory without a server', () => {
  it('queues behind another command that holds it, then runs; a command that holds it too long is named in the refusal', async () => {
    const { acquireDataLock } = await import('./data-lock');
    const { withDirectDb } = await import('./server-file');
    const { dataDir } = await import('../db');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path.dirname(dataDir()), { recursive: true });
    const other = acquireDataLock(dataDir(), { kind: 'cli', command: 'bullpen backup' });
    const order: string[] = [];
    setTimeout(() => {
      order.push('other done');
      other.release();
    }, 500);
    const saved = process.env.DATABASE_URL;
    delete process.env.DATABASE_URL;
    try {
      await withDirectDb('bullpen agent add', async () => {
        order.push('ran');
      });
    } finally {
      if (saved !== undefined) process.env.DATABASE_URL = saved;
    }
    expect(order).toEqual(['other done', 'ran']);
    const server = acquireDataLock(dataDir(), { kind: 'server', command: 'bullpen start', url: 'http://127.0.0.1:4555' });
    try {
      delete process.env.DATABASE_URL;
      const err = await withDirectDb('bullpen agent add', async () => 'opened').catch((e: Error) => e);
      expect(String(err)).toContain('held by a running Bullpen server');
      expect(String(err)).toContain('http://127.0.0.1:4555');
      expect(String(err)).toContain('the CLI never opens one a live server holds');
    } finally {
      if (saved !== undefined) process.env.DATABASE_URL = saved;
      server.release();
    }
  }, 60_000);
});
