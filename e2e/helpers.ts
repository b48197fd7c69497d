import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, type Page } from '@playwright/test';

export type ServerInfo = {
  url: string;
  dir: string;
  dataDir: string;
  adminToken: string;
  bannerLink: string;
  agent: { key: string; actorId: string; workspace: string };
  second: { link: string; workspace: string; agentKey: string; agentId: string };
};

let cached: ServerInfo | null = null;
/** What global-setup started. */
export function server(): ServerInfo {
  cached ??= JSON.parse(readFileSync(process.env.BULLPEN_E2E_INFO ?? path.resolve('test-results', 'e2e-server.json'), 'utf8')) as ServerInfo;
  return cached;
}

/** A fresh one-time sign-in link (the admin route `bullpen human invite` uses while the server runs). */
export async function inviteLink(name = 'Owner', workspace?: string): Promise<string> {
  const res = await fetch(`${server().url}/api/admin/humans`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-bullpen-admin-token': server().adminToken },
    body: JSON.stringify({ name, workspace }),
  });
  expect(res.status).toBe(200);
  const inv = (await res.json()) as { token: string };
  return `${server().url}/auth/link#token=${inv.token}`;
}

/**
 * A fresh key for an agent in a workspace (the admin route `bullpen agent add` uses), creating the
 * agent the first time; later calls mint another key (`--new-key`), so tests may share an agent.
 */
export async function agentKey(name: string, workspace?: string): Promise<{ key: string; actorId: string }> {
  const res = await fetch(`${server().url}/api/admin/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-bullpen-admin-token': server().adminToken },
    body: JSON.stringify({ name, workspace, new_key: true }),
  });
  expect(res.status).toBe(200);
  const r = (await res.json()) as { api_key: string; actor_id: string };
  return { key: r.api_key, actorId: r.actor_id };
}

/** Opens a sign-in link and presses Continue on its confirm page (the POST that spends it). */
export async function confirmLink(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await expect(page.getByTestId('signin-confirm-who')).toContainText('Sign in as');
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** Signs the page in through a one-time link and waits for the console with a live feed. */
export async function signIn(page: Page, name = 'Owner', workspace?: string): Promise<void> {
  await confirmLink(page, await inviteLink(name, workspace));
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByTestId('live-status')).toHaveAttribute('data-status', 'live');
}

/** A session cookie for fetch (spends a sign-in link without a browser). */
export async function sessionCookie(name = 'Owner', workspace?: string): Promise<string> {
  const token = new URL(await inviteLink(name, workspace)).hash.replace(/^#token=/, '');
  const res = await fetch(`${server().url}/auth/session`, { method: 'POST', body: new URLSearchParams({ token }), redirect: 'manual' });
  expect(res.status).toBe(303);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('bullpen_session='));
  expect(cookie, 'the link sets the session cookie').toBeTruthy();
  return cookie!.split(';')[0];
}

export type Envelope = { ok: boolean; error?: { code: string; message: string; hint: string }; [k: string]: any };

/**
 * An agent over MCP (the SDK client over streamable HTTP, as Claude Code connects). `toolsets`
 * names rooms as a connection does (`council` for an opt-in room); omitted, the default list.
 */
export async function agent(
  key: string,
  opts: { toolsets?: string } = {},
): Promise<{ call: (tool: string, args?: Record<string, unknown>) => Promise<Envelope>; close: () => Promise<void> }> {
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  const url = new URL(`${server().url}/api/mcp`);
  if (opts.toolsets) url.searchParams.set('toolsets', opts.toolsets);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return {
    call: async (tool, args = {}) => {
      const res = (await client.callTool({ name: tool, arguments: args })) as { content: { text: string }[] };
      return JSON.parse(res.content[0].text) as Envelope;
    },
    close: () => client.close(),
  };
}

/** A project key no other test uses. */
export function uniqueKey(prefix: string): string {
  return `${prefix}${Math.random().toString(36).slice(2, 6).toUpperCase().replace(/[^A-Z]/g, 'X')}`;
}

export function column(page: Page, status: string) {
  return page.locator(`[data-testid="column"][data-status="${status}"]`);
}

export function card(page: Page, ref: string) {
  return page.locator(`[data-testid="task-card"][data-ref="${ref}"]`);
}

/** Waits until every open column of the board has loaded (moves are accepted from then on). */
export async function boardReady(page: Page): Promise<void> {
  await expect(page.getByTestId('board')).toHaveAttribute('data-board-ready', 'true');
}
