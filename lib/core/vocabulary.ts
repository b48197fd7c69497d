/**
 * The closed word lists of the contract, as plain constants: the zod enums in fields.ts are built
 * from them, and the console imports them without pulling zod into the browser bundle.
 */

/** Task statuses, in board order. The SQL check constraint on tasks.status lists the same words. */
export const TASK_STATUSES = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done', 'failed', 'cancelled', 'skipped'] as const;

/** Priorities by name: rows carry the number, 0 most urgent. */
export const PRIORITY_NAMES = ['urgent', 'high', 'medium', 'low', 'none'] as const;

export const PROJECT_STATUSES = ['planned', 'active', 'paused', 'completed', 'archived'] as const;

export const ACTOR_KINDS = ['agent', 'human', 'service'] as const;

/** supabase/migrations/0022_actors.sql: a paused actor takes no new work; a deactivated one cannot call. */
export const ACTOR_STATUSES = ['active', 'paused', 'deactivated'] as const;

/** Handoff kinds and life cycle (the SQL check constraints on handoffs list the same words). */
export const HANDOFF_KINDS = ['handoff', 'question', 'review', 'collab', 'approval'] as const;
export const HANDOFF_STATUSES = ['open', 'claimed', 'responded', 'resolved'] as const;

/** What an inbox item is: a handoff to you, the answer to one you sent, or a notification. */
export const INBOX_ITEM_KINDS = ['handoff', 'response', 'notification'] as const;
