import { z } from 'zod';
import { ACTOR_KINDS, PROJECT_STATUSES, TASK_STATUSES, HANDOFF_KINDS, HANDOFF_STATUSES, INBOX_ITEM_KINDS } from './vocabulary';

/** Shared field schemas. Descriptions here reach every tool's JSON Schema. */

export const uuid = z.guid();

// "me" needs no gloss: the guide and the server instructions say it is the caller
export const actorRef = z.union([z.guid(), z.literal('me')]);

export const nullableActorRef = actorRef.nullable();

// These patterns are sent with every tool that takes a reference, so they are written short
// (`\w` and `\d` are ASCII here, as in Ajv's unicode mode); the pattern alone bounds a project
// reference's length, and a task reference's only from below.
const UUID = '[\\da-fA-F]{8}(-[\\da-fA-F]{4}){3}-[\\da-fA-F]{12}';

export const projectRef = z
  .string()
  .regex(new RegExp(`^(${UUID}|[A-Za-z]\\w{0,15})$`), 'a project uuid or key')
  .describe('uuid or key, e.g. "PAY"');

export const taskRef = z
  .string()
  .max(64)
  .regex(new RegExp(`^(${UUID}|[A-Za-z]\\w*[-#]+\\d{1,9})$`), 'a task uuid or KEY-N reference')
  .describe('uuid or ref, e.g. "PAY-12"');

// What an idempotency key does is the guide's `idempotency` topic; the name says the rest.
export const idempotencyKey = z.string().min(1).max(200);

export const limit = (def: number, max: number) => z.number().int().min(1).max(max).describe(`default ${def}`);

export const cursor = z.string().min(1).max(2000).describe('next_cursor of the last page');

// the ISO pattern admits year 0000, which Postgres (rightly: there was none) refuses
export const YEAR_ZERO = 'year 0000 does not exist: use 0001 or later';
export const isoDate = z.iso.date().refine((s) => !s.startsWith('0000'), YEAR_ZERO);

export const taskStatus = z.enum(TASK_STATUSES);

export const projectStatus = z.enum(PROJECT_STATUSES);

export const actorKind = z.enum(ACTOR_KINDS);

export const handoffKind = z.enum(HANDOFF_KINDS);

export const handoffStatus = z.enum(HANDOFF_STATUSES);

export const inboxItemKind = z.enum(INBOX_ITEM_KINDS);

export const priority = z.number().int().min(0).max(4).describe('0 most urgent; default 2');

export const label = z.string().min(1).max(64);

export const criterion = z.union([
  z.string().min(1).max(1000),
  z.strictObject({ text: z.string().min(1).max(1000), met: z.boolean().default(false) }),
]);

export const acceptanceCriteria = z.array(criterion).max(50).describe('a string is an unmet criterion');

/** Waiting instead of polling: shared by inbox and task_claim. */
export const waitSeconds = z
  .number()
  .min(0)
  .max(60)
  .describe('hold an empty answer until something arrives');
