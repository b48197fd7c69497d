import type { TaskGetOutput } from '../core/tasks';
import type { ActorRow, CommentRow, ProjectListRow, TaskActivityEntry, TaskRow } from '../core/rows';
import { HANDOFF_KINDS, HANDOFF_STATUSES, TASK_STATUSES } from '../core/vocabulary';
import type { ChangeEvent } from '../db/types';

/**
 * The shapes the console reads, inferred from the tools' output schemas (lib/core/rows.ts), which
 * the db suite checks against the real answers: what the board types is what the RPCs return.
 * Only type imports from lib/core, plus the zod-free vocabulary, so no schema reaches the browser.
 */

export const STATUSES = TASK_STATUSES;
export type TaskStatus = (typeof STATUSES)[number];
/** Columns shown open on the board; failed and cancelled are folded. */
export const OPEN_COLUMNS: TaskStatus[] = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done'];
export const FOLDED_COLUMNS: TaskStatus[] = ['failed', 'cancelled'];

export const STATUS_LABEL: Record<TaskStatus, string> = {
  backlog: 'Backlog',
  todo: 'Todo',
  in_progress: 'In progress',
  in_review: 'In review',
  blocked: 'Blocked',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const PRIORITY_LABEL = ['Urgent', 'High', 'Medium', 'Low', 'None'] as const;

export type { ActivityItem, AttachmentRow, CodeRefRow, FeatureRequestRow, RepositoryRow, RunCounts, RunRow, ActorOverview, Criterion, ProjectBrief, TaskFull, TaskRow } from '../core/rows';
export type { DecisionHit, DecisionRow, NoteHit, NoteRow, SkillRow } from '../core/rows';
export type { DecisionQueryOutput } from '../core/decisions';
export type { CouncilGetOutput, CouncilQueryOutput, CouncilRow, CouncilSummary } from '../core/council';
export type { KnowledgeSearchOutput } from '../core/knowledge';
export type { SearchOutput, SkillGetOutput, SkillListOutput, SkillUpsertOutput } from '../core/search';
export type Actor = ActorRow;
export type Project = ProjectListRow;
export type TaskComment = CommentRow;
export type TaskActivity = TaskActivityEntry;
/** task_get's answer (without the optional brief the console does not ask for). */
export type TaskDetail = Omit<TaskGetOutput, 'brief'>;

export type { HandoffRow as Handoff, InboxItem, NotificationRow as Notification, ReviewState } from '../core/rows';
export const HANDOFF_KIND_LIST = HANDOFF_KINDS;
export type HandoffKind = (typeof HANDOFF_KINDS)[number];
export type HandoffStatus = (typeof HANDOFF_STATUSES)[number];

/** A change event as the feed delivers it (ids only). */
export type LiveEvent = ChangeEvent;

/** Ready now: open, nothing unfinished upstream, no live lease (mirrors the server's derivation). */
export function isReady(t: TaskRow, now = Date.now()): boolean {
  return (
    (t.status === 'todo' || t.status === 'in_progress') &&
    t.open_blockers === 0 &&
    !(t.lease && new Date(t.lease.expires_at).getTime() > now)
  );
}

/** Board order inside a column: priority, then age (task_query's default order). */
export function compareTasks(a: TaskRow, b: TaskRow): number {
  return a.priority - b.priority || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);
}
