import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { root, spawnServer } from '../scripts/server-process.mjs';
import { startChatStandIn } from '../tests/helpers/chat-standin';
import type { ServerInfo } from './helpers';

/**
 * Starts the real server (`bullpen start`: the production build on a fresh embedded database in a
 * temp dir), reads the one-time sign-in link from its banner, and mints agent keys with the CLI
 * while it runs, for the default workspace and a second one.
 */
export default async function globalSetup() {
  // the council's models: a local OpenAI-compatible stand-in, so no spec reaches the network
  const llm = await startChatStandIn();
  const server = await spawnServer({
    label: 'e2e',
    env: {
      DATABASE_URL: undefined,
      NEXT_PUBLIC_SUPABASE_URL: undefined,
      BULLPEN_COUNCIL_MODELS: 'local:alpha,local:beta,local:gamma',
      BULLPEN_COUNCIL_CHAIRMAN: 'local:chair',
      BULLPEN_COUNCIL_LOCAL_BASE_URL: llm.baseURL,
      BULLPEN_COUNCIL_LOCAL_API_KEY: 'test-key',
      BULLPEN_COUNCIL_PRICES: JSON.stringify({ 'local:alpha': { in: 1000, out: 2000 } }),
    },
    ready: (out) => /Sign in\s+http/.test(out),
  });
  const { dir, dataDir, env } = server;
  const live = { url: server.url, admin_token: server.adminToken };
  const bannerLink = /Sign in\s+(http\S+)/.exec(server.output())![1];
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
    await server.stop();
    await llm.close();
    rmSync(infoFile, { force: true });
  };
}
