import { z } from 'zod';
import { actorKind, actorStatus, handoffKind, handoffPriority, handoffStatus, projectStatus, taskStatus } from './fields';

/**
 * The shapes the RPCs answer with, written once. Tool outputs (the `output` beside each `input`)
 * and the console's row types are built from these; the db suite checks every real answer against
 * them. The JSON is built in SQL (bullpen.task_row_json, bullpen.project_json, bullpen.actor_json, …):
 * a field added or renamed there must be added or renamed here, or the db suite fails.
 *
 * Objects are strict: an unexpected field is drift, not a feature. A shape that several tools
 * share carries a `meta({id})`, so the docs and JSON Schemas name it once instead of repeating it.
 */

export const id = z.guid();
/** Postgres timestamptz as to_jsonb writes it (ISO 8601 with an offset). */
export const timestamp = z.iso.datetime({ offset: true });
export const date = z.iso.date();
const count = z.number().int().nonnegative();

export const nextCursor = z.string().nullable().describe('pass back as cursor for the next page; null on the last page');

/** Added by the executor to the answer of a call made with wait_seconds. */
export const waitedMs = z.number().int().nonnegative().optional().describe('with wait_seconds: how long the call held, in ms');


/**
 * The result of a write. A replay (same idempotency_key, same input) returns the stored result of
 * the first call with `idempotent_replay: true`; every write's output is built with this.
 */
export function writeResult<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.strictObject({
    ...shape,
    idempotent_replay: z.literal(true).optional().describe('present when this is the stored result of an earlier call with the same key'),
  });
}

// ---------------------------------------------------------------------------------------------
// Actors
// ---------------------------------------------------------------------------------------------

/** bullpen.actor_json */
export const actorRow = z
  .strictObject({
    id,
    kind: actorKind,
    external_ref: z.string(),
    display_name: z.string(),
    group: z.string().nullable(),
    role: z.string().nullable(),
    capabilities: z.array(z.string()),
    is_owner: z.boolean(),
    status: actorStatus,
    max_concurrent_tasks: z.number().int().nullable().describe('live leases it may hold at once; null: no limit'),
    default_model: z.string().nullable(),
    model_provider: z.string().nullable(),
    last_seen_at: timestamp.nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'Actor', description: 'An agent, human or service of the workspace.' });
export type ActorRow = z.infer<typeof actorRow>;

/** bullpen.actor_work_json: what actor_query adds with include "work". */
const actorWork = {
  last_active_at: timestamp.nullable(),
  open_tasks: count,
  current_claim: z
    .strictObject({ task_id: id, ref: z.string(), title: z.string(), project_key: z.string(), lease_expires_at: timestamp })
    .nullable(),
  live_leases: count.describe('live leases held now: its load against max_concurrent_tasks'),
  leases: z
    .array(z.strictObject({ task_id: id, ref: z.string(), title: z.string(), project_key: z.string(), lease_expires_at: timestamp }))
    .describe('the live leases it holds (up to 20)'),
};

/** bullpen.actor_keys_json: what actor_query adds with include "keys" (people only). */
const actorKeys = {
  keys: z.array(
    z.strictObject({
      id,
      prefix: z.string(),
      label: z.string().nullable(),
      created_at: timestamp,
      last_used_at: timestamp.nullable(),
      revoked_at: timestamp.nullable(),
      /** What the key may call (ROOM, ROOM:read, read); null: everything. */
      scopes: z.array(z.string()).nullable(),
      expires_at: timestamp.nullable(),
      /** Set when the key was rotated: it works until expires_at (the grace period). */
      replaced_by: id.nullable(),
    }),
  ),
  pending_invites: count,
};

/** An actor as actor_query answers it: the work and keys sections are there when include asked. */
export const actorQueryRow = actorRow
  .extend({ ...actorWork, ...actorKeys })
  .partial({ last_active_at: true, open_tasks: true, current_claim: true, live_leases: true, leases: true, keys: true, pending_invites: true })
  .meta({ id: 'ActorWithDetail', description: 'An actor, with its work and keys where include asked for them.' });

