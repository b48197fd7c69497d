import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';

/** The CLI twins of the tools, run as a script would, against the started server. */

const server = inject('server');
const root = path.resolve(import.meta.dirname, '..', '..');
// a workspace of its own, so the other suites' workspace stays as they expect it
let agent: { api_key: string; actor_id: string };

beforeAll(async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(root, 'bin/bullpen.mjs'), 'agent', 'add', 'cli-twin', '--workspace', 'cli-twins', '--json'],
    { cwd: root, env: { ...process.env, BULLPEN_DATA_DIR: server.dataDir } },
  );
  agent = JSON.parse(stdout);
});

async function bullpen(args: string[], env: Record<string, string> = {}, cwd = root): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(root, 'bin/bullpen.mjs'), ...args], {
      cwd,
      env: { ...process.env, BULLPEN_URL: server.url, BULLPEN_API_KEY: agent.api_key, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('runs and repositories from a shell', () => {
  it('bullpen repo register detects the repository with git, and commands of one run share BULLPEN_RUN_ID', async () => {
    const repo = mkdtempSync(path.join(tmpdir(), 'bullpen-cli-repo-'));
    try {
      const git = (...a: string[]) => execFileSync('git', a, { cwd: repo, stdio: 'pipe' });
      git('init', '-q', '-b', 'main');
      git('config', 'user.email', 'cli@example.com');
      git('config', 'user.name', 'CLI');
      git('remote', 'add', 'origin', 'https://deploy:ghp_cli_secret_value@github.com/acme/from-the-shell.git');
      writeFileSync(path.join(repo, 'README'), 'x');
      git('add', '.');
      git('commit', '-q', '-m', 'init');
      const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo }).toString().trim();
      const env = { BULLPEN_RUN_ID: 'cli-run-1', BULLPEN_RUN_GROUP: 'cli-series' };
      const reg = await bullpen(['repo', 'register', '--json'], env, repo);
      expect(JSON.parse(reg.stdout)).toMatchObject({ ok: true, created: true, repository: { slug: 'acme/from-the-shell', remote_url: 'https://github.com/acme/from-the-shell' } });
      expect(reg.stdout).not.toContain('ghp_cli_secret_value');
      expect((await bullpen(['run', 'heartbeat', '--json'], env, repo)).code).toBe(0);
      const run = JSON.parse((await bullpen(['run', 'get', '--json'], env, repo)).stdout);
      expect(run.run).toMatchObject({ run_key: 'cli-run-1', kind: 'loop_tick', run_series_key: 'cli-series', repository: 'acme/from-the-shell', branch: 'main', head_sha: head, dirty: false });
      expect((await bullpen(['project', 'create', '--title', 'Shell repo', '--key', 'SHR', '--json'], env, repo)).code).toBe(0);
      expect((await bullpen(['task', 'create', '--project-id', 'SHR', '--title', 'Commit me', '--json'], env, repo)).code).toBe(0);
      const ref = JSON.parse((await bullpen(['task', 'code-ref', 'SHR-1', '--ref-type', 'commit', '--json'], env, repo)).stdout);
      expect(ref).toMatchObject({ ok: true, code_ref: { sha: head, branch: 'main', repository: 'acme/from-the-shell', run_key: 'cli-run-1' } });
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});

describe('bullpen <noun> <verb>', () => {
  it('runs the loop from a shell: project, task, claim, get', async () => {
    const who = await bullpen(['whoami', '--json']);
    expect(who.code).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ ok: true, actor: { id: agent.actor_id }, tenant: { slug: 'cli-twins' } });

    expect((await bullpen(['project', 'create', '--title', 'From the shell', '--key', 'SH', '--json'])).code).toBe(0);
    const created = await bullpen(['task', 'create', '--project-id', 'SH', '--title', 'Script me', '--labels', 'cron', '--priority', '0', '--json']);
    expect(JSON.parse(created.stdout)).toMatchObject({ ok: true, ref: 'SH-1' });
    const claim = await bullpen(['task', 'claim', '--label', 'cron', '--lease-seconds', '120', '--json']);
    expect(JSON.parse(claim.stdout)).toMatchObject({ ok: true, claimed: true, task: { ref: 'SH-1' } });
    const get = await bullpen(['task', 'get', 'SH-1']);
    expect(get.code).toBe(0);
    expect(get.stdout).toContain('"status": "in_progress"');
  });

  it('exits 1 with the error code, message and hint on a refused call', async () => {
    const res = await bullpen(['task', 'update', 'SH-1', '--patch', '{"status":"backlog"}']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('INVALID_TRANSITION');
    expect(res.stderr).toContain('hint:');
    const unknown = await bullpen(['task', 'query', '--colour', 'red', '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('colour') });
  });

  it('exits 3 on a retryable failure, and 0 with --soft-fail', async () => {
    const down = { BULLPEN_URL: 'http://127.0.0.1:9' };
    expect((await bullpen(['whoami'], down)).code).toBe(3);
    expect((await bullpen(['whoami', '--soft-fail'], down)).code).toBe(0);
  });

  it('refuses a bad key and explains a missing one', async () => {
    const bad = await bullpen(['whoami', '--json'], { BULLPEN_API_KEY: 'bp_live_wrong' });
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).error.code).toBe('UNAUTHENTICATED');
    const none = await bullpen(['whoami'], { BULLPEN_API_KEY: '' });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('BULLPEN_API_KEY');
  });

  it('prints help for a tool and lists the tools in the main help', async () => {
    const help = await bullpen(['task', 'claim', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--lease-seconds');
    const main = await bullpen(['help']);
    expect(main.stdout).toContain('task claim');
  });
});
