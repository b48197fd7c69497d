/** Every environment setting the server reads, with its default. The README's table mirrors this. */
export const config = {
  /** Public base URL, used in printed links and the OAuth resource metadata. */
  publicUrl(): string | null {
    return process.env.BULLPEN_PUBLIC_URL?.replace(/\/$/, '') ?? null;
  },
  /** Extra browser origins allowed to call /api/mcp (comma-separated). The server's own origin always is. */
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
};

/** The origin a request was addressed to, honouring BULLPEN_PUBLIC_URL behind a proxy. */
export function requestOrigin(req: Request): string {
  const fixed = config.publicUrl();
  if (fixed) return new URL(fixed).origin;
  const url = new URL(req.url);
  const host = req.headers.get('x-forwarded-host') ?? req.headers.get('host') ?? url.host;
  const proto = req.headers.get('x-forwarded-proto') ?? url.protocol.replace(':', '');
  return `${proto}://${host}`;
}
