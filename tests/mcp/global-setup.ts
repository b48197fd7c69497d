import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    server: { url: string; key: string; actorId: string; workspace: string; dataDir: string };
  }
}

const root = path.resolve(import.meta.dirname, '..', '..');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts the real server (`bullpen start`, the production build, embedded database in a temp dir)
 * and mints an agent key through the CLI while it runs, exactly as a user would.
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-mcp-'));
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  const env = { ...process.env, BULLPEN_DATA_DIR: dataDir, DATABASE_URL: '', PORT: String(port), NEXT_TELEMETRY_DISABLED: '1' };
  delete (env as Record<string, string | undefined>).DATABASE_URL;
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'bin/bullpen.mjs'), 'start', '--port', String(port), '--host', '127.0.0.1'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const serverFile = path.join(dir, 'server.json');
  const t0 = Date.now();
  while (!existsSync(serverFile)) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    if (Date.now() - t0 > 170_000) throw new Error(`server did not start in time:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const info = JSON.parse(readFileSync(serverFile, 'utf8')) as { url: string };
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, 'bin/bullpen.mjs'), 'agent', 'add', 'mcp-test-agent', '--json'], {
    cwd: root,
    env,
  });
  const agent = JSON.parse(stdout) as { workspace: string; actor_id: string; api_key: string; mcp_url: string };
  if (!out.includes('/api/mcp')) throw new Error(`the start banner does not show the MCP URL:\n${out}`);
  project.provide('server', { url: info.url, key: agent.api_key, actorId: agent.actor_id, workspace: agent.workspace, dataDir });
  return async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  };
}
