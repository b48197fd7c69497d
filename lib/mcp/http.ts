import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import {
  classifyInboundRequest,
  createMcpHandler,
  isJsonContentType,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { internalError, toolError, type ToolError } from '../core/errors';
import { getTool } from '../core/registry';
import { scopeFor, toolAllowed, type Scopes } from '../core/scopes';
import { parseToolsets } from '../core/toolsets';
import { getDb } from '../db';
import { transientDbError } from '../core/sql-errors';
import { authenticateRequest, derivedRunKey, runContextFrom, type DoorRefusal } from '../server/auth';
import { config, requestOrigin } from '../server/config';
import { getLimits } from '../server/limits';
import { BodyAborted, hostAllowed, JsonRpcIdScanner, originAllowed, readBody, type BodyOptions, type BodyRead, type BodySource, type HeaderSource } from '../server/transport';
import { answerToolCall, createMcpServer, toolsFor, type McpContext } from './server';

/**
 * An answer the endpoint wrote itself: status, headers and the JSON text, turned into bytes once by
 * whichever server carries it (a web Response for the Next route, Node's own response in
 * `bullpen start`). Answers the SDK builds stay web Responses.
 */
export type Reply = { status: number; headers: Record<string, string>; body: string | null };

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}, data?: unknown, id: string | number | null = null): Reply {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id }),
  };
}

/** The id of a parsed single JSON-RPC message, or null (a batch, a notification, garbage). */
function idOf(msg: unknown): string | number | null {
  const id = isPlainObject(msg) ? msg.id : null;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/**
 * How much of a refused body is read and thrown away so the answer goes out on a connection the
 * client can keep using (its session survives). Past this the connection is closed instead.
 */
function drainLimit(): number {
  return Math.max(16 * 1_048_576, 4 * config.maxBodyBytes());
}

/**
 * A front-door refusal of a JSON-RPC request (host, origin, toolsets, auth, rate, size): a JSON-RPC
 * error with the request's id when its bytes show one, the envelope in `data`, and the body read to
 * its end first, so the client's connection and session survive the refusal.
 */
async function refuse(req: McpRequest, status: number, code: number, error: ToolError, headers: Record<string, string> = {}): Promise<Reply> {
  let id: string | number | null = null;
  if (req.method === 'POST' && !req.bodyRead) {
    const scanner = new JsonRpcIdScanner();
    const read = await req.body({ limit: 0, drainUpTo: drainLimit(), scan: (c) => scanner.push(c) });
    id = scanner.id;
    if (!read.complete) headers = { ...headers, connection: 'close' };
  }
  return jsonRpcError(status, code, `${error.code}: ${error.message}`, { 'cache-control': 'no-store', ...headers }, { ok: false, error }, id);
}

/** A door refusal as its JSON-RPC error: 401 with the metadata challenge, 403 insufficient_scope, 429 with Retry-After. */
function doorRefusal(req: McpRequest, r: DoorRefusal, cors: Record<string, string>): Promise<Reply> {
  const headers = { ...r.headers, ...cors };
  if (r.status === 401) headers['www-authenticate'] = `Bearer resource_metadata="${resourceMetadataUrl(req)}"`;
  return refuse(req, r.status, r.status === 401 ? -32001 : -32000, r.error, headers);
}

/**
 * What the endpoint reads of a request, whichever server received it: the web Request of the Next
 * route, or Node's IncomingMessage in `bullpen start` (no undici objects on the hot path). Every
 * check runs on this one shape, so both servers answer alike.
 */
export type McpRequest = {
  method: string;
  /** The path and query (a web Request's absolute URL also does). */
  url: string;
  headers: HeaderSource;
  /** Aborted when the client goes away: a waiting call (wait_seconds) ends instead of running out. */
  signal: AbortSignal | undefined;
  /** The client's socket address, when the server has it (the per-address limit). */
  address: string | null;
  /** Reads the body through the one body loop (lib/server/transport.ts readBody); once only. */
  body(opts: Omit<BodyOptions, 'declared'>): Promise<BodyRead>;
  /** Whether body() ran. */
  readonly bodyRead: boolean;
  /** The absolute URL (for the 401/403 challenge's metadata link). */
  absoluteUrl(): string;
  /** A web Request for the SDK, built only for a call that falls back to it (its body is passed parsed). */
  web(): Request;
};

/** The protected-resource metadata URL advertised on 401s. */
export function resourceMetadataUrl(req: McpRequest): string {
  return `${requestOrigin({ url: req.absoluteUrl(), headers: req.headers as Headers })}/.well-known/oauth-protected-resource`;
}

const NO_CORS: Record<string, string> = Object.freeze({}) as Record<string, string>;

function corsHeaders(req: McpRequest): Record<string, string> {
  const origin = req.headers.get('origin');
  if (!origin || !originAllowed(origin, { url: req.absoluteUrl(), headers: req.headers })) return NO_CORS;
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-headers':
      'authorization, content-type, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name, x-bullpen-toolsets, x-bullpen-run, x-bullpen-parent-run, x-bullpen-run-group, x-bullpen-repo, last-event-id',
    'access-control-expose-headers': 'mcp-session-id, www-authenticate, retry-after',
    'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS',
    vary: 'origin',
  };
}

