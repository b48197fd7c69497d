import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../lib/core/registry';
import { freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';
import { asRun } from '../helpers/runs';

/**
 * Every tool's answer in each of its shapes, on a workspace with something in it: full rows
 * (leases, criteria, parents, comments, activity), both sides of a union (claimed or not, guide
 * index or topic), optional sections, and replays. Each call goes through the helper's call(),
 * which checks the answer against the tool's output schema; this file adds the cases the room
 * suites do not reach and proves that no tool of the registry goes unchecked.
 */

let db: TestDb;
let t: Tenant;
let other: Actor;
const called = new Set<string>();

function track(actor: Actor): Actor {
  return { ...actor, call: (tool, input) => (called.add(tool), actor.call(tool, input)) };
}

beforeAll(async () => {
  db = await freshDb();
  t = await seedTenant(db);
  t.agent = track(t.agent);
  t.human = track(t.human);
  other = track(await t.addAgent('other'));
});
afterAll(() => db.drop());

describe('output contracts', () => {
  it('identity: whoami with every section and a delta, register_actor created and re-resolved, actor_query pages', async () => {
    ok(await t.agent.call('whoami'));
    ok(await t.agent.call('register_actor', { external_ref: 'ci:nightly', kind: 'service', capabilities: ['build'] }));
    // a workspace owner may change another actor's profile
    ok(await t.human.call('register_actor', { external_ref: 'ci:nightly', kind: 'service', role: 'builder', idempotency_key: 'reg-1' }));
    expect(ok(await t.human.call('register_actor', { external_ref: 'ci:nightly', kind: 'service', role: 'builder', idempotency_key: 'reg-1' })).idempotent_replay).toBe(true);
    const page = ok(await t.agent.call('actor_query', { limit: 1 }));
    expect(page.next_cursor).toEqual(expect.any(String));
    ok(await t.agent.call('actor_query', { limit: 1, cursor: page.next_cursor }));
  });

  it('projects: create with a parent, update, query in both details, brief with tasks and subprojects', async () => {
    ok(await t.human.call('project_create', { title: 'Payments', key: 'PAY', summary: 's', target_on: '2030-01-31' }));
    ok(await t.human.call('project_create', { title: 'Refunds', key: 'REF', parent_project_id: 'PAY' }));
    ok(await t.human.call('project_update', { project_id: 'REF', patch: { status: 'paused', summary: null } }));
    ok(await t.human.call('project_query', {}));
    ok(await t.human.call('project_query', { detail: 'full', limit: 1 }));
  });

  it('tasks: every write and read, with dependencies, criteria, a lease, a parent and a thread', async () => {
    const a = ok(await t.agent.call('task_create', { project_id: 'PAY', title: 'schema', labels: ['db'], due_on: '2030-01-01', acceptance_criteria: ['migrated', { text: 'indexed', met: true }] }));
    const many = ok(await t.agent.call('task_create_many', { project_id: 'PAY', tasks: [{ title: 'api', depends_on: [a.task_id] }, { title: 'ui', depends_on: [{ batch_index: 0 }], parent_task_id: a.ref }] }));
    ok(await t.agent.call('task_link', { task_id: a.ref, add_depends_on: [many.task_ids[1]] }));
    ok(await t.agent.call('task_assign', { task_id: many.task_ids[0], actor_id: 'me' }));
    ok(await t.agent.call('task_assign', { task_id: many.task_ids[0], actor_id: null }));
    const claim = ok(await t.agent.call('task_claim', { task_id: a.ref, lease_seconds: 600 }));
    expect(claim.claimed).toBe(true);
    expect(ok(await t.agent.call('task_claim', { task_id: a.ref })).extended).toBe(true);
    ok(await t.agent.call('comment_add', { object_type: 'task', object_id: a.ref, body: 'found it', mentions: ['me'] }));
    ok(await t.agent.call('comment_add', { object_type: 'project', object_id: 'PAY', body: 'kickoff' }));
    ok(await t.agent.call('comment_query', { object_type: 'task', object_id: a.ref }));
    ok(await t.agent.call('task_query', { project_id: 'PAY', limit: 1 }));
    ok(await t.agent.call('task_query', { state: 'blocked', order_by: 'due_on' }));
    ok(await t.agent.call('task_get', { task_id: many.task_ids[1], include: ['brief'] }));
    ok(await t.agent.call('task_get', { task_id: a.ref }));
    ok(await t.agent.call('task_update', { task_id: a.ref, patch: { acceptance_criteria: [{ text: 'migrated', met: true }, { text: 'indexed', met: true }], status: 'done' } }));
    ok(await t.agent.call('task_claim', { task_id: many.task_ids[0] }));
    ok(await t.agent.call('task_release', { task_id: many.task_ids[0], note: 'over to you' }));
    ok(await t.agent.call('project_brief', { project: 'PAY' }));
  });

  it('task_claim: pool empty, no match, and a keyed replay', async () => {
    ok(await t.human.call('project_create', { title: 'Empty', key: 'EMP' }));
    expect(ok(await other.call('task_claim', { project_id: 'EMP' })).reason).toBe('pool_empty');
    expect(ok(await other.call('task_claim', { repository_ids: ['00000000-0000-4000-8000-000000000000'] })).reason).toBe('no_match');
    ok(await t.human.call('task_create', { project_id: 'EMP', title: 'one' }));
    ok(await other.call('task_claim', { project_id: 'EMP', idempotency_key: 'claim-1' }));
    expect(ok(await other.call('task_claim', { project_id: 'EMP', idempotency_key: 'claim-1' })).idempotent_replay).toBe(true);
  });

  it('whoami after others worked: open tasks, projects, a delta with recent items; and one section only', async () => {
    const r = ok(await other.call('whoami'));
    expect(r.delta.recent.length).toBeGreaterThan(0);
    expect(r.open_tasks.length).toBeGreaterThan(0);
    ok(await other.call('whoami', { include: ['projects'] }));
  });

  it('memory: decisions logged, superseded and moved, notes written, updated and searched, search, skills', async () => {
    const d1 = ok(await t.agent.call('decision_log', { title: 'Cents', choice: 'integer cents', project_id: 'PAY', options: [{ label: 'cents', pros: 'exact' }], related_task_ids: ['PAY-1'] }));
    ok(await t.agent.call('decision_log', { title: 'Micros', choice: 'bigint micros', supersedes_decision_id: d1.decision_id, idempotency_key: 'dec-1' }));
    expect(ok(await t.agent.call('decision_log', { title: 'Micros', choice: 'bigint micros', supersedes_decision_id: d1.decision_id, idempotency_key: 'dec-1' })).idempotent_replay).toBe(true);
    const d3 = ok(await t.agent.call('decision_log', { title: 'Flags', choice: 'use flags', status: 'proposed' }));
    ok(await t.human.call('decision_set_status', { decision_id: d3.decision_id, status: 'accepted' }));
    ok(await t.human.call('decision_set_status', { decision_id: d3.decision_id, status: 'accepted', note: 'again' }));
    ok(await t.agent.call('decision_query', { include_superseded: true, limit: 1 }));
    ok(await t.agent.call('decision_query', { q: 'money amounts', semantic: true }));
    const n = ok(await t.agent.call('knowledge_write', { title: 'Sandbox flag', body: 'set PAYMENTS_SANDBOX=1', kind: 'finding', project_id: 'PAY', tags: ['tests'], expires_at: '2099-01-01T00:00:00Z', related_task_ids: ['PAY-1'] }));
    ok(await t.agent.call('knowledge_update', { note_id: n.note_id, patch: { body: 'set PAYMENTS_SANDBOX=1 first' } }));
    ok(await t.agent.call('knowledge_update', { note_id: n.note_id, patch: { kind: 'finding' } }));
    ok(await t.agent.call('knowledge_search', { q: 'sandbox' }));
    ok(await t.agent.call('knowledge_search', { q: 'sandbox', lexical_only: true }));
    ok(await t.agent.call('knowledge_search', {}));
    ok(await t.agent.call('search', { q: 'sandbox cents PAY-1' }));
    ok(await t.agent.call('skill_upsert', { slug: 'release', description: 'when releasing', body: 'tag and push' }));
    ok(await t.agent.call('skill_upsert', { slug: 'release', project_id: 'PAY', description: 'pay releases', body: 'also tell finance' }));
    ok(await t.agent.call('skill_upsert', { slug: 'release', body: 'tag, push, announce' }));
    ok(await t.agent.call('skill_list', { project_id: 'PAY', limit: 1 }));
    ok(await t.agent.call('skill_list', { include_body: true }));
    ok(await t.agent.call('skill_get', { slug: 'release', project_id: 'PAY' }));
    ok(await t.agent.call('task_get', { task_id: 'PAY-1', include: ['brief'] }));
  });

  it('graph: links, the neighbourhood, guidelines, supersede, retract, duplicates', async () => {
    const g = ok(await t.agent.call('knowledge_write', { title: 'Errors', body: 'wrap them', kind: 'guideline', language: 'go', category: 'errors' }));
    const p = ok(await t.agent.call('knowledge_write', { title: 'Errors', body: 'wrap with %w', kind: 'guideline', language: 'go', category: 'errors', project_id: 'PAY' }));
    ok(await t.agent.call('guidelines_get', { project_id: 'PAY' }));
    const l = ok(await t.agent.call('link_add', { from: { type: 'note', id: g.note_id }, to: { type: 'task', id: 'PAY-1' }, relation: 'explains', strength: 0.5 }));
    ok(await t.agent.call('link_add', { from: { type: 'note', id: g.note_id }, to: { type: 'note', id: p.note_id }, relation: 'contradicts' }));
    ok(await t.agent.call('find_related', { type: 'task', id: 'PAY-1', depth: 3 }));
    ok(await t.agent.call('link_remove', { link_id: l.link.id }));
    ok(await t.agent.call('knowledge_update', { note_id: p.note_id, supersedes: g.note_id }));
    ok(await t.agent.call('knowledge_retract', { note_id: p.note_id, reason: 'wrong' }));
    ok(await t.agent.call('knowledge_search', { duplicates: true }));
    ok(await t.agent.call('decision_query', { tags: ['x'], limit: 1 }));
  });

  it('guide: the index and a topic', async () => {
    ok(await t.agent.call('guide'));
    ok(await t.agent.call('guide', { topic: 'the-loop' }));
  });

  it('coordination: handoffs in every state, a review with its task, the inbox with all three kinds, notifications, waits', async () => {
    const q = ok(await t.agent.call('handoff_create', { to_actor_ids: [other.id, 'me'], title: 'Which region?', kind: 'question', options: ['eu', 'us'], related_project_id: 'PAY', due_at: '2030-01-01T00:00:00Z' }));
    expect(ok(await t.agent.call('handoff_create', { to_actor_ids: [other.id], title: 'Which region?', fingerprint: q.handoff.fingerprint })).deduped).toBe(true);
    ok(await other.call('handoff_claim', { handoff_id: q.handoff_id }));
    expect(ok(await other.call('handoff_claim', { handoff_id: q.handoff_id, idempotency_key: 'again' })).already_yours).toBe(true);
    ok(await other.call('handoff_respond', { handoff_id: q.handoff_id, response: { chosen_option: 'eu', text: 'latency', extra: [1] } }));
    const rev = ok(await t.human.call('task_create', { project_id: 'PAY', title: 'reviewed', reviewer_actor_id: other.id }));
    ok(await t.agent.call('task_claim', { task_id: rev.task_id }));
    const review = ok(await other.call('handoff_query', { direction: 'to_me', type: ['review'], limit: 1 }));
    ok(await other.call('handoff_query', { direction: 'any', limit: 1, cursor: review.next_cursor ?? undefined }));
    ok(await t.agent.call('task_get', { task_id: rev.task_id }));
    ok(await t.agent.call('task_update', { task_id: rev.task_id, patch: { status: 'in_review' } }));
    ok(await other.call('handoff_respond', { handoff_id: review.handoffs[0].id, response: { chosen_option: 'request_changes', text: 'more tests' } }));
    ok(await t.agent.call('task_get', { task_id: rev.task_id }));
    ok(await t.agent.call('project_brief', { project: 'PAY' }));
    ok(await t.agent.call('comment_add', { object_type: 'task', object_id: rev.task_id, body: 'see @other' }));
    ok(await t.human.call('handoff_create', { to_actor_ids: [t.agent.id], title: 'Take over the docs', kind: 'handoff' }));
    ok(await t.human.call('comment_add', { object_type: 'project', object_id: 'PAY', body: 'over to you', mentions: [t.agent.id] }));
    const box = ok(await t.agent.call('inbox', {}));
    expect(new Set(box.items.map((i: { kind: string }) => i.kind))).toEqual(new Set(['handoff', 'response', 'notification']));
    ok(await t.agent.call('whoami'));
    ok(await t.agent.call('inbox', { ack: box.items.map((i: { id: string }) => i.id), wait_seconds: 0.2, kinds: ['handoff'] }));
    ok(await t.agent.call('handoff_resolve', { handoff_id: q.handoff_id, note: 'thanks' }));
    const notes = ok(await other.call('notification_query', { unread_only: true, limit: 1 }));
    ok(await other.call('notification_query', { cursor: notes.next_cursor }));
    ok(await other.call('notification_mark_read', { ids: [notes.notifications[0].id] }));
    ok(await other.call('notification_mark_read', { all: true }));
    ok(await other.call('task_claim', { project_id: 'EMP', wait_seconds: 0.2 }));
  });

  it('provenance: runs, repositories and code refs, attachments, activity, feedback', async () => {
    const r = track(asRun(t.agent, { run_id: 'outputs-run', repo: 'https://github.com/out/puts' }));
    ok(await r.call('project_create', { title: 'Outputs provenance', key: 'OPV' }));
    const task = ok(await r.call('task_create', { project_id: 'OPV', title: 'with evidence', requires_evidence: true }));
    ok(await r.call('run_heartbeat', { head_sha: 'abc1234', branch: 'main', dirty: false, counts: { n: 1 }, usage: { model: 'm', tokens_in: 1, tokens_out: 1, cost_usd: 0.1 } }));
    const fork = ok(await r.call('run_fork', { label: 'child' }));
    ok(await r.call('run_query', { detail: 'full' }));
    ok(await r.call('run_get', { include_children: true }));
    ok(await r.call('run_summary', { include_children: true }));
    const repo = ok(await r.call('repo_register', {}));
    ok(await r.call('repo_link', { project_id: 'OPV', repository_id: repo.repository_id }));
    ok(await r.call('repo_query', {}));
    ok(await r.call('project_brief', { project: 'OPV' }));
    const ref = ok(await r.call('task_code_ref', { task_id: task.task_id, ref_type: 'pr', pr_number: 3 }));
    ok(await r.call('code_ref_add', { object_type: 'project', object_id: 'OPV', ref_type: 'commit' }));
    ok(await r.call('code_ref_update', { code_ref_id: ref.code_ref_id, patch: { pr_state: 'merged' } }));
    ok(await r.call('code_ref_query', { object_id: task.task_id }));
    const att = ok(await r.call('attach_add', { object_type: 'task', object_id: task.task_id, kind: 'link', url: 'https://example.com/proof' }));
    ok(await r.call('attachment_query', { object_type: 'task', object_id: task.task_id }));
    ok(await r.call('task_get', { task_id: task.task_id, include: ['brief'] }));
    ok(await r.call('attach_remove', { attachment_id: att.attachment_id }));
    ok(await r.call('activity_log', { verb: 'outputs.checked', summary: 'all shapes', run_id: fork.run_key }));
    ok(await r.call('activity_query', { run_id: 'outputs-run' }));
    ok(await r.call('feature_request_create', { title: 'shape', body: 'checked', kind: 'docs', context: 'plain text context' }));
    ok(await r.call('feature_request_query', {}));
    ok(await r.call('run_end', { status: 'succeeded', release_leases: true }));
    ok(await r.call('run_end', { status: 'succeeded' }));
  });

  it('insights: a project with dependencies, a lease and a review', async () => {
    ok(await t.human.call('project_insights', { project_id: 'PAY', days: 7 }));
  });

  it('deliberation: a debate argued and closed, a council asked, read while running and listed', async () => {
    const d = ok(await t.human.call('decision_log', {
      title: 'Queue', choice: 'Pick one', options: [{ label: 'pg' }, { label: 'redis' }], participants: ['me', other.id],
    }));
    ok(await other.call('debate_reply', { decision_id: d.decision_id, position: 'pg', argument: 'one database' }));
    ok(await t.human.call('decision_set_status', { decision_id: d.decision_id, status: 'accepted', note: 'settled' }));
    const saved = { m: process.env.BULLPEN_COUNCIL_MODELS, k: process.env.BULLPEN_COUNCIL_LOCAL_API_KEY };
    process.env.BULLPEN_COUNCIL_MODELS = 'local:alpha';
    process.env.BULLPEN_COUNCIL_LOCAL_API_KEY = 'test-key';
    try {
      const c = ok(await t.agent.call('council_ask', { question: 'Which queue?', context_ids: [d.decision_id] }));
      ok(await t.agent.call('council_get', { council_id: c.council_id }));
      ok(await t.agent.call('council_query', {}));
    } finally {
      for (const [k, v] of [['BULLPEN_COUNCIL_MODELS', saved.m], ['BULLPEN_COUNCIL_LOCAL_API_KEY', saved.k]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('events: an event published and polled, a webhook added (secret once), listed with its deliveries, removed', async () => {
    const start = ok(await t.agent.call('event_poll', { types: ['outputs.*'] })).next_cursor;
    ok(await t.agent.call('event_publish', { event_type: 'outputs.checked', payload: { n: 1 }, project_id: 'PAY' }));
    expect(ok(await t.agent.call('event_poll', { since_cursor: start, types: ['outputs.*'], wait_seconds: 1 })).events).toHaveLength(1);
    const saved = process.env.BULLPEN_WEBHOOK_ALLOW;
    process.env.BULLPEN_WEBHOOK_ALLOW = '127.0.0.1';
    try {
      const w = ok(await t.human.call('webhook_add', { url: 'http://127.0.0.1:9/hook', events: ['outputs.*'], recipient: other.id }));
      ok(await t.agent.call('event_publish', { event_type: 'outputs.again', payload: {} }));
      ok(await t.human.call('webhook_list', { webhook_id: w.webhook.id }));
      ok(await t.human.call('webhook_remove', { webhook_id: w.webhook.id }));
    } finally {
      if (saved === undefined) delete process.env.BULLPEN_WEBHOOK_ALLOW;
      else process.env.BULLPEN_WEBHOOK_ALLOW = saved;
    }
  });

  it('routing: task_recover of another agent\'s lease by a person', async () => {
    const made = ok(await t.human.call('task_create', { project_id: 'PAY', title: 'stranded', requires_capabilities: [] }));
    ok(await other.call('task_claim', { task_id: made.task_id }));
    const r = ok(await t.human.call('task_recover', { task_id: made.task_id, to_status: 'todo', note: 'its run crashed' }));
    expect(r.previous_holder_actor_id).toBe(other.id);
  });

  it('workflows: created with a trigger, started, paused, resumed, read both ways, listed and cancelled', async () => {
    ok(await t.human.call('project_create', { title: 'Flows', key: 'FLO' }));
    const w = ok(await t.human.call('workflow_create', {
      name: 'Flow', tags: ['ops'],
      definition: { inputs: [{ name: 'v', default: '1' }], steps: [{ key: 'a', title: 'A {{v}}', acceptance_criteria: ['ok'] }, { key: 'b', title: 'B', depends_on: ['a'] }], trigger: { on: 'event', event_type: 'flow.go', project_id: 'FLO' } },
    }));
    const s = ok(await t.human.call('workflow_start', { workflow_id: w.workflow_id, project_id: 'FLO' }));
    ok(await t.human.call('workflow_pause', { instance_id: s.instance_id, note: 'hold' }));
    ok(await t.human.call('workflow_resume', { instance_id: s.instance_id }));
    ok(await t.agent.call('workflow_get', { instance_id: s.instance_id }));
    ok(await t.agent.call('workflow_get', { workflow_id: 'Flow' }));
    ok(await t.agent.call('workflow_query', { tag: 'ops' }));
    ok(await t.human.call('workflow_cancel', { instance_id: s.instance_id }));
  });

  it('code graph: an upload in two batches, impact with a task in the way, cycles, critical files, a collision', async () => {
    const repo = ok(await t.agent.call('repo_register', { slug: 'acme/graph' })).repository_id;
    const first = ok(await t.agent.call('code_graph_upload', { repository_id: repo, commit_sha: 'abc1234', files: ['a.ts', 'b.ts', 'c.ts'], dependents: [2, 2, 2] }));
    ok(await t.agent.call('code_graph_upload', { repository_id: repo, upload_id: first.upload_id, imports: [1, 0, 2, 1, 0, 2], cycles: [3, 0, 1, 2], done: true }));
    const mine = ok(await t.agent.call('task_create', { project_id: 'PAY', title: 'touch a' })).task_id;
    const theirs = ok(await t.agent.call('task_create', { project_id: 'PAY', title: 'touch b' })).task_id;
    ok(await t.agent.call('task_code_ref', { task_id: mine, ref_type: 'branch', branch: 'a', repository_id: repo, files: ['a.ts'] }));
    ok(await other.call('code_ref_add', { object_type: 'task', object_id: theirs, ref_type: 'branch', branch: 'b', repository_id: repo, files: ['b.ts'] }));
    ok(await other.call('task_claim', { task_id: theirs }));
    ok(await t.agent.call('code_impact', { repository_id: repo, file_path: 'a.ts' }));
    ok(await t.agent.call('code_cycles', { repository_id: repo }));
    ok(await t.agent.call('code_critical_files', { repository_id: repo }));
    ok(await t.agent.call('code_collisions', { project_id: 'PAY' }));
    expect(ok(await t.agent.call('task_claim', { task_id: mine })).collisions).toHaveLength(1);
    expect(ok(await t.agent.call('task_get', { task_id: mine })).collisions).toHaveLength(1);
  });

  it('costs: usage reported on a task, summed, a budget set and its status', async () => {
    const task = ok(await t.agent.call('task_create', { project_id: 'PAY', title: 'priced work' })).task_id;
    ok(await t.agent.call('task_claim', { task_id: task, estimated_cost_usd: 0.1 }));
    ok(await t.agent.call('run_heartbeat', { task_id: task, usage: { model: 'gpt-4o', provider: 'openai', tokens_in: 1000, tokens_out: 100, tokens_cache_read: 50 } }));
    ok(await t.agent.call('cost_summary', { period: 'all', group_by: 'model' }));
    ok(await t.agent.call('cost_summary', { period: 'day', project_id: 'PAY' }));
    ok(await t.human.call('budget_set', { scope: 'project', scope_id: 'PAY', period: 'month', limit_usd: 50 }));
    ok(await t.agent.call('budget_status', {}));
  });

  it('sources: a sync begun, fed and finished, listed, a document and a chunk read', async () => {
    const begin = ok(await t.agent.call('source_sync', { action: 'begin', source: 'handbook', project_id: 'PAY' }));
    ok(await t.agent.call('source_sync', { action: 'put', source: 'handbook', sync_id: begin.sync_id, documents: { 'intro.md': '# Intro\n\nhello\n\n## More\n\nthere' } }));
    ok(await t.agent.call('source_sync', { action: 'finish', source: 'handbook', sync_id: begin.sync_id, paths: ['intro.md'] }));
    ok(await t.agent.call('source_list', {}));
    const doc = (await db.query<{ id: string }>(`select id from public.source_documents where tenant_id = $1 and path = 'intro.md'`, [t.id]))[0];
    const got = ok(await t.agent.call('source_get', { document_id: doc.id }));
    ok(await t.agent.call('chunk_get', { chunk_id: got.chunks[0].id, context_chunks: 1 }));
  });

  it('leaves no tool of the registry unchecked', () => {
    expect(registry.map((x) => x.name).filter((name) => !called.has(name))).toEqual([]);
  });
});
