import { chmod, lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Files are private: what Bullpen writes on a shared machine (the embedded database, attachments,
 * exports, backups, server.json, the lock, secrets) is readable by its owner alone. Directories are
 * created 0700 and files 0600 whatever the umask, and the process that holds the embedded database
 * narrows its umask so files the database makes later are born private too.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Narrows this process's umask to owner-only (keeps any bits the user already masked). */
export function usePrivateUmask(): void {
  try {
    process.umask(process.umask() | 0o077);
  } catch {
    // worker threads cannot change the umask; the explicit modes below still hold
  }
}

/** mkdir -p with every directory it creates 0700 (existing ones are left as they are). */
export async function mkdirPrivate(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Writes a file readable by its owner alone, also when it already existed with a wider mode. */
export async function writeFilePrivate(file: string, data: string | Uint8Array, opts: { flag?: string } = {}): Promise<void> {
  await writeFile(file, data, { mode: PRIVATE_FILE_MODE, flag: opts.flag ?? 'w' });
  await chmod(file, PRIVATE_FILE_MODE);
}

/**
 * Takes group and other bits off every directory (→ 0700) and file (→ 0600) under `root`, the root
 * included; symlinks are not followed. The embedded database sets some of its files' modes itself
 * (its initial files are 0666), so the data directory is swept after it opens, migrates and dumps.
 * Returns how many entries it changed.
 */
export async function tightenTree(root: string): Promise<number> {
  let changed = 0;
  const visit = async (p: string): Promise<void> => {
    const s = await lstat(p).catch(() => null);
    if (!s || s.isSymbolicLink()) return;
    const want = s.isDirectory() ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE;
    if ((s.mode & 0o777) !== want && (s.mode & 0o077) !== 0) {
      await chmod(p, (s.mode & 0o700) | (s.isDirectory() ? 0o700 : 0)).catch(() => {});
      changed++;
    }
    if (s.isDirectory()) {
      const entries = await readdir(p).catch(() => [] as string[]);
      for (const e of entries) await visit(path.join(p, e));
    }
  };
  await visit(root);
  return changed;
}
