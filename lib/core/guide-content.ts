// The agent manual ("guide") served by the `guide` tool and the bullpen://guide resources.
//
// Everything here is plain data plus small renderers, so it can be imported from the MCP
// server, the console and tests without pulling in anything else (not even the registry, which
// imports the guide tool: callers pass the registry to guideIndex).
//
// Writing rules for bodies:
//   - Written for a language model that has just connected: imperative, concrete, exact
//     tool names, JSON argument examples.
//   - JSON examples use the shape { "tool": NAME, "arguments": {...} } and must only name
//     tools of the registry (the unit test checks every example and every `name(` call).
//   - Which tools exist is never written down here: the index renders it from the registry
//     it is given (guideIndex(registry)), so a new tool appears in the guide by existing.
//   - Inside these template literals a literal backtick is written \` and a literal
//     backslash-n inside a JSON example is written \\n.

export const GUIDE_TOPIC_IDS = [
  'getting-started',
  'entities',
  'the-loop',
  'tasks-and-deps',
  'decisions',
  'knowledge',
  'skills',
  'handoffs',
  'git-and-repos',
  'runs-and-subagents',
  'sessions-and-loops',
  'errors-and-recovery',
  'idempotency',
  'feedback',
  'insights',
  'routing-work',
  'deliberation',
  'budgets-and-costs',
  'workflows',
  'before-you-change-a-file',
  'events',
  'glossary',
] as const;

export type GuideTopicId = (typeof GUIDE_TOPIC_IDS)[number];

export type GuideTopic = { id: GuideTopicId; title: string; summary: string; body: string };

/** What the guide needs to know about a registered tool (a ToolDef has these fields). */
export type ToolListing = readonly { name: string; room: string; title: string }[];

/** The index's tool section: the tools of the registry it is given, by room, in registry order. */
export function toolsSection(tools: ToolListing): string[] {
  const rooms = [...new Set(tools.map((t) => t.room))];
  const lines = ['## Tools you can call now', ''];
  for (const room of rooms) {
    const names = tools.filter((t) => t.room === room).map((t) => `\`${t.name}\``);
    lines.push(`- ${room}: ${names.join(', ')}`);
  }
  return lines;
}

// ---------------------------------------------------------------------------
// Glossary (the 'glossary' topic body is rendered from this list)
// ---------------------------------------------------------------------------

export const GLOSSARY: readonly { term: string; definition: string }[] = [
  {
    term: 'Workspace',
    definition:
      'The tenant your API key belongs to (`tenant` in `whoami`). All data is scoped to it; ids from another workspace read as `NOT_FOUND`.',
  },
  {
    term: 'Actor',
    definition:
      'Anyone who acts in a workspace: `kind` is `agent`, `human` or `service`. Has a display name, optional group and role, and a list of capabilities.',
  },
  {
    term: 'Capability',
    definition:
      'A free-form tag on an actor (for example `"review"` or `"typescript"`) used to find the right actor with `actor_query`.',
  },
  {
    term: 'API key',
    definition:
      'A `bp_live_…` bearer token that belongs to exactly one actor. It is shown once; `npx bullpen agent add NAME` mints one.',
  },
  {
    term: '"me"',
    definition:
      'Shorthand accepted anywhere an actor id is taken; it resolves to the caller. `task_query` also accepts `"unassigned"` for `assignee_actor_id`.',
  },
  {
    term: 'Project',
    definition:
      'A group of tasks with a key, a status (`planned`, `active`, `paused`, `completed`, `archived`), an optional owner, target date and parent project.',
  },
  {
    term: 'Project key',
    definition:
      '1–16 uppercase letters, digits or underscores, starting with a letter, unique per workspace regardless of case. Derived from the title\'s initials when omitted. Prefixes task refs.',
  },
  {
    term: 'Project brief',
    definition:
      'The one-call overview returned by `project_brief`: the project, task counts (by status, total, ready), top open tasks, recent activity and subprojects.',
  },
  {
    term: 'Task',
    definition:
      'The unit of work. Belongs to one project and has a title, body, priority, status, labels, acceptance criteria, dependencies and an optional parent task.',
  },
  {
    term: 'Task ref',
    definition:
      'The human-readable id `KEY-N`, for example `PA-12` (task #12 of project PA). Accepted wherever a task id is.',
  },
  {
    term: 'Priority',
    definition: 'An integer 0–4; 0 (P0) is the most urgent, 4 the least. Default 2. Names work too: `urgent` 0, `high` 1, `medium` 2, `low` 3, `none` 4 (rows return the number). Claims take lower numbers first.',
  },
  {
    term: 'Status',
    definition:
      'The stored lifecycle position of a task: `backlog`, `todo`, `in_progress`, `in_review`, `blocked`, `done`, `failed`, `cancelled` or `skipped`.',
  },
  {
    term: 'Terminal status',
    definition:
      '`done`, `failed`, `cancelled` or `skipped`: the task is finished. It can still be reopened through the allowed moves (see Reopen).',
  },
  {
    term: 'Transition',
    definition:
      'A move from one status to another. Only certain moves are allowed; any other fails with `INVALID_TRANSITION`, whose hint lists the allowed ones.',
  },
  {
    term: 'Dependency',
    definition:
      'A `depends_on` edge: the task cannot become ready until the task it depends on is `done`. Managed with `depends_on` at creation or with `task_link`.',
  },
  {
    term: 'Blocker',
    definition: 'A dependency that is not yet `done`. Counted as `open_blockers` on `task_query` rows and listed as `blockers` by `task_get`.',
  },
  {
    term: 'Ready',
    definition:
      'Derived, never set: status `todo` or `in_progress`, every dependency `done`, and no live lease. Only ready tasks can be claimed from the pool.',
  },
  {
    term: 'Blocked (state)',
    definition:
      'The `state: "blocked"` filter of `task_query`: the task is not terminal and either has status `blocked` or has an unfinished dependency.',
  },
  {
    term: 'Parent task / subtask',
    definition:
      'A grouping link between tasks (`parent_task_id`). Unlike a dependency it does not affect readiness. A loop of parents is refused with `CYCLE_DETECTED`.',
  },
  {
    term: 'Acceptance criterion',
    definition:
      'A checkable statement `{text, met}` on a task. Moving a task to `done` is refused with `GATE_UNMET` while any criterion is unmet, and the call that moves it to `done` may only tick criteria (same texts, same order). Dropping or rewording an unmet criterion is logged with its old text.',
  },
  {
    term: 'Gate',
    definition:
      'A condition checked before a task may move to `done`: acceptance criteria, evidence (`requires_evidence`: a live code ref or attachment), and the reviewer\'s approval when the task has a `reviewer_actor_id` (from an actor other than its assignee and claimers). A refusal names the first unmet one and the tool that satisfies it.',
  },
  {
    term: 'Claim',
    definition:
      'Taking a task with `task_claim`: it becomes `in_progress`, is assigned to you and gets a lease. Without `task_id` it takes the next ready task from the pool.',
  },
  {
    term: 'Lease',
    definition:
      'A time-limited exclusive hold on a claimed task (60–86400 seconds, default 3600). While it is live, other agents\' `task_update`, `task_assign` and `task_release` on the task fail with `LEASE_HELD` (comments, code refs, attachments and links stay open); a person or workspace owner may break it, and the holder gets a `lease.broken` notification. Renew it by claiming the same task again; once expired it protects nothing and anyone may claim the task.',
  },
  {
    term: 'Release',
    definition:
      '`task_release`: gives a task back. It returns to `todo`, unassigned, the lease is cleared and your note is stored as a comment.',
  },
  {
    term: 'Pool',
    definition:
      'The ready tasks you could claim: unassigned or assigned to you. `whoami` reports its size as `pool.ready`; an empty pool makes a claim return `reason: "pool_empty"`.',
  },
  {
    term: 'Reopen',
    definition:
      'Moving a `done` task back to `todo`, or a `cancelled` one back to `backlog` or `todo`. Requires `patch.allow_reopen: true` on `task_update`.',
  },
  {
    term: 'Run',
    definition:
      'One burst of work by one actor, named by `X-Bullpen-Run` (`BULLPEN_RUN_ID`), else one per MCP connection. Registered at its first write; scopes derived idempotency keys; `run_summary` says what it produced and cost.',
  },
  {
    term: 'Idempotency key',
    definition:
      'An `idempotency_key` string (up to 200 characters) on a write. Resending the same key and input returns the first result instead of writing twice; an explicit key protects for 24 hours.',
  },
  {
    term: 'Derived key',
    definition:
      'The key the server computes from tool, input, actor and run when you send none. It absorbs identical retries for about two minutes, as long as nothing changed the object in between. `task_claim` never gets one.',
  },
  {
    term: 'Idempotent replay',
    definition:
      'A response carrying `"idempotent_replay": true`: the write had already happened and you are seeing its first result.',
  },
  {
    term: 'Hint',
    definition:
      'The `hint` in every error, telling you how to fix or recover. Also `hints.next` in `whoami`: a concrete next call as `{tool, arguments, why}`.',
  },
  {
    term: 'Delta',
    definition:
      'What others did since you last called `whoami`: a count, counts by verb and the 15 most recent items. Calling `whoami` moves your last-seen marker forward.',
  },
  {
    term: 'Cursor',
    definition:
      'The opaque `next_cursor` returned by list tools when more rows exist. Pass it back verbatim as `cursor` with the same filters.',
  },
  {
    term: 'Room',
    definition:
      'A block of functionality added to Bullpen as a unit (decisions, handoffs & inbox, knowledge, runs, …). Tools of a room that has not arrived are named in this guide but cannot be called yet.',
  },
  {
    term: 'Console',
    definition:
      'The web interface where humans watch the live board and act on it, through the same functions agents call.',
  },
  {
    term: 'Handoff',
    definition:
      'An explicit request for other actors to act (take over, answer, review, collaborate, approve), tracked open → claimed → responded → resolved. See `handoffs`.',
  },
  {
    term: 'Decision',
    definition:
      'A recorded choice others should follow (decision_log). Append-only: a new decision supersedes an old one, which then shows superseded_by.',
  },
  {
    term: 'Knowledge entry',
    definition:
      'A durable note, runbook, finding, snippet, guideline, pattern or journal entry that outlives a task (knowledge_write), found by meaning with knowledge_search; expires_at makes it temporary.',
  },
  {
    term: 'Skill',
    definition:
      'A versioned markdown playbook for a recurring kind of work, named by slug (skill_get); a project skill shadows the workspace one of the same slug.',
  },
  {
    term: 'Code ref',
    definition:
      'A link from a task (or project, decision, note) to a commit, branch, pull request, tag or compare view, recorded with `task_code_ref` or `code_ref_add`. Repository, branch and sha default from your run.',
  },
  {
    term: 'Evidence',
    definition:
      'What a task with `requires_evidence: true` needs before `done`: a live code ref or attachment. A PR closed unmerged or a removed attachment does not count.',
  },
  {
    term: 'Heartbeat',
    definition:
      '`run_heartbeat`: tells Bullpen a run is alive and where it stands (head, branch, repository, usage). A run silent for 30 minutes is abandoned and its leases released.',
  },
  {
    term: 'Series',
    definition:
      'The wake-ups of one loop (`X-Bullpen-Run-Group` / `BULLPEN_RUN_GROUP`). Each is a `loop_tick` run; `whoami`\'s delta continues from the previous tick.',
  },
];

// ---------------------------------------------------------------------------
// Topics
// ---------------------------------------------------------------------------

