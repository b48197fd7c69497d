import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedCliRun, gitContext, runHeaders, withGitDefaults } from './git';

let repo: string;
let plain: string;

beforeAll(() => {
  repo = mkdtempSync(path.join(tmpdir(), 'bullpen-git-'));
  plain = mkdtempSync(path.join(tmpdir(), 'bullpen-nogit-'));
  const g = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
  g('init', '-q', '-b', 'feat/login');
  g('config', 'user.email', 't@example.com');
  g('config', 'user.name', 'T');
  g('remote', 'add', 'origin', 'https://ci-bot:ghp_secret123456@github.com/Acme/api.git');
  writeFileSync(path.join(repo, 'a.txt'), 'one');
  g('add', '.');
  g('commit', '-q', '-m', 'first');
});
afterAll(() => {
  rmSync(repo, { recursive: true, force: true });
  rmSync(plain, { recursive: true, force: true });
});

describe('gitContext', () => {
  it('reads the remote without credentials, HEAD, the branch and whether the tree is dirty', async () => {
    const c = await gitContext(repo);
    expect(c).toMatchObject({ remote: 'https://github.com/Acme/api', branch: 'feat/login', dirty: false });
    expect(c!.head).toMatch(/^[0-9a-f]{40}$/);
    writeFileSync(path.join(repo, 'a.txt'), 'two');
    expect((await gitContext(repo))!.dirty).toBe(true);
  });

  it('is null outside a repository', async () => {
    expect(await gitContext(plain)).toBeNull();
  });
});

describe('withGitDefaults', () => {
  const g = { remote: 'https://github.com/Acme/api', head: 'abc1234def', branch: 'main', dirty: true };
  it('fills only what the caller left out', () => {
    expect(withGitDefaults('repo_register', {}, g)).toEqual({ remote_url: 'https://github.com/Acme/api' });
    expect(withGitDefaults('repo_register', { slug: 'x/y' }, g)).toEqual({ slug: 'x/y' });
    expect(withGitDefaults('run_heartbeat', { branch: 'other' }, g)).toEqual({ branch: 'other', head_sha: 'abc1234def', dirty: true, remote_url: g.remote });
    expect(withGitDefaults('task_code_ref', { task_id: 'A-1', ref_type: 'commit' }, g)).toEqual({ task_id: 'A-1', ref_type: 'commit', sha: 'abc1234def', branch: 'main' });
    expect(withGitDefaults('task_code_ref', { task_id: 'A-1', ref_type: 'pr', pr_number: 3 }, g)).toEqual({ task_id: 'A-1', ref_type: 'pr', pr_number: 3, branch: 'main' });
    expect(withGitDefaults('task_claim', {}, g)).toEqual({});
    expect(withGitDefaults('repo_register', {}, null)).toEqual({});
  });
});

describe('runHeaders', () => {
  it('names the run from BULLPEN_RUN_ID, else one per calling shell and day; parent, group and repo follow', () => {
    expect(runHeaders({ BULLPEN_RUN_ID: 'r1', BULLPEN_PARENT_RUN_ID: 'p1', BULLPEN_RUN_GROUP: 'nightly' }, null)).toEqual({
      'X-Bullpen-Run': 'r1', 'X-Bullpen-Parent-Run': 'p1', 'X-Bullpen-Run-Group': 'nightly',
    });
    const derived = runHeaders({}, { remote: 'https://github.com/a/b', head: null, branch: null, dirty: null });
    expect(derived['X-Bullpen-Run']).toBe(derivedCliRun());
    expect(derived['X-Bullpen-Run']).toMatch(/^cli-[0-9a-f]{6}-\d+-\d{8}$/);
    expect(derived['X-Bullpen-Repo']).toBe('https://github.com/a/b');
    // one shell acting with two keys keeps a run per key: a run belongs to the actor that started it
    const a = runHeaders({}, null, 'bp_live_aaaaaaaa')['X-Bullpen-Run'];
    const b = runHeaders({}, null, 'bp_live_bbbbbbbb')['X-Bullpen-Run'];
    expect(a).toMatch(/^cli-[0-9a-f]{6}-\d+-\d{8}$/);
    expect(a).not.toBe(b);
    expect(runHeaders({}, null, 'bp_live_aaaaaaaa')['X-Bullpen-Run']).toBe(a);
    expect(runHeaders({ BULLPEN_REPO: 'https://u:p@gitlab.com/g/r.git' }, null)['X-Bullpen-Repo']).toBe('https://gitlab.com/g/r');
  });
});
