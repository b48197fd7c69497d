/**
 * The closed word lists of the contract, as plain constants: the zod enums in fields.ts are built
 * from them, and the console imports them without pulling zod into the browser bundle.
 */

/** Task statuses, in board order. The SQL check constraint on tasks.status lists the same words. */
export const TASK_STATUSES = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done', 'failed', 'cancelled'] as const;

export const PROJECT_STATUSES = ['planned', 'active', 'paused', 'completed', 'archived'] as const;

export const ACTOR_KINDS = ['agent', 'human', 'service'] as const;
