import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../../scripts/fuzz/run';
import { freePort, root } from '../../scripts/server-process.mjs';

/**
 * Start-up as a user meets it, through the real command (bin/bullpen.mjs) in a child process:
 * a fresh clone's first start, one server per data directory (a second one refused, a stale lock
 * taken over, the CLI never opening a held directory, server.json left to its writer), a bounded
 * open, private files after a start, an upload, an export and a backup, and agent add's refusal
 * of an agent that already has a key.
 */

const cwd = mkdtempSync(path.join(tmpdir(), 'bullpen-fresh-'));
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(cwd, { recursive: true, force: true });
});

/** The environment of a fresh shell: no BULLPEN_* settings, no DATABASE_URL. */
function freshEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...extra };
  for (const k of Object.keys(env)) if (k.startsWith('BULLPEN_') || k === 'DATABASE_URL' || k === 'PORT') delete env[k];
  return { ...env, ...extra };
}

/** `bullpen ARGS` run in `cwd` under umask 000 (the worst a shared machine may have). */
function bullpen(args: string[], env: NodeJS.ProcessEnv) {
  const quoted = [process.execPath, path.join(root, 'bin/bullpen.mjs'), ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('/bin/sh', ['-c', `umask 000 && exec ${quoted}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, output: () => out, exited };
}

async function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | string; out: string }> {
  const b = bullpen(args, env);
  const code = await b.exited;
  return { code, out: b.output() };
}

async function waitForHealth(url: string, b: ReturnType<typeof bullpen>): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    if (b.child.exitCode !== null) throw new Error(`bullpen start exited ${b.child.exitCode}:\n${b.output()}`);
    const ok = await fetch(`${url}/api/health`).then((r) => r.ok, () => false);
    // and its own server.json (a crashed server's may still be there)
    if (ok && existsSync(path.join(cwd, '.bullpen', 'server.json')) && serverFile().pid === b.child.pid) return;
    if (Date.now() - t0 > 170_000) throw new Error(`no /api/health in time:\n${b.output()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every entry under `dir` whose mode is not 0700 (directories) or 0600 (files). */
function notPrivate(dir: string): string[] {
  const out: string[] = [];
  const visit = (p: string) => {
    const s = lstatSync(p);
    const want = s.isDirectory() ? 0o700 : 0o600;
    if ((s.mode & 0o777) !== want) out.push(`${(s.mode & 0o777).toString(8)} ${path.relative(dir, p) || '.'}`);
    if (s.isDirectory()) for (const e of readdirSync(p)) visit(path.join(p, e));
  };
  visit(dir);
  return out;
}

async function stop(b: ReturnType<typeof bullpen>): Promise<void> {
  if (b.child.exitCode !== null || b.child.signalCode !== null) return;
  b.child.kill('SIGTERM');
  await b.exited;
}

const serverFile = () => JSON.parse(readFileSync(path.join(cwd, '.bullpen', 'server.json'), 'utf8')) as { url: string; pid: number; admin_token: string };

describe('bullpen start on a fresh clone', () => {
  let first: ReturnType<typeof bullpen>;
  let url: string;

  it('starts from an empty directory with no BULLPEN_* settings (PORT picks the port), creating .bullpen/data and printing each step', async () => {
    const port = String(await freePort());
    first = bullpen(['start'], freshEnv({ PORT: port }));
    url = `http://127.0.0.1:${port}`;
    await waitForHealth(url, first);
    // the banner follows the first answer by a moment: wait for it rather than race it
    for (const t0 = Date.now(); !first.output().includes('Console    http') && Date.now() - t0 < 15_000; ) await new Promise((r) => setTimeout(r, 100));
    const out = first.output();
    expect(out).toContain('Opening the embedded database in .bullpen/data');
    expect(out).toMatch(/Migrating 1 of \d+: 0001_/);
    expect(out).toContain('Starting the app');
    expect(out).toContain(`Console    http://127.0.0.1:${port}`);
    expect(existsSync(path.join(cwd, '.bullpen', 'data', 'PG_VERSION'))).toBe(true);
    expect(serverFile().pid).toBe(first.child.pid);
  });

  it('keeps every file private after a start, an upload, an export and a backup, under umask 000', async () => {
    const { admin_token } = serverFile();
    const minted = await fetch(`${url}/api/admin/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bullpen-admin-token': admin_token },
      body: JSON.stringify({ name: 'filer' }),
    }).then((r) => r.json());
    expect(minted.ok).toBe(true);
    await call(url, minted.api_key, 'project_create', { title: 'Files', key: 'FIL' });
    await call(url, minted.api_key, 'task_create', { project_id: 'FIL', title: 'carry a file' });
    const up = await fetch(`${url}/api/files?object_type=task&object_id=FIL-1&filename=notes.txt`, {
      method: 'POST',
      headers: { authorization: `Bearer ${minted.api_key}`, 'content-type': 'text/plain' },
      body: 'private bytes',
    });
    expect(up.status).toBe(201);
    const env = freshEnv();
    const exported = await run(['export', '--workspace', minted.workspace.slug, '--out', path.join(cwd, 'export.json')], env);
    expect(exported.code, exported.out).toBe(0);
    const backup = await run(['backup', '--out', path.join(cwd, 'backup.tar.gz')], env);
    expect(backup.code, backup.out).toBe(0);
    expect(existsSync(path.join(cwd, '.bullpen', 'files'))).toBe(true);
    expect(notPrivate(cwd)).toEqual([]);
  });

  it('refuses a second server on the same data directory, naming the running one’s URL and pid; server.json stays the first’s', async () => {
    const port = String(await freePort());
    const second = await run(['start', '--port', port], freshEnv());
    expect(second.code).toBe(1);
    expect(second.out).toContain('.bullpen/data is already in use by a running Bullpen server');
    expect(second.out).toContain(`pid ${first.child.pid}`);
    expect(second.out).toContain(url);
    expect(second.out).toContain('One server per data directory');
    expect(second.out).not.toContain('Opening the embedded database');
    expect(serverFile().pid).toBe(first.child.pid);
    expect((await fetch(`${url}/api/health`)).ok).toBe(true);
  });

  it('the CLI never opens a data directory a live server holds: without its server.json it refuses and says why', async () => {
    const file = path.join(cwd, '.bullpen', 'server.json');
    renameSync(file, `${file}.aside`);
    try {
      const r = await run(['agent', 'add', 'intruder'], freshEnv());
      expect(r.code).toBe(1);
      expect(r.out).toContain(`held by a running Bullpen server (pid ${first.child.pid}`);
      expect(r.out).toContain('the CLI never opens one a live server holds');
      expect(r.out).not.toContain('bp_live_');
      const backup = await run(['backup', '--out', path.join(cwd, 'refused.tar.gz')], freshEnv());
      expect(backup.code).toBe(1);
      expect(existsSync(path.join(cwd, 'refused.tar.gz'))).toBe(false);
    } finally {
      renameSync(`${file}.aside`, file);
    }
  });

  it('agent add refuses an agent that already has a live key unless --new-key, and quotes the URL it prints', async () => {
    const env = freshEnv();
    const made = await run(['agent', 'add', 'twice', '--toolsets', 'core'], env);
    expect(made.code, made.out).toBe(0);
    expect(made.out).toContain(`claude mcp add --transport http bullpen '${url}/api/mcp?toolsets=core' --header`);
    const again = await run(['agent', 'add', 'twice'], env);
    expect(again.code).toBe(1);
    expect(again.out).toContain('agent "twice" already exists in workspace default with 1 live key');
    expect(again.out).toContain('--new-key');
    expect(again.out).toContain('bullpen key rotate');
    expect(again.out).not.toContain('bp_live_');
    const more = await run(['agent', 'add', 'twice', '--new-key', '--json'], env);
    expect(more.code, more.out).toBe(0);
    expect(JSON.parse(more.out)).toMatchObject({ created_agent: false, live_keys: 2 });
  });

  it('takes over the lock of a server that died (kill -9) and starts, saying so; --port picks the port', async () => {
    const deadPid = first.child.pid;
    first.child.kill('SIGKILL');
    await first.exited;
    expect(existsSync(path.join(cwd, '.bullpen', 'data.lock'))).toBe(true);
    const port = String(await freePort());
    const again = bullpen(['start', '--port', port], freshEnv({ PORT: '1' }));
    await waitForHealth(`http://127.0.0.1:${port}`, again);
    expect(again.output()).toContain(`Took over the lock on .bullpen/data left by pid ${deadPid}`);
    expect(serverFile().pid).toBe(again.child.pid);
    await stop(again);
    // a clean stop removes its own server.json and lock
    expect(existsSync(path.join(cwd, '.bullpen', 'server.json'))).toBe(false);
    expect(existsSync(path.join(cwd, '.bullpen', 'data.lock'))).toBe(false);
  });

  it('a database that cannot be opened and migrated within BULLPEN_DB_OPEN_TIMEOUT_MS is an error that names bullpen restore', async () => {
    const port = String(await freePort());
    const r = await run(['start', '--port', port], freshEnv({ BULLPEN_DB_OPEN_TIMEOUT_MS: '1' }));
    expect(r.code).toBe(1);
    expect(r.out).toContain('could not be opened');
    expect(r.out).toContain('npx bullpen restore');
    expect(r.out).not.toContain('Bullpen is running');
    // and it let go of the directory: the next start is not refused
    expect(existsSync(path.join(cwd, '.bullpen', 'data.lock'))).toBe(false);
  });
});
