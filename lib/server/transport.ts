import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { config, trustsProxy } from './config';
import { env } from '../shared/env';

/**
 * The closed transport: which Host and Origin a request may carry, whether X-Forwarded-* is
 * believed, and how much body any route reads.
 *
 * Host allowlist. A browser tricked by DNS rebinding sends the attacker's name in Host (and in
 * Origin), so a request is answered only when it is addressed to a name the operator chose:
 * localhost names (what a loopback bind is reached by), the host of BULLPEN_PUBLIC_URL, and
 * BULLPEN_ALLOWED_HOSTS. Anything else is 403, before any key or cookie is looked at.
 */

const LOCAL_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** The one thing the checks read of a request's headers: a web Headers, or a view over Node's. */
export type HeaderSource = { get(name: string): string | null };

/** Whether an address is a loopback interface (what `bullpen start` binds by default). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

function isLocalName(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return LOCAL_NAMES.has(h) || h.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Splits a Host header (or an origin's host) into name and port; null when it does not parse. */
function parseHost(host: string): { hostname: string; host: string } | null {
  if (!host || host.length > 255 || /[\s/@?#\\]/.test(host)) return null;
  try {
    const u = new URL(`http://${host}`);
    return { hostname: u.hostname.toLowerCase(), host: u.host.toLowerCase() };
  } catch {
    return null;
  }
}

/** The extra names the operator allows: BULLPEN_PUBLIC_URL's host and BULLPEN_ALLOWED_HOSTS. */
export function configuredHosts(): string[] {
  const out: string[] = [];
  const pub = config.publicUrl();
  if (pub) {
    try {
      out.push(new URL(pub).hostname.toLowerCase());
    } catch {
      // a malformed public URL allows nothing extra
    }
  }
  for (const h of (env('BULLPEN_ALLOWED_HOSTS') ?? '').split(',')) {
    const t = h.trim().toLowerCase();
    if (t) out.push(t);
  }
  return out;
}

let lastLocalHost: string | null = null;

/**
 * Whether a request addressed to this Host header may be answered. Entries of
 * BULLPEN_ALLOWED_HOSTS match the name (`bullpen.example.com`) or name and port
 * (`bullpen.example.com:8443`); `*.example.com` matches subdomains.
 */
export function hostAllowed(hostHeader: string | null | undefined): boolean {
  // an agent sends the same Host on every call: a localhost name stays allowed whatever the
  // environment says, so the last one seen is not parsed again
  if (hostHeader != null && hostHeader === lastLocalHost) return true;
  const parsed = parseHost(hostHeader ?? '');
  if (!parsed) return false;
  if (isLocalName(parsed.hostname)) {
    lastLocalHost = hostHeader!;
    return true;
  }
  for (const allowed of configuredHosts()) {
    if (allowed === parsed.hostname || allowed === parsed.host) return true;
    if (allowed.startsWith('*.') && parsed.hostname.endsWith(allowed.slice(1))) return true;
  }
  return false;
}

/** What the Origin check reads of a request: its headers, and its URL when it is absolute. */
export type OriginSource = { url?: string; headers: HeaderSource };

/** An origin in its canonical form (`scheme://host[:port]`, default ports dropped), or null. */
function canonicalOrigin(o: string): string | null {
  try {
    const u = new URL(o.trim());
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    if (u.username || u.password || (u.pathname !== '/' && u.pathname !== '') || u.search || u.hash) return null;
    return u.origin;
  } catch {
    return null;
  }
}

/**
 * The origins this request may come from: the server's own as the request addressed it (its scheme,
 * and the Host header with its port), and BULLPEN_PUBLIC_URL's origin when set. The scheme is the
 * request URL's when absolute (Next's requests), else http, or X-Forwarded-Proto with
 * BULLPEN_TRUST_PROXY.
 */
export function ownOrigins(req: OriginSource): string[] {
  const out: string[] = [];
  const pub = config.publicUrl();
  if (pub) {
    try {
      out.push(new URL(pub).origin);
    } catch {
      // a malformed public URL names no origin
    }
  }
  let scheme = 'http';
  let host = req.headers.get('host');
  if (req.url && /^https?:/i.test(req.url)) {
    try {
      const u = new URL(req.url);
      scheme = u.protocol.slice(0, -1);
      host ??= u.host;
    } catch {
      // a relative URL: the defaults stand
    }
  }
  if (trustsProxy()) {
    const proto = req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim();
    if (proto === 'http' || proto === 'https') scheme = proto;
    const fwd = req.headers.get('x-forwarded-host')?.split(',')[0]?.trim();
    if (fwd) host = fwd;
  }
  if (host && parseHost(host)) {
    const o = canonicalOrigin(`${scheme}://${host}`);
    if (o) out.push(o);
  }
  return out;
}

/**
 * Whether a browser Origin may call: absent (agents and CLIs send none), or exactly the server's
 * own origin (scheme, host and port: see ownOrigins), or one listed in BULLPEN_ALLOWED_ORIGINS.
 * Another port of localhost is another origin: a page served there is refused. `Origin: null` never
 * passes.
 */
export function originAllowed(origin: string | null | undefined, req: OriginSource): boolean {
  if (origin == null) return true;
  const o = canonicalOrigin(origin);
  if (!o) return false;
  if (config.allowedOrigins().some((a) => canonicalOrigin(a) === o)) return true;
  return ownOrigins(req).includes(o);
}

/** The 403 every surface answers to a Host or Origin it does not serve (a JSON envelope, no detail). */
export function transportRefusal(what: 'host' | 'origin'): Response {
  return Response.json(
    {
      ok: false,
      error: {
        code: 'FORBIDDEN',
        message: what === 'host' ? 'this server does not answer requests addressed to that host' : 'this origin may not call this server',
        hint:
          what === 'host'
            ? 'address the server by localhost, or add the name to BULLPEN_PUBLIC_URL / BULLPEN_ALLOWED_HOSTS'
            : 'call from the console’s own origin, or list the origin in BULLPEN_ALLOWED_ORIGINS',
        retryable: false,
      },
    },
    { status: 403, headers: { 'cache-control': 'no-store' } },
  );
}

/** The checks every route runs first: Host, then Origin. Null when the request may go on. */
export function checkTransport(req: OriginSource): Response | null {
  if (!hostAllowed(req.headers.get('host'))) return transportRefusal('host');
  if (!originAllowed(req.headers.get('origin'), req)) return transportRefusal('origin');
  return null;
}

export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
  }
}

