import { z } from 'zod';
import { ACTOR_KINDS, PROJECT_STATUSES, TASK_STATUSES, HANDOFF_KINDS, HANDOFF_STATUSES, INBOX_ITEM_KINDS } from './vocabulary';

/** Shared field schemas. Descriptions here reach every tool's JSON Schema. */

export const uuid = z.guid();

export const actorRef = z
  .union([z.guid(), z.literal('me')])
  .describe('an actor id, or "me" for yourself');

export const nullableActorRef = actorRef.nullable();

export const projectRef = z
  .string()
  .min(1)
  .max(64)
  .regex(/^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z][A-Za-z0-9_]{0,15})$/, 'a project uuid or key')
  .describe('project uuid or key (e.g. "PAY")');

export const taskRef = z
  .string()
  .min(1)
  .max(64)
  .regex(/^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z][A-Za-z0-9_]*[-#]+[0-9]{1,9})$/, 'a task uuid or KEY-N reference')
  .describe('task uuid or reference like "PAY-12"');

export const idempotencyKey = z
  .string()
  .min(1)
  .max(200)
  .describe('makes this write safe to retry: the same key replays the first result (24 h)');

export const limit = (def: number, max: number) =>
  z.number().int().min(1).max(max).describe(`page size (default ${def}, max ${max})`);

export const cursor = z.string().min(1).max(2000).describe('next_cursor from the previous page, verbatim');

// the ISO pattern admits year 0000, which Postgres (rightly: there was none) refuses
export const isoDate = z.iso
  .date()
  .refine((s) => !s.startsWith('0000'), 'year 0000 does not exist: use 0001 or later')
  .describe('YYYY-MM-DD');

export const taskStatus = z.enum(TASK_STATUSES);

export const projectStatus = z.enum(PROJECT_STATUSES);

export const actorKind = z.enum(ACTOR_KINDS);

export const handoffKind = z.enum(HANDOFF_KINDS);

export const handoffStatus = z.enum(HANDOFF_STATUSES);

export const inboxItemKind = z.enum(INBOX_ITEM_KINDS);

export const priority = z.number().int().min(0).max(4).describe('0 = most urgent … 4 = least; default 2');

export const label = z.string().min(1).max(64);

export const criterion = z.union([
  z.string().min(1).max(1000),
  z.strictObject({ text: z.string().min(1).max(1000), met: z.boolean().default(false) }),
]);

export const acceptanceCriteria = z.array(criterion).max(50).describe('checklist: [{text, met}] or plain strings (unmet)');

/** Waiting instead of polling: shared by inbox and task_claim. */
export const waitSeconds = z
  .number()
  .min(0)
  .max(60)
  .describe('when nothing is there yet, hold up to this many seconds and return as soon as something arrives (0 = answer now)');
