import { NextResponse, type NextRequest } from 'next/server';
import { checkTransport } from './lib/server/transport';

/**
 * The Host and Origin wall for every route Next serves, however it is hosted (`bullpen start` also
 * checks at its own front door, before Next sees the request). A request addressed to a name this
 * server does not answer, or sent by a browser page of another origin (another port of localhost
 * included), gets 403 before any page, route or server action runs. Pages and routes answer with
 * framing forbidden (clickjacking). The MCP endpoint makes the same checks itself and answers them
 * as JSON-RPC errors (lib/mcp/http.ts), so it is not refused here.
 */
export function proxy(request: NextRequest): Response {
  if (request.nextUrl.pathname === '/api/mcp') return NextResponse.next();
  const refused = checkTransport(request);
  if (refused) return withFrameGuard(refused);
  return withFrameGuard(NextResponse.next());
}

/** No page of this server may be framed by another (or by itself): CSP frame-ancestors and the older X-Frame-Options. */
function withFrameGuard<R extends Response>(res: R): R {
  res.headers.set('content-security-policy', "frame-ancestors 'none'");
  res.headers.set('x-frame-options', 'DENY');
  return res;
}

export const config = {
  // static build assets carry nothing to protect; everything else passes the wall
  matcher: ['/((?!_next/static|_next/image|favicon.svg).*)'],
};
