import { z } from 'zod';
import { getDb } from '@/lib/db';
import { adminRoute } from '@/lib/server/admin';
import { agentProfileInput, setAgentProfile } from '@/lib/server/workspace';
// a deactivation forgets the agent's cached keys in this process (lib/core/ports forgetActorKeys)
import '@/lib/server/wiring';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

// the profile fields are register_actor's own (lib/core/identity.ts): the route adds who and where
const body = agentProfileInput.extend({
  name: z.string().min(1).max(200),
  workspace: z.string().min(1).max(63).optional(),
});

/**
 * Local administration for the CLI while the server holds the embedded database: an agent's
 * capabilities, load limit, model and status (`bullpen agent add … --capabilities`, `bullpen agent
 * pause|resume|deactivate|activate NAME`), applied as the workspace owner through register_actor.
 */
export async function POST(req: Request): Promise<Response> {
  return adminRoute(req, body, async (input) => setAgentProfile(await getDb(), input));
}
