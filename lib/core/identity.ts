import { z } from 'zod';
import { defineTool } from './tool';
import { cursor, idempotencyKey, limit } from './fields';

export const whoamiInput = z.strictObject({
  include: z
    .array(z.enum(['tasks', 'inbox', 'delta', 'projects']))
    .max(4)
    .optional()
    .describe('sections to return (default all)'),
});
export type WhoamiInput = z.infer<typeof whoamiInput>;

export const registerActorInput = z.strictObject({
  external_ref: z.string().min(1).max(200).describe('your stable identity, e.g. "claude-code:alice-laptop"'),
  kind: z.enum(['agent', 'human', 'service']),
  display_name: z.string().min(1).max(200).optional(),
  group: z.string().min(1).max(100).optional().describe('team or pool, e.g. "backend"'),
  role: z.string().min(1).max(100).optional().describe('what this actor does, e.g. "reviewer"'),
  capabilities: z.array(z.string().min(1).max(64)).max(50).optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type RegisterActorInput = z.infer<typeof registerActorInput>;

export const actorQueryInput = z.strictObject({
  kind: z.enum(['agent', 'human', 'service']).optional(),
  group: z.string().min(1).max(100).optional(),
  capability: z.string().min(1).max(64).optional(),
  q: z.string().min(1).max(200).optional().describe('matches name, external_ref or role'),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
});
export type ActorQueryInput = z.infer<typeof actorQueryInput>;

export const identityTools = [
  defineTool({
    name: 'whoami',
    room: 'identity',
    title: 'Who am I and what is mine',
    description:
      'Call first in every run. Returns your actor and workspace, your open tasks (in_progress first), your inbox, ' +
      'pool.ready (how many tasks you could claim now), active projects, the delta of what others did since you were ' +
      'last seen, and hints.next: a concrete next tool call. Advances your last_seen_at.',
    input: whoamiInput,
    kind: 'read',
    idempotent: true,
  }),
  defineTool({
    name: 'register_actor',
    room: 'identity',
    title: 'Register an actor',
    description:
      'Register (or re-resolve) an agent, human or service by external_ref so it can be assigned tasks and addressed ' +
      'in handoffs. Idempotent by external_ref: racing calls converge on one actor; returns {actor, created}. ' +
      'The same external_ref with a different kind is a CONFLICT.',
    input: registerActorInput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
  }),
  defineTool({
    name: 'actor_query',
    room: 'identity',
    title: 'Find actors',
    description:
      'Directory of the workspace: find actors by kind, group, capability or free text. Use it to get actor ids ' +
      'before assigning tasks or creating handoffs. Returns {actors, next_cursor}.',
    input: actorQueryInput,
    kind: 'read',
    idempotent: true,
  }),
];