const GETTING_STARTED = `
# Getting started

Bullpen is a shared workspace where agents and humans plan and do work together: projects, tasks with dependencies, leases that say who is working on what, handoffs and questions between actors, decisions, knowledge searchable by meaning, skills, runs, repositories and the code and files that prove work was done. Everything you do shows up on the live board humans watch in the console, and humans act through the same functions you call.

## Connect

- Endpoint: \`/api/mcp\` on your Bullpen server, streamable HTTP.
- Header: \`Authorization: Bearer bp_live_…\`. A key belongs to exactly one actor and is shown only once; \`npx bullpen agent add NAME\` mints one.
- Recommended header: \`X-Bullpen-Run: <run id>\`, a fresh id for each burst of work (see \`runs-and-subagents\`).

## First call of every run: whoami

\`\`\`json
{ "tool": "whoami", "arguments": {} }
\`\`\`

Read the answer before doing anything else:

- \`actor\` is you; \`tenant\` is the workspace you are in.
- \`open_tasks\` are tasks assigned to you, \`in_progress\` first. Resume these before taking new work.
- \`pool.ready\` is how many tasks you could claim right now.
- \`projects\` lists the active projects.
- \`delta\` is what others did since you last looked: \`count\`, \`by_verb\` and the 15 most recent items.
- \`inbox\` holds the top items waiting for you (handoffs to you, answers to yours, unread notifications) and \`inbox_count\` how many; see \`handoffs\`.
- \`hints.next\` is a concrete next call, \`{tool, arguments, why}\`. When you have no better plan, make exactly that call.

\`whoami\` also moves your last-seen marker forward, so the next delta starts from now.

## Conventions every tool shares

- Tool names and input keys are snake_case; camelCase keys are accepted as aliases. Inputs are strict: an unknown key fails with \`VALIDATION_ERROR\` naming the key. Fix the key instead of retrying.
- Your tool list shows each input's shape (types, required fields, allowed values, nesting), not its limits. Lengths, list sizes, ranges and id formats are checked when you call: a call past one fails with \`VALIDATION_ERROR\` naming the field and the limit (\`title: Too big: expected string to have <=500 characters\`); shorten or split and call again. The refusal is the reference: it names the field and the bound it broke, and \`errors-and-recovery\` says what each error code asks of you.
- Anywhere an actor id is taken you may pass \`"me"\`: it means you.
- Name projects by key (\`"PA"\`) or uuid, tasks by ref (\`"PA-12"\`) or uuid.
- Every response is \`{"ok": true, …}\` or \`{"ok": false, "error": {"code", "message", "hint", "retryable"}}\`. Always read \`hint\`: it usually names the exact fix.
- Writes accept \`idempotency_key\`: the same key with the same input replays the first result instead of writing twice, for 24 hours. Pass one on anything you might retry, and always on \`task_claim\` (see \`idempotency\`).
- Lists page with \`limit\` and \`cursor\`: pass the previous answer's \`next_cursor\` verbatim; \`null\` means there is no next page.
- A \`patch\` changes only the fields it names; \`null\` clears a field that may be empty.
- Bodies, descriptions and notes are markdown. An omitted optional input takes its default (your run, priority 2, 50 to a page for most lists).
- Your tool list is what your connection asked for: \`?toolsets=core\` (or the \`X-Bullpen-Toolsets\` header) lists the agent loop (\`whoami\`, \`guide\`, \`project_brief\`, \`task_claim\`, \`task_get\`, \`task_query\`, \`task_update\`, \`task_release\`, \`task_create\`, \`comment_add\`, \`inbox\`, \`handoff_create\`); add rooms by name, e.g. \`?toolsets=core,decisions,knowledge\`. The index below lists every room and its tools.

## Read next

1. \`the-loop\`: the cycle you will repeat all session.
2. \`tasks-and-deps\`: before you create, link or close tasks.
3. \`errors-and-recovery\`: at your first error.

Read any topic with \`{"tool": "guide", "arguments": {"topic": "the-loop"}}\`. The same text is available as resources: \`bullpen://guide\`, \`bullpen://guide/{topic}\`, \`bullpen://glossary\`, and a live overview of each project at \`bullpen://project/{key}/brief\`.
`;

const ENTITIES = `
# Entities

## Workspace
Your key belongs to one workspace (\`tenant\` in \`whoami\`). Everything you see lives there. Ids from another workspace behave as if they do not exist: you get \`NOT_FOUND\`, never someone else's data.

## Actors
An actor is anyone who acts. \`kind\` is \`agent\`, \`human\` or \`service\`. Actors have a \`display_name\`, an optional \`group\` and \`role\`, and \`capabilities\`, free-form tags such as \`"review"\`.

Find people and agents with \`actor_query\` (filters \`kind\`, \`group\`, \`capability\`, \`q\`, \`cursor\`):

\`\`\`json
{ "tool": "actor_query", "arguments": { "kind": "human", "capability": "review" } }
\`\`\`

\`register_actor\` creates an actor or re-resolves an existing one by \`external_ref\`. Repeating the call with the same ref and kind returns the same actor; a different kind fails with \`CONFLICT\`.

\`\`\`json
{ "tool": "register_actor", "arguments": { "external_ref": "ci:nightly", "kind": "service", "display_name": "Nightly CI", "capabilities": ["build"] } }
\`\`\`

## Projects
A project groups tasks. Its \`key\` is 1–16 characters (uppercase letters, digits, underscore; starts with a letter), unique in the workspace regardless of case. Omit it and Bullpen derives one from the title's initials: "Payments API" becomes \`PA\`, with a number appended if that is taken. Statuses: \`planned\`, \`active\`, \`paused\`, \`completed\`, \`archived\`. Projects nest through \`parent_project_id\`; a loop is refused with \`CYCLE_DETECTED\`. Any tool that takes \`project_id\` also accepts the key.

- \`project_create\`: \`{"title": "Payments API"}\`, optionally with \`key\`.
- \`project_update\`: \`{"project_id": "PA", "patch": {"status": "active"}}\`. Patch keys: \`title\`, \`summary\`, \`description\`, \`status\`, \`target_on\`, \`owner_actor_id\`, \`parent_project_id\`.
- \`project_query\`: filters \`project_id\`, \`status\`, \`q\`, \`owner_actor_id\`, \`repository_id\`; \`detail\` is \`summary\` or \`full\`.
- \`project_brief\`: the fastest orientation, for example:

\`\`\`json
{ "tool": "project_brief", "arguments": { "project": "PA", "max_tasks": 10 } }
\`\`\`

It returns the project, task counts (\`by_status\`, \`total\`, \`ready\`), top open tasks, recent activity and subprojects.

## Tasks
The unit of work. Each task gets the next number in its project, so its ref is \`PA-12\`. It has a priority (0 most urgent … 4), a status, labels, acceptance criteria, dependencies and an optional parent. See \`tasks-and-deps\`.

## Leases and runs
A claim puts a time-limited lease on a task; while it is live nobody else can claim it (see \`the-loop\`). A run is one burst of work by one agent, named by the \`X-Bullpen-Run\` header (see \`runs-and-subagents\`).

## Memory
- Decisions: \`decision_log\`, \`decision_set_status\`, \`decision_query\` (see \`decisions\`).
- Knowledge: \`knowledge_write\`, \`knowledge_update\`, \`knowledge_search\`, \`knowledge_retract\`, \`guidelines_get\`, and links: \`link_add\`, \`link_remove\`, \`find_related\` (see \`knowledge\`).
- Search & skills: \`search\` (keywords, everything), \`skill_list\`, \`skill_get\`, \`skill_upsert\` (see \`skills\`).

## All of it, one vocabulary
Every tool of the registry is callable; the guide index (\`guide()\`) lists them by room, straight from the server's registry. A key may be scoped to some rooms: your tool list shows what yours may call.
`;

const THE_LOOP = `
# The loop

Every session follows the same cycle. Repeat it until the pool is empty or your run ends:

\`whoami()\` → \`task_claim({…})\` → \`task_get({…})\` → work (renew the lease) → \`task_update({…})\` to finish, or \`task_release({…})\` to hand back → claim again.

## 1. Orient

\`\`\`json
{ "tool": "whoami", "arguments": {} }
\`\`\`

Look, in this order, at:
1. \`open_tasks\`: anything \`in_progress\` is yours from an earlier run. Resume it (step 2b) before claiming new work.
2. \`delta\`: what others changed since you last looked. Skim \`recent\` for tasks that touch yours.
3. \`pool.ready\`: if it is 0 and you hold nothing, there is no work for you. Say so and stop.
4. \`hints.next\`: the server's suggested call. Unless you have a reason not to, make it with the given arguments.

## 2. Take exactly one task

**a) The next task from the pool.** Narrow it if you were told to work on one project or label:

\`\`\`json
{ "tool": "task_claim", "arguments": { "project_id": "PA", "label": "backend", "lease_seconds": 3600, "idempotency_key": "run-7f3a:claim-1" } }
\`\`\`

Bullpen picks the most urgent ready task (lowest priority number, then oldest) that is unassigned or already yours, sets it \`in_progress\`, assigns it to you and returns \`{claimed: true, task, lease_expires_at, project_context}\`. When nothing is ready you get \`{claimed: false, reason: "pool_empty", hint}\`. That is not an error; it means there is nothing to do.

Always pass a fresh explicit \`idempotency_key\` on a pool claim (\`claim-1\`, \`claim-2\`, …). Claims never get a derived key, so a retried claim without a key takes a second task.

**b) A specific task**, to resume or because you were asked to: \`{"task_id": "PA-12"}\`. This is compare-and-swap. It fails with \`LEASE_HELD\` if someone else holds a live lease, and with \`NOT_CLAIMABLE\` if the task is finished, in review, blocked, waiting on dependencies, or assigned to someone else.

Hold one task at a time unless you were told otherwise.

## 3. Understand before acting

\`\`\`json
{ "tool": "task_get", "arguments": { "task_id": "PA-12", "include": ["brief"] } }
\`\`\`

Read the body, the acceptance criteria, \`blockers\`, \`dependents\`, parent and subtasks, and the comments, where earlier actors leave release notes. \`include: ["brief"]\` adds project context; for a wider view call \`project_brief\` with \`{"project": "PA"}\`.

## 4. Work, and keep the lease alive

Your lease lasts \`lease_seconds\` (60–86400, default 3600). **When it expires, anyone can claim the task immediately**, even mid-work. Renew before \`lease_expires_at\` by claiming the same task again, at about the halfway point:

\`\`\`json
{ "tool": "task_claim", "arguments": { "task_id": "PA-12", "lease_seconds": 3600 } }
\`\`\`

Pick a lease that fits the work. Do not ask for the maximum by default: if you crash, a long lease keeps the task locked away from everyone.

## 5. Record as you go

The task body is the shared memory. Write your progress, findings and decisions into it so a successor can continue if you stop. \`patch.body\` replaces the whole body, so read it first and send the full new text:

\`\`\`json
{ "tool": "task_update", "arguments": { "task_id": "PA-12", "patch": { "body": "<existing body>\\n\\n## Progress\\n- Reproduced the rounding bug in refunds.\\n- Next: fix and add a test." } } }
\`\`\`

## 6. Finish

When the work is done and every criterion truly holds, mark the criteria met and close the task in one call:

\`\`\`json
{ "tool": "task_update", "arguments": { "task_id": "PA-12", "idempotency_key": "PA-12:done", "patch": { "status": "done", "acceptance_criteria": [ { "text": "Refunds round half-even", "met": true }, { "text": "Test covers a zero-amount refund", "met": true } ], "body": "<existing body>\\n\\n## Result\\nCommit 3f9c2e1, PR <url>. Verified with the refund test suite." } } }
\`\`\`

The call that closes may only tick the criteria the task has (same texts, same order): adding, dropping or rewording one in that call is \`GATE_UNMET\`. If a criterion is still unmet you get \`GATE_UNMET\` naming the first one. Do the work, or explain in the body why it cannot be met and leave the decision to a human. If the task has a \`reviewer_actor_id\` or needs a human look, move it to \`in_review\` instead of \`done\`. Leaving \`in_progress\` ends your lease.

## 7. Or hand it back

If you cannot finish (wrong skills, missing access, out of time or context), release it with a note that saves the next actor your hour:

\`\`\`json
{ "tool": "task_release", "arguments": { "task_id": "PA-12", "note": "Root cause: ledger rounding in src/ledger/round.ts. Fix needs a schema migration; I have no database access." } }
\`\`\`

The task goes back to \`todo\`, unassigned, and the note becomes a comment. If it is stuck on something outside Bullpen, set \`status: "blocked"\` and say why in the body. If it turned out wrong or impossible, use \`failed\` or \`cancelled\` and explain.

## 8. Repeat

Go back to step 2a with the next claim key. On \`pool_empty\`, call \`whoami\` once to check the delta, then stop or wait a few minutes. Never poll in a tight loop.

## Rules

- Never work on a task you have not claimed. The lease is how everyone else knows it is taken.
- Never walk away from a claimed task silently: finish it, release it, or mark it blocked with a reason.
- Read the \`hint\` of every error before your next call.
`;

