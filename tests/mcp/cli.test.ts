import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../lib/db/pglite';
import { authenticateKey } from '../../lib/server/auth';

/** The bullpen command as a user runs it. (Against a running server it is exercised by global-setup.) */

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-cli-'));
const env = { ...process.env, BULLPEN_DATA_DIR: path.join(dir, 'data') };
delete (env as Record<string, string | undefined>).DATABASE_URL;

function bullpen(...args: string[]) {
  return run(process.execPath, [path.join(root, 'bin/bullpen.mjs'), ...args], { cwd: root, env });
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bullpen agent add', () => {
  it('works on the embedded database when no server runs, creating the workspace', async () => {
    const { stdout } = await bullpen('agent', 'add', 'planner', '--workspace', 'Team Alpha', '--json');
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ workspace: 'team-alpha', mcp_url: 'http://localhost:3000/api/mcp' });
    expect(out.api_key).toMatch(/^bp_live_[A-Za-z0-9_-]{43}$/);
    const human = await bullpen('agent', 'add', 'reviewer', '--workspace', 'team-alpha');
    expect(human.stdout).toContain(`claude mcp add --transport http bullpen 'http://localhost:3000/api/mcp' --header "Authorization: Bearer bp_live_`);
    expect(human.stdout).toContain('"mcpServers"');
    const db = await openPglite(path.join(dir, 'data'));
    try {
      const who = await authenticateKey(db, out.api_key, null);
      expect(who).toMatchObject({ tenant_slug: 'team-alpha', claims: { actor_id: out.actor_id, role: 'authenticated' } });
      const stored = await db.query<{ key_hash: string }>('select key_hash from api_keys');
      expect(stored).toHaveLength(2);
      for (const row of stored) expect(row.key_hash).not.toContain(out.api_key.slice(8, 20));
    } finally {
      await db.close();
    }
  });

  it('explains its usage and exits 2 on bad input', async () => {
    const err = await bullpen('agent', 'add').catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr).toContain('Usage: bullpen agent add NAME');
    const unknown = await bullpen('frobnicate').catch((e) => e);
    expect(unknown.code).toBe(2);
    const help = await bullpen('--help');
    expect(help.stdout).toContain('bullpen agent add NAME');
  });
});

describe('restarts', () => {
  it('keep every row: a second open of the same data dir sees the first run’s workspace, actors and keys', async () => {
    const { openDb } = await import('../../lib/db');
    const { firstStart } = await import('../../lib/cli/start');
    const data = path.join(dir, 'restart');
    const first = await openDb({ dataDir: data, url: '' });
    const a = await firstStart(first);
    expect(a.created).toBe(true);
    await first.close();
    const second = await openDb({ dataDir: data, url: '' });
    try {
      const b = await firstStart(second);
      expect(b).toMatchObject({ created: false, workspace: { id: a.workspace.id }, owner: { id: a.owner!.id } });
      const [{ n }] = await second.query<{ n: number }>('select count(*)::int as n from bullpen.migrations');
      expect(n).toBeGreaterThanOrEqual(3);
    } finally {
      await second.close();
    }
  });
});
