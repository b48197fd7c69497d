import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ServerInfo } from './helpers';

const root = path.resolve(import.meta.dirname, '..');

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
 * Starts the real server (`bullpen start`: the production build on a fresh embedded database in a
 * temp dir), reads the one-time sign-in link from its banner, and mints agent keys with the CLI
 * while it runs, for the default workspace and a second one.
 */
export default async function globalSetup() {
  const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-e2e-'));
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, BULLPEN_DATA_DIR: dataDir, PORT: String(port), NEXT_TELEMETRY_DISABLED: '1' };
  delete env.DATABASE_URL;
  delete env.NEXT_PUBLIC_SUPABASE_URL;
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
  while (!existsSync(serverFile) || !/Sign in\s+http/.test(out)) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    if (Date.now() - t0 > 170_000) throw new Error(`server did not start in time:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const live = JSON.parse(readFileSync(serverFile, 'utf8')) as { url: string; admin_token: string };
  const bannerLink = /Sign in\s+(http\S+)/.exec(out)![1];
  const cli = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, 'bin/bullpen.mjs'), ...args], { cwd: root, env });
    return JSON.parse(stdout);
  };
  const agent = await cli('agent', 'add', 'e2e-agent', '--json');
  const second = await cli('human', 'invite', 'Bea Second', '--workspace', 'second-ws', '--json');
  const secondAgent = await cli('agent', 'add', 'b-agent', '--workspace', 'second-ws', '--json');
  const info: ServerInfo = {
    url: live.url,
    dir,
    dataDir,
    adminToken: live.admin_token,
    bannerLink,
    agent: { key: agent.api_key, actorId: agent.actor_id, workspace: agent.workspace },
    second: { link: second.url, workspace: second.workspace, agentKey: secondAgent.api_key, agentId: secondAgent.actor_id },
  };
  mkdirSync(path.join(root, 'test-results'), { recursive: true });
  const infoFile = path.join(root, 'test-results', 'e2e-server.json');
  writeFileSync(infoFile, JSON.stringify(info, null, 2));
  process.env.BULLPEN_E2E_INFO = infoFile;

  return async () => {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    rmSync(dir, { recursive: true, force: true });
    rmSync(infoFile, { force: true });
  };
}