/**
 * The Host and Origin check (DNS rebinding): a request addressed to a name this server does not
 * serve, or sent by a foreign browser origin, is refused before anything else is looked at.
 */
export function transportGuard(req: McpRequest): ToolError | null {
  // a Request built in-process carries no Host header: its URL says where it was addressed
  const host = req.headers.get('host') ?? new URL(req.absoluteUrl()).host;
  if (!hostAllowed(host)) {
    return toolError('FORBIDDEN', 'host not allowed: this server does not answer requests addressed to that name', 'address this server by localhost or a name in BULLPEN_PUBLIC_URL / BULLPEN_ALLOWED_HOSTS');
  }
  if (!originAllowed(req.headers.get('origin'), { url: req.absoluteUrl(), headers: req.headers })) {
    return toolError('FORBIDDEN', 'origin not allowed: a browser page may call only from this server’s own origin', 'call from the console’s own origin, or list the origin in BULLPEN_ALLOWED_ORIGINS');
  }
  return null;
}

function isInitialize(msg: unknown): boolean {
  const one = (m: unknown) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize';
  return Array.isArray(msg) ? msg.some(one) : one(msg);
}

/**
 * The first tools/call in a message (or batch) that the key's scopes do not cover. The MCP
 * authorization spec asks for HTTP 403 with `insufficient_scope` when a token lacks the scope for
 * the requested operation; in-process callers get the same refusal as a FORBIDDEN tool result.
 */
export function outOfScope(parsed: unknown, scopes: Scopes): { tool: string; scope: string } | null {
  if (!scopes) return null;
  for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
    const msg = m as { method?: unknown; params?: { name?: unknown } } | null;
    if (msg?.method !== 'tools/call' || typeof msg.params?.name !== 'string') continue;
    const tool = getTool(msg.params.name);
    if (tool && !toolAllowed(tool, scopes)) return { tool: tool.name, scope: scopeFor(tool) };
  }
  return null;
}

/**
 * The toolsets a request names (`?toolsets=` and X-Bullpen-Toolsets, joined). The query is parsed
 * only when there is one: most requests carry none.
 */
function requestedToolsets(req: McpRequest) {
  const q = req.url.indexOf('?');
  const header = req.headers.get('x-bullpen-toolsets');
  if (q < 0 && !header) return DEFAULT_TOOLSETS;
  const values = q < 0 ? [] : new URLSearchParams(req.url.slice(q + 1)).getAll('toolsets');
  if (header) values.push(header);
  // a connection names the same toolsets on every call: its selection is worked out once
  const memo = values.join('\n');
  let selection = selections.get(memo);
  if (!selection) {
    selection = parseToolsets(values);
    if (selections.size >= 1000) selections.clear();
    selections.set(memo, selection);
  }
  return selection;
}
// no toolsets named: the default rooms (every room but the opt-in ones)
const DEFAULT_TOOLSETS = parseToolsets([]);
const selections = new Map<string, ReturnType<typeof parseToolsets>>();

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The two calls an agent makes all day, on a 2025 connection, answered without building an SDK
 * server and transport for them: one `tools/call` (a name and an object of arguments) or one
 * `tools/list`, with the headers the SDK's transport would accept. The answer is what the SDK's
 * handler registered in server.ts returns, framed as the transport frames it (a JSON body). Anything
 * else — a batch, odd params, a progress token, a header the transport would refuse — returns null
 * and goes to the SDK, which answers or refuses it as the protocol says. tests/mcp/protocol.test.ts
 * checks the two paths answer alike.
 */