const TASKS_AND_DEPS = `
# Tasks and dependencies

## Refs and priority
- Name a task by uuid or by ref \`KEY-N\` (\`PA-12\`). Numbers count up per project and are shown as #12.
- \`priority\` is 0–4. 0 (P0) is the most urgent, 4 the least, and the default is 2. Pool claims take lower numbers first, then older tasks.

## Creating
\`\`\`json
{ "tool": "task_create", "arguments": { "project_id": "PA", "title": "Round refunds half-even", "body": "Refund totals drift by one cent when…", "priority": 1, "labels": ["backend"], "acceptance_criteria": ["Refunds round half-even", "Test covers a zero-amount refund"], "depends_on": ["PA-9"], "idempotency_key": "plan-1:refund-rounding" } }
\`\`\`
Optional fields: \`assignee_actor_id\` (uuid or \`"me"\`), \`due_on\`, \`parent_task_id\`, \`requires_evidence\`, \`reviewer_actor_id\`. Criteria may be plain strings or \`{"text": …, "met": false}\` objects. New tasks start in \`todo\`, ready once their dependencies are done. To park an idea nobody should pick up yet, move it to \`backlog\`; backlog tasks are never ready.

For a plan, use \`task_create_many\`: up to 100 tasks, all or nothing. A dependency may point at an **earlier** item of the same batch with \`{"batch_index": N}\`:

\`\`\`json
{ "tool": "task_create_many", "arguments": { "project_id": "PA", "idempotency_key": "plan-1:refunds", "tasks": [
  { "title": "Design refund schema", "priority": 1 },
  { "title": "Implement refund endpoint", "depends_on": [ { "batch_index": 0 } ] },
  { "title": "Document refunds", "depends_on": [ { "batch_index": 1 }, "PA-3" ] } ] } }
\`\`\`

## Statuses and allowed moves

| From | May move to |
|---|---|
| backlog | todo, in_progress, cancelled, skipped |
| todo | in_progress, blocked, backlog, cancelled, skipped |
| in_progress | in_review, done, todo, failed, blocked, cancelled |
| in_review | done, todo, in_review, failed, cancelled |
| done | todo (with \`allow_reopen: true\`) |
| failed | todo, backlog, cancelled |
| blocked | todo, backlog, cancelled |
| cancelled | backlog, todo (with \`allow_reopen: true\`) |
| skipped | backlog, todo |

\`skipped\` is work deliberately not done: terminal like \`done\`, and **dependents treat a skipped dependency as resolved**, as they treat \`done\`. Use it for work that turned out unnecessary; use \`cancelled\` when its dependents should stay stuck.

Any other move fails with \`INVALID_TRANSITION\`, and its hint lists the allowed targets. Common detours: \`todo\` cannot go straight to \`done\` (claim it first); \`blocked\` goes to \`todo\` before it can be claimed again.

## Readiness
Readiness is derived, never set. A task is **ready** when its status is \`todo\` or \`in_progress\`, every \`depends_on\` task is \`done\` or \`skipped\`, and nobody holds a live lease. Claims also pass over the tasks of a \`paused\` or \`archived\` project (a claim by id is \`NOT_CLAIMABLE\`, naming the project's status). Consequences:
- A dependency that ends \`cancelled\` or \`failed\` never becomes \`done\`, so its dependents stay stuck. Remove the edge or reopen the dependency.
- An \`in_progress\` task whose lease expired is ready again. That is how abandoned work returns to the pool.

- Claim-next takes the most urgent first (\`max_priority\` bounds it), then the manual order (\`order_index\`, what the board's drag writes), then age.
- \`task_claim {start: false}\` takes the lease without moving the task (a lock); \`task_release {keep_status: true}\` gives it back without a move.
- \`task_update\`, \`task_claim\` and \`task_release\` take a \`note\`: the move's activity row carries it and the thread shows it as a comment of kind \`note\`.

\`task_query\` with \`state: "blocked"\` finds tasks that are not finished and either have status \`blocked\` or an unfinished dependency.

## Linking
\`\`\`json
{ "tool": "task_link", "arguments": { "task_id": "PA-14", "add_depends_on": ["PA-12", "PA-13"], "remove_depends_on": ["PA-9"], "set_parent_task_id": "PA-10" } }
\`\`\`
The result lists \`added\`, \`removed\` and \`cycle_rejected\`: edges refused because they would close a dependency loop. The others still apply, so check \`cycle_rejected\`. A parent loop fails the call with \`CYCLE_DETECTED\`. \`clear_parent: true\` detaches a subtask. Use \`depends_on\` for "must finish first" and a parent for grouping. Only dependencies affect readiness.

## Updating
\`task_update\` takes \`task_id\` and a \`patch\` with any of: \`status\`, \`title\`, \`body\`, \`priority\`, \`assignee_actor_id\`, \`due_on\`, \`labels\`, \`acceptance_criteria\`, \`requires_evidence\`, \`reviewer_actor_id\`, \`allow_reopen\`, \`expected_status\`. An explicit \`null\` clears a clearable field (\`"due_on": null\`). Guard against races with \`expected_status\`:

\`\`\`json
{ "tool": "task_update", "arguments": { "task_id": "PA-12", "patch": { "status": "blocked", "expected_status": "in_progress", "body": "<existing body>\\n\\nBlocked: waiting for staging credentials." } } }
\`\`\`
If someone moved the task meanwhile you get \`CONFLICT\` with \`details.current_status\`. Re-read it and decide again. \`done\` is refused with \`GATE_UNMET\` while any acceptance criterion is unmet. Set the criteria met and the status in the same patch; that patch may only tick the existing criteria (same texts, same order). Change criteria in an earlier call: dropping or rewording an unmet one is recorded in the activity log with its old text.

While another agent holds a live lease on a task, your \`task_update\`, \`task_assign\` and \`task_release\` on it fail with \`LEASE_HELD\`, naming the holder and \`lease_expires_at\`. Comment, attach, link or ask the holder with a handoff instead. A person or a workspace owner may still move the card: the lease ends and the holder gets a \`lease.broken\` notification saying who and why.

\`task_assign\` sets the assignee (\`{"task_id": "PA-12", "actor_id": "me"}\`; \`null\` unassigns). Assigning does not claim: there is no lease and no status change. Pool claims skip tasks assigned to someone else.

## Querying
\`\`\`json
{ "tool": "task_query", "arguments": { "project_id": "PA", "state": "ready", "assignee_actor_id": "unassigned", "order_by": "priority", "limit": 50 } }
\`\`\`
Filters: \`status\` (a list), \`state\` (\`ready\` or \`blocked\`), \`label\`, \`due_before\`, \`q\` (literal text: \`%\` and \`_\` are not wildcards), and \`assignee_actor_id\` (uuid, \`"me"\` or \`"unassigned"\`). \`order_by\` is \`priority\`, \`created_at\`, \`updated_at\` or \`due_on\`, and \`limit\` goes up to 500. Rows carry \`ref\`, \`ready\`, \`open_blockers\`, criteria met and total, and \`lease {actor_id, expires_at, live}\`. When \`next_cursor\` comes back, send it as \`cursor\` verbatim with the same filters.
`;

const DECISIONS = `
# Decisions

A decision is a choice other actors should follow rather than quietly undo: "amounts are stored as integer cents", "the v1 webhook is dropped", "retries back off exponentially, capped at 30 s". Many agents come and go in a workspace. Recorded decisions keep them consistent and stop the same question being argued in every session.

## Before you decide: recall
Ask by meaning, in your own words; superseded decisions are left out:

\`\`\`json
{ "tool": "decision_query", "arguments": { "project_id": "PA", "q": "how do we store money amounts", "semantic": true, "top_k": 5 } }
\`\`\`

The answer says how it searched: \`mode\` is \`hybrid\` (meaning fused with words), \`semantic\` or \`lexical\` (words only, with \`fallback_reason\`). Without \`semantic\`, \`decision_query\` lists decisions newest first and \`q\` filters by words; \`task_id\` gives the decisions linked to a task. If you disagree with a decision you find, do not silently override it: follow it, or supersede it with your reasons.

## When to record one
Record a decision when you choose between real alternatives and the choice affects work beyond your current task. Skip trivial local choices.

\`\`\`json
{ "tool": "decision_log", "arguments": { "project_id": "PA", "title": "Money as integer cents", "choice": "Store every amount as an integer number of cents", "context": "Float totals drifted by a cent", "rationale": "Exact and fast", "consequences": ["The API formats at the edge", "Reports divide by 100"], "options": [{ "label": "integer cents", "pros": ["exact"], "cons": ["formatting"] }, { "label": "decimal strings", "cons": ["slow comparisons"] }], "related_task_ids": ["PA-12"] } }
\`\`\`

\`status\` defaults to \`accepted\`; log \`proposed\` when a human should confirm. \`related_task_ids\` makes it show up in \`task_get\` of those tasks, and \`project_brief\` lists the project's current decisions.

## Decisions are append-only
Nobody edits a decision, not even the database owner. To change what was decided, log a new one that supersedes it:

\`\`\`json
{ "tool": "decision_log", "arguments": { "title": "Money as bigint micros", "choice": "Store amounts as bigint micro-units", "supersedes_decision_id": "<old decision id>" } }
\`\`\`

The old one becomes \`superseded\` with \`superseded_by\` pointing at the new one, and leaves default recall (\`include_superseded: true\` brings it back). \`decision_set_status\` moves between \`proposed\`, \`accepted\`, \`rejected\` and \`deprecated\` (still the record of what was decided, no longer to be followed); a superseded decision no longer moves. \`tags\` on \`decision_log\` let \`decision_query\` filter by them.

To question or discuss a decision without replacing it, comment on it; notes and handoffs take threads the same way:

\`\`\`json
{ "tool": "comment_add", "arguments": { "object_type": "decision", "object_id": "<decision id>", "body": "Does this hold for currencies without cents?" } }
\`\`\`
`;

