import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { root, spawnServer } from '../../scripts/server-process.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    server: { url: string; adminToken: string; key: string; actorId: string; workspace: string; dataDir: string };
  }
}

/**
 * Starts the real server (`bullpen start`, the production build, embedded database in a temp dir)
 * and mints an agent key through the CLI while it runs, exactly as a user would.
 */
export default async function setup(project: TestProject) {
  const server = await spawnServer({ label: 'mcp', env: { DATABASE_URL: undefined } });
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, 'bin/bullpen.mjs'), 'agent', 'add', 'mcp-test-agent', '--json'], {
    cwd: root,
    env: server.env,
  });
  const agent = JSON.parse(stdout) as { workspace: string; actor_id: string; api_key: string; mcp_url: string };
  if (!server.output().includes('/api/mcp')) throw new Error(`the start banner does not show the MCP URL:\n${server.output()}`);
  project.provide('server', { url: server.url, adminToken: server.adminToken, key: agent.api_key, actorId: agent.actor_id, workspace: agent.workspace, dataDir: server.dataDir });
  return server.stop;
}
