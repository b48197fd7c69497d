import { config } from './config';

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
  for (const h of (process.env.BULLPEN_ALLOWED_HOSTS ?? '').split(',')) {
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

/**
 * Whether a browser Origin may call: absent (agents and CLIs send none), or an http(s) origin
 * whose host is allowed, or one listed in BULLPEN_ALLOWED_ORIGINS. `Origin: null` never is.
 */
export function originAllowed(origin: string | null | undefined): boolean {
  if (origin == null) return true;
  const o = origin.trim().replace(/\/$/, '');
  if (config.allowedOrigins().includes(o)) return true;
  let u: URL;
  try {
    u = new URL(o);
  } catch {
    return false;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  return hostAllowed(u.host);
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
export function checkTransport(req: { headers: HeaderSource }): Response | null {
  if (!hostAllowed(req.headers.get('host'))) return transportRefusal('host');
  if (!originAllowed(req.headers.get('origin'))) return transportRefusal('origin');
  return null;
}

export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body exceeds ${limit} bytes`);
  }
}

/**
 * Reads a request body up to `limit` bytes. A declared Content-Length over the limit is refused
 * before reading; a chunked body is cut off as soon as it passes the limit. Throws BodyTooLarge.
 */
export async function readBodyText(req: Request, limit: number): Promise<string> {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge(limit);
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
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
