import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { dataDir, setDb } from '../db';
import type { Db } from '../db/types';
import { mkdirPrivate, tightenTree, usePrivateUmask } from '../db/private-fs';
import { config } from '../server/config';
import { filesDir, maxUploadBytes, tooLarge } from '../server/files';
import { checkTransport, configuredHosts, isLoopback, stampPeer, type HeaderSource } from '../server/transport';
import { startJobs } from '../jobs';
import { closeEmbedPools } from '../memory/embed-pool';
import { ensureActor, ensureWorkspace } from '../server/workspace';
import { DataDirHeld, describeHolder, lockDataDir, type DataLock } from './data-lock';
import { openDbBounded } from './open-db';
import { removeServerFile, serverFilePath, writeServerFile } from './server-file';

async function newestMtime(p: string): Promise<number> {
  const s = await stat(p).catch(() => null);
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  let newest = s.mtimeMs;
  for (const entry of await readdir(p)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    newest = Math.max(newest, await newestMtime(path.join(p, entry)));
  }
  return newest;
}

/** Builds the app when there is no build or the sources are newer than it. */
export async function ensureBuild(root: string, log: (s: string) => void): Promise<void> {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  const built = existsSync(buildId) ? (await stat(buildId)).mtimeMs : 0;
  let sources = 0;
  for (const p of ['app', 'components', 'lib', 'proxy.ts', 'next.config.mjs', 'package.json', 'postcss.config.mjs']) {
    sources = Math.max(sources, await newestMtime(path.join(root, p)));
  }
  if (built && built >= sources) return;
  log(built ? 'Sources changed since the last build; rebuilding the app…' : 'Building the app (first start only, about a minute)…');
  const t0 = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`next build failed (exit ${code})`))));
    child.on('error', reject);
  });
  log(`Built in ${((Date.now() - t0) / 1000).toFixed(1)} s.`);
}

/** A path relative to where the user stands when it is inside it, else absolute. */
function displayPath(p: string): string {
  const rel = path.relative(process.cwd(), p);
  return rel && !rel.startsWith('..') ? rel : p;
}

export type FirstStart = { workspace: { id: string; slug: string; name: string }; owner: { id: string; display_name: string } | null; created: boolean };

/** On an empty database: a workspace and its owner (a human actor). Otherwise the first workspace. */
export async function firstStart(db: Db): Promise<FirstStart> {
  const existing = await db.query<{ id: string; slug: string; name: string }>(
    `select id, slug, name from public.tenants order by created_at limit 1`,
  );
  if (existing[0]) {
    const owner = await db.query<{ id: string; display_name: string }>(
      `select id, display_name from public.actors where tenant_id = $1 and is_owner order by created_at limit 1`,
      [existing[0].id],
    );
    return { workspace: existing[0], owner: owner[0] ?? null, created: false };
  }
  const ws = await ensureWorkspace(db, process.env.BULLPEN_WORKSPACE ?? 'default', process.env.BULLPEN_WORKSPACE_NAME ?? 'My workspace');
  const owner = await ensureActor(db, ws.id, {
    kind: 'human',
    external_ref: 'human:owner',
    display_name: process.env.BULLPEN_OWNER_NAME ?? 'Owner',
    is_owner: true,
    role: 'owner',
  });
  return { workspace: ws, owner: { id: owner.id, display_name: owner.display_name }, created: true };
}

/**
 * Whether a request goes to the MCP handler directly, ahead of Next's router. Exactly /api/mcp
 * (with or without a query): every other path, /api/health included, is Next's.
 */
export function servedDirectly(url: string | undefined): boolean {
  return url === '/api/mcp' || !!url?.startsWith('/api/mcp?');
}

