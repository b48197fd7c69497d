import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { dataDir, openDb, type Db, type MigrateProgress } from '../db';
import { shellQuote } from '../mcp/connect';
import { config } from '../server/config';

/**
 * Opening the database at start-up, bounded in time. The embedded database runs in this thread,
 * so a statement that never ends blocks the event loop and no timer here can fire: a watchdog
 * thread ends the process then, after writing the same message to stderr itself. When the thread
 * is free, the timeout is an ordinary error first.
 */

export class OpenTimeout extends Error {
  constructor(
    readonly stage: string,
    readonly ms: number,
  ) {
    super(openTimeoutMessage(stage, ms));
    this.name = 'OpenTimeout';
  }
}

/** The words of the timeout, shared by the error and the watchdog. */
export function openTimeoutMessage(stage: string, ms: number): string {
  const embedded = !process.env.DATABASE_URL;
  const where = embedded ? `the embedded database in ${dataDir()}` : 'the database at DATABASE_URL';
  return (
    `${where} could not be ${stage} within ${Math.round(ms / 1000)} s (BULLPEN_DB_OPEN_TIMEOUT_MS=${ms}); start-up stopped instead of hanging.\n` +
    (embedded
      ? `  If it stays stuck, the data directory may be damaged: move it aside and restore your latest backup with\n` +
        `    npx bullpen restore BACKUP.tar.gz --data-dir ${shellQuote(path.relative(process.cwd(), dataDir()) || dataDir())}\n` +
        `  or raise BULLPEN_DB_OPEN_TIMEOUT_MS if a large upgrade needs longer.`
      : `  Check that the server answers and is not locked by another migration; raise BULLPEN_DB_OPEN_TIMEOUT_MS if a large upgrade\n` +
        `  needs longer, or restore the database from a backup (bullpen restore is for the embedded database; use pg_restore here).`)
  );
}

/**
 * A thread that, unless stopped within `ms`, writes `message` to stderr and ends the process
 * (SIGTERM, then SIGKILL a second later). Works while the main thread is blocked.
 */
export function startWatchdog(ms: number, message: string): { stop: () => void } {
  const code = `
    const { workerData } = require('node:worker_threads');
    const fs = require('node:fs');
    setTimeout(() => {
      try { fs.writeSync(2, 'bullpen: ' + workerData.message + '\\n'); } catch {}
      process.kill(workerData.pid, 'SIGTERM');
      setTimeout(() => process.kill(workerData.pid, 'SIGKILL'), 1000);
    }, workerData.ms);
  `;
  // no inherited flags (--input-type=module would make the snippet ESM), nothing to load
  const worker = new Worker(code, { eval: true, workerData: { ms, message, pid: process.pid }, execArgv: [] });
  // a watchdog that cannot start must not take the server down with it
  worker.on('error', () => {});
  worker.unref();
  return { stop: () => void worker.terminate() };
}

/**
 * openDb() with start-up's progress lines and its time bound (config.dbOpenTimeoutMs): an
 * OpenTimeout naming `bullpen restore` when the open or the migrations take longer.
 */
export async function openDbBounded(log: (line: string) => void, ms = config.dbOpenTimeoutMs()): Promise<Db> {
  let stage = 'opened';
  const onProgress = (p: MigrateProgress) => {
    stage = 'migrated';
    if (p.step === 'migration') log(`  Migrating ${p.n} of ${p.of}: ${p.name}`);
    else log(`  Applying ${p.files} definition files (functions, triggers, views)`);
  };
  // the watchdog fires a little after the in-thread timer, so a free thread reports it as an error
  const dog = startWatchdog(ms + 2000, openTimeoutMessage('opened or migrated', ms));
  let timer: NodeJS.Timeout | undefined;
  // resolved now: the open may outlive this call (it is closed when it ends)
  const opening = openDb({ onProgress, ...(process.env.DATABASE_URL ? {} : { dataDir: dataDir() }) });
  try {
    return await Promise.race([
      opening,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new OpenTimeout(stage, ms)), ms);
      }),
    ]);
  } catch (err) {
    // a late open is closed when it finishes, so it releases the directory
    opening.then((db) => db.close()).catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
    dog.stop();
  }
}
