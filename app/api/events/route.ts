import { toolError } from '@/lib/core/errors';
import { consoleDoor } from '@/lib/console/door';
import { getHub } from '@/lib/console/hub';
import { liveStream, parseResume } from '@/lib/console/live-stream';
import { changeReplay } from '@/lib/console/ops';
import { sessionLive as sessionStillLive } from '@/lib/console/session';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/**
 * The live feed of the signed-in human's workspace as Server-Sent Events. `Last-Event-ID` (sent by
 * EventSource on reconnect) or `?after=SEQ` resumes from the activity log without a gap; the client
 * drops seqs it already has (the replay overlaps a short window on purpose, see change_replay).
 * With `Accept: application/json` and `?after=`, answers the missed events once as JSON instead
 * (the catch-up the Supabase Realtime path uses after a reconnect).
 */
export async function GET(req: Request): Promise<Response> {
  const door = await consoleDoor(req);
  if (door instanceof Response) return door;
  const { db, session } = door;
  const who = { db, claims: session.claims };
  const url = new URL(req.url);
  const resume = parseResume(req.headers.get('last-event-id'), url.searchParams.get('after'));
  if ((req.headers.get('accept') ?? '').includes('application/json') && !(req.headers.get('accept') ?? '').includes('text/event-stream')) {
    if (resume === null) return Response.json({ ok: false, error: toolError('VALIDATION_ERROR', 'after: a seq is required') }, { status: 400 });
    const { events, truncated } = await changeReplay(who, resume);
    return Response.json({ ok: true, events, truncated }, { headers: { 'cache-control': 'no-store' } });
  }
  const hub = await getHub(db);
  if (hub.closed) {
    // shutting down: close this connection so the server can exit; the browser resumes elsewhere
    return new Response('shutting down', { status: 503, headers: { connection: 'close', 'retry-after': '1' } });
  }
  // a local session is re-checked against its row; a Supabase session against its token and the auth server
  const sid = session.sid;
  const sessionLive = sid ? () => sessionStillLive(db, { tenant_id: session.tenant_id, actor_id: session.actor_id, sid }) : session.stillLive;
  const body = liveStream({ who, hub, resume, signal: req.signal, sessionLive });
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      // no-transform keeps compression from buffering the stream
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
}