/** The actors page: actor_query with include ["work", "keys"]. */
export const actorOverview = actorRow
  .extend({ ...actorWork, ...actorKeys })
  .meta({ id: 'ActorOverview', description: 'An actor with what it holds now (console).' });
export type ActorOverview = z.infer<typeof actorOverview>;

// ---------------------------------------------------------------------------------------------
// Projects
// ---------------------------------------------------------------------------------------------

/** bullpen.project_json */
export const projectRow = z
  .strictObject({
    id,
    key: z.string(),
    title: z.string(),
    summary: z.string().nullable(),
    description: z.string().nullable(),
    status: projectStatus,
    parent_project_id: id.nullable(),
    owner_actor_id: id.nullable(),
    target_on: date.nullable(),
    created_by_actor_id: id.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    task_count: count.describe('tasks ever created in the project (the last KEY-N)'),
  })
  .meta({ id: 'Project', description: 'A project as stored.' });
export type ProjectRow = z.infer<typeof projectRow>;

/** bullpen.project_task_counts */
export const taskCounts = z
  .strictObject({
    by_status: z.partialRecord(taskStatus, count).describe('only statuses that have tasks'),
    total: count,
    ready: count.describe('claimable now'),
  })
  .meta({ id: 'TaskCounts', description: 'How many tasks a project has, by status.' });
export type TaskCounts = z.infer<typeof taskCounts>;

/** A project as project_query lists it; detail:"full" adds its task counts. */
export const projectListRow = projectRow.extend({ tasks: taskCounts.optional().describe('with detail:"full"') });
export type ProjectListRow = z.infer<typeof projectListRow>;

/** The short form other objects name a project by. */
export const projectStub = z
  .strictObject({ id, key: z.string(), title: z.string(), status: projectStatus })
  .meta({ id: 'ProjectStub' });

/** bullpen.project_context: what a task's reader needs to know about its project. */
export const projectContext = z
  .strictObject({
    id,
    key: z.string(),
    title: z.string(),
    summary: z.string().nullable(),
    status: projectStatus,
    description: z.string().nullable(),
  })
  .meta({ id: 'ProjectContext', description: 'The project a task belongs to.' });
export type ProjectContext = z.infer<typeof projectContext>;

// ---------------------------------------------------------------------------------------------
// Tasks
// ---------------------------------------------------------------------------------------------

export const criterionRow = z.strictObject({ text: z.string(), met: z.boolean() });
export type Criterion = z.infer<typeof criterionRow>;

/** bullpen.task_row_json: the compact row every listing returns (no body). */
export const taskRow = z
  .strictObject({
    id,
    project_id: id,
    seq: z.number().int().positive(),
    title: z.string(),
    status: taskStatus,
    priority: z.number().int().min(0).max(4),
    assignee_actor_id: id.nullable(),
    due_on: date.nullable(),
    parent_task_id: id.nullable(),
    labels: z.array(z.string()),
    acceptance_criteria: z.array(criterionRow),
    requires_evidence: z.boolean(),
    requires_capabilities: z.array(z.string()).describe('what a claimer must have'),
    workflow_instance_id: id.nullable().describe('the workflow instance it is a step of'),
    workflow_step: z.string().nullable(),
    reviewer_actor_id: id.nullable(),
    created_by_actor_id: id.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    started_at: timestamp.nullable(),
    completed_at: timestamp.nullable(),
    meta: z.record(z.string(), z.unknown()),
    order_index: z.number().describe('manual order within a status column'),
    ref: z.string().describe('KEY-N'),
    project_key: z.string(),
    open_blockers: count.describe('dependencies not done yet'),
    ready: z.boolean().describe('claimable now: todo (or a lapsed in_progress), no open blockers, no live lease'),
    criteria_met: count,
    criteria_total: count,
    lease: z
      .strictObject({ actor_id: id, expires_at: timestamp, live: z.boolean() })
      .nullable()
      .describe('who holds the task and until when; live:false once it has lapsed'),
    lease_run_key: z.string().nullable().describe('the run that holds the lease (the reaper releases it when that run goes silent)'),
  })
  .meta({ id: 'TaskRow', description: 'A task as listings show it: everything but the body, plus derived state.' });
