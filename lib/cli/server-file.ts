import { readFile, writeFile, rm, mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { openDb } from '../db';
import type { Db } from '../db/types';

/** What a running server leaves for the CLI: where it listens and the admin token for this start. */
export type ServerFile = { url: string; pid: number; admin_token: string; data_dir: string | null; started_at: string };

export function serverFilePath(): string {
  const base = process.env.BULLPEN_DATA_DIR ? path.dirname(path.resolve(process.env.BULLPEN_DATA_DIR)) : path.join(process.cwd(), '.bullpen');
  return path.join(base, 'server.json');
}

export async function writeServerFile(info: ServerFile): Promise<void> {
  await mkdir(path.dirname(serverFilePath()), { recursive: true });
  // written aside and renamed into place, so a reader never sees half a file
  const tmp = `${serverFilePath()}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(info, null, 2), { mode: 0o600 });
  await rename(tmp, serverFilePath());
}

export async function removeServerFile(): Promise<void> {
  await rm(serverFilePath(), { force: true });
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
 * Runs an administration step where the data lives: through the running server's admin route when
 * one runs (it holds the embedded database), else directly on the database. Returns the result and
 * the base URL to print.
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
  const db = await openDb();
  try {
    return { result: await direct(db), base: await defaultBaseUrl() };
  } finally {
    await db.close();
  }
}