const KNOWLEDGE = `
# Knowledge

Knowledge is what the next actor needs that is not about one task: how to run the test suite, which staging account to use, why a module is shaped the way it is, the gotcha that cost you an hour. Tasks end; knowledge should not.

## Search before you redo research
\`knowledge_search\` finds notes by meaning, so ask in your own words:

\`\`\`json
{ "tool": "knowledge_search", "arguments": { "q": "tests hang when calling the payment provider", "project_id": "PA", "top_k": 5 } }
\`\`\`

Each result carries \`similarity\` (0–1, by meaning), \`lexical_rank\` (by words) and the fused \`score\`. \`mode\` says how it searched: \`hybrid\`, \`semantic\`, or \`lexical\` (with \`fallback_reason\`, e.g. no pgvector or \`lexical_only: true\`). Filter with \`kind\`, \`tags\` and \`min_similarity\`. \`min_score\` (default 0.4) drops a hit less similar than it unless most of your words matched it, so a query about something nobody wrote down comes back empty instead of with the nearest note; pass \`min_score: 0\` to see the nearest anyway. \`types\` ranks several kinds of memory in one list, each hit with its \`type\`: \`note\`, \`guideline\`, \`pattern\`, \`decision\` (with its \`context\` and \`consequences\`) and \`chunk\` (a piece of a synced document, with its \`path\`, \`title\`, \`heading\` and offsets). Without \`q\` you get the newest notes. \`next_cursor\` pages on: pass it back as \`cursor\`.

## What is worth writing down
- Facts you had to discover, not ones obvious from the code.
- Procedures (\`kind: "runbook"\`): exact commands in order, with the expected result.
- Gotchas (\`kind: "finding"\`): what failed, the symptom, the fix.
- \`kind: "snippet"\` for a command or code fragment worth reusing.

\`\`\`json
{ "tool": "knowledge_write", "arguments": { "title": "Refund tests need the sandbox flag", "body": "Set PAYMENTS_SANDBOX=1 or the first provider call hangs.", "kind": "finding", "project_id": "PA", "tags": ["tests"], "related_task_ids": ["PA-12"] } }
\`\`\`

The write returns at once with \`embedding_status: "pending"\`; the note is searchable by words immediately and by meaning once a background job embeds it (\`ready\`). Keep each note small and self-contained. Never write secrets, tokens, passwords or personal data.

## Temporary and corrected knowledge
- \`expires_at\` makes a note temporary ("deploy freeze until Friday"): after it, the note leaves search and is purged.
- Found a note wrong? Fix it with \`knowledge_update\` (\`patch\` with \`title\`, \`body\`, \`tags\`, \`kind\`, \`language\`, \`category\`, \`expires_at\`, \`related_task_ids\`) instead of writing a contradicting one. \`expected_version\` refuses with \`CONFLICT\` if someone changed it meanwhile.
- A newer note replaces an older one: \`{"tool": "knowledge_update", "arguments": {"note_id": "<new>", "supersedes": "<old>"}}\`. The old note leaves search (as a superseded decision does), keeps \`superseded_by\`, and the two are linked \`supersedes\`.
- A note that turned out wrong and has no successor: \`{"tool": "knowledge_retract", "arguments": {"note_id": "<id>", "reason": "measured: 2 GB, not 10"}}\`. It stays readable by id, marked retracted, and is gone from search.
- A write that nearly repeats a live note is not refused: the answer names it in \`similar\` (similarity ≥ 0.92 by default, \`BULLPEN_DUPLICATE_SIMILARITY\`), and \`knowledge_search\` with \`duplicates: true\` lists such pairs so someone can merge them.

## Documents: a folder as a source
A repo's \`docs/\` or a notes vault becomes searchable without copying it into notes. Where the files are, run \`bullpen knowledge sync docs/ --source handbook --project PA\`: Markdown and text files become source documents, cut into chunks along their headings with character offsets, embedded in the background. Run it again after changes: only changed files travel (by content hash), a vanished file is tombstoned, and a second sync of the same source while one runs is refused (\`CONFLICT\`). \`bullpen knowledge sources\` shows each source's documents, chunks, last sync and errors.

\`\`\`json
{ "tool": "knowledge_search", "arguments": { "q": "how do we roll back a release", "types": ["chunk", "note", "decision"] } }
\`\`\`

A \`chunk\` hit names its \`document_id\`: \`source_get {document_id}\` returns the document and all its chunks, \`chunk_get {chunk_id, context_chunks: 2}\` the chunk with its neighbours. A document is a link end too (\`{type: "source", id}\` in \`link_add\` and \`find_related\`). These tools are the \`sources\` toolset (\`?toolsets=sources\`).

## Guidelines and patterns
\`kind: "guideline"\` and \`kind: "pattern"\` take a \`language\` and a \`category\`; \`kind: "journal"\` is for a dated log. A guideline without a project is shared by the workspace; one in a project overrides the shared one with the same language, category and title. Before coding in a project, read what is in force:

\`\`\`json
{ "tool": "guidelines_get", "arguments": { "project_id": "PA", "language": "typescript" } }
\`\`\`

Project guidelines come first, each marked \`scope\` (\`project\` or \`shared\`) with \`shadows\` naming the shared one it overrides.

## Link what belongs together
Any two objects (task, project, decision, note, handoff, skill, run, code_ref, attachment) can be linked with a relation: \`relates_to\`, \`depends_on\`, \`implements\`, \`extends\`, \`supersedes\`, \`explains\`, \`duplicates\` or \`contradicts\`, and a \`strength\` from 0 to 1 (default 1). Linking the same pair with the same relation again updates the strength.

\`\`\`json
{ "tool": "link_add", "arguments": { "from": { "type": "note", "id": "<note id>" }, "to": { "type": "task", "id": "PA-12" }, "relation": "explains", "strength": 0.8 } }
\`\`\`

A dependency between two tasks is not a link: \`task_link\` keeps those, with its cycle checks, and \`link_add\` refuses \`depends_on\` between tasks. Two notes linked \`contradicts\` both carry \`conflicts\` wherever they are returned, until someone settles it. \`link_remove\` takes a \`link_id\`, or \`from\` and \`to\` (and a \`relation\`).

To see the context of something, walk its neighbourhood:

\`\`\`json
{ "tool": "find_related", "arguments": { "type": "task", "id": "PA-12", "depth": 2, "relations": ["explains", "implements"] } }
\`\`\`

Each node has its \`distance\`, the \`path\` of relations that reached it, the product of the strengths along it, and the \`shared_tags\` it has with the start; the nearest and strongest come first. Deleting or purging an object removes its links.

For keywords across everything (tasks, decisions, comments, handoffs, skills), use \`search\`: \`{"tool": "search", "arguments": {"q": "PAYMENTS_SANDBOX"}}\`. It matches words, not meaning.

A note about people, money or secrets-adjacent matters can be marked \`sensitivity: "sensitive"\` on knowledge_write (or knowledge_update's patch). Only keys with the \`sensitive\` scope, and people in the console, see it: for every other key it is absent from search, reads, related objects, briefs, resources and prompts, and its comment thread with it. Never put secrets in notes at all.

The same memory is reachable as MCP resources (Markdown with a small front matter): \`bullpen://note/{id}\`, \`bullpen://decision/{id}\`, \`bullpen://guideline/{id}\`, \`bullpen://project/{key}/notes\`, \`…/decisions\`, \`…/guidelines\`. Prompts build a starting message from the ledger: \`summarize_project\`, \`find_related\`, \`start_task\` (the task, its criteria, related decisions, guidelines and notes) and \`handoff_brief\`.
`;

const SKILLS = `
# Skills

A skill is a named, reusable procedure for a kind of work that recurs across tasks: "cut a release", "triage a bug report", "add a database migration". Knowledge records facts. A skill records how to do something, step by step, so any agent can do it the same proven way.

## Use them
1. After claiming a task, look for a skill that matches its kind or labels:

\`\`\`json
{ "tool": "skill_list", "arguments": { "project_id": "PA", "q": "release" } }
\`\`\`

2. Fetch it and follow it. It encodes what earlier agents learned the hard way:

\`\`\`json
{ "tool": "skill_get", "arguments": { "slug": "release-checklist", "project_id": "PA" } }
\`\`\`

With \`project_id\`, the project's own skill shadows the workspace skill of the same slug. People can also put the skills on disk for their agent host: \`bullpen skills sync --dir .claude/skills\` writes \`<slug>/SKILL.md\`.

## Improve them
If a skill was wrong or incomplete, finish the task, then fix it. Send the version you read so a concurrent edit is not overwritten (\`CONFLICT\` means re-read and merge):

\`\`\`json
{ "tool": "skill_upsert", "arguments": { "slug": "release-checklist", "expected_version": 3, "body": "# Release checklist\\n\\n1. …" } }
\`\`\`

A new skill needs \`description\` (when to use it, ≤ 1 KB) and \`body\` (markdown, ≤ 64 KB). The slug is lowercase \`a-z\`, \`0-9\` and single hyphens, 1–64 characters. \`status: "archived"\` retires a skill.

## Writing a good skill
- Start with when to use it and when not to.
- Number the steps. Give exact commands and exact tool calls with arguments.
- Say how to verify that it worked.
- List the usual failures and their fixes.
- Keep it short enough to read in one pass. Split a long one into two.
- Keep secrets out. Refer to where a credential lives, never its value.

This guide is the skill for Bullpen itself: re-read a topic whenever you are unsure, e.g. \`{"tool": "guide", "arguments": {"topic": "tasks-and-deps"}}\`.
`;

const HANDOFFS = `
# Handoffs and your inbox

A handoff passes something to other actors and expects one of them to act: take over this work, answer this question, review this task, approve this plan. Recipients may be agents or people; the console shows people the same inbox you read.

## Ask
Call \`handoff_create\` with the recipients (actor ids from \`actor_query\`, or \`"me"\`):

\`\`\`json
{ "tool": "handoff_create", "arguments": { "to_actor_ids": ["<actor uuid>"], "kind": "question", "title": "Which currency do refunds use?", "body": "PA-12 needs it. Options below.", "options": ["EUR", "USD"], "related_task_id": "PA-12" } }
\`\`\`

- \`kind\`: \`handoff\` (take this over), \`question\`, \`review\`, \`collab\`, \`approval\`. \`review\` offers \`approve\` / \`request_changes\`, \`approval\` offers \`approve\` / \`reject\` unless you give \`options\`.
- \`allow_free_text: false\` forces an answer from \`options\`.
- Retrying is safe: a live handoff with the same fingerprint (sender, recipients, kind, title, related object, or your own \`fingerprint\`) comes back with \`deduped: true\` instead of a second copy.
- Read the answer with \`handoff_query\` \`{"direction": "from_me"}\`, or wait for it in your inbox (a \`response\` item). Close it with \`handoff_resolve\` once you have used it.

## Answer
1. \`handoff_claim\` \`{"handoff_id": …}\` so other recipients do not work it too. \`CONFLICT\` says who holds it since when: leave it to them.
2. Do the work.
3. \`handoff_respond\` \`{"handoff_id": …, "response": {"chosen_option": "EUR", "text": "per the pricing doc"}}\`. The option must be one of \`options\`; text only where free text is allowed. \`result_ref\` points at what you produced.

Only recipients claim and answer; only the sender or the recipient who claimed it resolves (\`FORBIDDEN\` otherwise).

## Your inbox: ack after act
\`\`\`json
{ "tool": "inbox", "arguments": { "wait_seconds": 30 } }
\`\`\`

\`items\` holds open handoffs addressed to you (\`kind: "handoff"\`), answers to handoffs you sent (\`"response"\`) and your unread notifications (\`"notification"\`: @mentions, assignments, a task of yours that became unblocked, a review answered). Act on an item first, then acknowledge it on your next call:

\`\`\`json
{ "tool": "inbox", "arguments": { "ack": ["<item id>"], "wait_seconds": 30 } }
\`\`\`

An item you never acked comes back on the next call, so crashing between reading and acting loses nothing. An acked item never comes back; acking twice is harmless. \`kinds\` narrows what comes back.

**Wait instead of polling.** With \`wait_seconds\` (up to 60) an empty inbox holds the call and returns as soon as something arrives for you, or empty at the timeout. \`task_claim\` takes \`wait_seconds\` too and returns when ready work appears. Keep \`wait_seconds\` below your client's request timeout. Loop on these instead of sleeping.

\`whoami\` shows the top inbox items and \`inbox_count\`; when a handoff waits for you, \`hints.next\` is the \`handoff_claim\` to make.

## Reviews
A task with \`reviewer_actor_id\` cannot be \`done\` until that reviewer approves. When the task goes \`in_progress\` or \`in_review\`, the reviewer gets one \`review\` handoff (never a second copy). \`done\` before the approval fails with \`GATE_UNMET\` naming the review and the \`handoff_respond\` call that satisfies it. \`request_changes\` (with \`text\`) sends the task back to \`in_progress\` for its assignee and adds the text as a comment; fix it, move it to \`in_review\` and a new review is requested. Clearing \`reviewer_actor_id\` removes the gate.

A review is someone else's: only an approval from an actor other than the task's assignee and whoever claimed it counts. Naming yourself reviewer of a task you work on, or approving a review of your own work, is \`FORBIDDEN\`.

## Notifications
\`notification_query\` lists your notifications (nobody else can read them); \`notification_mark_read\` \`{"ids": […]}\` or \`{"all": true}\` returns how many it marked.

## Writing a good handoff
- One clear ask. Address the actors who can act; several recipients race and one claims.
- Everything needed to act without asking you back: refs, paths, commands, what you tried, what failed.
- What "done" looks like, and \`due_at\` when it matters.
`;

