import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/** `bullpen skills sync` against the started server, through the same MCP path the tool twins use. */

const server = inject('server');
const root = path.resolve(import.meta.dirname, '..', '..');
let agent: { api_key: string; actor_id: string };
let dir: string;

async function bullpen(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(root, 'bin/bullpen.mjs'), ...args], {
      cwd: root,
      env: { ...process.env, BULLPEN_URL: server.url, BULLPEN_API_KEY: agent.api_key },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(root, 'bin/bullpen.mjs'), 'agent', 'add', 'skills-syncer', '--workspace', 'cli-skills', '--json'],
    { cwd: root, env: { ...process.env, BULLPEN_DATA_DIR: server.dataDir } },
  );
  agent = JSON.parse(stdout);
  dir = await mkdtemp(path.join(tmpdir(), 'bullpen-cli-skills-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('bullpen skills sync', () => {
  it('writes the skills, leaves a foreign folder alone, prints what changed, then removes an archived one', async () => {
    expect((await bullpen(['skill', 'upsert', '--slug', 'deploy', '--description', 'Use when deploying', '--body', '# Deploy\n\nRun the pipeline.', '--json'])).code).toBe(0);
    expect((await bullpen(['skill', 'upsert', '--slug', 'triage', '--description', 'Use for new bugs', '--body', 'Reproduce first.', '--json'])).code).toBe(0);
    await mkdir(path.join(dir, 'triage'));
    await writeFile(path.join(dir, 'triage', 'SKILL.md'), 'mine\n');

    const first = await bullpen(['skills', 'sync', '--dir', dir]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('created deploy v1');
    expect(first.stderr).toContain('skipped triage');
    expect(await readFile(path.join(dir, 'deploy', 'SKILL.md'), 'utf8')).toMatch(/^---\nname: deploy\ndescription: "Use when deploying"\nmetadata:\n  bullpen_id: [0-9a-f-]{36}\n  bullpen_version: "1"\n---\n\n# Deploy\n\nRun the pipeline.\n$/);
    expect(await readFile(path.join(dir, 'triage', 'SKILL.md'), 'utf8')).toBe('mine\n');

    expect((await bullpen(['skill', 'upsert', '--slug', 'deploy', '--status', 'archived', '--json'])).code).toBe(0);
    const second = await bullpen(['skills', 'sync', '--dir', dir, '--json']);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ ok: true, removed: ['deploy'], skipped: ['triage'] });
    expect((await readdir(dir)).sort()).toEqual(['.bullpen-skills.json', 'triage']);
  });

  it('fails with the tool error for an unknown project', async () => {
    const res = await bullpen(['skills', 'sync', '--dir', dir, '--project', 'NOPE']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('NOT_FOUND');
  });
});
