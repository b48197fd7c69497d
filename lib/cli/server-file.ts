import { readFile, writeFile, rm, mkdir } from 'node:fs/promises';
import path from 'node:path';

/** What a running server leaves for the CLI: where it listens and the admin token for this start. */
export type ServerFile = { url: string; pid: number; admin_token: string; data_dir: string | null; started_at: string };

export function serverFilePath(): string {
  const base = process.env.BULLPEN_DATA_DIR ? path.dirname(path.resolve(process.env.BULLPEN_DATA_DIR)) : path.join(process.cwd(), '.bullpen');
  return path.join(base, 'server.json');
}

export async function writeServerFile(info: ServerFile): Promise<void> {
  await mkdir(path.dirname(serverFilePath()), { recursive: true });
  await writeFile(serverFilePath(), JSON.stringify(info, null, 2), { mode: 0o600 });
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