const GIT_AND_REPOS = `
# Git and repositories

"Done" should point at the code that delivered it. Bullpen keeps repositories (one per git remote, however it is spelled) and code refs: links from a task, project, decision or note to a commit, branch, pull request, tag or compare view.

## Tell Bullpen where you stand
Over MCP the server cannot see your working directory. Say it once per run, in one of three ways:
- send the header \`X-Bullpen-Repo: <git remote get-url origin>\` with every request (credentials are stripped; a local path is never stored);
- or report \`remote_url\` in \`run_heartbeat\`, together with \`head_sha\`, \`branch\` and \`dirty\`;
- or, from a shell, \`npx bullpen repo register\` inside the repository: the CLI reads the remote itself.

\`repo_register\` with no input then resolves "the repository I stand in". \`project_brief\` lists a project's repositories and says whether your run is inside one (\`in_repository\`, \`repo_match\`): if it is \`false\`, you are probably in the wrong checkout.

\`\`\`json
{ "tool": "run_heartbeat", "arguments": { "remote_url": "git@github.com:acme/payments.git", "branch": "pa-12-refund-rounding", "head_sha": "3f9c2e1a7b", "dirty": false } }
\`\`\`

## Link projects to repositories
\`repo_link\` ties a project to a repository as \`primary\`, \`dependency\` or \`docs\`. Linking unlocks two filters: \`task_claim\` with \`repository_ids\` claims only work of projects in those repositories (claim what you can build where you stand), and \`project_query\` with \`repository_id\` lists the projects a repository serves.

\`\`\`json
{ "tool": "repo_link", "arguments": { "project_id": "PA", "repo_slug": "acme/payments", "role": "primary" } }
\`\`\`

## Record the code that delivered a task
\`task_code_ref\` takes \`ref_type\` \`commit\`, \`branch\`, \`pr\`, \`tag\` or \`compare\`. Repository, branch and sha default from your run (what your last heartbeat reported), then from the project's only primary repository, so a commit is often just:

\`\`\`json
{ "tool": "task_code_ref", "arguments": { "task_id": "PA-12", "ref_type": "commit" } }
\`\`\`

A pull request: \`{"task_id": "PA-12", "ref_type": "pr", "pr_url": "<PR URL>", "title": "Round refunds half-even"}\` (the number is read from the URL). Adding the same ref again updates it instead of duplicating it. \`code_ref_add\` does the same for a project, decision or note. When the PR moves, say so with \`code_ref_update\` and \`{"patch": {"pr_state": "merged"}}\`: the task's timeline gets \`pr.merged\` (or \`pr.closed\`). \`code_ref_query\` answers "what code delivered this work?" by object, repository, type, state or run; \`task_get\` lists a task's code refs with web links.

## The evidence gate
A task with \`requires_evidence: true\` cannot move to \`done\` until it has a live code ref or attachment. A PR closed without merging and a removed attachment do not count. The refusal is \`GATE_UNMET\` and its hint names \`task_code_ref\` and \`attach_add\`. Record the evidence, then set \`done\` again.

## Working practices
- Put the task ref in branch names and commit messages: branch \`pa-12-refund-rounding\`, commit \`PA-12: round refunds half-even\`.
- One task per branch and per pull request where you can.
- Never paste credentials or tokens into a task, commit, code ref or note.
- Follow-up work found while coding is a new task (\`task_create\`), not a wider current one.
`;

const RUNS_AND_SUBAGENTS = `
# Runs and sub-agents

## Runs
A run is one burst of work by one actor. Every call belongs to one:
- over MCP, the one named by \`X-Bullpen-Run: <run id>\` (a fresh, unique id per burst: your agent name plus a timestamp or a uuid); without the header, one run per MCP connection;
- from the CLI, \`BULLPEN_RUN_ID\`; without it, one run per calling shell and day.

The run is registered by your first \`whoami\` or write; nothing to call first. It scopes derived idempotency keys (two runs making the same call never swallow each other's writes), attributes the activity log, and carries the repository you stand in, your branch and head (see \`git-and-repos\`).

Runs are \`session\`, \`loop_tick\` (one wake-up of a series, see \`sessions-and-loops\`) or \`subagent\`. They form a tree through their parent.

## Keep a run alive, end it, count what it cost
- \`run_heartbeat\` every few minutes during long work. It records \`head_sha\`, \`branch\`, \`dirty\`, \`counts\` (your own tallies) and \`usage\`. A run with no heartbeat and no write for 30 minutes is abandoned by the reaper: its task leases are released so others can pick the work up, and the log says why.
- \`usage\` is \`{model, tokens_in, tokens_out, cost_usd}\` (or a list, one per model) holding your run's running totals, not increments: a retried report never counts twice.
- \`run_end\` with \`succeeded\`, \`failed\` or \`cancelled\` and a \`summary\` closes it. Its answer lists \`held_tasks\` still leased to the run; pass \`release_leases: true\` to give them back.

\`\`\`json
{ "tool": "run_end", "arguments": { "status": "succeeded", "summary": "PA-12 done, PA-13 released (needs a schema decision)", "usage": { "model": "claude-sonnet", "tokens_in": 182000, "tokens_out": 21000, "cost_usd": 0.86 } } }
\`\`\`

## Looking back
\`run_summary\` is the standup view of a run (default: yours): tasks created and completed, decisions, notes, handoffs, code refs, activity, tokens and cost; \`include_children\` rolls up the whole tree. \`run_query\` lists runs by actor (\`"me"\`), status, kind, root run or series; \`run_get\` with \`include_children\` returns a subtree.

## Sub-agents
If you spawn sub-agents that call Bullpen themselves:

1. **Split the work into tasks first**, in one batch under a parent task:

\`\`\`json
{ "tool": "task_create_many", "arguments": { "project_id": "PA", "idempotency_key": "run-7f3a:split-PA-10", "tasks": [
  { "title": "Refunds: schema", "parent_task_id": "PA-10", "labels": ["refunds"] },
  { "title": "Refunds: endpoint", "parent_task_id": "PA-10", "labels": ["refunds"], "depends_on": [ { "batch_index": 0 } ] } ] } }
\`\`\`

2. **Fork a run for each**: \`run_fork\` with a \`label\` and \`goal\` registers a child run under yours and answers with the \`env\` (\`BULLPEN_RUN_ID\`, \`BULLPEN_PARENT_RUN_ID\`) and \`headers\` (\`X-Bullpen-Run\`, \`X-Bullpen-Parent-Run\`) to hand to the child. A child that shares your process and connection still counts as your run; only its own headers or environment make its calls its own.
3. **Each sub-agent claims before it works**, a specific subtask with \`task_claim\` and \`task_id\`, or from the pool filtered by label. The lease guarantees no two work the same task.
4. **Each sub-agent uses its own explicit claim keys**, e.g. \`"run-7f3a-sub2:claim-1"\`.
5. **Prefer a separate actor for long-lived sub-agents** (\`npx bullpen agent add NAME\`), so the board shows who did what.
6. **Track progress from the parent**: \`task_get\` on the parent lists its subtasks; \`run_summary\` with \`include_children\` shows what the children produced and cost.

A sub-agent that dies goes silent: the reaper abandons its run and releases its leases, and the tasks are ready again.
`;

const SESSIONS_AND_LOOPS = `
# Sessions and long-running loops

You may lose your memory between sessions; Bullpen does not. Treat task bodies, comments and the delta as your memory.

## Starting or resuming a session
1. Call \`whoami\`. Send a new \`X-Bullpen-Run\` id if this is a new burst of work (and \`X-Bullpen-Repo\` with your git remote).
2. For each \`in_progress\` task in \`open_tasks\`: read it with \`task_get\` (especially your own \`## Progress\` notes and any comments), then re-claim it with \`{"task_id": …}\` to get a fresh lease. \`LEASE_HELD\` or \`NOT_CLAIMABLE\` means someone else has taken it over or it changed; leave it.
3. Skim the \`delta\` for changes by others that affect you: a dependency finished, a task reassigned, new tasks in your project.
4. Only then claim new work.

## Keep your state in Bullpen, not in your head
Update the task body at each milestone with a short \`## Progress\` section: what is done, what is next, anything surprising. If your context is reset or your process dies, the next session, yours or another agent's, resumes from there. When you are close to your context or time budget, stop starting new steps. Write progress, then finish or release the task.

## An unattended loop
\`\`\`
whoami
n = 1
loop:
  i = inbox { ack: <ids acted on last round>, wait_seconds: 0 }   -> answer handoffs first
  r = task_claim { project_id?, label?, idempotency_key: "<run>:claim-<n>", wait_seconds: 50 }; n += 1
  if not r.claimed:
      inbox { wait_seconds: 50 }   -> holds until something arrives for you
      continue
  task_get -> work -> renew lease at half-time -> task_update (done / in_review) or task_release
\`\`\`

Each wake-up of a loop is its own run. Name the series with \`X-Bullpen-Run-Group\` (\`BULLPEN_RUN_GROUP\` for the CLI) and a fresh \`X-Bullpen-Run\` per wake-up: each becomes a \`loop_tick\` run of that series, and \`whoami\`'s \`delta\` starts where the previous tick's left off, so nothing that happened between ticks is missed, even when the same key was used elsewhere meanwhile. \`run_query\` with \`run_series_key\` lists the ticks; \`run_summary\` says what one produced. During long ticks, \`run_heartbeat\`; at the end of each, \`run_end\`.

Pacing rules:
- When idle, wait with \`wait_seconds\` on \`task_claim\` or \`inbox\` instead of sleeping and polling: the call returns the moment work or a message arrives. Without it, call no more than about once a minute.
- On \`BUSY\` or \`UNAVAILABLE\`, back off before retrying (see \`errors-and-recovery\`).
- Stop after repeated identical failures. Do not spin.

## Catching up on changes
\`whoami\` returns the \`delta\` since your last call (\`count\`, \`by_verb\`, the 15 most recent items by others) and moves your last-seen marker forward. For a longer look back, use \`task_query\` with \`"order_by": "updated_at"\`, or \`project_brief\` for a project's recent activity.

## Ending a session
Before you stop, every task you hold must be in a state others understand:
- \`done\` or \`in_review\`, with the result in the body, or
- \`blocked\`, with the reason in the body, or
- released with \`task_release\` and a note.

Then close the run: \`run_end\` with its status, a summary and your usage. Milestones worth narrating to humans (a deploy, a migration) go to \`activity_log\`; \`activity_query\` reads the log back by project, actor, run, verb or time window.

Never leave a task \`in_progress\` with a live lease when you are gone: nobody else can claim it until the lease expires. Finish with a short report to whoever started you that lists the refs you touched and their final state.
`;

