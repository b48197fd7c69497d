// Starts a throwaway Postgres cluster for the pg suite when DATABASE_URL is not set, using the
// server binaries of Debian's postgresql package. Prints nothing on success; returns the URL.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './server-process.mjs';

function findBin() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).filter((v) => existsSync(path.join(base, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0], 'bin') : null;
}

/**
 * Starts a cluster; returns null when no server binaries are installed.
 * opts.settings are extra `-c name=value` server settings (e.g. {synchronous_commit: 'on'} for
 * tests that crash the server and count acknowledged commits: the default here trades that
 * durability for speed). The result:
 *   url       a superuser URL
 *   stop()    immediate shutdown, directory removed
 *   restart({mode, downMs})  stop (immediate = a crash, fast = a clean shutdown), stay down for
 *             downMs, start again with the same settings on the same port; resolves once it accepts
 *             connections again
 */
export async function startLocalPostgres(opts = {}) {
  const bin = findBin();
  if (!bin) return null;
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-pg-'));
  chmodSync(dir, 0o777);
  const data = path.join(dir, 'data');
  const asPg = (cmd, args) => (root ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);
  const run = (cmd, args) => {
    const [c, a] = asPg(cmd, args);
    const r = spawnSync(c, a, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
  };
  run(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const settings = {
    listen_addresses: '127.0.0.1',
    max_connections: '300',
    fsync: 'off',
    synchronous_commit: 'off',
    shared_buffers: '256MB',
    ...(opts.settings ?? {}),
  };
  const serverOpts = [`-p ${port} -k ${dir}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
  const start = () => run(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'log'), '-w', '-o', serverOpts, 'start']);
  start();
  const stop = () => {
    try {
      const [c, a] = asPg(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      execFileSync(c, a, { stdio: 'ignore' });
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  };
  const restart = async ({ mode = 'immediate', downMs = 0 } = {}) => {
    run(path.join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop']);
    if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
    start();
  };
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop, restart, port, log: path.join(dir, 'log') };
}