/** The client went away before its body arrived whole. */
export class BodyAborted extends Error {
  constructor() {
    super('the client closed the connection before sending the whole body');
  }
}

/** A request body as both servers hand it over: a web stream, or Node's IncomingMessage. */
export type BodySource = AsyncIterable<Uint8Array> | null | undefined;

/** How the body loop treats bytes past the limit. */
export type BodyOptions = {
  /** Bytes kept; more is "too large". */
  limit: number;
  /** The declared Content-Length, when there is one. */
  declared?: number | null;
  /**
   * Past the limit, keep reading (and discarding) up to this many bytes in all, so the answer can
   * go out on a connection the client may reuse. 0: stop at the limit (the connection then closes).
   */
  drainUpTo?: number;
  /** Sees every byte once the body is over the limit, those kept before included (e.g. to find a JSON-RPC id). */
  scan?: (chunk: Uint8Array) => void;
  /** Takes each chunk within the limit instead of the loop keeping it (`bytes` is then empty): a body spooled to disk. */
  sink?: (chunk: Uint8Array) => Promise<void>;
};

/** What the loop read: the kept bytes (null when over the limit) and whether the body was read to its end. */
export type BodyRead = { bytes: Buffer | null; size: number; complete: boolean };

/**
 * The one loop that reads a request body, for every route and both servers. Keeps up to
 * `opts.limit` bytes; past it keeps draining (up to `drainUpTo`) so the connection stays usable,
 * or stops reading. A declared length over what would be drained is not read at all. Throws
 * BodyAborted when the client goes away mid-body.
 */