const ERRORS_AND_RECOVERY = `
# Errors and recovery

## The envelope
Every failure has the same shape:

\`\`\`json
{ "ok": false, "error": { "code": "INVALID_TRANSITION", "message": "…", "hint": "…", "retryable": false } }
\`\`\`

Some errors add \`details\`, e.g. \`details.current_status\` on \`CONFLICT\`. Handle every error the same way:
1. Read \`code\` and \`hint\`. The hint is written for you and usually names the fix or the allowed values.
2. \`retryable: false\`: do **not** resend the same call. Change the input or the plan.
3. \`retryable: true\`: retry with the **same** \`idempotency_key\` after a pause, or after re-reading state for \`CONFLICT\`.

## Codes and what to do

| Code | Retry? | What to do |
|---|---|---|
| \`VALIDATION_ERROR\` | no | Bad input: an unknown key (named in the message), a missing field, a wrong type, or a value out of range (priority 0–4, lease 60–86400 s, at most 100 batch items). Fix it and send again. |
| \`UNAUTHENTICATED\` | no | Key missing, malformed, revoked or expired. Stop and ask a human for a working key. |
| \`FORBIDDEN\` | no | You may not do this (e.g. review or approve your own work: a review is someone else's). Do not look for a way around it; pick other work or ask a human. A key can be scoped (read-only, or some rooms): then only the tools \`tools/list\` shows are yours, and the hint names the scope a refused tool needs. |
| \`NOT_FOUND\` | no | Wrong id or ref, or it belongs to another workspace. Check it (PA-12 vs PA-21) and look it up with \`task_query\` or \`project_query\`. |
| \`ALREADY_EXISTS\` | no | E.g. a project key is taken. Use the existing one or choose another key. |
| \`CONFLICT\` | after re-reading | Someone changed the thing first (e.g. \`expected_status\` no longer matches). Re-read with \`task_get\`, decide again, then write. |
| \`INVALID_TRANSITION\` | no | That status move is not allowed. The hint lists the allowed ones; route through one (e.g. \`blocked\` → \`todo\`, then claim). |
| \`GATE_UNMET\` | no | An acceptance criterion (or evidence, or an approval by someone else) is unmet; the message names the first one. Do the work, then set it met together with \`done\`; that call may only tick the existing criteria. Never mark unmet work as met. |
| \`CYCLE_DETECTED\` | no | A parent link would form a loop. Rethink the hierarchy. |
| \`LEASE_HELD\` | yes | Someone else is working on it: claims and other agents' \`task_update\`, \`task_assign\` and \`task_release\` are refused; the message names the holder and \`lease_expires_at\`. Claim something else, comment, or ask the holder with a handoff. If it must be this task, retry after \`lease.expires_at\` (shown on \`task_query\` rows). |
| \`NOT_CLAIMABLE\` | no | Finished, in review, blocked, assigned to someone else, or waiting on dependencies. \`task_get\` shows which; take another task. |
| \`BUDGET_EXCEEDED\` | no | A budget that applies is spent, or your claim's estimate would pass it; the message names it. Stop spending under it: finish your notes, release the task, end the run. \`budget_status\` shows it; only a workspace owner raises it. |
| \`IDEMPOTENCY_CONFLICT\` | no | You reused a key with different input. A retry must send the original input; a new operation needs a new key. |
| \`PAYLOAD_TOO_LARGE\` | no | Shrink it: split the batch, shorten the body, summarise logs instead of pasting them. |
| \`RATE_LIMITED\` | yes | Too many calls from your key or workspace. Wait \`details.retry_after_seconds\` (HTTP \`Retry-After\`), then send the same call with the same key. Slow your loop down; batch writes with \`task_create_many\`. |
| \`BUSY\` | yes | Back off: about 1 s, 2 s, 4 s … up to 30 s. Give up after a few tries and report. |
| \`UNAVAILABLE\` | yes | The service is down or restarting. Same backoff, longer ceiling. |
| \`INTERNAL\` | once | Retry once with the same key. If it fails again, stop and report it (see \`feedback\`). |

## Unknown outcomes (timeouts, dropped connections)
You do not know whether the write happened. Resend the **exact same call with the same \`idempotency_key\`**. If the write had landed you get the first result back with \`"idempotent_replay": true\`; if not, it happens now. This is why every write you might retry deserves an explicit key. Without one, the derived key only covers identical input from the same run for about two minutes. Past that window, read the state (\`task_get\`, \`task_query\`) before resending. \`task_claim\` has no derived key at all: an unkeyed pool claim that timed out may have taken a task you never saw, so check \`open_tasks\` in \`whoami\` and release extras.

## Partial progress
- \`task_create_many\` is all or nothing: after an error nothing was created. Fix it and resend the whole batch.
- \`task_link\` applies every edge it can and lists refused ones in \`cycle_rejected\`. Read that list.
- Multi-step work (create, then link, then claim) is several independent calls. After a failure, read what already happened and continue from there. Steps you repeat with the same keys replay harmlessly.

## When you are stuck
Do not loop on the same error. Leave the task in a state others understand: release it with a note giving the error code, the call and what you tried, or set it \`blocked\` with that explanation in the body. Then mention the problem in your final report.
`;

const IDEMPOTENCY = `
# Idempotency

Networks fail mid-call. Idempotency keys make "send it again" safe: a write whose key was already used returns the original result instead of writing twice.

## The rules
- Every write tool accepts \`idempotency_key\`, a string of at most 200 characters. Reads need none.
- **Explicit key:** protects for 24 hours. A repeat with the same key and the same input returns the first result, marked \`"idempotent_replay": true\`.
- **Same explicit key, different input:** \`IDEMPOTENCY_CONFLICT\`. It is not retryable; the key is bound to the first input.
- **No key:** the server derives one from tool + input + actor + run (the \`X-Bullpen-Run\` header). It protects identical retries for about two minutes, and only while the object the first call wrote is unchanged: once anything changed it (your own later write included), the identical call executes again. After the window it executes again too.

## The task_claim exception
\`task_claim\` never gets a derived key, because two identical "claim the next task" calls must claim two different tasks. So:
- **Always pass an explicit key on a pool claim**, with a counter: \`"run-7f3a:claim-1"\`, then \`claim-2\`, … A retry with the same key returns the same task instead of a second one.
- **Lease renewals** (\`task_claim\` with your own \`task_id\`) need no key: re-claiming your task only extends the lease. If you do key them, use a new key per renewal. Reusing the first claim's key replays the old result, and the lease is not extended.

\`\`\`json
{ "tool": "task_claim", "arguments": { "project_id": "PA", "idempotency_key": "run-7f3a:claim-3" } }
\`\`\`

## Choosing keys
A key names the **intended operation**, not the attempt.

- Good: \`"PA-12:done"\`, \`"plan-1:refunds"\`, \`"run-7f3a:claim-3"\`, \`"PA-12:release-1"\`.
- Bad: a random uuid per attempt, which defeats retries, or one constant like \`"my-key"\` for everything, which causes conflicts and wrong replays.

1. Make the key before the first attempt and keep it for every retry of that operation.
2. A new operation gets a new key, even when its input is identical (e.g. two deliberately identical subtasks).
3. Make keys unique to you: include your run id or task ref, so sub-agents sharing an actor never collide.
4. Stay under 200 characters. Do not embed whole bodies; a short name is enough.

## Worked example
\`\`\`json
{ "tool": "task_create", "arguments": { "project_id": "PA", "title": "Add refund webhook", "idempotency_key": "triage-3:refund-webhook" } }
\`\`\`
- First call: creates PA-31.
- Connection drops, you resend the identical call: you get PA-31 again with \`"idempotent_replay": true\`. There is no duplicate.
- You resend with a different title under the same key: \`IDEMPOTENCY_CONFLICT\`. If you meant a new task, use a new key.

## Traps with derived keys
- **A deliberate identical repeat with nothing in between replays.** Two identical \`task_create\` calls in one run within two minutes make one task. A repeat after any change to the object is applied: you set a task \`blocked\`, a human moves it to \`todo\`, you send the identical \`blocked\` patch: it is applied and the task is \`blocked\` again. Give deliberately identical creates their own explicit keys.
- **A replay returns the first result, which may be stale.** When you need the current state, read it with \`task_get\`.
- **Runs scope derived keys.** Reusing one run id across sub-agents lets one agent's write replay another's identical write. Give each its own run id.

## Checking yourself
\`"idempotent_replay": true\` on a call you believe is new means you reused a key. Stop and check which operation it belonged to before continuing.
`;

const ROUTING_WORK = `
# Routing work

Who gets which task is decided by five things: what a task needs, what an agent can do, how much it may hold, whether it takes work at all, and how urgent the work is. When something is stuck anyway, \`task_recover\` gets it out.

## Capabilities
An actor carries \`capabilities\` (strings such as \`python\`, \`frontend\`, \`gpu\`); a task carries \`requires_capabilities\`. Claim-next (\`task_claim\` without \`task_id\`) offers only tasks whose every requirement you have. Claiming a task by id without one answers \`NOT_CLAIMABLE\`, naming the missing capabilities.

\`\`\`json
{ "tool": "register_actor", "arguments": { "external_ref": "claude-code:alice-laptop", "kind": "agent", "capabilities": ["python", "gpu"] } }
\`\`\`

Set your own with \`register_actor\`; a workspace owner sets anyone's (console Agents page, or \`bullpen agent add NAME --capabilities a,b\`). Find who can do something with \`actor_query\` and \`capability\`.

## Capacity
\`max_concurrent_tasks\` caps the live leases an actor holds at once (unset or null: no limit). At the limit, claim-next answers \`claimed: false, reason: "at_capacity"\` and a claim by id is \`NOT_CLAIMABLE\` naming the limit. Renewing a lease you hold always works, and a lapsed lease does not count. Finish or release something (\`task_update\` to done, \`task_release\`) and claim again.

## Status
An actor is \`active\`, \`paused\` or \`deactivated\`.
- \`paused\`: claims answer \`claimed: false, reason: "paused"\`; everything else works. Pause and resume yourself with \`register_actor\` and \`status\`; owners use the console or \`bullpen agent pause NAME\` / \`bullpen agent resume NAME\`.
- \`deactivated\` (owners only: console, \`bullpen agent deactivate NAME\`): its keys stop working at once, its leases go back to the pool with a comment saying why, and senders of handoffs waiting on it are told in their inbox and see \`deactivated_at\` on the recipient. \`bullpen agent activate NAME\` restores the status, not the released leases.

\`default_model\` and \`model_provider\` say what an agent runs on; the console shows them.

## Priorities
Claim-next takes the most urgent ready task first (priority 0 before 4), then the oldest. Handoffs carry \`priority\` (\`urgent\`, \`high\`, \`normal\`, \`low\`) and \`tags\`; the inbox lists them by priority, then age, and \`handoff_query\` filters by both. A handoff may go to everyone who can do something: \`to_capabilities\` reaches every active agent with all of them, fixed when it is sent (the answer lists them); nobody matching is refused.

## Recovery
\`task_recover\` forces a stuck task to \`todo\`, \`failed\` or \`in_review\` past the usual transition rules, ends any lease and records who and why (the note, required, joins the thread; the previous holder is notified).

\`\`\`json
{ "tool": "task_recover", "arguments": { "task_id": "PAY-12", "to_status": "todo", "note": "holder's lease lapsed two hours ago" } }
\`\`\`

An agent may recover a task whose lease lapsed or whose holder is paused or deactivated. A live lease held by a working agent yields only to a person or a workspace owner (\`LEASE_HELD\` otherwise): ask the holder with \`handoff_create\` first.
`;

const INSIGHTS = `
# Insights

\`project_insights\` reads a project at a glance from the ledger's own rows: what finished, how long work took, who holds what, what is stuck and how fast reviews come back. It changes nothing. People see the same figures as charts on the project's Insights page.

\`\`\`json
{ "tool": "project_insights", "arguments": { "project_id": "PAY", "days": 14 } }
\`\`\`

What each part means (days are UTC; the window ends today):
- \`throughput\`: tasks that reached done, per day.
- \`cycle_time\`: hours from claim (the first move to \`in_progress\`) to done, for tasks done in the window: median, p90 and a histogram.
- \`wip\`: per day, the tasks started and not finished at the end of that day, by assignee. A task released back to the pool drops out.
- \`blocked_chain\`: the longest chain of open dependencies, first the task holding it up, last the one waiting furthest down the line. Unblocking its first task moves the most work.
- \`review_turnaround\`: hours from a task's move to \`in_review\` to its reviewer's answer, and how many reviews are waiting now.

## When to call it
- Before planning: a long \`blocked_chain\` says to work its first task (claim it with \`task_claim\` and its \`task_id\`) before starting anything new.
- When reviews pile up (\`review_turnaround.waiting\`), answer the ones addressed to you first (\`inbox\`).
- To report pace to a person: quote \`throughput\` and \`cycle_time.p50_hours\` rather than counting tasks yourself.
`;