async function answerDirectly(req: McpRequest, msg: unknown, ctx: McpContext): Promise<Reply | null> {
  if (!isPlainObject(msg) || msg.jsonrpc !== '2.0' || (typeof msg.id !== 'string' && typeof msg.id !== 'number')) return null;
  const accept = req.headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream') || !isJsonContentType(req.headers.get('content-type'))) return null;
  const version = req.headers.get('mcp-protocol-version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  const params = msg.params;
  let result: unknown;
  if (msg.method === 'tools/call') {
    if (!isPlainObject(params) || typeof params.name !== 'string') return null;
    const args = params.arguments;
    if (args !== undefined && !isPlainObject(args)) return null;
    for (const k of Object.keys(params)) if (k !== 'name' && k !== 'arguments' && k !== '_meta') return null;
    if (params._meta !== undefined && (!isPlainObject(params._meta) || Object.keys(params._meta).length > 0)) return null;
    result = await answerToolCall(ctx, params.name, args ?? {});
  } else if (msg.method === 'tools/list') {
    if (params !== undefined && (!isPlainObject(params) || Object.keys(params).length > 0)) return null;
    result = { tools: toolsFor(ctx) };
  } else {
    return null;
  }
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ result, jsonrpc: '2.0', id: msg.id }) };
}

/** The context of a request the 2026-07-28 handler is serving, for its server factory. */
const contexts = new WeakMap<Request, McpContext>();

/**
 * The 2026-07-28 revision (the stateless core: no handshake, `server/discover`, the per-request
 * `_meta` envelope, `Mcp-Method` / `Mcp-Name` checked against the body) is the SDK's own entry; 2025
 * traffic never reaches it (`legacy: 'reject'`), serveMcp answers that itself.
 */
const modern = createMcpHandler(
  (c) => {
    const ctx = c.requestInfo && contexts.get(c.requestInfo);
    if (!ctx) throw new Error('no caller context for this request');
    return createMcpServer(ctx);
  },
  { legacy: 'reject' },
);

/**
 * The MCP endpoint: Host and Origin check → toolsets → bearer key → rate limits → body limit →
 * scope check → the request's protocol era → a per-request stateless server inside one of the
 * workspace's slots.
 * Never throws: an unexpected failure is a 500 that shows a request id, and the log has the detail
 * under it.
 */
async function answerMcp(req: McpRequest): Promise<Reply | Response> {
  try {
    return await serveMcp(req);
  } catch (err) {
    // the client went away mid-body: nobody reads the answer
    if (err instanceof BodyAborted) return jsonRpcError(400, -32600, err.message, { connection: 'close' });
    // the database down or saturated before any tool ran (the key lookup is the first query): the
    // caller hears UNAVAILABLE / BUSY, retryable, as a tool call would, with a 503 and Retry-After
    const transient = transientDbError(err);
    if (transient) {
      return jsonRpcError(503, -32000, `${transient.code}: ${transient.message}`, { 'retry-after': '1', 'cache-control': 'no-store' }, { ok: false, error: transient });
    }
    const error = internalError(err, `${req.method} /api/mcp`);
    return jsonRpcError(500, -32603, error.message, { 'cache-control': 'no-store' }, { ok: false, error });
  }
}

/** A web Request as the endpoint reads it. */
function fromWeb(req: Request): McpRequest {
  let read = false;
  return {
    method: req.method,
    url: req.url,
    headers: req.headers,
    signal: req.signal,
    address: null,
    body: (opts) => {
      read = true;
      return readBody(req.body as BodySource, { ...opts, declared: declaredLength(req.headers) });
    },
    get bodyRead() {
      return read;
    },
    absoluteUrl: () => req.url,
    web: () => req,
  };
}

function declaredLength(headers: HeaderSource): number | null {
  const v = headers.get('content-length');
  const n = v === null ? NaN : Number(v);
  return Number.isFinite(n) ? n : null;
}

/** The endpoint for the Next.js route and in-process callers (tests): Request → Response. */
export async function handleMcp(req: Request): Promise<Response> {
  const out = await answerMcp(fromWeb(req));
  return out instanceof Response ? out : new Response(out.body, { status: out.status, headers: out.headers });
}

/** Node's request headers (lower-cased names) behind the one method the checks use. */
class NodeHeaders implements HeaderSource {
  constructor(private readonly raw: http.IncomingHttpHeaders) {}
  get(name: string): string | null {
    const v = this.raw[name];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }
}

