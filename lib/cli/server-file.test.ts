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
