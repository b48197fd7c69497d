import { z } from 'zod';
import { DOCS_NOTE } from './json-schema';
import { ACTOR_KINDS, ACTOR_STATUSES, PROJECT_STATUSES, TASK_STATUSES, HANDOFF_KINDS, HANDOFF_STATUSES, INBOX_ITEM_KINDS, PRIORITY_NAMES } from './vocabulary';

/**
 * Shared field schemas. A description reaches every tool's advertised JSON Schema, so it says only
 * what a model cannot guess (the forms a reference takes); a `docs` note (a default, a unit) and
 * every bound reach docs/tools.md alone.
 */

/** A note for docs/tools.md that the advertised schema leaves out: `.meta(docs('default 50'))`. */
export const docs = (note: string) => ({ [DOCS_NOTE]: note });

export const uuid = z.guid();

// the advertised schema folds this union into one string described as 'uuid or "me"'
export const actorRef = z.union([z.guid(), z.literal('me')]);

export const nullableActorRef = actorRef.nullable();

// The advertised schema drops these patterns (the validator keeps them) and says the form in a few
// words; `\w` and `\d` are ASCII here. The pattern alone bounds a project reference's length, and a
// task reference's only from below.
const UUID = '[\\da-fA-F]{8}(-[\\da-fA-F]{4}){3}-[\\da-fA-F]{12}';

export const projectRef = z
  .string()
  .regex(new RegExp(`^(${UUID}|[A-Za-z]\\w{0,15})$`), 'a project uuid or key')
  .describe('PAY or uuid');

const taskRefForm = z
  .string()
  .max(64)
  .regex(new RegExp(`^(${UUID}|[A-Za-z]\\w*[-#]+\\d{1,9})$`), 'a task uuid or KEY-N reference');

export const taskRef = taskRefForm.describe('PAY-12 or uuid');

/** A task reference where a neighbouring field already shows the form (tools/list pays for the words once). */
export const otherTaskRef = taskRefForm.meta(docs('PAY-12 or uuid'));

// What an idempotency key does is the guide's `idempotency` topic; the name says the rest.
export const idempotencyKey = z.string().min(1).max(200);

export const limit = (def: number, max: number) => z.number().int().min(1).max(max).meta(docs(`default ${def}`));

// a cursor is the last page's next_cursor, verbatim: the guide and the docs say so once
export const cursor = z.string().min(1).max(2000);

// the ISO pattern admits year 0000, which Postgres (rightly: there was none) refuses
export const YEAR_ZERO = 'year 0000 does not exist: use 0001 or later';
export const isoDate = z.iso.date().refine((s) => !s.startsWith('0000'), YEAR_ZERO);

export const taskStatus = z.enum(TASK_STATUSES);

export const projectStatus = z.enum(PROJECT_STATUSES);

export const actorKind = z.enum(ACTOR_KINDS);

export const actorStatus = z.enum(ACTOR_STATUSES);

/** A capability an actor has or a task requires, e.g. "python", "gpu". */
export const capability = z.string().min(1).max(64);
export const capabilities = z.array(capability).max(20);

export const handoffKind = z.enum(HANDOFF_KINDS);

export const handoffStatus = z.enum(HANDOFF_STATUSES);

/** The inbox orders by it, then by age. */
export const handoffPriority = z.enum(['urgent', 'high', 'normal', 'low']);

export const tag = z.string().min(1).max(64);

export const inboxItemKind = z.enum(INBOX_ITEM_KINDS);

export const priority = z
  .literal([0, 1, 2, 3, 4, ...PRIORITY_NAMES])
  .meta(docs('0 most urgent (urgent = 0 … none = 4); default 2'));

/** Task or comment metadata: a JSON object, at most 16 KB serialised (the SQL checks the size too). */
export const meta = z
  .record(z.string().max(200), z.unknown())
  .refine((m) => new TextEncoder().encode(JSON.stringify(m)).length <= 16_384, 'at most 16 KB serialised');

export const label = z.string().min(1).max(64);

export const criterion = z.union([
  z.string().min(1).max(1000),
  z.strictObject({ text: z.string().min(1).max(1000), met: z.boolean().default(false) }),
]);

export const acceptanceCriteria = z.array(criterion).max(50).meta(docs('a string is an unmet criterion'));

/** Waiting instead of polling: shared by inbox and task_claim. */
export const waitSeconds = z
  .number()
  .min(0)
  .max(60)
  .meta(docs('at most 60: hold an empty answer until something arrives, instead of polling'));
