import { z } from 'zod';
import { defineTool } from './tool';
import { corePort } from './ports';
import { actorKind, actorStatus, cursor, docs, idempotencyKey, limit } from './fields';
import { activityEntry, actorQueryRow, actorRow, id, inboxCounts, inboxItem, nextCursor, projectStub, taskRow, timestamp, writeResult } from './rows';
import { activityReadable } from './scope-rooms';

export const whoamiInput = z.strictObject({
  include: z
    .array(z.enum(['tasks', 'inbox', 'delta', 'projects']))
    .max(4)
    .optional()
    .meta(docs('default all')),
});
export type WhoamiInput = z.infer<typeof whoamiInput>;

export const whoamiOutput = z.strictObject({
  actor: actorRow,
  tenant: z.strictObject({ id, slug: z.string(), name: z.string() }).describe('your workspace'),
  run_id: z.string().nullable(),
  pool: z.strictObject({
    ready: z.number().int().min(0).max(100).describe('tasks you could claim now, counted up to 100'),
    more: z.boolean().describe('true when more than 100 are ready'),
  }),
  hints: z.strictObject({
    next: z
      .strictObject({ tool: z.string(), arguments: z.record(z.string(), z.unknown()), why: z.string() })
      .describe('a concrete next call'),
  }),
  open_tasks: z.array(taskRow).optional().describe('yours, in_progress first (up to 25)'),
  inbox: z.array(inboxItem).max(5).optional().describe('the five oldest items waiting for you (inbox returns them all)'),
  inbox_count: z.number().int().nonnegative().optional().describe('how many items wait in your inbox'),
  inbox_counts: inboxCounts.optional(),
  projects: z.array(projectStub).optional().describe('planned and active projects (up to 20)'),
  delta: z
    .strictObject({
      since: timestamp.nullable().describe('your previous last_seen_at'),
      first_visit: z.boolean(),
      count: z.number().int().min(0).max(500),
      truncated: z.boolean().describe('more than 500 changes: count and by_verb cover the newest 500'),
      by_verb: z.record(z.string(), z.number().int()),
      recent: z.array(activityEntry).describe('the 15 newest, by others'),
    })
    .optional()
    .describe('what others did since you were last seen'),
});
export type WhoamiOutput = z.infer<typeof whoamiOutput>;

type Delta = { count: number; by_verb: Record<string, number>; recent: { verb: string; object_type?: string | null }[] };

/**
 * whoami's delta as a scoped key may see it: only the rows and verb counts its scopes may read
 * (lib/core/scopes.ts activityReadable); count follows what is left.
 */
export function narrowWhoami(out: Record<string, unknown>, scopes: readonly string[] | null | undefined): Record<string, unknown> {
  const delta = out.delta as Delta | undefined;
  if (!scopes || !delta) return out;
  const by_verb = Object.fromEntries(Object.entries(delta.by_verb).filter(([verb]) => activityReadable({ verb }, scopes)));
  const recent = delta.recent.filter((e) => activityReadable(e, scopes));
  const count = Object.values(by_verb).reduce((a, b) => a + b, 0);
  return { ...out, delta: { ...delta, by_verb, recent, count } };
}

export const registerActorInput = z.strictObject({
  external_ref: z.string().min(1).max(200).describe('stable identity, e.g. "claude-code:alice-laptop"'),
  kind: actorKind,
  display_name: z.string().min(1).max(200).optional(),
  group: z.string().min(1).max(100).optional().meta(docs('e.g. "backend"')),
  role: z.string().min(1).max(100).optional().meta(docs('e.g. "reviewer"')),
  capabilities: z.array(z.string().min(1).max(64)).max(50).optional(),
  max_concurrent_tasks: z.number().int().min(1).max(1000).nullable().optional(),
  status: actorStatus.optional(),
  default_model: z.string().min(1).max(200).nullable().optional(),
  model_provider: z.string().min(1).max(100).nullable().optional(),
  idempotency_key: idempotencyKey.optional(),
});
export type RegisterActorInput = z.infer<typeof registerActorInput>;

export const registerActorOutput = writeResult({
  actor: actorRow,
  created: z.boolean(),
  released_task_ids: z.array(id).optional().describe('on deactivation: leases given back to the pool'),
  marked_handoff_ids: z.array(id).optional().describe('on deactivation: waiting handoffs, their senders told'),
});
export type RegisterActorOutput = z.infer<typeof registerActorOutput>;

export const actorQueryInput = z.strictObject({
  kind: actorKind.optional(),
  group: z.string().min(1).max(100).optional(),
  capability: z.string().min(1).max(64).optional(),
  q: z.string().min(1).max(200).optional().meta(docs('matches name, external_ref or role')),
  include: z
    .array(z.enum(['work', 'keys']))
    .max(2)
    .optional()
    .meta(docs('work: last active, open tasks, current claim; keys: API keys and open invites (people only)')),
  limit: limit(50, 200).optional(),
  cursor: cursor.optional(),
});
export type ActorQueryInput = z.infer<typeof actorQueryInput>;

export const actorQueryOutput = z.strictObject({ actors: z.array(actorQueryRow), next_cursor: nextCursor });
export type ActorQueryOutput = z.infer<typeof actorQueryOutput>;

export const identityTools = [
  defineTool({
    name: 'whoami',
    room: 'identity',
    title: 'Who am I',
    description:
      'Returns your tasks, inbox, ready work, changes since last look and hints.next. Use when a run starts.',
    input: whoamiInput,
    output: whoamiOutput,
    kind: 'read',
    idempotent: true,
    narrow: (out, ctx) => narrowWhoami(out, ctx.scopes),
  }),
  defineTool({
    name: 'register_actor',
    room: 'identity',
    title: 'Register an actor',
    description:
      'Registers or finds an agent, human or service by external_ref. Returns {actor, created}. Use when an actor must exist first.',
    input: registerActorInput,
    output: registerActorOutput,
    kind: 'write',
    idempotency: 'derived',
    idempotent: true,
    // a deactivated actor's keys stop working at once: this process forgets its cached keys
    narrow: (out) => {
      const actor = out.actor as { id?: string; status?: string } | undefined;
      if (actor?.id && actor.status === 'deactivated') corePort('forgetActorKeys')?.(actor.id);
      return out;
    },
  }),
  defineTool({
    name: 'actor_query',
    room: 'identity',
    title: 'Find actors',
    description:
      'Returns actors by kind, group, capability or text; include work adds what each holds. Use when you need an actor id.',
    input: actorQueryInput,
    output: actorQueryOutput,
    kind: 'read',
    idempotent: true,
  }),
];