/** Node's request headers behind the one method the front door reads (no undici Headers per request). */
function nodeHeaders(req: http.IncomingMessage): HeaderSource {
  return {
    get(name: string) {
      const v = req.headers[name];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
  };
}

/** Writes a Web Response (a refusal) to a Node response, closing the connection. */
async function sendRefusal(res: http.ServerResponse, response: Response): Promise<void> {
  res.shouldKeepAlive = false;
  const out: Record<string, string> = {};
  response.headers.forEach((v, k) => (out[k] = v));
  res.writeHead(response.status, out);
  res.end(Buffer.from(await response.arrayBuffer()));
}

/**
 * The checks in front of every route, MCP and Next alike: the Host allowlist and Origin (DNS
 * rebinding), and a declared body over the route limit. Null when the request may go on.
 */
/** Room a multipart upload's boundaries and part headers may take beyond the file itself. */
const UPLOAD_FRAMING_BYTES = 64 * 1024;

export function frontDoor(req: { url?: string; method?: string; headers: HeaderSource }): Response | null {
  // The MCP endpoint makes every check itself (Host, Origin, keys, limits, size) and answers each
  // refusal as a JSON-RPC error with the body drained, so a client's connection survives it
  // (lib/mcp/http.ts); an HTTP refusal here, on a closed connection, lost clients their session.
  if (servedDirectly(req.url)) return null;
  const refused = checkTransport(req);
  if (refused) return refused;
  const declared = Number(req.headers.get('content-length') ?? NaN);
  // uploads have a limit of their own (BULLPEN_MAX_UPLOAD_BYTES), and the refusal names it; a form
  // upload's framing gets a small allowance, the route itself counts the file's own bytes
  const isUpload = req.url === '/api/files' || !!req.url?.startsWith('/api/files?');
  if (isUpload && Number.isFinite(declared) && declared > maxUploadBytes() + UPLOAD_FRAMING_BYTES) {
    return Response.json(tooLarge(), { status: 413, headers: { connection: 'close' } });
  }
  // an export is a whole workspace: the import route has its own limit (BULLPEN_IMPORT_MAX_BYTES),
  // and its body streams through to the route, which counts what it reads
  const isImport = req.url === '/api/admin/import' || !!req.url?.startsWith('/api/admin/import?');
  const limit = isImport
    ? config.maxImportBytes()
    : isUpload
      ? maxUploadBytes() + UPLOAD_FRAMING_BYTES
      : Math.max(config.maxRouteBodyBytes(), SERVER_ACTION_BODY_BYTES);
  if (Number.isFinite(declared) && declared > limit) {
    return Response.json(
      {
        ok: false,
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          message: `request body exceeds ${limit} bytes`,
          hint: isImport ? 'raise BULLPEN_IMPORT_MAX_BYTES on the server, or import with the server stopped' : 'send a smaller request',
          retryable: false,
        },
      },
      { status: 413, headers: { connection: 'close' } },
    );
  }
  // A body of unknown length (chunked) is read only by routes that count as they read (the
  // import); every other route, uploads included, must say how much it sends, so the limit holds.
  if (!isImport && !Number.isFinite(declared) && req.headers.get('transfer-encoding')) {
    return Response.json(
      {
        ok: false,
        error: { code: 'VALIDATION_ERROR', message: `send a Content-Length: bodies here are limited to ${limit} bytes`, hint: 'send the body with its length', retryable: false },
      },
      { status: 411, headers: { connection: 'close' } },
    );
  }
  return null;
}

/** Next's own limit on a server action's body (next.config.mjs serverActions.bodySizeLimit). */
const SERVER_ACTION_BODY_BYTES = 1_048_576;

export type StartOptions = { port: number; host: string; dev: boolean; quiet?: boolean };

/** The banner's word on where the server listens: loopback only, or every interface and what answers. */
export function bindLines(host: string, port: number, loopback: boolean): string[] {
  if (loopback) return [`  Listening  ${host}:${port} (this machine only; --host 0.0.0.0 to listen on the network)`];
  const names = configuredHosts();
  return [
    `  Listening  ${host}:${port}: ON THE NETWORK (--host ${host}), plain HTTP unless a proxy in front adds TLS`,
    names.length
      ? `             answering requests addressed to localhost, ${names.join(', ')}`
      : '             answering only requests addressed to localhost until BULLPEN_PUBLIC_URL or BULLPEN_ALLOWED_HOSTS names this server',
  ];
}

/** Hooks later parts of the app add to the start banner (e.g. the console sign-in link). */
export type BannerHook = (ctx: { db: Db; url: string; first: FirstStart }) => Promise<string[]>;
const bannerHooks: BannerHook[] = [];
export function addBannerHook(h: BannerHook): void {
  bannerHooks.push(h);
}

/** Why a second server does not start on a data directory that another process holds. */
export function heldByAnotherMessage(err: DataDirHeld): string {
  const h = err.holder;
  const dir = displayPath(err.dataDir);
  return [
    `${dir} is already in use by ${describeHolder(h)}.`,
    '  One server per data directory: two processes writing one embedded database corrupt it.',
    h.kind === 'server'
      ? `  Use that server${h.url ? ` (${h.url})` : ''}, stop it first (kill ${h.pid}), or start this one on another directory: BULLPEN_DATA_DIR=other/dir npx bullpen start`
      : `  Wait for \`${h.command}\` to finish, then start again.`,
    `  (lock: ${displayPath(err.lockFile)}; a lock whose process is gone is taken over on the next start)`,
  ].join('\n');
}

/**
 * Starts Bullpen: takes the data directory's lock, builds the app when needed, opens the database
 * and migrates it (bounded in time, printing each step), the first-start bootstrap, the Next.js
 * app, and the banner. Refuses (throws) when another live process holds the data directory.
 */
