#!/usr/bin/env node
// Builds and installs pgvector from the vendored source (vendor/pgvector-<version>.tar.gz) into the
// machine's Debian Postgres, so the pg suite runs the vector paths on a real server. A build already
// installed (the control file names this version and vector.so is there) is reused. Needs root (the
// files go under /usr/lib/postgresql and /usr/share/postgresql); without it, or without network for
// the headers, it says why and returns false, and the pg suite runs the fallback (no pgvector) alone.
//
//   node scripts/pgvector.mjs        install if missing; exit 0 either way, the reason printed
//   ensurePgvector({log})            the same from a script: resolves to true when pgvector is installed
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PGVECTOR_VERSION = '0.8.6';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tarball = path.join(root, 'vendor', `pgvector-${PGVECTOR_VERSION}.tar.gz`);

/** The newest Debian Postgres major installed (its server binaries), or null. */
export function pgMajor() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base).filter((v) => existsSync(path.join(base, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ?? null;
}

/** Whether this pgvector version is installed for that major: the control file and the library. */
export function pgvectorInstalled(major = pgMajor()) {
  if (!major) return false;
  const control = `/usr/share/postgresql/${major}/extension/vector.control`;
  const lib = `/usr/lib/postgresql/${major}/lib/vector.so`;
  if (!existsSync(control) || !existsSync(lib)) return false;
  return readFileSync(control, 'utf8').includes(`default_version = '${PGVECTOR_VERSION}'`);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal}): ${(r.stderr || r.stdout || r.error?.message || '').trim().slice(-2000)}`);
  return r.stdout;
}

/**
 * Installs pgvector when missing. Resolves to true when it is installed (now or before), false when
 * it cannot be (no Postgres, not root, no headers); the reason goes to opts.log.
 */
export async function ensurePgvector(opts = {}) {
  const log = opts.log ?? ((m) => console.log(m));
  const major = pgMajor();
  if (!major) {
    log('pgvector: no Debian Postgres server found under /usr/lib/postgresql; nothing to install into');
    return false;
  }
  if (pgvectorInstalled(major)) return true;
  if (process.getuid?.() !== 0) {
    log(`pgvector: not installed for Postgres ${major}, and installing needs root (run: sudo node scripts/pgvector.mjs); the pg suite runs without vectors`);
    return false;
  }
  if (!existsSync(tarball)) {
    log(`pgvector: ${path.relative(root, tarball)} is missing; the pg suite runs without vectors`);
    return false;
  }
  const t0 = Date.now();
  const pgConfig = `/usr/lib/postgresql/${major}/bin/pg_config`;
  try {
    if (!existsSync(pgConfig) || !existsSync(`/usr/include/postgresql/${major}/server/postgres.h`)) {
      // the headers of exactly the installed server: a newer postgresql-server-dev would upgrade
      // the server's files under clusters that are running (their next backend then fails to load
      // plpgsql.so), so the version is pinned and nothing else is upgraded
      const server = spawnSync('dpkg-query', ['-W', '-f=${Version}', `postgresql-${major}`], { encoding: 'utf8' }).stdout?.trim();
      if (!server) throw new Error(`postgresql-${major} is not a Debian package here: install its server headers (pg_config, postgres.h) by hand`);
      const pkgs = [`postgresql-server-dev-${major}=${server}`, `libpq-dev=${server}`, 'gcc', 'make'];
      log(`pgvector: installing ${pkgs[0]} (the server headers, the installed server's version) from Debian's packages`);
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
      const args = ['install', '-y', '-qq', '--no-install-recommends', '--no-upgrade', ...pkgs];
      // the package lists are read as they are; updated once only when the package is not in them
      if (spawnSync('apt-get', args, { encoding: 'utf8', env }).status !== 0) {
        run('apt-get', ['update', '-qq'], { env });
        run('apt-get', args, { env });
      }
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-pgvector-'));
    try {
      run('tar', ['xzf', tarball, '-C', dir]);
      const src = path.join(dir, `pgvector-${PGVECTOR_VERSION}`);
      const jobs = String(Math.max(1, (await import('node:os')).availableParallelism?.() ?? 2));
      // built on the machine it runs on, so upstream's default -march=native is kept
      run('make', ['-C', src, '-j', jobs, `PG_CONFIG=${pgConfig}`]);
      run('make', ['-C', src, 'install', `PG_CONFIG=${pgConfig}`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } catch (err) {
    log(`pgvector: the build failed, the pg suite runs without vectors: ${err.message}`);
    return false;
  }
  const ok = pgvectorInstalled(major);
  log(ok ? `pgvector ${PGVECTOR_VERSION}: built and installed for Postgres ${major} in ${((Date.now() - t0) / 1000).toFixed(1)} s` : 'pgvector: make install ran but vector.control was not found');
  return ok;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ok = await ensurePgvector();
  if (ok && pgvectorInstalled()) console.log(`pgvector ${PGVECTOR_VERSION} is installed for Postgres ${pgMajor()}`);
}