export type TaskRow = z.infer<typeof taskRow>;

/** bullpen.task_json: the row plus its body. */
export const taskFull = taskRow.extend({ body: z.string() }).meta({ id: 'Task', description: 'A TaskRow with its markdown body.' });
export type TaskFull = z.infer<typeof taskFull>;

// ---------------------------------------------------------------------------------------------
// Comments and activity
// ---------------------------------------------------------------------------------------------

/** message (default), a note recorded with a move, or a log line. */
export const commentKind = z.enum(['message', 'note', 'log']);
/** What a thread may hold: the kinds comment_add writes, and a debate's arguments (debate_reply). */
export const threadKind = z.enum([...commentKind.options, 'argument']);

/** One comment of a thread, with its author's name and kind. */
export const commentRow = z
  .strictObject({
    id,
    author_actor_id: id,
    author: z.string(),
    author_kind: actorKind,
    body: z.string(),
    parent_comment_id: id.nullable(),
    mentions: z.array(id),
    kind: threadKind,
    tags: z.array(z.string()),
    meta: z.record(z.string(), z.unknown()),
    created_at: timestamp,
    position: z.string().nullable().optional().describe('the option the argument is for'),
  })
  .meta({ id: 'Comment', description: 'One comment of a thread.' });
export type CommentRow = z.infer<typeof commentRow>;

const activityBase = {
  seq: z.number().int().positive().describe('the activity id, also the change-feed sequence'),
  verb: z.string(),
  summary: z.string(),
  at: timestamp,
};

/** An activity item where the object varies (project brief, whoami delta). */
export const activityEntry = z
  .strictObject({
    ...activityBase,
    object_type: z.string(),
    object_id: id.nullable(),
    actor: z.string().nullable().describe("the actor's display name"),
  })
  .meta({ id: 'ActivityEntry', description: 'Who did what, to which object.' });
export type ActivityEntry = z.infer<typeof activityEntry>;

/** An item of one task's timeline (task_get). */
export const taskActivityEntry = z
  .strictObject({
    ...activityBase,
    actor_id: id.nullable(),
    actor: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).describe('verb-specific details, e.g. {from, to} of a status change'),
  })
  .meta({ id: 'TaskActivityEntry', description: 'One entry of a task timeline.' });
export type TaskActivityEntry = z.infer<typeof taskActivityEntry>;

/** A row of activity_query (the console's activity page reads the same tool). */
export const activityItem = z
  .strictObject({
    ...activityBase,
    severity: z.enum(['info', 'warn', 'critical']),
    status: z.string().nullable().describe('a milestone\'s status (activity_log)'),
    object_type: z.string(),
    object_id: id.nullable(),
    project_id: id.nullable(),
    project_key: z.string().nullable(),
    actor_id: id.nullable().describe('null for the server itself (the reaper)'),
    actor: z.string().nullable(),
    actor_kind: actorKind.nullable(),
    run_id: z.string().nullable().describe('the run key'),
    metadata: z.record(z.string(), z.unknown()),
    task_ref: z.string().nullable(),
    task_title: z.string().nullable(),
  })
  .meta({ id: 'ActivityItem', description: 'One entry of the activity log.' });
export type ActivityItem = z.infer<typeof activityItem>;

// ---------------------------------------------------------------------------------------------
// Provenance: runs, repositories, code refs, attachments, feature requests
// ---------------------------------------------------------------------------------------------

const runKind = z.enum(['session', 'loop_tick', 'subagent']);
export const runStatus = z.enum(['running', 'succeeded', 'failed', 'cancelled', 'abandoned', 'idle']);
const usd = z.number().nonnegative();

