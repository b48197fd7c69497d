import { getDb } from '../db';
import type { Db } from '../db/types';
import { authenticateRequest, doorResponse } from '../server/auth';
import { getSession, type ConsoleSession } from './auth';

/**
 * The door of a console-only route: the signed-in person's session (no API key is read), charged
 * to the person's and the workspace's rate limits. The database and the session, or the Response
 * that refuses the request (401 signed out, 429 over a limit).
 */
export async function consoleDoor(req: Request): Promise<{ db: Db; session: ConsoleSession } | Response> {
  const db = await getDb();
  const door = await authenticateRequest(req, { db, session: getSession, keys: false });
  if (!door.ok) return doorResponse(door.refusal);
  if (door.caller.via !== 'session') throw new Error('a console route admits console sessions only');
  return { db, session: door.caller.session };
}