/** Node's IncomingMessage as the endpoint reads it. */
class NodeMcpRequest implements McpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: NodeHeaders;
  /** The body as read, for the SDK's web Request. */
  private bytes: Buffer | null = null;
  private gone: AbortController | null = null;

  constructor(
    private readonly req: http.IncomingMessage,
    res: http.ServerResponse,
  ) {
    this.method = req.method ?? 'GET';
    this.url = req.url ?? '/';
    this.headers = new NodeHeaders(req.headers);
    // a client that hangs up ends a waiting call (wait_seconds) instead of letting it run out
    res.once('close', () => {
      if (!res.writableFinished) this.gone?.abort();
    });
  }

  get signal(): AbortSignal {
    return (this.gone ??= new AbortController()).signal;
  }

  get address(): string | null {
    return this.req.socket?.remoteAddress ?? null;
  }

  bodyRead = false;

  async body(opts: Omit<BodyOptions, 'declared'>): Promise<BodyRead> {
    this.bodyRead = true;
    const read = await readBody(this.req as BodySource, { ...opts, declared: declaredLength(this.headers) });
    this.bytes = read.bytes;
    return read;
  }

  absoluteUrl(): string {
    return `http://${this.req.headers.host ?? 'localhost'}${this.url}`;
  }

  web(): Request {
    const headers = new Headers();
    for (const [k, v] of Object.entries(this.req.headers)) {
      if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    }
    const hasBody = this.method !== 'GET' && this.method !== 'HEAD' && this.method !== 'OPTIONS';
    return new Request(this.absoluteUrl(), { method: this.method, headers, body: hasBody ? (this.bytes?.toString('utf8') ?? '') : undefined, signal: this.signal });
  }
}

/**
 * The endpoint on Node's own request and response (`bullpen start`): the same checks and answers as
 * handleMcp, without building a web Request or Response for the calls answered directly. Such an
 * answer is written in one `end()` with its length: head and body in one write to the socket.
 */
export async function serveMcpNode(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  try {
    const out = await answerMcp(new NodeMcpRequest(req, res));
    // a handler that answered before reading the whole body (413) leaves bytes on the socket:
    // close the connection rather than parse them as the next request
    if (!req.complete) res.shouldKeepAlive = false;
    if (!(out instanceof Response)) {
      if (out.body === null) {
        res.writeHead(out.status, out.headers);
        res.end();
        return;
      }
      // a string, not a Buffer: Node then sends the head and the body in one write, not a writev of two
      out.headers['content-length'] = String(Buffer.byteLength(out.body, 'utf8'));
      res.writeHead(out.status, out.headers);
      res.end(out.body, 'utf8');
      return;
    }
    await writeWebResponse(out, res);
  } catch (err) {
    // the detail goes to the log under a request id; the caller sees only the id
    const error = internalError(err, `${req.method} /api/mcp`);
    res.shouldKeepAlive = false;
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: error.message, data: { ok: false, error } }, id: null }));
  }
}

/** An SDK answer on Node's response: a JSON body in one piece with its length, an event stream as it comes. */
async function writeWebResponse(response: Response, res: http.ServerResponse): Promise<void> {
  const out: Record<string, string | string[]> = {};
  response.headers.forEach((v, k) => {
    out[k] = k === 'set-cookie' ? response.headers.getSetCookie() : v;
  });
  const streamed = response.headers.get('content-type')?.startsWith('text/event-stream');
  if (response.body && !streamed) {
    const bytes = Buffer.from(await response.arrayBuffer());
    out['content-length'] = String(bytes.byteLength);
    res.writeHead(response.status, out);
    res.end(bytes);
    return;
  }
  res.writeHead(response.status, out);
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  }
  res.end();
}

