import { env, envNumber } from '../shared/env';

/** Settings of the server's front door, read through the one list of variables (lib/shared/env.ts). */
export const config = {
  /** Public base URL, used in printed links and the OAuth resource metadata. */
  publicUrl(): string | null {
    return env('BULLPEN_PUBLIC_URL')?.replace(/\/$/, '') ?? null;
  },
  /**
   * Extra browser origins allowed to call any route (comma-separated, exact `scheme://host:port`).
   * The server's own origin (and BULLPEN_PUBLIC_URL's) always is; no other, not even another port
   * of localhost.
   */
  allowedOrigins(): string[] {
    return (env('BULLPEN_ALLOWED_ORIGINS') ?? '')
      .split(',')
      .map((s) => s.trim().replace(/\/$/, ''))
      .filter(Boolean);
  },
  /** Largest MCP request body accepted, in bytes. */
  maxBodyBytes(): number {
    return envNumber('BULLPEN_MCP_MAX_BODY_BYTES');
  },
  /** Largest body the console, admin and sign-in routes read, in bytes. */
  maxRouteBodyBytes(): number {
    return envNumber('BULLPEN_MAX_BODY_BYTES');
  },
  /**
   * Largest export `bullpen import` sends to a running server's import route, in bytes (256 MiB by
   * default): the front door holds that route to this, not to the routes' usual limit.
   */
  maxImportBytes(): number {
    return envNumber('BULLPEN_IMPORT_MAX_BYTES');
  },
  /**
   * How long start-up (and a CLI command that opens the database itself) may take to open the
   * database and run its migrations before it stops with an error naming `bullpen restore`, in ms.
   */
  dbOpenTimeoutMs(): number {
    const v = envNumber('BULLPEN_DB_OPEN_TIMEOUT_MS');
    return Number.isFinite(v) && v > 0 ? v : 300_000;
  },
};

/** Whether X-Forwarded-* headers are believed: only with BULLPEN_TRUST_PROXY, behind a proxy you run. */
export function trustsProxy(): boolean {
  return /^(1|true|yes)$/i.test(env('BULLPEN_TRUST_PROXY') ?? '');
}

/**
 * The origin a request was addressed to: BULLPEN_PUBLIC_URL when set; else the Host header (and
 * X-Forwarded-Host / -Proto only with BULLPEN_TRUST_PROXY: anyone can send those headers).
 */
export function requestOrigin(req: { url: string; headers: Headers }): string {
  const fixed = config.publicUrl();
  if (fixed) return new URL(fixed).origin;
  const url = new URL(req.url);
  const trusted = trustsProxy();
  const first = (v: string | null) => v?.split(',')[0]?.trim() || null;
  const host = (trusted ? first(req.headers.get('x-forwarded-host')) : null) ?? req.headers.get('host') ?? url.host;
  const fwdProto = trusted ? first(req.headers.get('x-forwarded-proto')) : null;
  const proto = fwdProto === 'https' || fwdProto === 'http' ? fwdProto : url.protocol.replace(':', '');
  return `${proto}://${host}`;
}

/** Whether the browser reached us over https (the session cookie then takes the __Host- prefix). */
export function isSecureRequest(req: { url: string; headers: Headers }): boolean {
  return requestOrigin(req).startsWith('https:');
}
