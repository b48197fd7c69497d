import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { mkdirPrivate, PRIVATE_FILE_MODE } from '../db/private-fs';

/**
 * One process per embedded data directory. The embedded database is a single-process database:
 * two processes writing one directory corrupt it. Whoever opens it (a server, or the CLI when no
 * server runs) first takes `<data dir>.lock` beside it, e.g. `.bullpen/data.lock`, a small JSON
 * file naming the holder: pid, what it is, its URL once it listens, host and start time.
 *
 * Taking it is atomic: the file is written aside and hard-linked into place, which fails when a
 * lock is already there, so a reader never sees half a lock. A lock whose process is gone (the
 * pid no longer runs, or now belongs to a process that started later) is stale and is taken over:
 * under a short-lived `.lock.takeover` guard, the stale file is removed only if it is still the
 * one that was judged stale, so two starters racing for it cannot both win. A lock held on another
 * host cannot be judged from here and is never taken over.
 */

export type LockHolder = {
  pid: number;
  /** The kernel's start time of that pid (Linux), so a reused pid is not mistaken for the holder. */
  pid_start: string | null;
  host: string;
  kind: 'server' | 'cli';
  /** What holds it: `bullpen start`, `bullpen backup`, … */
  command: string;
  /** The server's URL once it listens; null while it starts, and for the CLI. */
  url: string | null;
  data_dir: string;
  since: string;
  token: string;
};

/** The data directory is held by a live process; `holder` says which. */
export class DataDirHeld extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
    readonly lockFile: string,
  ) {
    super(`${dataDir} is held by ${describeHolder(holder)}`);
    this.name = 'DataDirHeld';
  }
}

/** "a running Bullpen server (pid 123, http://127.0.0.1:3000, since …)" and the like. */
export function describeHolder(h: LockHolder): string {
  const where = h.host === hostname() ? '' : ` on host ${h.host}`;
  if (h.kind === 'server') {
    return h.url
      ? `a running Bullpen server (pid ${h.pid}${where}, ${h.url}, since ${h.since})`
      : `a Bullpen server that is starting (pid ${h.pid}${where}, since ${h.since})`;
  }
  return `\`${h.command}\` (pid ${h.pid}${where}, since ${h.since})`;
}

export function lockPathFor(dataDir: string): string {
  const dir = path.resolve(dataDir);
  return path.join(path.dirname(dir), `${path.basename(dir)}.lock`);
}

/** The kernel's start time of a process (field 22 of /proc/PID/stat), or null off Linux. */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the holder's process still runs (on this host; another host's holder counts as live). */
export function holderAlive(h: LockHolder): boolean {
  if (h.host !== hostname()) return true;
  try {
    process.kill(h.pid, 0);
  } catch (err) {
    // EPERM: it runs, as another user
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (h.pid_start) {
    const now = processStart(h.pid);
    if (now && now !== h.pid_start) return false;
  }
  return true;
}

function readHolder(file: string): LockHolder | null {
  try {
    const h = JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
    return typeof h?.pid === 'number' && typeof h.token === 'string' ? h : null;
  } catch {
    return null;
  }
}

export type DataLock = {
  readonly file: string;
  readonly holder: LockHolder;
  /** The holder that was there before, when this lock took over a stale one. */
  readonly tookOver: LockHolder | null;
  /** Records the URL the server now listens on (for the refusal a second starter prints). */
  update(patch: Partial<Pick<LockHolder, 'url' | 'command'>>): void;
  /** Removes the lock if it is still this one's. */
  release(): void;
};

/**
 * Takes the lock of `dataDir` for this process, or throws DataDirHeld naming the live holder.
 * A stale lock is taken over (`tookOver` names the holder it replaced). The lock is released on
 * release() and, failing that, when the process exits.
 */
export function acquireDataLock(dataDir: string, who: { kind: LockHolder['kind']; command: string; url?: string | null }): DataLock {
  const dir = path.resolve(dataDir);
  const file = lockPathFor(dir);
  const holder: LockHolder = {
    pid: process.pid,
    pid_start: processStart(process.pid),
    host: hostname(),
    kind: who.kind,
    command: who.command,
    url: who.url ?? null,
    data_dir: dir,
    since: new Date().toISOString(),
    token: randomBytes(12).toString('hex'),
  };
  let tookOver: LockHolder | null = null;
  const write = (target: string) => writeFileSync(target, `${JSON.stringify(holder, null, 2)}\n`, { mode: PRIVATE_FILE_MODE, flag: 'w' });
  for (let attempt = 0; ; attempt++) {
    const tmp = `${file}.${process.pid}.${holder.token}.tmp`;
    write(tmp);
    try {
      linkSync(tmp, file);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(tmp);
    }
    const current = readHolder(file);
    if (current && holderAlive(current)) throw new DataDirHeld(dir, current, file);
    if (attempt >= 20) throw new Error(`could not take ${file}: it keeps changing; retry`);
    if (takeOverStale(file, current)) tookOver = current;
    else sleepSync(50);
  }
  const own = () => readHolder(file)?.token === holder.token;
  const onExit = () => {
    try {
      if (own()) unlinkSync(file);
    } catch {
      // best effort on the way out
    }
  };
  process.once('exit', onExit);
  return {
    file,
    holder,
    tookOver,
    update(patch) {
      if (!own()) return;
      Object.assign(holder, patch);
      const tmp = `${file}.${process.pid}.${holder.token}.tmp`;
      write(tmp);
      renameSync(tmp, file);
    },
    release() {
      process.removeListener('exit', onExit);
      onExit();
    },
  };
}

/**
 * Removes a stale lock, under a guard file so only one of several starters does it, and only if
 * the file is still the one judged stale (same token, or still unreadable). Returns whether it did.
 */
function takeOverStale(file: string, stale: LockHolder | null): boolean {
  const guard = `${file}.takeover`;
  try {
    writeFileSync(guard, String(process.pid), { flag: 'wx', mode: PRIVATE_FILE_MODE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // a guard left by a starter that died mid-takeover is itself stale after a few seconds
    const age = Date.now() - (statSafe(guard)?.mtimeMs ?? Date.now());
    if (age > 5000) unlinkSafe(guard);
    return false;
  }
  try {
    const now = readHolder(file);
    const same = stale ? now?.token === stale.token : now === null;
    if (!same) return false;
    if (!stale) {
      // unreadable: a lock of an older format, or one its writer never finished; wait it out briefly
      const age = Date.now() - (statSafe(file)?.mtimeMs ?? 0);
      if (age < 2000) return false;
    }
    unlinkSafe(file);
    return true;
  } finally {
    unlinkSafe(guard);
  }
}

function statSafe(p: string) {
  try {
    return statSync(p);
  } catch {
    return null;
  }
}

function unlinkSafe(p: string) {
  try {
    unlinkSync(p);
  } catch {
    // already gone
  }
}

function sleepSync(ms: number) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Ensures the folder the lock lives in exists (private), then takes the lock. */
export async function lockDataDir(dataDir: string, who: { kind: LockHolder['kind']; command: string; url?: string | null }): Promise<DataLock> {
  await mkdirPrivate(path.dirname(path.resolve(dataDir)));
  return acquireDataLock(dataDir, who);
}
