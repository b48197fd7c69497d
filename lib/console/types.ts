import type { ChangeEvent } from '../db/types';
/** Shapes the console reads from the tools (rows as the RPCs build them). */

export const STATUSES = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done', 'failed', 'cancelled'] as const;
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

export type Criterion = { text: string; met: boolean };

export type TaskRow = {
  id: string;
  project_id: string;
  seq: number;
  title: string;
  status: TaskStatus;
  priority: number;
  assignee_actor_id: string | null;
  reviewer_actor_id: string | null;
  due_on: string | null;
  parent_task_id: string | null;
  labels: string[];
  acceptance_criteria: Criterion[];
  requires_evidence: boolean;
  created_by_actor_id: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
  ref: string;
  project_key: string;
  open_blockers: number;
  ready: boolean;
  criteria_met: number;
  criteria_total: number;
  lease: { actor_id: string; expires_at: string; live: boolean } | null;
};

export type TaskFull = TaskRow & { body: string };

export type TaskComment = {
  id: string;
  author_actor_id: string;
  author: string;
  author_kind: 'agent' | 'human' | 'service';
  body: string;
  parent_comment_id: string | null;
  mentions: string[];
  created_at: string;
};

export type TaskActivity = { seq: number; verb: string; summary: string; actor_id: string | null; actor: string | null; at: string; metadata: Record<string, unknown> };

export type TaskDetail = {
  task: TaskFull;
  project: { id: string; key: string; title: string; summary: string | null; status: string; description: string | null };
  blockers: TaskRow[];
  dependents: TaskRow[];
  subtasks: TaskRow[];
  parent: TaskRow | null;
  comments: TaskComment[];
  activity: TaskActivity[];
};

export type Actor = {
  id: string;
  kind: 'agent' | 'human' | 'service';
  external_ref: string;
  display_name: string;
  group: string | null;
  role: string | null;
  capabilities: string[];
  is_owner: boolean;
  last_seen_at: string | null;
  created_at: string;
};

export type ActorOverview = Actor & {
  last_active_at: string | null;
  open_tasks: number;
  current_claim: { task_id: string; ref: string; title: string; project_key: string; lease_expires_at: string } | null;
  keys: {
    id: string;
    prefix: string;
    label: string | null;
    created_at: string;
    last_used_at: string | null;
    revoked_at: string | null;
    /** What the key may call (ROOM, ROOM:read, read); null: everything. */
    scopes: string[] | null;
    expires_at: string | null;
    /** Set when the key was rotated: it works until expires_at (the grace period). */
    replaced_by: string | null;
  }[];
  pending_invites: number;
};

export type Project = {
  id: string;
  key: string;
  title: string;
  summary: string | null;
  description: string | null;
  status: string;
  target_on: string | null;
  owner_actor_id: string | null;
  parent_project_id: string | null;
  task_count: number;
  created_at: string;
  updated_at: string;
  tasks?: { by_status: Partial<Record<TaskStatus, number>>; total: number; ready: number };
};

export type ProjectBrief = {
  project: Project & { owner: string | null; parent: { id: string; key: string; title: string } | null };
  tasks: { by_status: Partial<Record<TaskStatus, number>>; total: number; ready: number };
  top_open_tasks: TaskRow[];
  recent_activity: { seq: number; verb: string; summary: string; object_type: string; object_id: string | null; actor: string | null; at: string }[];
  subprojects: { id: string; key: string; title: string; status: string }[];
};

export type ActivityItem = {
  seq: number;
  verb: string;
  summary: string;
  severity: string;
  object_type: string;
  object_id: string | null;
  project_id: string | null;
  project_key: string | null;
  actor_id: string | null;
  actor: string | null;
  actor_kind: 'agent' | 'human' | 'service' | null;
  run_id: string | null;
  at: string;
  task_ref: string | null;
  task_title: string | null;
};

/** A change event as the feed delivers it (ids only). */
export type LiveEvent = ChangeEvent;

export type ToolErrorShape = { code: string; message: string; hint: string; retryable: boolean; details?: unknown };

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
