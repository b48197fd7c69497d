import { NextResponse, type NextRequest } from 'next/server';
import { checkTransport } from './lib/server/transport';

/**
 * The Host and Origin wall for every route Next serves, however it is hosted (`bullpen start` also
 * checks at its own front door, before Next sees the request). A request addressed to a name this
 * server does not answer, or sent by a foreign browser origin, gets 403 before any page, route or
 * server action runs.
 */
export function proxy(request: NextRequest): Response {
  return checkTransport(request) ?? NextResponse.next();
}

export const config = {
  // static build assets carry nothing to protect; everything else passes the wall
  matcher: ['/((?!_next/static|_next/image|favicon.svg).*)'],
};
