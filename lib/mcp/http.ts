import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { getDb } from '../db';
import { mapDbError } from '../db/errors';
import { authenticateKey, bearer, derivedRunKey, runContextFrom } from '../server/auth';
import { config, requestOrigin } from '../server/config';
import { createMcpServer } from './server';

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}, data?: unknown): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message, ...(data === undefined ? {} : { data }) }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** The protected-resource metadata URL advertised on 401s. */
export function resourceMetadataUrl(req: Request): string {
  return `${requestOrigin(req)}/.well-known/oauth-protected-resource`;
}

function originAllowed(req: Request): boolean {
  const origin = req.headers.get('origin');
  if (!origin) return true; // not a browser: agents and CLIs send no Origin
  const allowed = new Set([requestOrigin(req), ...config.allowedOrigins()]);
  return allowed.has(origin.replace(/\/$/, ''));
}

function corsHeaders(req: Request): Record<string, string> {
  const origin = req.headers.get('origin');
  if (!origin || !originAllowed(req)) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-headers': 'authorization, content-type, mcp-protocol-version, mcp-session-id, x-bullpen-run, x-bullpen-parent-run, x-bullpen-run-group, x-bullpen-repo, last-event-id',
    'access-control-expose-headers': 'mcp-session-id, www-authenticate',
    'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS',
    vary: 'origin',
  };
}

async function readBody(req: Request, limit: number): Promise<{ tooLarge: true } | { tooLarge: false; text: string }> {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) return { tooLarge: true };
  if (!req.body) return { tooLarge: false, text: '' };
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return { tooLarge: true };
    }
    chunks.push(value);
  }
  return { tooLarge: false, text: Buffer.concat(chunks).toString('utf8') };
}

function isInitialize(msg: unknown): boolean {
  const one = (m: unknown) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize';
  return Array.isArray(msg) ? msg.some(one) : one(msg);
}

/**
 * The MCP endpoint: Origin check → bearer key → body limit → a per-request stateless server.
 * Usable in-process (tests call it with a Request) and from the Next.js route.
 */
export async function handleMcp(req: Request): Promise<Response> {
  if (!originAllowed(req)) {
    return jsonRpcError(403, -32000, `origin not allowed: ${req.headers.get('origin')}`);
  }
  const cors = corsHeaders(req);
  if (req.method === 'OPTIONS') return new Response(null, { status: 204, headers: cors });

  const db = await getDb();
  const run = runContextFrom(req.headers);
  let identity: Awaited<ReturnType<typeof authenticateKey>>;
  try {
    identity = await authenticateKey(db, bearer(req.headers), run, { sessionId: req.headers.get('mcp-session-id') });
  } catch (err) {
    // the key lookup is the first query: a database that is down or saturated answers here, and
    // the caller should hear UNAVAILABLE / BUSY (retryable, Retry-After), as a tool call would
    const error = mapDbError(err);
    if (!error.retryable || error.code === 'INTERNAL') throw err;
    return jsonRpcError(503, -32000, `${error.code}: ${error.message}`, { 'retry-after': '1', ...cors }, { ok: false, error });
  }
  if (!identity) {
    return jsonRpcError(401, -32001, 'missing, unknown or revoked API key: send Authorization: Bearer bp_live_…', {
      'www-authenticate': `Bearer resource_metadata="${resourceMetadataUrl(req)}"`,
      ...cors,
    });
  }
  if (req.method !== 'POST') {
    // stateless: no standalone server-to-client stream and no sessions to delete
    return jsonRpcError(405, -32000, 'method not allowed: this endpoint is stateless; POST JSON-RPC messages', {
      allow: 'POST, OPTIONS',
      ...cors,
    });
  }
  const body = await readBody(req, config.maxBodyBytes());
  if (body.tooLarge) {
    return jsonRpcError(413, -32600, `request body exceeds ${config.maxBodyBytes()} bytes`, cors);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.text);
  } catch {
    return jsonRpcError(400, -32700, 'parse error: body is not JSON', cors);
  }
  // A connection is named by a session id handed out on initialize. It holds no server state (any
  // instance accepts it); it names the run of a client that sends no X-Bullpen-Run.
  const issued = isInitialize(parsed) && !req.headers.get('mcp-session-id') ? `bp-${randomUUID()}` : null;
  if (issued && !run.run_id) identity.claims.run_id = derivedRunKey(identity.key_id, issued);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const server = createMcpServer({ db, claims: identity.claims, signal: req.signal });
  await server.connect(transport);
  const res = await transport.handleRequest(req, { parsedBody: parsed });
  for (const [k, v] of Object.entries(cors)) res.headers.set(k, v);
  if (issued && res.ok) res.headers.set('mcp-session-id', issued);
  // the response body is complete (JSON mode); release the per-request server
  void server.close().catch(() => {});
  return res;
}
