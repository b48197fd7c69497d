// Starts a throwaway Postgres cluster for the pg suite when DATABASE_URL is not set, using the
// server binaries of Debian's postgresql package. Prints nothing on success; returns the URL.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import net from 'node:net';

function findBin() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).filter((v) => existsSync(path.join(base, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(base, versions[0], 'bin') : null;
}

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts a cluster; returns {url, stop} or null when no server binaries are installed. */
export async function startLocalPostgres() {
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
  run(path.join(bin, 'pg_ctl'), [
    '-D', data, '-l', path.join(dir, 'log'), '-w', '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c shared_buffers=256MB`,
    'start',
  ]);
  const stop = () => {
    try {
      const [c, a] = asPg(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      execFileSync(c, a, { stdio: 'ignore' });
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
}