/** bullpen.run_json */
export const runRow = z
  .strictObject({
    id,
    run_key: z.string(),
    actor_id: id,
    actor: z.string().nullable().describe("the actor's display name"),
    kind: runKind,
    status: runStatus,
    parent_run_key: z.string().nullable(),
    parent_run_id: id.nullable(),
    run_series_key: z.string().nullable(),
    label: z.string().nullable(),
    goal: z.string().nullable(),
    agent_role: z.string().nullable(),
    repository_id: id.nullable(),
    repository: z.string().nullable().describe('owner/name'),
    head_sha: z.string().nullable(),
    branch: z.string().nullable(),
    dirty: z.boolean().nullable(),
    counts: z.record(z.string(), z.unknown()).describe('the tallies the run reported'),
    usage: z
      .record(z.string(), z.strictObject({ tokens_in: count, tokens_out: count, cost_usd: usd.optional() }))
      .describe('per model: the latest running totals reported'),
    tokens_in: count,
    tokens_out: count,
    cost_usd: usd,
    seen_through: timestamp.nullable().describe("whoami's delta cursor"),
    summary: z.string().nullable(),
    end_reason: z.string().nullable(),
    started_at: timestamp,
    last_heartbeat_at: timestamp.nullable(),
    last_active_at: timestamp.describe('last heartbeat or write'),
    ended_at: timestamp.nullable(),
    silent_seconds: count,
    stale: z.boolean().describe('running but silent for 10 minutes; ended after 30 (idle, or abandoned when it holds leases)'),
  })
  .meta({ id: 'Run', description: 'A burst of work by one actor.' });
export type RunRow = z.infer<typeof runRow>;

/** bullpen.run_counts: what runs produced. */
export const runCounts = z
  .strictObject({
    tasks_created: count,
    tasks_completed: count,
    decisions: count,
    notes: count,
    handoffs: count,
    comments: count,
    code_refs: count,
    attachments: count,
    activity: count,
    by_verb: z.record(z.string(), count),
  })
  .meta({ id: 'RunCounts', description: 'What a run produced, counted from the log.' });
export type RunCounts = z.infer<typeof runCounts>;

export const repoRole = z.enum(['primary', 'dependency', 'docs']);

/** bullpen.repository_json */
export const repositoryRow = z
  .strictObject({
    id,
    host: z.string(),
    owner: z.string(),
    name: z.string(),
    slug: z.string().describe('owner/name'),
    remote_url: z.string().describe('canonical https URL, no credentials'),
    default_branch: z.string().nullable(),
    created_by_actor_id: id.nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'Repository', description: 'A git repository, one per normalised remote.' });
export type RepositoryRow = z.infer<typeof repositoryRow>;

export const prState = z.enum(['open', 'draft', 'merged', 'closed']);

/** bullpen.code_ref_json */
export const codeRefRow = z
  .strictObject({
    id,
    object_type: z.enum(['task', 'decision', 'note', 'project']),
    object_id: id,
    task_id: id.nullable(),
    project_id: id.nullable(),
    repository_id: id.nullable(),
    repository: z.string().nullable().describe('owner/name'),
    ref_type: z.enum(['commit', 'branch', 'pr', 'tag', 'compare']),
    sha: z.string().nullable(),
    branch: z.string().nullable(),
    tag: z.string().nullable(),
    pr_number: z.number().int().positive().nullable(),
    pr_url: z.string().nullable(),
    pr_state: prState.nullable(),
    title: z.string().nullable(),
    url: z.string().nullable(),
    files: z.array(z.string()).describe('repository paths the work touches'),
    href: z.string().nullable().describe('a web link, where Bullpen knows the host'),
    label: z.string().describe('e.g. "PR #42", "commit abc1234"'),
    live: z.boolean().describe('counts as evidence (a PR closed unmerged does not)'),
    run_id: id.nullable(),
    run_key: z.string().nullable(),
    created_by_actor_id: id,
    created_by: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'CodeRef', description: 'A commit, branch, PR, tag or compare view linked to an object.' });