async function serveMcp(req: McpRequest): Promise<Reply | Response> {
  const wall = transportGuard(req);
  if (wall) return refuse(req, 403, -32000, wall);
  const cors = corsHeaders(req);
  if (req.method === 'OPTIONS') return { status: 204, headers: { ...cors }, body: null };
  const toolsets = requestedToolsets(req);
  if (!toolsets.ok) {
    const message = `unknown toolset${toolsets.unknown.length > 1 ? 's' : ''} ${toolsets.unknown.join(', ')}: the toolsets are ${toolsets.valid.join(', ')}`;
    const error = toolError('VALIDATION_ERROR', message, 'name toolsets from the list in ?toolsets= or X-Bullpen-Toolsets, comma-separated, or send none for every tool', {
      fields: ['toolsets'],
      valid: toolsets.valid,
    });
    return refuse(req, 400, -32602, error, cors);
  }

  const db = await getDb();
  const limits = getLimits(db);
  const run = runContextFrom(req.headers);
  // the one door (lib/server/auth.ts): address bucket for unknown keys, the key's bucket, the
  // lookup; the workspace is charged below, once the body's calls are known to be in scope
  const door = await authenticateRequest(req, {
    db,
    limits,
    address: req.address,
    cached: true,
    run,
    sessionId: req.headers.get('mcp-session-id'),
    deferWorkspace: true,
  });
  if (!door.ok) return doorRefusal(req, door.refusal, cors);
  if (door.caller.via !== 'key') throw new Error('the MCP endpoint admits keys only');
  const identity = door.caller.identity;
  if (req.method !== 'POST') {
    // stateless: no standalone server-to-client stream and no sessions to delete
    return jsonRpcError(405, -32000, 'method not allowed: this endpoint is stateless; POST JSON-RPC messages', {
      allow: 'POST, OPTIONS',
      ...cors,
    });
  }
  const limit = config.maxBodyBytes();
  let scanner: JsonRpcIdScanner | null = null;
  const read = await req.body({ limit, drainUpTo: drainLimit(), scan: (c) => (scanner ??= new JsonRpcIdScanner()).push(c) });
  if (!read.bytes) {
    const error = toolError('PAYLOAD_TOO_LARGE', `request body exceeds ${limit} bytes`, 'send a smaller call: split a batch, or attach large content as a file (POST /api/files)', {
      limit_bytes: limit,
    });
    const headers: Record<string, string> = { 'cache-control': 'no-store', ...cors };
    if (!read.complete) headers.connection = 'close';
    return jsonRpcError(413, -32600, `${error.code}: ${error.message}`, headers, { ok: false, error }, (scanner as JsonRpcIdScanner | null)?.id ?? null);
  }
  const text = read.bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return jsonRpcError(400, -32700, 'parse error: body is not JSON', cors);
  }
  // the era: a 2026-07-28 request carries its revision in every request's _meta (no handshake);
  // anything else is 2025 traffic, served statelessly as before
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: req.headers.get('mcp-protocol-version') ?? undefined,
    mcpMethodHeader: req.headers.get('mcp-method') ?? undefined,
    mcpNameHeader: req.headers.get('mcp-name') ?? undefined,
    body: parsed,
  });
  // A 2025 connection is named by a session id handed out on initialize. It holds no server state
  // (any instance accepts it); it names the run of a client that sends no X-Bullpen-Run.
  const issued = route.kind === 'legacy' && isInitialize(parsed) && !req.headers.get('mcp-session-id') ? `bp-${randomUUID()}` : null;
  if (issued && !run.run_id) identity.claims.run_id = derivedRunKey(identity.key_id, issued);
  const denied = outOfScope(parsed, identity.scopes);
  if (denied) {
    const error = toolError(
      'FORBIDDEN',
      `this key may not call ${denied.tool}: its scopes are ${identity.scopes!.join(',')}`,
      `${denied.tool} needs the scope ${denied.scope}; call only the tools tools/list shows, or ask an owner for a key with that scope`,
      { required_scope: denied.scope },
    );
    const challenge = `Bearer error="insufficient_scope", scope="${denied.scope}", resource_metadata="${resourceMetadataUrl(req)}", error_description="this key may not call ${denied.tool}"`;
    return jsonRpcError(403, -32001, `FORBIDDEN: ${error.message}`, { 'www-authenticate': challenge, ...cors }, { ok: false, error }, idOf(parsed));
  }
  // only a call the key may make costs its workspace a call
  const admitted = await door.admit();
  if (admitted) {
    return jsonRpcError(admitted.status, -32000, `${admitted.error.code}: ${admitted.error.message}`, { 'cache-control': 'no-store', ...admitted.headers, ...cors }, { ok: false, error: admitted.error }, idOf(parsed));
  }
  // the workspace's cap applies to its database work, not to the request: a call that waits for
  // news (inbox, task_claim with wait_seconds) holds no slot while it waits
  const gated = limits.gate(db, identity.claims.tenant_id, identity.key_id);
  const ctx: McpContext = { db: gated, claims: identity.claims, scopes: identity.scopes, signal: req.signal, toolsets: toolsets.tools };
  const direct = route.kind === 'legacy' && !issued ? await answerDirectly(req, parsed, ctx) : null;
  if (direct) {
    if (cors !== NO_CORS) Object.assign(direct.headers, cors);
    return direct;
  }
  let res: Response;
  if (route.kind === 'legacy') {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = createMcpServer(ctx);
    await server.connect(transport);
    res = await transport.handleRequest(req.web(), { parsedBody: parsed });
    // the response body is complete (JSON mode); release the per-request server
    void server.close().catch(() => {});
  } else {
    // the 2026-07-28 entry answers a ladder rejection (a header that disagrees with the body, an
    // unsupported revision) itself, before any server is built
    const web = req.web();
    contexts.set(web, ctx);
    res = await modern.fetch(web, { parsedBody: parsed });
  }
  for (const [k, v] of Object.entries(cors)) res.headers.set(k, v);
  if (issued && res.ok) res.headers.set('mcp-session-id', issued);
  return res;
}
