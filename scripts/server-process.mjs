// Starts `bullpen start` in a child process the way a user does, for the test suites and benches:
// a temp dir for its data and server.json, a free port, and a promise that resolves once it listens.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A TCP port nothing listens on right now. */
export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * @param {{ env?: Record<string, string | undefined>, ready?: (output: string) => boolean, label?: string, host?: string | null, dir?: string, keep?: boolean }} [opts]
 *   env is merged over process.env (undefined deletes); ready may wait for more of the banner;
 *   host is passed as --host (default 127.0.0.1; null: no flag, the CLI's default); dir reuses a
 *   directory of an earlier start (a restart), and keep leaves it in place on stop.
 * @returns {Promise<{ url: string, adminToken: string, dir: string, dataDir: string, env: NodeJS.ProcessEnv, output: () => string, stop: () => Promise<void> }>}
 */
export async function spawnServer(opts = {}) {
  const dir = opts.dir ?? mkdtempSync(path.join(tmpdir(), `bullpen-${opts.label ?? 'server'}-`));
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  const env = { ...process.env, BULLPEN_DATA_DIR: dataDir, PORT: String(port), NEXT_TELEMETRY_DISABLED: '1', ...opts.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const host = opts.host === undefined ? '127.0.0.1' : opts.host;
  const args = [path.join(root, 'bin/bullpen.mjs'), 'start', '--port', String(port), ...(host === null ? [] : ['--host', host])];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const serverFile = path.join(dir, 'server.json');
  rmSync(serverFile, { force: true });
  const t0 = Date.now();
  /** server.json once it is there whole (a server of an older build may still be writing it). */
  const readInfo = () => {
    try {
      return JSON.parse(readFileSync(serverFile, 'utf8'));
    } catch {
      return null;
    }
  };
  let info = null;
  while (!(info = existsSync(serverFile) ? readInfo() : null) || (opts.ready && !opts.ready(out))) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    if (Date.now() - t0 > 170_000) throw new Error(`server did not start in time:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url: info.url,
    port,
    adminToken: info.admin_token,
    dir,
    dataDir,
    env,
    output: () => out,
    pid: child.pid,
    /** Sends a signal and waits for the process to exit (SIGKILL: a crash, nothing cleaned up). */
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      if (!opts.keep) rmSync(dir, { recursive: true, force: true });
    },
  };
}