export type CodeRefRow = z.infer<typeof codeRefRow>;

/** bullpen.attachment_json */
export const attachmentRow = z
  .strictObject({
    id,
    object_type: z.enum(['project', 'task', 'decision', 'note', 'comment', 'handoff']),
    object_id: id,
    task_id: id.nullable(),
    project_id: id.nullable(),
    kind: z.enum(['file', 'link']),
    url: z.string().nullable(),
    storage_path: z.string().nullable(),
    download_url: z.string().nullable().describe('where the server serves a stored file'),
    title: z.string().nullable(),
    filename: z.string().nullable(),
    mime_type: z.string().nullable(),
    size_bytes: count.nullable(),
    run_id: id.nullable(),
    created_by_actor_id: id,
    created_by: z.string().nullable(),
    created_at: timestamp,
    removed_at: timestamp.nullable(),
    removed_by_actor_id: id.nullable(),
  })
  .meta({ id: 'Attachment', description: 'A file or link on an object.' });
export type AttachmentRow = z.infer<typeof attachmentRow>;

export const featureRequestStatus = z.enum(['open', 'accepted', 'in_progress', 'shipped', 'declined']);

/** bullpen.feature_request_json */
export const featureRequestRow = z
  .strictObject({
    id,
    title: z.string(),
    body: z.string(),
    kind: z.enum(['bug', 'friction', 'capability', 'docs']),
    severity: z.enum(['low', 'medium', 'high']),
    tool_name: z.string().nullable(),
    error_code: z.string().nullable(),
    context: z.unknown(),
    fingerprint: z.string(),
    status: featureRequestStatus,
    resolution: z.string().nullable(),
    filed_by_actor_id: id,
    filed_by: z.string().nullable(),
    run_key: z.string().nullable(),
    occurrences: z.number().int().positive().describe('how often it was filed while open'),
    last_filed_at: timestamp,
    status_changed_at: timestamp.nullable(),
    status_changed_by_actor_id: id.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'FeatureRequest', description: 'A report about Bullpen itself.' });
export type FeatureRequestRow = z.infer<typeof featureRequestRow>;

/** task_get's evidence section: what the evidence gate sees. */
export const taskEvidence = z.strictObject({
  required: z.boolean().describe('requires_evidence'),
  met: z.boolean(),
  code_refs: count.describe('live code refs'),
  attachments: count.describe('live attachments'),
});

// ---------------------------------------------------------------------------------------------
// Coordination: handoffs, notifications, the inbox, reviews
// ---------------------------------------------------------------------------------------------

/** bullpen.handoff_actor: how a handoff names its people. */
export const actorStub = z.strictObject({ id, display_name: z.string(), kind: actorKind }).meta({ id: 'ActorStub' });

