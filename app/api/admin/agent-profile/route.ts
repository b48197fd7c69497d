import { z } from 'zod';
import { getDb } from '@/lib/db';
import { adminRoute } from '@/lib/server/admin';
import { setAgentProfile } from '@/lib/server/workspace';
// a deactivation forgets the agent's cached keys in this process (lib/core/ports forgetActorKeys)
import '@/lib/server/wiring';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

const body = z.strictObject({
  name: z.string().min(1).max(200),
  workspace: z.string().min(1).max(63).optional(),
  capabilities: z.array(z.string().min(1).max(64)).max(50).optional(),
  max_concurrent_tasks: z.int().min(1).max(1000).nullable().optional(),
  default_model: z.string().min(1).max(200).nullable().optional(),
  model_provider: z.string().min(1).max(100).nullable().optional(),
  status: z.enum(['active', 'paused', 'deactivated']).optional(),
});

/**
 * Local administration for the CLI while the server holds the embedded database: an agent's
 * capabilities, load limit, model and status (`bullpen agent add … --capabilities`, `bullpen agent
 * pause|resume|deactivate|activate NAME`), applied as the workspace owner through register_actor.
 */
export async function POST(req: Request): Promise<Response> {
  return adminRoute(req, body, async (input) => setAgentProfile(await getDb(), input));
}
