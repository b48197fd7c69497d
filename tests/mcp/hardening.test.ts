import { execFile, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { root, spawnServer } from '../../scripts/server-process.mjs';

/**
 * The closed transport, sign-in and sessions, scoped keys and rate limits against `bullpen start`
 * as a user runs it: raw HTTP for what a browser or an attacker sends, the CLI for what an operator
 * types, and the official MCP conformance scenario for DNS rebinding.
 */

const server = inject('server');
const base = new URL(server.url);
const run = promisify(execFile);

/** One raw HTTP request to the server's socket, with any Host header (fetch would not send one). */
function raw(
  method: string,
  pathname: string,
  headers: Record<string, string> = {},
  body?: string,
  port = Number(base.port),
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    // a body is sent with its length, as browsers and fetch do, unless the test asks for chunked
    const length = body !== undefined && !headers['transfer-encoding'] && !headers['content-length'] ? { 'content-length': String(Buffer.byteLength(body)) } : {};
    const req = http.request({ host: '127.0.0.1', port, method, path: pathname, headers: { host: `localhost:${port}`, ...length, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

function bullpen(env: Record<string, string | undefined>, ...args: string[]) {
  return run(process.execPath, [path.join(root, 'bin/bullpen.mjs'), ...args], { cwd: root, env: { ...process.env, ...env } });
}
const cliEnv = (): Record<string, string | undefined> => ({ BULLPEN_DATA_DIR: server.dataDir, DATABASE_URL: undefined });

async function admin(route: string, body: unknown, url = server.url, token = server.adminToken): Promise<Record<string, any>> {
  const res = await fetch(`${url}/api/admin/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-bullpen-admin-token': token },
    body: JSON.stringify(body),
  });
  return { status: res.status, ...(await res.json()) };
}

/** Spends a token the way the confirm page does: a form POST to /auth/session. Returns the cookie pair. */
async function spend(token: string, url = server.url, headers: Record<string, string> = {}): Promise<{ status: number; location: string | null; cookie: string | null; setCookie: string[] }> {
  const res = await fetch(`${url}/auth/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ token }),
    redirect: 'manual',
  });
  const setCookie = res.headers.getSetCookie();
  const c = setCookie.find((x) => /bullpen_session=/.test(x));
  return { status: res.status, location: res.headers.get('location'), cookie: c ? c.split(';')[0] : null, setCookie };
}

describe('the Host allowlist', () => {
  const routes: [string, string][] = [
    ['GET', '/'],
    ['GET', '/projects'],
    ['GET', '/auth/link'],
    ['POST', '/auth/session'],
    ['POST', '/api/mcp'],
    ['POST', '/api/admin/agents'],
    ['POST', '/api/console/tool'],
    ['GET', '/api/events'],
    ['GET', '/.well-known/oauth-protected-resource'],
  ];

  it('answers 403 on every route to a request addressed to a foreign name', async () => {
    for (const [method, p] of routes) {
      const res = await raw(method, p, { host: 'evil.example.com', origin: 'http://evil.example.com', 'content-type': 'application/json' }, method === 'POST' ? '{}' : undefined);
      expect({ route: `${method} ${p}`, status: res.status }).toEqual({ route: `${method} ${p}`, status: 403 });
      // the refusal says nothing about the server beyond what to fix
      expect(res.text).not.toMatch(/stack|at \//);
    }
    // the LAN address of the machine is no localhost name either
    expect((await raw('GET', '/', { host: `192.168.1.20:${base.port}` })).status).toBe(403);
  });

  it('serves localhost names, and refuses a foreign Origin even on a good Host', async () => {
    expect((await raw('GET', '/auth/signin')).status).toBe(200);
    expect((await raw('GET', '/auth/signin', { host: `127.0.0.1:${base.port}` })).status).toBe(200);
    expect((await raw('POST', '/auth/session', { origin: 'http://evil.example.com', 'content-type': 'application/x-www-form-urlencoded' }, 'token=x')).status).toBe(403);
  });

  it('passes the MCP conformance scenario dns-rebinding-protection', async () => {
    const out = await conformance('dns-rebinding-protection');
    expect(out.text).toMatch(/localhost-host-rebinding-rejected/);
    expect(out.text).toMatch(/localhost-host-valid-accepted/);
    expect(out.text).not.toMatch(/FAIL/);
    expect(out.code).toBe(0);
  });

  it('passes the conformance server scenarios that need no test fixtures: initialize, tools/list, ping, resources/list, prompts/list, tools/call errors', async () => {
    // the other resources and prompts scenarios read the suite's own fixtures (test://…, test_simple_prompt)
    for (const scenario of ['server-initialize', 'tools-list', 'ping', 'resources-list', 'prompts-list', 'tools-call-error']) {
      const out = await conformance(scenario);
      expect(out.text, scenario).toMatch(/Passed: \d+\/\d+, 0 failed/);
      expect(out.code, scenario).toBe(0);
    }
  });
});

/**
 * Runs one scenario of the official conformance suite against the server. The scenarios send no key;
 * Bullpen requires one. A local proxy adds the agent's Authorization header and passes Host and
 * Origin through untouched, as an MCP host holding the key would send them.
 */
async function conformance(scenario: string): Promise<{ code: number | null; text: string }> {
  const proxy = http.createServer((req, res) => {
    const upstream = http.request(
      { host: '127.0.0.1', port: Number(base.port), method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${server.key}` } },
      (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  const port = (proxy.address() as AddressInfo).port;
  try {
    const bin = path.join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
    const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, 'server', '--url', `http://127.0.0.1:${port}/api/mcp`, '--scenario', scenario], { cwd: root });
      let text = '';
      child.stdout.on('data', (d) => (text += d));
      child.stderr.on('data', (d) => (text += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, text });
      });
    });
    console.log(`[conformance] ${scenario}:\n${out.text.trim()}`);
    return out;
  } finally {
    await new Promise((r) => proxy.close(r));
  }
}

describe('body limits', () => {
  it('refuse an oversized body on the admin routes and the console tool route with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(300_000) });
    const adminRes = await raw('POST', '/api/admin/agents', { 'content-type': 'application/json', 'x-bullpen-admin-token': server.adminToken }, big);
    expect(adminRes.status).toBe(413);
    expect(JSON.parse(adminRes.text).error.code).toBe('PAYLOAD_TOO_LARGE');
    const inv = await admin('humans', { name: 'Body Limit', workspace: server.workspace });
    const { cookie } = await spend(inv.token);
    const tool = await raw('POST', '/api/console/tool', { 'content-type': 'application/json', cookie: cookie! }, JSON.stringify({ tool: 'task_query', input: { q: 'x'.repeat(300_000) } }));
    expect(tool.status).toBe(413);
    // anything declaring more than the largest limit is refused at the door, on any route
    const huge = await raw('POST', '/projects', { 'content-type': 'text/plain', 'content-length': String(5_000_000) }, '');
    expect(huge.status).toBe(413);
    // a body of unknown length is for the MCP route alone (which counts as it reads)
    const chunked = await raw('POST', '/api/console/tool', { 'content-type': 'application/json', 'transfer-encoding': 'chunked', cookie: cookie! }, '{"tool":"task_query"}');
    expect(chunked.status).toBe(411);
    const mcpChunked = await raw('POST', '/api/mcp', { 'content-type': 'application/json', 'transfer-encoding': 'chunked', authorization: `Bearer ${server.key}` }, 'x'.repeat(1_100_000));
    expect(mcpChunked.status).toBe(413);
  });
});

describe('sign-in links and sessions', () => {
  it('open a confirm page that spends nothing; only the POST spends the link, once', async () => {
    const inv = await admin('humans', { name: 'Link Preview', workspace: server.workspace });
    // the printed link carries the token in the fragment, which no client sends
    const page = await fetch(`${server.url}/auth/link`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sign in to the console');
    // a link of the older form (?token=) also only shows the page, naming the person
    const legacy = await (await fetch(`${server.url}/auth/link?token=${inv.token}`)).text();
    expect(legacy).toContain('Link Preview');
    const peek = await fetch(`${server.url}/auth/session`, { method: 'POST', body: new URLSearchParams({ token: inv.token, intent: 'peek' }) });
    expect(await peek.json()).toMatchObject({ ok: true, display_name: 'Link Preview' });
    const first = await spend(inv.token);
    expect(first.status).toBe(303);
    expect(first.location).toMatch(/\/projects$/);
    expect(first.cookie).toMatch(/^bullpen_session=/);
    const attrs = first.setCookie.find((c) => c.startsWith('bullpen_session='))!;
    expect(attrs).toMatch(/HttpOnly/i);
    expect(attrs).toMatch(/SameSite=lax/i);
    expect(attrs).toMatch(/Path=\//);
    const again = await spend(inv.token);
    expect(again.location).toMatch(/\/auth\/signin\?error=link$/);
    expect(again.cookie).toBeNull();
    // the human reads the console with the cookie
    expect((await fetch(`${server.url}/api/console/actors`, { headers: { cookie: first.cookie! } })).status).toBe(200);
  });

  it('sign out everywhere ends every session of the person, and an open live stream within seconds', async () => {
    const a = await admin('humans', { name: 'Two Browsers', workspace: server.workspace });
    const one = await spend(a.token);
    const b = await admin('humans', { name: 'Two Browsers', workspace: server.workspace });
    const two = await spend(b.token);
    expect(one.cookie && two.cookie).toBeTruthy();
    // browser one holds the live feed open
    const ctrl = new AbortController();
    const stream = await fetch(`${server.url}/api/events`, { headers: { cookie: one.cookie!, accept: 'text/event-stream' }, signal: ctrl.signal });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const dec = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string, ms: number) => {
      const until = Date.now() + ms;
      while (!text.includes(needle)) {
        if (Date.now() > until) throw new Error(`no "${needle}" within ${ms} ms:\n${text}`);
        const { value, done } = await Promise.race([
          reader.read(),
          new Promise<{ value: undefined; done: false }>((r) => setTimeout(() => r({ value: undefined, done: false }), 250)),
        ]);
        if (done) break;
        if (value) text += dec.decode(value);
      }
    };
    await readUntil('event: ready', 10_000);
    // browser two signs out everywhere
    const t0 = Date.now();
    const out = await fetch(`${server.url}/auth/signout`, {
      method: 'POST',
      headers: { cookie: two.cookie!, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ scope: 'everywhere' }),
      redirect: 'manual',
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toMatch(/signed_out=everywhere/);
    await readUntil('event: signed_out', 5_000);
    const noticed = Date.now() - t0;
    console.log(`[sessions] the open live stream noticed sign-out everywhere after ${noticed} ms`);
    expect(noticed).toBeLessThan(5_000);
    ctrl.abort();
    // both cookies are dead on the server, not only in the browser that signed out
    for (const c of [one.cookie!, two.cookie!]) expect((await fetch(`${server.url}/api/console/actors`, { headers: { cookie: c } })).status).toBe(401);
  });

  it('a newer link for the same person revokes the older one', async () => {
    const older = await admin('humans', { name: 'Twice Invited', workspace: server.workspace });
    const newer = await admin('humans', { name: 'Twice Invited', workspace: server.workspace });
    expect((await spend(older.token)).location).toMatch(/error=link/);
    expect((await spend(newer.token)).location).toMatch(/\/projects$/);
  });
});

describe('scoped keys through the CLI', () => {
  it('agent add --scopes/--expires mints a narrowed key: tools/list shows only what it may call, the CLI is refused the rest', async () => {
    const { stdout } = await bullpen(cliEnv(), 'agent', 'add', 'ci-bot', '--scopes', 'tasks:read,comments', '--expires', '1h', '--json');
    const made = JSON.parse(stdout);
    expect(made).toMatchObject({ scopes: ['comments', 'tasks:read'] });
    expect(new Date(made.expires_at).getTime()).toBeGreaterThan(Date.now() + 3500_000);
    const c = new Client({ name: 'scoped', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${made.api_key}` } } }));
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['task_query', 'task_get', 'comment_add', 'comment_query', 'whoami', 'guide']));
    expect(names).not.toContain('task_create');
    expect(names).not.toContain('project_create');
    const denied = await c.callTool({ name: 'task_create', arguments: { project_id: 'X', title: 'no' } }).catch((e) => e);
    expect(denied.code).toBe(403);
    expect(denied.message).toContain('FORBIDDEN');
    await c.close();
    const env = { ...cliEnv(), BULLPEN_API_KEY: made.api_key };
    const refused = await bullpen(env, 'task', 'create', '--project-id', 'X', '--title', 'no').catch((e) => e);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('FORBIDDEN');
    expect(refused.stderr).toContain('tasks');
    const allowed = await bullpen(env, 'task', 'query', '--json');
    expect(JSON.parse(allowed.stdout).ok).toBe(true);
    const badScope = await bullpen(cliEnv(), 'agent', 'add', 'typo-bot', '--scopes', 'taskz').catch((e) => e);
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toContain('no room "taskz"');
  });

  it('agent add --toolsets prints the MCP URL with them, which lists only those tools; a wrong name is a usage error', async () => {
    const made = JSON.parse((await bullpen(cliEnv(), 'agent', 'add', 'loop-bot', '--toolsets', 'core,handoffs', '--json')).stdout);
    expect(made.mcp_url).toBe(`${server.url}/api/mcp?toolsets=core,handoffs`);
    expect(made.toolsets).toEqual(['core', 'handoffs']);
    const text = (await bullpen(cliEnv(), 'agent', 'add', 'loop-bot-2', '--toolsets', 'core')).stdout;
    expect(text).toContain(`MCP URL: ${server.url}/api/mcp?toolsets=core`);
    // quoted: a bare ? is a glob in zsh
    expect(text).toContain(`claude mcp add --transport http bullpen '${server.url}/api/mcp?toolsets=core' `);
    const c = new Client({ name: 'toolsets', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(made.mcp_url), { requestInit: { headers: { Authorization: `Bearer ${made.api_key}` } } }));
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['whoami', 'task_claim', 'inbox', 'handoff_claim', 'guide']));
    expect(names).not.toContain('project_create');
    await c.close();
    const typo = await bullpen(cliEnv(), 'agent', 'add', 'typo-bot-2', '--toolsets', 'core,handofs').catch((e) => e);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('handofs');
    expect(typo.stderr).toContain('handoffs');
    const help = await bullpen(cliEnv(), 'agent', 'add', '--help').catch((e) => e);
    expect(help.stderr).toContain('--toolsets');
    expect((await bullpen(cliEnv(), 'help')).stdout).toContain('--toolsets');
  });

  it('key list | rotate | revoke: rotation keeps both keys working through the grace period', async () => {
    const made = JSON.parse((await bullpen(cliEnv(), 'agent', 'add', 'rotating-bot', '--scopes', 'read', '--json')).stdout);
    const listed = JSON.parse((await bullpen(cliEnv(), 'key', 'list', '--json')).stdout).keys as Record<string, any>[];
    expect(listed.find((k) => k.id === made.key_id)).toMatchObject({ actor: 'rotating-bot', scopes: ['read'], state: 'live' });
    const table = (await bullpen(cliEnv(), 'key', 'list')).stdout;
    expect(table).toMatch(/rotating-bot\s+read\s+live/);
    const rotated = JSON.parse((await bullpen(cliEnv(), 'key', 'rotate', made.key_id, '--grace', '10m', '--json')).stdout);
    expect(rotated.api_key).toMatch(/^bp_live_/);
    const whoami = (key: string) => bullpen({ ...cliEnv(), BULLPEN_API_KEY: key }, 'whoami', '--json').then((r) => JSON.parse(r.stdout).ok as boolean, () => false);
    expect(await whoami(made.api_key)).toBe(true);
    expect(await whoami(rotated.api_key)).toBe(true);
    const after = JSON.parse((await bullpen(cliEnv(), 'key', 'list', '--json')).stdout).keys as Record<string, any>[];
    expect(after.find((k) => k.id === made.key_id)?.state).toBe('rotating');
    expect((await bullpen(cliEnv(), 'key', 'revoke', made.key_id)).stdout).toContain('Revoked');
    expect(await whoami(made.api_key)).toBe(false);
    expect(await whoami(rotated.api_key)).toBe(true);
    const again = await bullpen(cliEnv(), 'key', 'rotate', made.key_id).catch((e) => e);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/revoked/);
  });
});

describe('a server started with defaults', () => {
  let second: Awaited<ReturnType<typeof spawnServer>>;
  beforeAll(async () => {
    second = await spawnServer({
      label: 'defaults',
      host: null,
      keep: true,
      env: {
        DATABASE_URL: undefined,
        // 4 calls per 20 s: a window long enough that the CLI's own start-up time on a loaded
        // machine cannot let the bucket refill between the limited call and the next one
        BULLPEN_RATE_KEY_PER_SECOND: '0.2',
        BULLPEN_RATE_WINDOW_SECONDS: '20',
        BULLPEN_TRUST_PROXY: '1',
      },
      ready: (out) => out.includes('Connect an agent'),
    });
  });
  afterAll(async () => {
    await second?.stop();
    const { rmSync } = await import('node:fs');
    if (second) rmSync(second.dir, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 and says so in the banner', () => {
    expect(second.output()).toMatch(/Listening {2}127\.0\.0\.1:\d+ \(this machine only/);
    expect(second.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('rate-limits a key: the CLI sees a retryable RATE_LIMITED and exits 3 (0 with --soft-fail)', async () => {
    const env: Record<string, string | undefined> = { BULLPEN_DATA_DIR: second.dataDir, DATABASE_URL: undefined };
    const made = JSON.parse((await bullpen(env, 'agent', 'add', 'hasty', '--json')).stdout);
    const callEnv = { ...env, BULLPEN_API_KEY: made.api_key };
    // a command is one request (2026-07-28): six at once overrun the key's 4 calls per window
    const runs = await Promise.all(Array.from({ length: 6 }, () => bullpen(callEnv, 'guide').then(() => null, (e: { code: number; stderr: string }) => e)));
    const limited = runs.find(Boolean);
    expect(limited?.code).toBe(3);
    expect(limited?.stderr).toContain('RATE_LIMITED');
    const soft = await Promise.all(Array.from({ length: 3 }, () => bullpen(callEnv, 'guide', '--soft-fail')));
    expect(soft.some((r) => r.stderr.includes('RATE_LIMITED'))).toBe(true);
  });

  it('names the cookie __Host-bullpen_session (Secure) behind a trusted https proxy', async () => {
    const inv = await admin('humans', { name: 'Behind Proxy' }, second.url, second.adminToken);
    const res = await spend(inv.token, second.url, { 'x-forwarded-proto': 'https' });
    const c = res.setCookie.find((x) => x.startsWith('__Host-bullpen_session='));
    expect(c).toBeTruthy();
    expect(c).toMatch(/Secure/i);
    expect(c).toMatch(/Path=\//);
    expect(c).not.toMatch(/Domain=/i);
  });

  it('after a restart, prints no fresh owner link once the owner has signed in', async () => {
    const link = second.output().match(/Sign in {4}(\S+)/)?.[1];
    expect(link).toMatch(/\/auth\/link#token=bpsi_/);
    const token = decodeURIComponent(new URL(link!).hash.replace(/^#token=/, ''));
    expect((await spend(token, second.url)).location).toMatch(/\/projects$/);
    await second.stop();
    second = await spawnServer({ label: 'defaults', host: null, keep: true, dir: second.dir, env: { DATABASE_URL: undefined }, ready: (out) => out.includes('Connect an agent') });
    expect(second.output()).not.toContain('#token=');
    expect(second.output()).toContain('npx bullpen human invite');
  });
});