/** bullpen.handoff_json */
export const handoffRow = z
  .strictObject({
    id,
    kind: handoffKind,
    title: z.string(),
    body: z.string(),
    options: z.array(z.string()).describe('answers to choose from; empty for a free-text answer'),
    allow_free_text: z.boolean(),
    due_at: timestamp.nullable(),
    related_task_id: id.nullable(),
    related_task_ref: z.string().nullable().describe('KEY-N of the related task'),
    related_project_id: id.nullable(),
    from_actor_id: id,
    from: actorStub,
    to: z
      .array(actorStub.extend({ deactivated_at: timestamp.nullable().describe('set when the recipient was deactivated while it waited') }))
      .describe('the recipients, fixed at creation'),
    to_capabilities: z.array(z.string()).describe('the capabilities it was addressed to, if any'),
    priority: handoffPriority,
    tags: z.array(z.string()),
    status: handoffStatus,
    claimed_by_actor_id: id.nullable(),
    claimed_by: actorStub.nullable(),
    claimed_at: timestamp.nullable(),
    response: z
      .looseObject({ chosen_option: z.string().optional(), text: z.string().optional(), result_ref: z.string().optional() })
      .nullable()
      .describe('the answer as given: {chosen_option?, text?, result_ref?, …} (other fields kept as sent)'),
    responded_by_actor_id: id.nullable(),
    responded_by: actorStub.nullable(),
    responded_at: timestamp.nullable(),
    resolution: z.enum(['processed', 'cancelled']).nullable(),
    resolution_note: z.string().nullable(),
    resolved_by_actor_id: id.nullable(),
    resolved_at: timestamp.nullable(),
    fingerprint: z.string().describe('live duplicates with the same fingerprint are not created twice'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Handoff', description: 'A work request between actors: open → claimed → responded → resolved.' });
export type HandoffRow = z.infer<typeof handoffRow>;

/** bullpen.notification_json: readable by its recipient alone. */
export const notificationRow = z
  .strictObject({
    id,
    kind: z.string().describe('handoff.received, handoff.responded, review.requested, review.approved, review.changes_requested, comment.mentioned, task.assigned, task.unblocked, lease.broken'),
    title: z.string(),
    body: z.string(),
    actor_id: id.nullable().describe('who caused it'),
    actor: z.string().nullable(),
    project_id: id.nullable(),
    task_id: id.nullable(),
    task_ref: z.string().nullable(),
    handoff_id: id.nullable(),
    comment_id: id.nullable(),
    created_at: timestamp,
    read_at: timestamp.nullable(),
  })
  .meta({ id: 'Notification', description: 'A notice to one actor.' });
export type NotificationRow = z.infer<typeof notificationRow>;

const inboxItemBase = { id: id.describe('what you pass in ack'), at: timestamp, summary: z.string() };

/** One item of the inbox (bullpen.inbox_collect). */
export const inboxItem = z
  .discriminatedUnion('kind', [
    z.strictObject({ ...inboxItemBase, kind: z.literal('handoff').describe('addressed to you'), handoff: handoffRow }),
    z.strictObject({ ...inboxItemBase, kind: z.literal('response').describe('the answer to one you sent'), handoff: handoffRow }),
    z.strictObject({ ...inboxItemBase, kind: z.literal('notification'), notification: notificationRow }),
  ])
  .meta({ id: 'InboxItem' });
export type InboxItem = z.infer<typeof inboxItem>;

export const inboxCounts = z
  .strictObject({ handoff: count, response: count, notification: count })
  .describe('everything waiting, by kind')
  .meta({ id: 'InboxCounts' });

/** bullpen.review_state: where a task's review stands; null when the task has no reviewer. */
export const reviewState = z
  .strictObject({
    state: z.enum(['not_requested', 'waiting', 'changes_requested', 'approved']),
    reviewer_actor_id: id,
    reviewer: z.string(),
    handoff_id: id.nullable().describe('the review handoff that decides the gate'),
    text: z.string().nullable().describe("the reviewer's text"),
    responded_at: timestamp.nullable(),
  })
  .meta({ id: 'ReviewState' });
export type ReviewState = z.infer<typeof reviewState>;

// ---------------------------------------------------------------------------------------------
// Memory: decisions, knowledge notes, skills (bullpen.decision_json, note_json, skill_json)
// ---------------------------------------------------------------------------------------------

export const decisionStatus = z.enum(['proposed', 'accepted', 'rejected', 'superseded', 'deprecated']);
export const noteKind = z.enum(['note', 'runbook', 'finding', 'snippet', 'guideline', 'pattern', 'journal']);
export const embeddingStatus = z
  .enum(['pending', 'ready', 'failed', 'unavailable'])
  .describe('pending until the background job embeds it; unavailable where the database has no pgvector');
export const searchMode = z
  .enum(['hybrid', 'semantic', 'lexical'])
  .describe('hybrid: meaning fused with words; semantic: meaning only (the query has no searchable words); lexical: words only');

/** A task named from a decision or note. */
export const relatedTask = z
  .strictObject({ id, ref: z.string(), title: z.string(), status: taskStatus })
  .meta({ id: 'RelatedTask' });

/** How well a recall result matched: by meaning, by words, and fused. */
const recallScores = {
  similarity: z.number().nullable().optional().describe('cosine similarity to the query (0–1); null without a vector of the query model'),
  lexical_rank: z.number().nullable().optional().describe('full-text and trigram rank; null when no word matched'),
  score: z.number().optional().describe('reciprocal rank fusion of both'),
};

export const decisionOptionRow = z.strictObject({
  label: z.string(),
  summary: z.string().nullable(),
  pros: z.array(z.string()),
  cons: z.array(z.string()),
});

/** A debate: participants with positions, the tally by option, who is still to answer, the arguments. */
export const debateState = z
  .strictObject({
    open: z.boolean(),
    winning_option: z.string().nullable(),
    participants: z.array(
      z.strictObject({
        actor_id: id,
        display_name: z.string(),
        kind: actorKind,
        position: z.string().nullable(),
        replies: z.number().int(),
        answered_at: timestamp.nullable(),
        handoff_id: id.nullable(),
      }),
    ),
    tally: z.array(z.strictObject({ option: z.string(), count: z.number().int(), supporters: z.array(z.string()) })),
    waiting_on: z.array(z.strictObject({ actor_id: id, display_name: z.string() })),
    arguments: z.array(
      z.strictObject({ id, actor_id: id, author: z.string(), position: z.string().nullable(), body: z.string(), created_at: timestamp }),
    ),
  })
  .meta({ id: 'Debate' });
export type DebateState = z.infer<typeof debateState>;

export const decisionRow = z
  .strictObject({
    id,
    project_id: id.nullable(),
    project_key: z.string().nullable(),
    title: z.string(),
    choice: z.string(),
    context: z.string().nullable(),
    rationale: z.string().nullable(),
    consequences: z.array(z.string()),
    options: z.array(decisionOptionRow),
    status: decisionStatus,
    tags: z.array(z.string()),
    supersedes_decision_id: id.nullable(),
    superseded_by: id.nullable().describe('the decision that replaced this one'),
    author_actor_id: id,
    author: z.string().nullable(),
    run_id: z.string().nullable(),
    created_at: timestamp,
    status_changed_at: timestamp,
    related_tasks: z.array(relatedTask),
    embedding_status: embeddingStatus,
    embedding_model: z.string().nullable(),
    winning_option: z.string().nullable().describe('the option a closed debate settled on'),
    debate: debateState.nullable().describe('null unless it has participants'),
    council_id: id.nullable().describe('the council whose answer it records'),
  })
  .meta({ id: 'Decision', description: 'An append-only decision with its options and supersede links.' });
export type DecisionRow = z.infer<typeof decisionRow>;

export const decisionHit = decisionRow.extend(recallScores).meta({ id: 'DecisionHit' });
export type DecisionHit = z.infer<typeof decisionHit>;

export const noteRow = z
  .strictObject({
    id,
    project_id: id.nullable(),
    project_key: z.string().nullable(),
    kind: noteKind,
    title: z.string(),
    body: z.string(),
    tags: z.array(z.string()),
    language: z.string().nullable(),
    category: z.string().nullable(),
    sensitivity: z.enum(['normal', 'sensitive']).describe('sensitive: only keys with the sensitive scope see it'),
    expires_at: timestamp.nullable(),
    version: z.number().int().positive(),
    superseded_by: id.nullable().describe('the note that replaced this one; hidden from search'),
    retracted_at: timestamp.nullable().describe('retracted: readable by id, gone from search'),
    retracted_reason: z.string().nullable(),
    conflicts: z
      .array(z.strictObject({ id, title: z.string(), link_id: id }))
      .describe('notes linked to this one as contradicting it'),
    author_actor_id: id,
    author: z.string().nullable(),
    updated_by_actor_id: id.nullable(),
    run_id: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    related_tasks: z.array(relatedTask),
    embedding_status: embeddingStatus,
    embedding_model: z.string().nullable(),
    embedding_error: z.string().nullable().describe('the last embedding failure, while retrying or failed'),
  })
  .meta({ id: 'Note', description: 'A knowledge note (note, runbook, finding, snippet, guideline, pattern or journal).' });
export type NoteRow = z.infer<typeof noteRow>;

export const noteHit = noteRow.extend(recallScores).meta({ id: 'NoteHit' });
export type NoteHit = z.infer<typeof noteHit>;

export const skillRow = z
  .strictObject({
    id,
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    project_id: id.nullable(),
    project_key: z.string().nullable(),
    scope: z.enum(['workspace', 'project']),
    tags: z.array(z.string()),
    status: z.enum(['active', 'archived']),
    version: z.number().int().positive(),
    content_hash: z.string().describe('sha256 of the body'),
    size_bytes: count,
    created_by_actor_id: id,
    updated_by_actor_id: id,
    created_at: timestamp,
    updated_at: timestamp,
    body: z.string().optional().describe('the markdown playbook (skill_get, or include_body)'),
  })
  .meta({ id: 'Skill', description: 'A versioned markdown playbook.' });
export type SkillRow = z.infer<typeof skillRow>;

/** task_get: the decisions linked to the task. */
export const taskDecisionLink = z.strictObject({
  id,
  title: z.string(),
  choice: z.string(),
  status: decisionStatus,
  superseded_by: id.nullable(),
  created_at: timestamp,
});

/** task_get and project_brief: a knowledge note by title. */
export const noteTitle = z.strictObject({
  id,
  title: z.string(),
  kind: noteKind,
  tags: z.array(z.string()),
  expires_at: timestamp.nullable(),
  updated_at: timestamp,
});

/** project_brief: a current (not superseded) decision. */
export const briefDecision = z.strictObject({
  id,
  title: z.string(),
  choice: z.string(),
  status: decisionStatus,
  supersedes_decision_id: id.nullable(),
  created_at: timestamp,
});

// ---------------------------------------------------------------------------------------------
// The project brief (project_brief, and task_get with include:["brief"])
// ---------------------------------------------------------------------------------------------

/** What the composed done gate checked on a move to done. */
export const doneGate = z
  .strictObject({
    summary: z.string().describe('e.g. "criteria 3/3 · evidence linked · reviewer answered"'),
    checks: z.array(z.strictObject({ gate: z.string(), met: z.boolean(), summary: z.string() })),
  })
  .meta({ id: 'DoneGate' });

export const projectBrief = z
  .strictObject({
    project: projectRow.extend({
      owner: z.string().nullable().describe("the owner's display name"),
      parent: projectStub.omit({ status: true }).nullable(),
    }),
    tasks: taskCounts,
    top_open_tasks: z.array(taskRow),
    open_handoffs: z.array(handoffRow).describe('handoffs about the project and its tasks, not resolved, newest 10'),
    recent_decisions: z.array(briefDecision).describe('current decisions of the project, newest first'),
    knowledge: z.array(noteTitle).describe('live knowledge notes of the project, newest first'),
    repositories: z.array(repositoryRow.extend({ role: repoRole, linked_at: timestamp })).describe('primary first'),
    current_repository: repositoryRow.nullable().describe('where your run stands (X-Bullpen-Repo or run_heartbeat remote_url)'),
    in_repository: z.boolean().nullable().describe('whether your run stands in one of them; null when Bullpen does not know where it stands'),
    repo_match: z.strictObject({ repository_id: id, slug: z.string(), role: repoRole }).nullable(),
    recent_activity: z.array(activityEntry),
    subprojects: z.array(projectStub),
  })
  .meta({ id: 'ProjectBrief', description: 'One-call orientation on a project.' });
export type ProjectBrief = z.infer<typeof projectBrief>;
