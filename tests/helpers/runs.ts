import { execute } from '../../lib/core/execute';
import type { Claims } from '../../lib/db/types';
import { assertOutput, type Actor } from './db';
import '../../lib/server/wiring';

/**
 * The same actor calling under other run claims: another run key, a parent run, a series or the
 * repository it stands in (what X-Bullpen-Run, X-Bullpen-Parent-Run, X-Bullpen-Run-Group and
 * X-Bullpen-Repo set over MCP).
 */
export function asRun(actor: Actor, run: Partial<Pick<Claims, 'run_id' | 'parent_run_id' | 'run_group' | 'repo'>>): Actor {
  const claims: Claims = { ...actor.claims, ...run };
  const ctx = { ...actor.ctx, claims };
  return { id: actor.id, claims, ctx, call: async (tool, input = {}) => assertOutput(tool, await execute(ctx, tool, input)) };
}
