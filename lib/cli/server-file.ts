import { readFile, rm, rename } from 'node:fs/promises';
import path from 'node:path';
import { dataDir } from '../db';
import type { Db } from '../db/types';
import { mkdirPrivate, writeFilePrivate } from '../db/private-fs';
import { DataDirHeld, describeHolder, lockDataDir } from './data-lock';
import { openDbBounded } from './open-db';

/** What a running server leaves for the CLI: where it listens and the admin token for this start. */
export type ServerFile = { url: string; pid: number; admin_token: string; data_dir: string | null; started_at: string };

export function serverFilePath(): string {
  const base = process.env.BULLPEN_DATA_DIR ? path.dirname(path.resolve(process.env.BULLPEN_DATA_DIR)) : path.join(process.cwd(), '.bullpen');
  return path.join(base, 'server.json');
}

export async function writeServerFile(info: ServerFile): Promise<void> {
  await mkdirPrivate(path.dirname(serverFilePath()));
  // written aside and renamed into place, so a reader never sees half a file
  const tmp = `${serverFilePath()}.${process.pid}.tmp`;
  await writeFilePrivate(tmp, JSON.stringify(info, null, 2));
  await rename(tmp, serverFilePath());
}

/**
 * Removes server.json only when it is still the one this process wrote (same pid and admin
 * token): a server that did not write it, or whose file another server has since replaced, leaves
 * it, so the CLI keeps finding the server that runs. Returns whether it removed the file.
 */
export async function removeServerFile(own: Pick<ServerFile, 'pid' | 'admin_token'>): Promise<boolean> {
  let current: ServerFile;
  try {
    current = JSON.parse(await readFile(serverFilePath(), 'utf8')) as ServerFile;
  } catch {
    return false;
  }
  if (current.pid !== own.pid || current.admin_token !== own.admin_token) return false;
  await rm(serverFilePath(), { force: true });
  return true;
}

/** The running server's file, or null when absent or its process is gone. */
export async function readLiveServer(): Promise<ServerFile | null> {
  try {
    const info = JSON.parse(await readFile(serverFilePath(), 'utf8')) as ServerFile;
    process.kill(info.pid, 0);
    return info;
  } catch {
    return null;
  }
}

/** The base URL the CLI prints and calls: the running server's, else BULLPEN_PUBLIC_URL, else localhost:PORT. */
export async function defaultBaseUrl(): Promise<string> {
  return (await readLiveServer())?.url ?? process.env.BULLPEN_PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;
}

/**
 * Why the CLI will not open a data directory another process holds, in words that name the rule
 * and what to do.
 */
export function heldRefusal(err: DataDirHeld, command: string, opts: { throughServer?: boolean } = {}): string {
  const h = err.holder;
  const rule = 'One process opens an embedded data directory at a time, and the CLI never opens one a live server holds.';
  const what =
    opts.throughServer === false
      ? `Stop it first (kill ${h.pid}), or pass another directory.`
      : h.kind === 'server' && h.url
      ? `Its server.json (${serverFilePath()}) is missing or names another process, so \`${command}\` cannot go through it. ` +
        `Restart that server (it writes server.json again) or stop it (kill ${h.pid}), then retry.`
      : h.kind === 'server'
        ? 'Retry once it has started: the CLI then goes through it.'
        : 'Retry when it has finished.';
  return `${err.dataDir} is held by ${describeHolder(h)}.\n  ${rule}\n  ${what}`;
}

/** How long a CLI command waits for another command that holds the data directory. */
const CLI_WAIT_MS = 30_000;

/**
 * Runs `fn` on the embedded database (or DATABASE_URL) opened by this process, holding the data
 * directory's lock meanwhile: behind another command it waits up to 30 s; when a server holds it
 * (or the other command takes longer) it refuses (heldRefusal) instead of opening it. Call this
 * only when no running server was found.
 */
export async function withDirectDb<T>(command: string, fn: (db: Db) => Promise<T>): Promise<T> {
  const embedded = !process.env.DATABASE_URL;
  let lock: Awaited<ReturnType<typeof lockDataDir>> | null = null;
  if (embedded) {
    const t0 = Date.now();
    while (!lock) {
      try {
        lock = await lockDataDir(dataDir(), { kind: 'cli', command });
      } catch (err) {
        if (!(err instanceof DataDirHeld)) throw err;
        // another command is brief: queue behind it for a while; a server is never waited for
        if (err.holder.kind !== 'cli' || Date.now() - t0 > CLI_WAIT_MS) throw new Error(heldRefusal(err, command));
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
  try {
    const db = await openDbBounded(() => {});
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  } finally {
    lock?.release();
  }
}

const COMMANDS: Record<string, string> = {
  agents: 'bullpen agent add',
  'agent-profile': 'bullpen agent',
  humans: 'bullpen human invite',
  keys: 'bullpen key',
  export: 'bullpen export',
  import: 'bullpen import',
};

/**
 * Runs an administration step where the data lives: through the running server's admin route when
 * one runs (it holds the embedded database), else directly on the database, under its lock.
 * Returns the result and the base URL to print.
 */
export async function adminStep<T>(route: string, body: object, direct: (db: Db) => Promise<T>): Promise<{ result: T; base: string }> {
  const live = await readLiveServer();
  if (live) {
    const res = await fetch(`${live.url}/api/admin/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bullpen-admin-token': live.admin_token },
      body: JSON.stringify(body),
    });
    const env = (await res.json().catch(() => null)) as ({ ok: true } & T) | { ok: false; error?: { code: string; message: string; hint?: string } } | null;
    if (!env?.ok) {
      const e = env?.error;
      throw new Error(`the running server refused: ${e ? `${e.code}: ${e.message}${e.hint ? ` (${e.hint})` : ''}` : `HTTP ${res.status}`}`);
    }
    const { ok: _ok, ...result } = env;
    return { result: result as T, base: live.url };
  }
  const result = await withDirectDb(COMMANDS[route] ?? `bullpen ${route}`, direct);
  return { result, base: await defaultBaseUrl() };
}
