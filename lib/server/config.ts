/** Every environment setting the server reads, with its default. The README's table mirrors this. */
export const config = {
  /** Public base URL, used in printed links and the OAuth resource metadata. */
  publicUrl(): string | null {
    return process.env.BULLPEN_PUBLIC_URL?.replace(/\/$/, '') ?? null;
  },
  /**
   * Extra browser origins allowed to call any route (comma-separated, exact `scheme://host:port`).
   * The server's own origin (and BULLPEN_PUBLIC_URL's) always is; no other, not even another port
   * of localhost.
   */
  allowedOrigins(): string[] {
    return (process.env.BULLPEN_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim().replace(/\/$/, ''))
      .filter(Boolean);
  },
  /** Largest MCP request body accepted, in bytes. */
  maxBodyBytes(): number {
    return Number(process.env.BULLPEN_MCP_MAX_BODY_BYTES ?? 1_048_576);
  },
  /** Largest body the console, admin and sign-in routes read, in bytes. */
  maxRouteBodyBytes(): number {
    return Number(process.env.BULLPEN_MAX_BODY_BYTES ?? 262_144);
  },
  /**
   * Largest export `bullpen import` sends to a running server's import route, in bytes (256 MiB by
   * default): the front door holds that route to this, not to the routes' usual limit.
   */
  maxImportBytes(): number {
    return Number(process.env.BULLPEN_IMPORT_MAX_BYTES ?? 268_435_456);
  },
};

/** Whether X-Forwarded-* headers are believed: only with BULLPEN_TRUST_PROXY, behind a proxy you run. */
export function trustsProxy(): boolean {
  return /^(1|true|yes)$/i.test(process.env.BULLPEN_TRUST_PROXY ?? '');
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