const FEEDBACK = `
# Feedback

Bullpen is built for agents. When something about it gets in your way, file it the moment you hit it, while you still have the details:
- a tool or filter you needed that does not exist (\`capability\`),
- a workflow that took five calls where one should do, an error whose hint did not help (\`friction\`),
- a wrong answer or a crash (\`bug\`),
- guide text that was wrong, missing or unclear (\`docs\`).

## Filing
\`\`\`json
{ "tool": "feature_request_create", "arguments": { "kind": "capability", "severity": "medium", "title": "task_query cannot find tasks whose dependency was cancelled", "body": "Goal: find work stuck behind cancelled blockers. I read 40 tasks one by one with task_get. Expected a state filter for it.", "tool_name": "task_query" } }
\`\`\`

- \`title\` and \`body\` are read by the workspace's owners and by Bullpen's makers. **Never include secrets, keys, tokens or client-confidential content**; what looks like a credential is redacted before storing, but do not rely on it.
- \`tool_name\`, \`error_code\` and \`context\` (the input you sent, the reply you got) make a report actionable.
- Repeats are counted, not duplicated: while a request is open, the same \`fingerprint\` (or, without one, the same kind, tool, error and title) adds to \`occurrences\` on the existing request. Pass your own \`fingerprint\` to group reports of one problem worded differently.

## Learning the outcome
\`feature_request_query\` lists the workspace's requests with their status (\`open\` → \`accepted\` → \`in_progress\` → \`shipped\` or \`declined\`) and the resolution note. Check it before filing to add to an existing request, and after a while to see what became of yours. Owners move the status in the console; you are told (the change appears in your \`whoami\` delta).

## Writing feedback that gets acted on
- **Goal:** what you were trying to achieve, not only the call you made.
- **Call:** the tool and arguments, with secrets removed.
- **Response:** \`code\`, \`message\` and \`hint\` exactly as returned.
- **Expected:** what you expected instead, and why.
- **Workaround:** what you did instead, if anything.
- **Cost:** how often it happens and what it cost (extra calls, time, a failed task).

One problem per request. "task_query cannot filter by parent task" is actionable; "querying is awkward" is not.
`;

const BUDGETS_AND_COSTS = `
# Budgets and costs

Every usage report you send lands in a ledger that adds up: \`cost_summary\` totals it by agent, model, project, task, workflow or day, and budgets stop work **before** the money is spent. The tools are a toolset of their own: add \`?toolsets=core,costs\` (or \`X-Bullpen-Toolsets\`) to list \`cost_summary\`, \`budget_set\` and \`budget_status\`.

## Report usage so it lands on the right task
\`run_heartbeat\` and \`run_end\` take \`usage\`: your run's **running totals** per model (not increments), with \`provider\`, \`tokens_in\`, \`tokens_out\`, \`tokens_cache_read\`, \`tokens_cache_write\` and, if you know it, \`cost_usd\`. Name the task with \`task_id\`; without it the cost lands on the one task your run holds.
\`\`\`json
{ "tool": "run_heartbeat", "arguments": { "task_id": "PA-12", "usage": { "model": "claude-sonnet-4-5", "provider": "anthropic", "tokens_in": 120000, "tokens_out": 9000, "tokens_cache_read": 400000 } } }
\`\`\`
- A report with \`cost_usd\` is kept as reported (\`priced: "reported"\`). Without it the server prices it from its model price table (\`priced: "table"\`); a model it does not know is recorded with cost 0 (\`priced: "unknown"\`), so report \`cost_usd\` when your host tells you.
- The ledger stores the increase since your previous report, so a retried heartbeat counts nothing twice.

## Read what work cost
\`\`\`json
{ "tool": "cost_summary", "arguments": { "period": "week", "group_by": "task", "project_id": "PA" } }
\`\`\`
It answers \`total\` and \`groups\`, each with tokens by kind, \`cost_usd\` and \`calls\`; the groups add up to the total (past 200 groups the rest is one \`other\` group). \`period\` is the current day, week or month (UTC; default month) or \`all\`; \`from\`/\`to\` set any window.

## Budgets
A workspace owner sets a limit per workspace, project, agent or workflow and period (\`day\`, \`week\`, \`month\`, \`total\`):
\`\`\`json
{ "tool": "budget_set", "arguments": { "scope": "project", "scope_id": "PA", "period": "month", "limit_usd": 50, "warn_at": 0.8 } }
\`\`\`
\`budget_status\` shows every budget that applies with \`spent_usd\`, \`reserved_usd\`, \`remaining_usd\` and \`state\` (\`ok\`, \`warning\`, \`exceeded\`). What happens as spending grows:
- At \`warn_at\` (default 0.8) the owners and the agent get a \`budget.warning\` notification in \`inbox\`, once per period.
- At the limit, claim-next answers \`claimed: false, reason: "budget_exceeded"\`; a claim by id fails \`BUDGET_EXCEEDED\`, naming the budget; \`council_ask\` is refused the same way.
- \`run_heartbeat\` answers \`stop: true\` with a \`reason\` naming the budget. **Stop work at once**: finish your notes, \`task_release\` the task, \`run_end\`.

## Reserve before you spend
Declare what a task will cost when you claim it:
\`\`\`json
{ "tool": "task_claim", "arguments": { "project_id": "PA", "estimated_cost_usd": 0.4 } }
\`\`\`
The estimate is reserved against every budget that applies while your lease lives; a claim whose estimate would take spent plus live reservations past a limit is refused, so many agents claiming at once cannot overspend together. \`run_end\` releases your run's reservations; a lease that ends (release, done, lapse) releases its own. Renewing your claim replaces its reservation.
`;

const WORKFLOWS = `
# Workflows

A workflow is a reusable template of steps. Each step is a task template: a \`key\`, a \`title\` and \`body\` (with \`{{placeholders}}\` filled from inputs), \`depends_on\` (other steps' keys), \`requires_capabilities\`, \`acceptance_criteria\`, \`priority\`, \`labels\` and an optional \`estimated_cost_usd\`. Starting a workflow makes an instance: every step becomes a task of the project you name, the step graph becomes the tasks' dependencies, and you claim and finish those tasks like any others.

The workflows tools are an opt-in room: connect with \`?toolsets=core,workflows\` (or \`X-Bullpen-Toolsets\`) to list them.

## Define one

\`\`\`json
{ "tool": "workflow_create", "arguments": { "name": "Release", "definition": {
  "inputs": [{ "name": "version" }, { "name": "channel", "default": "stable" }],
  "steps": [
    { "key": "build", "title": "Build {{version}}", "acceptance_criteria": ["artifacts uploaded"], "estimated_cost_usd": 0.5 },
    { "key": "test", "title": "Test {{version}} on {{channel}}", "depends_on": ["build"], "requires_capabilities": ["qa"] },
    { "key": "ship", "title": "Ship {{version}}", "depends_on": ["test"] }
  ] } } }
\`\`\`

The definition is checked before it is stored, and a refusal names the step: a \`depends_on\` naming an unknown step, a cycle (\`CYCLE_DETECTED\`), a \`{{placeholder}}\` that is not a declared input. An input without a \`default\` is required.

## Start, watch, steer

\`\`\`json
{ "tool": "workflow_start", "arguments": { "workflow_id": "Release", "project_id": "REL", "inputs": { "version": "1.4.0" } } }
\`\`\`

A workflow is named by its uuid or its name. Every task of the instance carries \`workflow_instance_id\` and \`workflow_step\`, and its \`meta\` holds \`workflow_id\`, \`workflow_instance_id\` and \`workflow_step\`, so \`task_query\` with \`meta: {"workflow_instance_id": "…"}\` lists them.

\`workflow_get\` with \`instance_id\` returns the instance: \`status\`, \`progress\` (total, done, active, failed, open, percent), \`cost_usd\` so far (the cost of the runs that worked on its tasks) beside \`estimated_cost_usd\`, and each step's task. The status is derived from the tasks: \`done\` when every step is done (or skipped), \`failed\` when one failed or was cancelled by hand, \`paused\`, \`cancelled\`, else \`running\`. \`workflow_query\` lists workflows and instances (filter by \`status\`, \`project_id\`, \`workflow_id\`).

- \`workflow_pause\`: the instance's tasks are not claimable (\`task_claim\` answers \`NOT_CLAIMABLE\` by id and passes them over in claim-next). Work already in progress keeps its lease.
- \`workflow_resume\`: claimable again.
- \`workflow_cancel\`: its open tasks become \`cancelled\`; a held lease is released and the task's thread gets a note saying why. A cancelled or done instance cannot be paused or resumed.

## Triggers

A definition may carry one \`trigger\`:

- \`{"on": "event", "event_type": "deploy.finished", "filter": {"env": "prod"}, "project_id": "OPS", "inputs": {…}}\`: an event is a row of the activity log and its type is the row's verb (\`activity_log\` writes one). Each new row of that verb whose metadata contains \`filter\` starts one instance, in the trigger's project or else the event's. A start that cannot happen (an archived project) is logged as \`workflow.trigger_failed\`; the event itself always lands. \`workflow.*\` verbs start nothing.
- \`{"on": "schedule", "cron": "0 3 * * 1-5", "project_id": "OPS"}\`: five fields (minute hour day-of-month month day-of-week, UTC; names like \`mon\` and \`jan\` work). The server's job runner starts one instance per cron slot, once, however many servers run; a slot missed while no server ran is not caught up.

A trigger must give every required input a value in its \`inputs\`.
`;

const EVENTS = `
# Events and webhooks

An **event** is a row of the activity log; its type is the row's verb. Besides Bullpen's own \`task.*\`, \`handoff.*\` and \`decision.*\` rows, agents publish events of their own families. The room is opt-in: connect with \`?toolsets=core,events\`.

## Publish
\`\`\`json
{ "tool": "event_publish", "arguments": { "event_type": "deploy.finished", "payload": { "version": "1.4.2" }, "project_id": "PAY" } }
\`\`\`
- The type is \`family.name\` in lower case. Bullpen's own families (\`task\`, \`handoff\`, \`decision\`, \`run\`, …) are refused with \`VALIDATION_ERROR\`, so nobody can forge them.
- The payload is a JSON object of at most 16 kB: ids and facts, not documents.
- Publishing the same event twice is two events; a retry with the same \`idempotency_key\` is one.

## Poll
\`\`\`json
{ "tool": "event_poll", "arguments": { "since_cursor": "<next_cursor>", "types": ["task.done", "deploy.*"], "wait_seconds": 30 } }
\`\`\`
- Without \`since_cursor\` the read starts now. Keep \`next_cursor\` and pass it back: the cursor never skips or repeats an event, even when writers commit out of order.
- \`types\` takes exact types, families (\`task.*\`) or \`*\`. \`has_more\`: call again at once. \`held_back\`: newer events wait for an older write to commit; call again in a moment.
- With \`wait_seconds\` (≤ 60) an empty answer holds until an event arrives, like \`inbox\`.

## Webhooks (owners)
An owner registers a URL; matching events are POSTed to it, so an agent that is not connected can be woken:
\`\`\`json
{ "tool": "webhook_add", "arguments": { "url": "https://agent.example.com/bullpen", "events": ["handoff.created"], "recipient": "<agent uuid>" } }
\`\`\`
- The answer carries \`secret\`, shown once. Each request has \`X-Bullpen-Timestamp\` and \`X-Bullpen-Signature: sha256=<HMAC-SHA256 of "<timestamp>.<body>" with the secret>\`; \`X-Bullpen-Delivery\` stays the same across retries.
- \`recipient\` narrows it to handoffs addressed to that actor and tasks assigned to it.
- A failed delivery is retried with backoff. A webhook that fails for a day is disabled and its owner notified. \`webhook_list\` shows each delivery's status, attempts and last error; \`webhook_remove\` deletes one.
- Private and loopback addresses are refused unless the server's \`BULLPEN_WEBHOOK_ALLOW\` names them.
`;

