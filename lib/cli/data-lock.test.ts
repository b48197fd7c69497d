import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireDataLock, DataDirHeld, lockPathFor, processStart, type LockHolder } from './data-lock';

const root = mkdtempSync(path.join(tmpdir(), 'bullpen-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
const freshDir = () => path.join(root, `d${n++}`, 'data');

/** A pid that ran and has ended. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  return r.pid!;
}

function holder(dir: string, patch: Partial<LockHolder>): LockHolder {
  return {
    pid: process.pid,
    pid_start: processStart(process.pid),
    host: hostname(),
    kind: 'server',
    command: 'bullpen start',
    url: 'http://127.0.0.1:3999',
    data_dir: dir,
    since: new Date().toISOString(),
    token: 'other',
    ...patch,
  };
}

describe('the data directory lock (one server per data directory)', () => {
  it('is taken by one holder: a second taker is refused with the holder’s pid and URL; release frees it', async () => {
    const dir = freshDir();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path.dirname(dir), { recursive: true });
    const a = acquireDataLock(dir, { kind: 'server', command: 'bullpen start' });
    a.update({ url: 'http://127.0.0.1:4123' });
    const file = lockPathFor(dir);
    expect(file).toBe(path.join(path.dirname(dir), 'data.lock'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    let refused: unknown;
    try {
      acquireDataLock(dir, { kind: 'server', command: 'bullpen start' });
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(DataDirHeld);
    expect((refused as Error).message).toContain(`pid ${process.pid}`);
    expect((refused as Error).message).toContain('http://127.0.0.1:4123');
    a.release();
    expect(existsSync(file)).toBe(false);
    const b = acquireDataLock(dir, { kind: 'cli', command: 'bullpen backup' });
    expect(b.tookOver).toBeNull();
    b.release();
  });

  it('takes over a stale lock: its pid is gone, or now belongs to a process that started later', async () => {
    const { mkdirSync } = await import('node:fs');
    for (const stale of [{ pid: deadPid(), pid_start: null }, { pid: process.pid, pid_start: '1' }]) {
      const dir = freshDir();
      mkdirSync(path.dirname(dir), { recursive: true });
      writeFileSync(lockPathFor(dir), JSON.stringify(holder(dir, stale)));
      const lock = acquireDataLock(dir, { kind: 'server', command: 'bullpen start' });
      expect(lock.tookOver).toMatchObject({ pid: stale.pid, token: 'other' });
      expect(JSON.parse(readFileSync(lockPathFor(dir), 'utf8'))).toMatchObject({ pid: process.pid, token: lock.holder.token });
      lock.release();
    }
  });

  it('never takes over a live holder, nor one on another host; release leaves a lock that is not its own', async () => {
    const { mkdirSync } = await import('node:fs');
    const dir = freshDir();
    mkdirSync(path.dirname(dir), { recursive: true });
    writeFileSync(lockPathFor(dir), JSON.stringify(holder(dir, { host: 'elsewhere', pid: deadPid() })));
    expect(() => acquireDataLock(dir, { kind: 'cli', command: 'bullpen agent add' })).toThrow(/on host elsewhere/);
    const dir2 = freshDir();
    mkdirSync(path.dirname(dir2), { recursive: true });
    const mine = acquireDataLock(dir2, { kind: 'cli', command: 'bullpen export' });
    // another process replaced it (say, after taking it over): this one's release must leave it
    writeFileSync(lockPathFor(dir2), JSON.stringify(holder(dir2, { token: 'theirs' })));
    mine.release();
    expect(JSON.parse(readFileSync(lockPathFor(dir2), 'utf8')).token).toBe('theirs');
  });
});