export async function readBody(body: BodySource, opts: BodyOptions): Promise<BodyRead> {
  const drainUpTo = Math.max(opts.drainUpTo ?? 0, opts.limit);
  const declared = opts.declared ?? NaN;
  if (Number.isFinite(declared) && declared > drainUpTo) return { bytes: null, size: 0, complete: false };
  if (!body) return { bytes: Buffer.alloc(0), size: 0, complete: true };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let over = false;
  try {
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (!over && size > opts.limit) {
        over = true;
        // what was kept is no longer needed, but the scanner must see it
        for (const c of chunks) opts.scan?.(c);
        chunks.length = 0;
      }
      if (over) {
        opts.scan?.(chunk);
        if (size > drainUpTo) return { bytes: null, size, complete: false };
        continue;
      }
      if (opts.sink) await opts.sink(chunk);
      else chunks.push(chunk);
    }
  } catch (err) {
    if (opts.sink && !(err instanceof BodyAborted) && (err as NodeJS.ErrnoException)?.syscall) throw err;
    throw new BodyAborted();
  }
  if (over) return { bytes: null, size, complete: true };
  return { bytes: chunks.length === 1 ? Buffer.from(chunks[0].buffer, chunks[0].byteOffset, chunks[0].byteLength) : Buffer.concat(chunks), size, complete: true };
}

/**
 * Reads a request body as text up to `limit` bytes. A declared Content-Length over the limit is
 * refused before reading; a chunked body is cut off as soon as it passes the limit. Throws
 * BodyTooLarge.
 */
export async function readBodyText(req: Request, limit: number): Promise<string> {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  const read = await readBody(req.body as BodySource, { limit, declared });
  if (!read.bytes) throw new BodyTooLarge(limit);
  return read.bytes.toString('utf8');
}

/**
 * Writes a request body to `file` (created 0600) as it arrives, up to `limit` bytes, never holding
 * more than one chunk: for bodies too large to keep in memory (an import). Throws BodyTooLarge.
 */
export async function spoolBody(req: Request, limit: number, file: string): Promise<number> {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  const out = await open(file, 'wx', 0o600);
  try {
    const read = await readBody(req.body as BodySource, { limit, declared, sink: async (c) => void (await out.write(c)) });
    if (!read.bytes) throw new BodyTooLarge(limit);
    return read.size;
  } finally {
    await out.close();
  }
}

/**
 * Finds the `id` of a JSON-RPC request as its bytes stream by, without keeping them: a refusal of a
 * body too large to parse can still answer the caller's id. Reads the top-level object's members
 * only (an `id` nested in params is skipped); a batch or anything unreadable leaves it null.
 */
export class JsonRpcIdScanner {
  /** The id once read: a string or number, else null. */
  id: string | number | null = null;
  private done = false;
  private depth = 0;
  private inString = false;
  private escape = false;
  /** Where the top-level object stands: before a key, before the colon, before a value, after it. */
  private phase: 'key' | 'colon' | 'value' | 'after' = 'key';
  private key: number[] | null = null;
  private keyIsId = false;
  private value: number[] | null = null;
  private number = false;

