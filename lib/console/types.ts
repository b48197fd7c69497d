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
/** Columns shown open on the board; failed, cancelled and skipped are folded. */
export const OPEN_COLUMNS: TaskStatus[] = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done'];
export const FOLDED_COLUMNS: TaskStatus[] = ['failed', 'cancelled', 'skipped'];

export const STATUS_LABEL: Record<TaskStatus, string> = {
  backlog: 'Backlog',
  todo: 'Todo',
  in_progress: 'In progress',
  in_review: 'In review',
  blocked: 'Blocked',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
  skipped: 'Skipped',
};

export const PRIORITY_LABEL = ['Urgent', 'High', 'Medium', 'Low', 'None'] as const;

export type { ActivityItem, AttachmentRow, CodeRefRow, FeatureRequestRow, RepositoryRow, RunCounts, RunRow, ActorOverview, Criterion, ProjectBrief, TaskFull, TaskRow } from '../core/rows';
export type { DecisionHit, DecisionRow, NoteHit, NoteRow, SkillRow } from '../core/rows';
export type { DecisionQueryOutput } from '../core/decisions';
export type { CouncilGetOutput, CouncilQueryOutput, CouncilRow, CouncilSummary } from '../core/council';
export type { BudgetRow, BudgetStatusOutput, CostSummaryOutput } from '../core/costs';
export type { WorkflowDefinition, WorkflowGetOutput, WorkflowInstanceFull, WorkflowInstanceRow, WorkflowQueryOutput, WorkflowRow, WorkflowStatus } from '../core/workflows';
export type { CodeCollisionsOutput, CodeCriticalFilesOutput, CodeCyclesOutput } from '../core/code-graph';
export type { WebhookAddOutput, WebhookListOutput } from '../core/events';
export type { KnowledgeSearchOutput } from '../core/knowledge';
export type { ChunkHit, SourceGetOutput, SourceRow } from '../core/sources';
export type { SearchOutput, SkillGetOutput, SkillListOutput, SkillUpsertOutput } from '../core/search';
export type { FindRelatedOutput, GuidelinesGetOutput, LinkAddOutput } from '../core/graph';
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

/**
 * Board order inside a column: the manual order (order_index, what a drag writes), then priority,
 * then age (task_query's order:"manual"). Untouched tasks carry their creation time as order_index.
 */
export function compareTasks(a: TaskRow, b: TaskRow): number {
  return a.order_index - b.order_index || a.priority - b.priority || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);
}

/**
 * The order_index of a card dropped between two others: the midpoint, so no neighbour is
 * renumbered (one write per move); one step past the end when it lands first or last.
 */
export function orderBetween(prev: TaskRow | undefined, next: TaskRow | undefined, fallback: number): number {
  if (prev && next) return (prev.order_index + next.order_index) / 2;
  if (next) return next.order_index - 1;
  if (prev) return prev.order_index + 1;
  return fallback;
}

/** Priority names (task inputs take them too); rows carry the number. */
export const PRIORITY_NAME = ['urgent', 'high', 'medium', 'low', 'none'] as const;
