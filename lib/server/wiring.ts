import { provideCorePorts, type ReadyAfter } from '../core/ports';
import type { Db } from '../db/types';
import { embedQuery } from '../memory/query';
import { forgetActorKeys } from './auth';

/**
 * Plugs the outer layers' services into the contract's ports. Imported for its effect by every
 * entry that executes tools (the MCP server, the console's operations, the test and bench helpers):
 * lib/core defines what it needs and never imports lib/memory itself.
 */
// the waiters' read: the server's own connection (every workspace's waiters live in one process)
const readyAfter: ReadyAfter = async (db, tenantId, taskIds) => {
  const [row] = await (db as unknown as Pick<Db, 'query'>).query<{ r: Awaited<ReturnType<ReadyAfter>> }>(
    'select bullpen.ready_after($1::uuid, $2::uuid[]) as r',
    [tenantId, taskIds],
  );
  return row?.r ?? [];
};

provideCorePorts({ embedQuery, readyAfter, forgetActorKeys });