export async function start(opts: StartOptions): Promise<{ close: () => Promise<void>; url: string }> {
  const root = process.env.BULLPEN_ROOT ?? process.cwd();
  const log = (s: string) => {
    if (!opts.quiet) console.log(s);
  };
  const embedded = !process.env.DATABASE_URL;
  let lock: DataLock | null = null;
  if (embedded) {
    try {
      lock = await lockDataDir(dataDir(), { kind: 'server', command: 'bullpen start' });
    } catch (err) {
      if (err instanceof DataDirHeld) throw new Error(heldByAnotherMessage(err));
      throw err;
    }
    if (lock.tookOver) {
      const t = lock.tookOver;
      log(`Took over the lock on ${displayPath(dataDir())} left by pid ${t.pid} (${t.command}, since ${t.since}), which no longer runs.`);
    }
  }
  try {
    return await startLocked(opts, root, log, lock);
  } catch (err) {
    lock?.release();
    throw err;
  }
}

async function startLocked(
  opts: StartOptions,
  root: string,
  log: (s: string) => void,
  lock: DataLock | null,
): Promise<{ close: () => Promise<void>; url: string }> {
  if (!opts.dev) await ensureBuild(root, log);
  // files are private: what this process creates from here on is its owner's alone (the build
  // above keeps the user's umask)
  usePrivateUmask();
  await mkdirPrivate(path.dirname(serverFilePath()));
  if (!process.env.DATABASE_URL) {
    // the default state folder is Bullpen's own: an earlier release left it open to others
    if (path.basename(path.dirname(dataDir())) === '.bullpen') await tightenTree(path.dirname(dataDir()));
  }
  if (existsSync(filesDir())) await tightenTree(filesDir());
  log(process.env.DATABASE_URL ? 'Opening the database at DATABASE_URL…' : `Opening the embedded database in ${displayPath(dataDir())}…`);
  const db = await openDbBounded(log);
  setDb(db);
  log('Starting the app…');
  const first = await firstStart(db);
  const adminToken = randomBytes(24).toString('base64url');
  process.env.BULLPEN_ADMIN_TOKEN = adminToken;

  const next = (await import('next')).default;
  const app = next({ dev: opts.dev, dir: root, hostname: opts.host, port: opts.port });
  await app.prepare();
  const handle = app.getRequestHandler();
  const { serveMcpNode } = await import('../mcp/http');
  const server = http.createServer((req, res) => {
    const refused = frontDoor({ url: req.url, method: req.method, headers: nodeHeaders(req) });
    if (refused) {
      void sendRefusal(res, refused);
      return;
    }
    // The MCP endpoint is the hot path: serve it with the same checks and answers its route file
    // exports, without Next's page routing in front (about 3 ms less per call on two cores), on
    // Node's own request and response. Everything else is Next's.
    if (servedDirectly(req.url)) {
      void serveMcpNode(req, res);
      return;
    }
    // the routes behind Next learn the client's address from this stamp (their per-address limits)
    stampPeer(req.headers, req.socket.remoteAddress);
    void handle(req, res);
  });
  server.keepAliveTimeout = 65_000;
  // inbox and task_claim hold a request for up to 60 s (wait_seconds): allow that with a margin
  server.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new Error(`port ${opts.port} is in use: stop the other process or pass --port`) : err),
    );
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  const loopback = isLoopback(opts.host);
  const localName = loopback ? (opts.host === '::1' ? '[::1]' : opts.host) : 'localhost';
  const url = process.env.BULLPEN_PUBLIC_URL?.replace(/\/$/, '') ?? `http://${localName}:${port}`;
  lock?.update({ url });
  const own = { pid: process.pid, admin_token: adminToken };
  await writeServerFile({
    ...own,
    url,
    data_dir: process.env.DATABASE_URL ? null : dataDir(),
    started_at: new Date().toISOString(),
  });
  // work outside the writing transaction: one worker per app process, all sharing the jobs table
  const worker = await startJobs(db);

  const extra: string[] = [];
  for (const h of bannerHooks) extra.push(...(await h({ db, url, first })));
  log(
    [
      '',
      '  Bullpen is running.',
      '',
      `  Console    ${url}`,
      `  MCP URL    ${url}/api/mcp`,
      ...bindLines(opts.host, port, loopback),
      `  Database   ${process.env.DATABASE_URL ? 'DATABASE_URL (Postgres server)' : `embedded, ${displayPath(dataDir())}`}`,
      `  Workspace  ${first.workspace.slug}${first.created ? ` (created now, owner: ${first.owner?.display_name})` : ''}`,
      ...extra,
      '',
      '  Connect an agent: mint its key, then paste the line it prints:',
      `    npx bullpen agent add my-agent${first.workspace.slug === 'default' ? '' : ` --workspace ${first.workspace.slug}`}`,
      '',
    ].join('\n'),
  );

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      // idle keep-alive sockets (an open console tab) would hold close() until they time out
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), 2000);
      await closed;
      clearTimeout(force);
      await worker?.stop();
      // the embedding workers (idle ones never hold the process; this ends them now)
      await closeEmbedPools();
      // only the file this process wrote: another server's stays
      await removeServerFile(own);
      await db.close();
      lock?.release();
    })());
  return { close, url };
}