  push(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length && !this.done; i++) this.byte(chunk[i]);
  }

  private finishValue(): void {
    try {
      const v: unknown = JSON.parse(Buffer.from(this.value!).toString('utf8'));
      if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) this.id = v;
    } catch {
      // not a readable id
    }
    this.done = true;
  }

  private byte(b: number): void {
    if (this.inString) {
      if (this.key) this.key.push(b);
      if (this.value) {
        this.value.push(b);
        if (this.value.length > 512) this.done = true;
      }
      if (this.escape) this.escape = false;
      else if (b === 0x5c) this.escape = true;
      else if (b === 0x22) {
        this.inString = false;
        if (this.key) {
          // the key's raw bytes are `"id"` exactly for the id member (an escaped spelling is no id)
          this.keyIsId = this.key.length === 3 && this.key[0] === 0x69 && this.key[1] === 0x64;
          this.key = null;
          this.phase = 'colon';
        } else if (this.value) this.finishValue();
      }
      return;
    }
    if (this.number) {
      if (b === 0x2c || b === 0x7d || b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) return this.finishValue();
      this.value!.push(b);
      if (this.value!.length > 64) this.done = true;
      return;
    }
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) return;
    const top = this.depth === 1;
    if (b === 0x22) {
      this.inString = true;
      if (top && this.phase === 'key') this.key = [];
      else if (top && this.phase === 'value') {
        this.phase = 'after';
        if (this.keyIsId) this.value = [b];
      }
      return;
    }
    if (b === 0x7b || b === 0x5b) {
      if (this.depth === 0 && b !== 0x7b) this.done = true;
      if (top && this.phase === 'value') {
        this.phase = 'after';
        if (this.keyIsId) this.done = true;
      }
      this.depth++;
      return;
    }
    if (b === 0x7d || b === 0x5d) {
      this.depth--;
      if (this.depth <= 0) this.done = true;
      return;
    }
    if (!top) return;
    if (b === 0x3a && this.phase === 'colon') this.phase = 'value';
    else if (b === 0x2c) this.phase = 'key';
    else if (this.phase === 'value') {
      this.phase = 'after';
      if (this.keyIsId) {
        this.number = true;
        this.value = [b];
      }
    }
  }
}

/** Reads a JSON body within the limit: the value, or undefined when it is not JSON. Throws BodyTooLarge. */
export async function readJsonBody(req: Request, limit: number = config.maxRouteBodyBytes()): Promise<unknown> {
  const text = await readBodyText(req, limit);
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The 413 envelope of the console and admin routes. */
export function tooLargeResponse(limit: number): Response {
  return Response.json(
    {
      ok: false,
      error: { code: 'PAYLOAD_TOO_LARGE', message: `request body exceeds ${limit} bytes`, hint: 'send a smaller request', retryable: false },
    },
    { status: 413, headers: { 'cache-control': 'no-store', connection: 'close' } },
  );
}

/** The header the front door stamps with the client's socket address for the routes behind it. */
export const PEER_HEADER = 'x-bullpen-peer';
const PEER = Symbol.for('bullpen.peerSecret');

/** A per-process secret that proves a stamp was made by this process's front door, not sent by a client. */
function peerSecret(): string {
  const g = globalThis as { [PEER]?: string };
  return (g[PEER] ??= randomBytes(16).toString('hex'));
}

/** Stamps the client's address on Node's request headers, replacing whatever the client sent. */
export function stampPeer(headers: Record<string, string | string[] | undefined>, address: string | undefined): void {
  headers[PEER_HEADER] = `${peerSecret()} ${address ?? 'unknown'}`;
}

/**
 * The client's address for the per-address limits: with BULLPEN_TRUST_PROXY, the last hop the
 * proxy added to X-Forwarded-For; else the socket's (given, or stamped by the front door of
 * `bullpen start`). A stamp this process did not make is ignored: a client cannot choose its bucket.
 */
export function clientAddress(headers: HeaderSource, socketAddress?: string | null): string {
  if (trustsProxy()) {
    const hops = headers.get('x-forwarded-for')?.split(',').map((h) => h.trim()).filter(Boolean);
    if (hops?.length) return hops[hops.length - 1];
  }
  if (socketAddress) return socketAddress;
  const stamp = headers.get(PEER_HEADER);
  const secret = peerSecret();
  if (stamp && stamp.startsWith(`${secret} `)) return stamp.slice(secret.length + 1);
  return 'unknown';
}
