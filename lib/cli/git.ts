import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { stripCredentials } from '../core/remote';

/** What the CLI knows about the git repository it runs in. */
export type GitContext = { remote: string | null; head: string | null; branch: string | null; dirty: boolean | null };

function git(args: string[], cwd: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 2_000, windowsHide: true }, (err, stdout) => resolve(err ? null : stdout.trim()));
  });
}

/**
 * Reads origin's URL (credentials stripped before it goes anywhere), HEAD, the branch and whether
 * the tree has uncommitted changes. Null outside a repository or without git.
 */
export async function gitContext(cwd = process.cwd()): Promise<GitContext | null> {
  const inside = await git(['rev-parse', '--is-inside-work-tree'], cwd);
  if (inside !== 'true') return null;
  const [origin, head, branch, status] = await Promise.all([
    git(['remote', 'get-url', 'origin'], cwd),
    git(['rev-parse', 'HEAD'], cwd),
    git(['rev-parse', '--abbrev-ref', 'HEAD'], cwd),
    git(['status', '--porcelain', '--untracked-files=no'], cwd),
  ]);
  let remote = origin;
  if (!remote) {
    const first = (await git(['remote'], cwd))?.split('\n')[0];
    remote = first ? await git(['remote', 'get-url', first], cwd) : null;
  }
  return {
    remote: remote ? stripCredentials(remote) : null,
    head: head && /^[0-9a-f]{7,64}$/.test(head) ? head : null,
    branch: branch && branch !== 'HEAD' ? branch : null,
    dirty: status === null ? null : status.length > 0,
  };
}

/**
 * The run a CLI command belongs to when BULLPEN_RUN_ID is unset: one per calling shell (its
 * process id), key, machine and day, so the commands of one script form one run, and a shell that
 * acts with two keys keeps two runs (a run belongs to the actor that started it).
 */
export function derivedCliRun(now = new Date(), ppid = process.ppid, host = hostname(), key = ''): string {
  const h = createHash('sha256').update(key ? `${host}\0${key}` : host).digest('hex').slice(0, 6);
  return `cli-${h}-${ppid}-${now.toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/**
 * Fills what the repository tells the CLI into a tool's input, where the caller left it out:
 * repo_register's remote, a heartbeat's head, branch, dirty and remote, a code ref's sha and branch.
 */
export function withGitDefaults(tool: string, input: Record<string, unknown>, g: GitContext | null): Record<string, unknown> {
  if (!g) return input;
  const out = { ...input };
  const fill = (k: string, v: unknown) => {
    if (out[k] === undefined && v !== null && v !== undefined) out[k] = v;
  };
  if (tool === 'repo_register') {
    if (['remote_url', 'slug', 'owner', 'name'].every((k) => out[k] === undefined)) fill('remote_url', g.remote);
  } else if (tool === 'run_heartbeat') {
    fill('head_sha', g.head);
    fill('branch', g.branch);
    fill('dirty', g.dirty);
    fill('remote_url', g.remote);
  } else if (tool === 'task_code_ref' || tool === 'code_ref_add') {
    const type = out.ref_type;
    if (type === 'commit' || type === 'tag') fill('sha', g.head);
    if (type === 'commit' || type === 'branch' || type === 'pr') fill('branch', g.branch);
  }
  return out;
}

/** The run headers for a CLI call made with `key`, from the environment (and the repository it stands in). */
export function runHeaders(env: Record<string, string | undefined>, g: GitContext | null, key = ''): Record<string, string> {
  const h: Record<string, string> = { 'X-Bullpen-Run': env.BULLPEN_RUN_ID || derivedCliRun(new Date(), process.ppid, hostname(), key) };
  if (env.BULLPEN_PARENT_RUN_ID) h['X-Bullpen-Parent-Run'] = env.BULLPEN_PARENT_RUN_ID;
  if (env.BULLPEN_RUN_GROUP) h['X-Bullpen-Run-Group'] = env.BULLPEN_RUN_GROUP;
  const repo = env.BULLPEN_REPO ? stripCredentials(env.BULLPEN_REPO) : g?.remote;
  if (repo && env.BULLPEN_REPO !== 'off') h['X-Bullpen-Repo'] = repo;
  return h;
}
