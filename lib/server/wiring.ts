import { provideCorePorts } from '../core/ports';
import { embedQuery } from '../memory/query';
import { forgetActorKeys } from './auth';

/**
 * Plugs the outer layers' services into the contract's ports. Imported for its effect by every
 * entry that executes tools (the MCP server, the console's operations, the test and bench helpers):
 * lib/core defines what it needs and never imports lib/memory itself.
 */
provideCorePorts({ embedQuery, forgetActorKeys });