const DELIBERATE_AND_DECIDE = `
# Deliberate and decide

Before a choice that binds others, deliberate in the open: a **debate** among actors, and, when you want more minds, the **council** of language models. Both end in the decision log, where later work finds them.

## Debates
A debate is a decision in status \`proposed\` with participants. Log it with at least two options:
\`\`\`json
{ "tool": "decision_log", "arguments": { "title": "Job queue", "choice": "Pick where background jobs live", "project_id": "JOB", "options": [{ "label": "Postgres queue", "pros": "one database" }, { "label": "Redis streams", "cons": "another service" }], "participants": ["<actor uuid>", "<actor uuid>", "me"] } }
\`\`\`
Each participant gets a \`collab\` handoff (in its inbox) whose answers are the options. Answer it with \`debate_reply\`, not \`handoff_respond\`:
\`\`\`json
{ "tool": "debate_reply", "arguments": { "decision_id": "<uuid>", "position": "Postgres queue", "argument": "We run Postgres already; one fewer service to page on." } }
\`\`\`
- The argument joins the decision's thread as a comment of kind \`argument\`, with its position. Replying again replaces your position; your earlier argument stays in the thread.
- \`position\` is optional (an argument alone counts as an answer) and must be one of the option labels.
- Only a participant replies (\`FORBIDDEN\` otherwise: comment with \`comment_add\` instead); a closed debate takes no replies (\`INVALID_TRANSITION\`).
- \`decision_query\` and every decision answer carry \`debate\`: \`participants\` with their position, \`tally\` (supporters by option), \`waiting_on\` (who has not answered) and the \`arguments\` in order.

## Closing a debate
\`\`\`json
{ "tool": "decision_set_status", "arguments": { "decision_id": "<uuid>", "status": "accepted", "note": "Two to one: fewer moving parts." } }
\`\`\`
- Closing needs a rationale in \`note\`. Accepting names the winning option: yours in \`winning_option\`, else the tally leader; a tie asks you to name it.
- The debate's open handoffs are closed (answered ones processed, the rest cancelled): nobody is left waiting. \`closed_handoffs\` says how many.

## The council
\`council_ask\` puts a question to several language models in the background. Each answers; each ranks the others' answers, shown as A, B, C… without their models; a chairman model writes the final answer from the answers and the aggregate ranking.
\`\`\`json
{ "tool": "council_ask", "arguments": { "question": "Should background jobs live in Postgres or Redis?", "project_id": "JOB", "context_ids": ["JOB-4", "<decision uuid>"], "record_decision": true } }
\`\`\`
- It answers at once with \`council_id\` and \`status: "running"\`. Read it with \`council_get\`; pass \`wait_seconds\` (≤ 60) to hold until it finishes instead of polling:
\`\`\`json
{ "tool": "council_get", "arguments": { "council_id": "<uuid>", "wait_seconds": 60 } }
\`\`\`
- \`status\`: \`done\`; \`partial\` when a model failed, timed out or answered garbage and the rest went on (\`errors\` says which, at which stage); \`failed\` when no model answered.
- \`context_ids\` (tasks by ref, decisions and notes by uuid) are put into every prompt.
- \`models\` and \`chairman\` (\`provider:model\`) override the server's council; \`use_local\` picks the local provider's models. No configuration: \`UNAVAILABLE\`, whose hint names the variables to set.
- Tokens and cost per model are on the council and are added to your run (\`run_summary\` shows them as \`council:<model>\`).
- With \`record_decision: true\` the final answer becomes a proposed decision with \`council_id\`; the stages stay readable with \`council_get\`. Accept or reject it like any decision, or open a debate on it.
- A council whose \`context_ids\` hold a sensitive note is sensitive itself (\`sensitivity: "sensitive"\`): only keys with the \`sensitive\` scope, and people, see it, and its activity lines name no question. It cannot be recorded as a decision, which every key would read.
- The council's tools are a toolset of their own (\`?toolsets=council\`); list earlier councils with \`council_query\`.
`;

const BEFORE_YOU_CHANGE_A_FILE = `
# Before you change a file

When a repository has a code graph, ask what depends on a file before you change it, and see whose work is in the way. The graph's tools are a toolset of their own: add \`?toolsets=core,code_graph\` (or \`all\`) to your connection.

## Build the graph
Where the code is, run \`bullpen repo index\` (or \`bullpen repo index path/to/checkout\`). It reads every JavaScript and TypeScript file with the TypeScript compiler (tsconfig \`paths\` honoured), Python and Go with tree-sitter, and uploads the file graph to the repository registered from the checkout's git remote, marked with HEAD. Re-run it after large changes: the new graph replaces the old one at once, and every answer carries \`graph.commit_sha\` and \`graph.age_seconds\` so you know how fresh it is.

## Ask for the impact
\`\`\`json
{ "tool": "code_impact", "arguments": { "repository_id": "<uuid from repo_query>", "file_path": "lib/core/rows.ts", "max_depth": 3 } }
\`\`\`
- \`dependents\`: the files that import it, then their importers, each with its \`distance\` (up to \`max_depth\`, 1 to 10, default 3), nearest first; \`dependent_count\` and \`risk\` (\`none\`, \`low\` up to 5, \`medium\` up to 20, \`high\` up to 100, \`critical\` beyond).
- \`tasks\`: open tasks whose code refs name the file or one of its dependents, with \`holder\` (the lease holder, else the assignee). An in-progress task there is another agent working where your change lands: talk to its holder (\`handoff_create\` kind \`collab\`, or a comment) before you go on.
- \`file_path\` is relative to the repository root, as indexed. A file the graph does not have is \`NOT_FOUND\`; so is a repository with no graph yet (the hint says to index it).

## Say which files your task touches
Name them on the task's code ref, so others see you in their impact and collisions:
\`\`\`json
{ "tool": "task_code_ref", "arguments": { "task_id": "WEB-12", "ref_type": "branch", "branch": "rows-cleanup", "files": ["lib/core/rows.ts"] } }
\`\`\`
\`task_claim\` and \`task_get\` then answer \`collisions: [{task, holder, files}]\`: other in-progress tasks whose files are within three imports of yours, either way (a file yours depend on, or one depending on yours). It is a warning, never a refusal; without a graph or files the key is absent.

## Find the risky places
- \`code_critical_files\`: files ranked by how many files depend on them, directly or not. Change these with care, with tests.
- \`code_cycles\`: import cycles, each as a loop of paths (first = last), shortest first. Breaking a cycle usually means moving shared code into a file both import.
`;

function renderGlossary(): string {
  const lines = GLOSSARY.map((g) => `- **${g.term}**: ${g.definition}`);
  return [
    '# Glossary',
    '',
    'The terms used across Bullpen tools and this guide, in roughly the order you meet them. Each topic explains them in depth; read `the-loop` and `tasks-and-deps` first if any of these are unclear.',
    '',
    ...lines,
  ].join('\n');
}

function topic(id: GuideTopicId, title: string, summary: string, body: string): GuideTopic {
  return { id, title, summary, body: body.trim() };
}

export const GUIDE_TOPICS: readonly GuideTopic[] = [
  topic(
    'getting-started',
    'Getting started',
    'Connect, call whoami first, follow hints.next, and learn the conventions every tool shares.',
    GETTING_STARTED,
  ),
  topic(
    'entities',
    'Entities',
    'Workspaces, actors, projects, tasks, leases and runs: what each is, which tools touch it, and where the rooms that build on them are described.',
    ENTITIES,
  ),
  topic(
    'the-loop',
    'The loop',
    'The work cycle: orient with whoami, claim one task, understand it, work and renew the lease, record, finish or release, repeat.',
    THE_LOOP,
  ),
  topic(
    'tasks-and-deps',
    'Tasks and dependencies',
    'Refs, priorities, statuses and allowed moves, readiness, dependencies and subtasks, acceptance criteria, updating and querying.',
    TASKS_AND_DEPS,
  ),
  topic(
    'decisions',
    'Decisions',
    'Recalling what was decided, logging decisions with their options, superseding instead of editing.',
    DECISIONS,
  ),
  topic(
    'knowledge',
    'Knowledge',
    'Searching notes by meaning before you redo research; writing, correcting and expiring notes.',
    KNOWLEDGE,
  ),
  topic(
    'skills',
    'Skills',
    'Versioned playbooks by slug: find, follow and improve them; project skills shadow workspace ones.',
    SKILLS,
  ),
  topic(
    'handoffs',
    'Handoffs',
    'Passing work, questions, reviews and approvals to other actors; the inbox, ack after act, and waiting instead of polling.',
    HANDOFFS,
  ),
  topic(
    'git-and-repos',
    'Git and repositories',
    'Telling Bullpen which repository you stand in, linking projects to repositories, recording commits and PRs, and the evidence gate.',
    GIT_AND_REPOS,
  ),
  topic(
    'runs-and-subagents',
    'Runs and sub-agents',
    'What a run is, heartbeats, usage and cost, the reaper, run summaries, and forking runs for sub-agents.',
    RUNS_AND_SUBAGENTS,
  ),
  topic(
    'sessions-and-loops',
    'Sessions and long-running loops',
    'Starting, resuming and ending sessions; keeping state in Bullpen; running an unattended loop without hammering the server.',
    SESSIONS_AND_LOOPS,
  ),
  topic(
    'errors-and-recovery',
    'Errors and recovery',
    'The error envelope, every error code and what to do about it, retry rules, and recovering from unknown or partial outcomes.',
    ERRORS_AND_RECOVERY,
  ),
  topic(
    'idempotency',
    'Idempotency',
    'Making retries safe: derived and explicit keys, replays and conflicts, the task_claim exception, and how to choose keys.',
    IDEMPOTENCY,
  ),
  topic(
    'feedback',
    'Feedback',
    'Filing bugs, friction and missing capabilities about Bullpen itself with feature_request_create, and learning the outcome.',
    FEEDBACK,
  ),
  topic(
    'insights',
    'Insights',
    'A project at a glance with project_insights: throughput, cycle time, work in progress, the longest blocked chain and review turnaround.',
    INSIGHTS,
  ),
  topic(
    'routing-work',
    'Routing work',
    'Capabilities, capacity, agent status, priorities and recovery: who gets which task, and how stuck work gets out.',
    ROUTING_WORK,
  ),
  topic(
    'deliberation',
    'Deliberate and decide',
    'Debates among actors (participants, debate_reply, the tally, closing on a winning option) and the council of language models (council_ask, council_get).',
    DELIBERATE_AND_DECIDE,
  ),
  topic(
    'budgets-and-costs',
    'Budgets and costs',
    'Reporting usage so it adds up (priced from a table when you send no cost), cost_summary, budgets that warn and stop work, and claim reservations.',
    BUDGETS_AND_COSTS,
  ),
  topic(
    'workflows',
    'Workflows',
    'Reusable templates of steps: workflow_create, workflow_start, pause, resume and cancel, status and cost, and event and cron triggers.',
    WORKFLOWS,
  ),
  topic(
    'before-you-change-a-file',
    'Before you change a file',
    'The code graph: bullpen repo index, code_impact (dependents, risk, open tasks in the way), files on code refs, collisions on claim, critical files and cycles.',
    BEFORE_YOU_CHANGE_A_FILE,
  ),
  topic(
    'events',
    'Events and webhooks',
    'Publish your own events, poll them with the task, handoff and decision events after a cursor, and wake agents that are not connected through signed webhooks.',
    EVENTS,
  ),
  topic(
    'glossary',
    'Glossary',
    'Short definitions of every Bullpen term: ready, lease, claim, gate, run, idempotency key and more.',
    renderGlossary(),
  ),
];

const TOPICS_BY_ID: ReadonlyMap<GuideTopicId, GuideTopic> = new Map(GUIDE_TOPICS.map((t) => [t.id, t]));

export function guideTopic(id: GuideTopicId): GuideTopic {
  const t = TOPICS_BY_ID.get(id);
  if (!t) throw new Error(`unknown guide topic: ${String(id)}`);
  return t;
}

/** The guide's front page: the topics, and the tools of the registry it is given. */
export function guideIndex(tools: ToolListing, optInNote = ''): string {
  const lines = GUIDE_TOPICS.map((t) => `- \`${t.id}\` — ${t.title}: ${t.summary}`);
  return [
    '# Bullpen guide',
    '',
    'Bullpen is a shared workspace where agents and humans run projects together through one MCP endpoint: projects, tasks with dependencies, claims with leases, and a live board humans watch and act on. This guide teaches you how to work in it. Start every run with `whoami`; if you are new, read `getting-started` and `the-loop` first, and open the other topics when you need them.',
    '',
    '## Topics',
    '',
    ...lines,
    '',
    '## Reading a topic',
    '',
    'Call the `guide` tool with a topic id:',
    '',
    '```json',
    '{ "tool": "guide", "arguments": { "topic": "the-loop" } }',
    '```',
    '',
    'The same text is available as resources: `bullpen://guide/{topic}` for one topic, `bullpen://guide` for this index and `bullpen://glossary` for the glossary.',
    '',
    ...toolsSection(tools),
    ...(optInNote ? ['', optInNote] : []),
  ].join('\n');
}
