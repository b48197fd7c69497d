import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { triageFeatureRequest } from '../../lib/console/ops';
import { registry } from '../../lib/core/registry';
import { downloadAttachment, localStore, uploadAndAttach } from '../../lib/server/files';
import { reapRuns } from '../../lib/jobs/reaper';
import { fails, freshDb, ok, seedTenant, target, type Actor, type Tenant, type TestDb } from '../helpers/db';
import { asRun } from '../helpers/runs';

/**
 * Tenant isolation proofs for the provenance rooms (runs, repositories and code refs, attachments,
 * activity, feedback): workspace B tries to read and write everything workspace A owns, through
 * SQL as the API role and through every tool; actors of one workspace try what only the owning
 * actor (or an owner) may do. Counted like tests/db/isolation.test.ts.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
let a2: Actor;
let dir: string;
const a: Record<string, string> = {};
const b: Record<string, string> = {};
let proofs = 0;
/** This room's tables and rooms (tests/db/isolation.test.ts finds these proofs by their text). */
const mine = {
  tables: ['attachments', 'code_refs', 'feature_requests', 'project_repositories', 'repositories', 'runs'],
  rooms: ['runs', 'repositories', 'attachments', 'activity', 'feedback'],
};

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'prov-a');
  B = await seedTenant(db, 'prov-b');
  a2 = await A.addAgent('second');
  dir = mkdtempSync(path.join(tmpdir(), 'bullpen-iso-files-'));
  // A: a run with a lease, a repository linked to a project, code refs, attachments (a file too),
  // a milestone, a feature request
  const runA = asRun(A.agent, { run_id: 'shared-key', repo: 'https://github.com/a-corp/secret' });
  a.project = ok(await runA.call('project_create', { title: 'Secret plans', key: 'SEC' })).project_id;
  a.task = ok(await runA.call('task_create', { project_id: 'SEC', title: 'secret task' })).task_id;
  ok(await runA.call('task_claim', { task_id: a.task }));
  const repo = ok(await runA.call('repo_register', {}));
  a.repo = repo.repository_id;
  ok(await runA.call('repo_link', { project_id: 'SEC', repository_id: a.repo }));
  ok(await runA.call('run_heartbeat', { head_sha: 'abcdef123', branch: 'secret-branch', usage: { model: 'm', tokens_in: 9, cost_usd: 1 } }));
  a.run = ok(await runA.call('run_get', {})).run.id;
  a.child = ok(await runA.call('run_fork', { label: 'secret child' })).run_key;
  a.codeRef = ok(await runA.call('task_code_ref', { task_id: a.task, ref_type: 'pr', pr_number: 1, title: 'secret PR' })).code_ref_id;
  a.attachment = ok(await runA.call('attach_add', { object_type: 'task', object_id: a.task, kind: 'link', url: 'https://a.example/secret' })).attachment_id;
  a.file = ok(await uploadAndAttach({ db, claims: runA.claims }, { object_type: 'task', object_id: a.task, filename: 'secret.txt' }, new TextEncoder().encode('top secret'), localStore(dir))).attachment_id;
  a.comment = ok(await runA.call('comment_add', { object_type: 'task', object_id: a.task, body: 'secret comment' })).comment_id;
  a.milestone = String(ok(await runA.call('activity_log', { verb: 'secret.reached', summary: 'a secret milestone' })).seq);
  a.decision = ok(await runA.call('decision_log', { title: 'secret decision', choice: 'hidden', project_id: 'SEC' })).decision_id;
  a.note = ok(await runA.call('knowledge_write', { title: 'secret note', body: 'hidden' })).note_id;
  a.handoff = ok(await runA.call('handoff_create', { to_actor_ids: [A.human.id], title: 'secret ask' })).handoff_id;
  a.fr = ok(await runA.call('feature_request_create', { title: 'secret wish', body: 'secret body', kind: 'capability', fingerprint: 'same-fp' })).feature_request_id;
  // B has its own data, including the same run key and fingerprint, so "sees nothing of A" is not "sees nothing"
  const runB = asRun(B.agent, { run_id: 'shared-key' });
  b.project = ok(await runB.call('project_create', { title: 'Open plans', key: 'OPN' })).project_id;
  b.task = ok(await runB.call('task_create', { project_id: 'OPN', title: 'b task' })).task_id;
  ok(await runB.call('task_claim', { task_id: b.task }));
  b.repo = ok(await runB.call('repo_register', { remote_url: 'https://github.com/a-corp/secret' })).repository_id;
  b.run = ok(await runB.call('run_get', {})).run.id;
  b.fr = ok(await runB.call('feature_request_create', { title: 'b wish', body: 'b body', kind: 'bug', fingerprint: 'same-fp' })).feature_request_id;
});

afterAll(async () => {
  console.log(`[isolation-provenance:${target}] ${proofs} tenant isolation proofs passed`);
  rmSync(dir, { recursive: true, force: true });
  await db.drop();
});

describe('every provenance table', () => {
  it('is exactly the set this file proves, with RLS enabled and forced', async () => {
    const rows = await db.query<{ name: string; rls: boolean; forced: boolean }>(
      `select c.relname as name, c.relrowsecurity as rls, c.relforcerowsecurity as forced from pg_class c
        where c.relnamespace = 'public'::regnamespace and c.relname = any ($1::text[]) order by 1`,
      [mine.tables],
    );
    expect(rows.map((r) => r.name)).toEqual([...mine.tables].sort());
    for (const r of rows) {
      expect(r).toEqual({ name: r.name, rls: true, forced: true });
      proofs++;
    }
  });

  it('shows another workspace none of A’s rows, while A sees them all', async () => {
    for (const t of mine.tables) {
      const [{ total }] = await db.query<{ total: number }>(`select count(*)::int as total from public.${t} where tenant_id = $1`, [A.id]);
      expect(total, `${t} has rows of A`).toBeGreaterThan(0);
      const seen = await db.withClaims<{ n: number }>(B.agent.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect({ t, n: seen[0].n }).toEqual({ t, n: 0 });
      const own = await db.withClaims<{ n: number }>(A.agent.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect(own[0].n, `${t}: A sees its own rows`).toBe(total);
      proofs++;
    }
  });

  it('gives the API roles no write right at all', async () => {
    for (const t of mine.tables) {
      for (const stmt of [`update public.${t} set tenant_id = tenant_id`, `delete from public.${t}`]) {
        await expect(db.withClaims(A.agent.claims, stmt), `${t}: ${stmt}`).rejects.toMatchObject({ code: '42501' });
        proofs++;
      }
    }
  });

  it('refuses rows written into another workspace, and rows pointing into one', async () => {
    const attempts: Record<string, string> = {
      repositories: `insert into public.repositories (tenant_id, host, owner, name, remote_key, remote_url) values ('${A.id}', 'h.io', 'o', 'n', 'h.io/o/n', 'https://h.io/o/n')`,
      project_repositories: `insert into public.project_repositories (tenant_id, project_id, repository_id) values ('${A.id}', '${a.project}', '${a.repo}')`,
      runs: `insert into public.runs (tenant_id, run_key, actor_id) values ('${A.id}', 'evil', '${A.agent.id}')`,
      code_refs: `insert into public.code_refs (tenant_id, object_type, object_id, task_id, ref_type, branch, created_by_actor_id) values ('${A.id}', 'task', '${a.task}', '${a.task}', 'branch', 'evil', '${A.agent.id}')`,
      attachments: `insert into public.attachments (tenant_id, object_type, object_id, task_id, kind, url, created_by_actor_id) values ('${A.id}', 'task', '${a.task}', '${a.task}', 'link', 'https://evil.example', '${A.agent.id}')`,
      feature_requests: `insert into public.feature_requests (tenant_id, title, body, kind, fingerprint, filed_by_actor_id) values ('${A.id}', 't', 'b', 'bug', 'f', '${A.agent.id}')`,
    };
    expect(Object.keys(attempts).sort()).toEqual([...mine.tables].sort());
    for (const [table, sql] of Object.entries(attempts)) {
      await expect(db.withClaims(B.agent.claims, sql), table).rejects.toMatchObject({ code: '42501' });
      proofs++;
    }
    // even the server's own role cannot point B's rows at A's: foreign keys carry the tenant
    const cross: [string, string][] = [
      ['project_repositories', `insert into public.project_repositories (tenant_id, project_id, repository_id) values ('${B.id}', '${b.project}', '${a.repo}')`],
      ['code_refs', `insert into public.code_refs (tenant_id, object_type, object_id, task_id, ref_type, branch, created_by_actor_id) values ('${B.id}', 'task', '${a.task}', '${a.task}', 'branch', 'x', '${B.agent.id}')`],
      ['attachments', `insert into public.attachments (tenant_id, object_type, object_id, task_id, kind, url, created_by_actor_id) values ('${B.id}', 'task', '${a.task}', '${a.task}', 'link', 'https://x.example', '${B.agent.id}')`],
      ['runs', `insert into public.runs (tenant_id, run_key, actor_id, parent_run_id) values ('${B.id}', 'x', '${B.agent.id}', '${a.run}')`],
      ['feature_requests', `insert into public.feature_requests (tenant_id, title, body, kind, fingerprint, filed_by_actor_id) values ('${B.id}', 't', 'b', 'bug', 'g', '${A.agent.id}')`],
    ];
    for (const [table, sql] of cross) {
      await expect(db.query(sql), table).rejects.toMatchObject({ code: '23503' });
      proofs++;
    }
  });
});

describe('every provenance tool, called with another workspace’s ids', () => {
  const cases: [string, () => Record<string, unknown>][] = [
    ['run_heartbeat', () => ({ run_key: 'secret-only-in-a' })],
    ['run_heartbeat', () => ({ run_key: a.run })],
    ['run_end', () => ({ run_key: a.run, status: 'failed' })],
    ['run_query', () => ({ root_run_id: a.run })],
    ['run_query', () => ({ actor_id: A.agent.id })],
    ['run_get', () => ({ run_id: a.run })],
    ['run_get', () => ({ run_key: a.child })],
    ['run_summary', () => ({ run_id: a.run })],
    ['repo_link', () => ({ project_id: 'OPN', repository_id: a.repo })],
    ['repo_link', () => ({ project_id: a.project, repository_id: b.repo })],
    ['repo_link', () => ({ project_id: 'SEC', repo_slug: 'a-corp/secret' })],
    ['repo_query', () => ({ project_id: a.project })],
    ['task_code_ref', () => ({ task_id: a.task, ref_type: 'branch', branch: 'x' })],
    ['task_code_ref', () => ({ task_id: 'SEC-1', ref_type: 'branch', branch: 'x' })],
    ['task_code_ref', () => ({ task_id: b.task, ref_type: 'branch', branch: 'x', repository_id: a.repo })],
    ['task_code_ref', () => ({ task_id: b.task, ref_type: 'branch', branch: 'x', run_id: a.run })],
    ['code_ref_add', () => ({ object_type: 'project', object_id: a.project, ref_type: 'branch', branch: 'x' })],
    ['code_ref_add', () => ({ object_type: 'task', object_id: a.task, ref_type: 'pr', pr_number: 2 })],
    ['code_ref_add', () => ({ object_type: 'decision', object_id: a.decision, ref_type: 'pr', pr_number: 2 })],
    ['code_ref_add', () => ({ object_type: 'note', object_id: a.note, ref_type: 'pr', pr_number: 2 })],
    ['code_ref_update', () => ({ code_ref_id: a.codeRef, patch: { pr_state: 'merged' } })],
    ['code_ref_query', () => ({ object_type: 'task', object_id: a.task })],
    ['code_ref_query', () => ({ repository_id: a.repo })],
    ['code_ref_query', () => ({ run_id: a.run })],
    ['attach_add', () => ({ object_type: 'task', object_id: a.task, kind: 'link', url: 'https://x.example' })],
    ['attach_add', () => ({ object_type: 'project', object_id: 'SEC', kind: 'link', url: 'https://x.example' })],
    ['attach_add', () => ({ object_type: 'comment', object_id: a.comment, kind: 'link', url: 'https://x.example' })],
    ['attach_add', () => ({ object_type: 'decision', object_id: a.decision, kind: 'link', url: 'https://x.example' })],
    ['attach_add', () => ({ object_type: 'note', object_id: a.note, kind: 'link', url: 'https://x.example' })],
    ['attach_add', () => ({ object_type: 'handoff', object_id: a.handoff, kind: 'link', url: 'https://x.example' })],
    ['attach_remove', () => ({ attachment_id: a.attachment })],
    ['attachment_query', () => ({ object_type: 'task', object_id: a.task })],
    ['activity_log', () => ({ verb: 'x.y', summary: 'intrude', object_type: 'task', object_id: a.task })],
    ['activity_log', () => ({ verb: 'x.y', summary: 'intrude', run_id: a.run })],
    ['activity_query', () => ({ project_id: a.project })],
    ['activity_query', () => ({ actor_id: A.agent.id })],
    ['activity_query', () => ({ object_type: 'task', object_id: a.task })],
    ['activity_query', () => ({ run_id: a.run })],
    ['feature_request_query', () => ({ id: a.fr })],
    ['feature_request_query', () => ({ filed_by_actor_id: A.agent.id })],
  ];

  it.each(cases)('%s answers NOT_FOUND (%#)', async (tool, input) => {
    fails(await B.agent.call(tool, input()), 'NOT_FOUND');
    proofs++;
  });

  it('covers every provenance tool that takes an id', () => {
    const withIds = registry
      .filter((t) => mine.rooms.includes(t.room))
      .filter((t) => Object.keys(t.input.shape).some((k) => k !== 'idempotency_key' && /(_id|_ids|^id|_key|_slug)$/.test(k)))
      .map((t) => t.name);
    const covered = new Set(cases.map(([t]) => t));
    // run_fork's run_key names the child it creates; nothing else there points at existing data
    expect(withIds.filter((t) => !covered.has(t) && t !== 'run_fork')).toEqual([]);
    expect(withIds.length).toBeGreaterThan(15);
  });

  it('filters rather than leaks on list tools', async () => {
    const bRuns = ok(await B.agent.call('run_query', { limit: 200 }));
    expect(bRuns.runs.map((r: { id: string }) => r.id)).toEqual([b.run]);
    expect(ok(await B.agent.call('run_query', { run_series_key: 'shared-key' })).runs).toEqual([]);
    const repos = ok(await B.agent.call('repo_query', {}));
    expect(repos.repositories.map((r: { id: string }) => r.id)).toEqual([b.repo]);
    expect(repos.repositories[0].projects).toEqual([]);
    expect(ok(await B.agent.call('code_ref_query', {})).code_refs).toEqual([]);
    const frs = ok(await B.agent.call('feature_request_query', {}));
    expect(frs.feature_requests.map((f: { id: string }) => f.id)).toEqual([b.fr]);
    expect(frs.counts).toEqual({ open: 1 });
    const act = ok(await B.agent.call('activity_query', { limit: 200 }));
    expect(JSON.stringify(act)).not.toMatch(/secret (task|PR|milestone|wish|child)|Secret plans|SEC-1|prov-a|secret-branch/);
    expect(ok(await B.agent.call('activity_query', { object_id: a.task })).activity).toEqual([]);
    expect(ok(await B.agent.call('project_query', { repository_id: a.repo })).projects).toEqual([]);
    expect(ok(await B.agent.call('task_claim', { repository_ids: [a.repo] }))).toMatchObject({ claimed: false, reason: 'no_match' });
    // one remote, one repository per workspace: B's registration did not find A's
    expect(b.repo).not.toBe(a.repo);
    // A's run key means nothing in B: B's run of the same key is its own
    expect(b.run).not.toBe(a.run);
    const brief = ok(await asRun(B.agent, { run_id: 'b-brief', repo: 'https://github.com/a-corp/secret' }).call('project_brief', { project: 'OPN' }));
    expect(brief).toMatchObject({ repositories: [], in_repository: false, current_repository: { id: b.repo } });
    proofs += 12;
  });

  it('keeps files in their workspace', async () => {
    const store = localStore(dir);
    expect(await downloadAttachment({ db, claims: B.agent.claims }, a.file, store)).toBeNull();
    expect(await downloadAttachment({ db, claims: B.human.claims }, a.file, store)).toBeNull();
    expect(await downloadAttachment({ db, claims: A.human.claims }, a.file, store)).not.toBeNull();
    fails(await uploadAndAttach({ db, claims: B.agent.claims }, { object_type: 'task', object_id: a.task, filename: 'x.txt' }, new Uint8Array([1]), store), 'NOT_FOUND');
    proofs += 4;
  });

  it('triage of another workspace’s request is NOT_FOUND, even for an owner', async () => {
    fails(await triageFeatureRequest({ db, claims: B.human.claims }, { id: a.fr, status: 'declined' }), 'NOT_FOUND');
    proofs++;
  });
});

describe('rules between actors of one workspace', () => {
  it('only a run’s actor beats, ends or logs under it; only the author or an owner removes an attachment; only owners triage', async () => {
    fails(await a2.call('run_heartbeat', { run_key: 'shared-key' }), 'FORBIDDEN');
    fails(await a2.call('run_end', { run_key: 'shared-key', status: 'cancelled' }), 'FORBIDDEN');
    fails(await a2.call('activity_log', { verb: 'x.y', summary: 'not my run', run_id: 'shared-key' }), 'FORBIDDEN');
    fails(await a2.call('attach_remove', { attachment_id: a.attachment }), 'FORBIDDEN');
    fails(await triageFeatureRequest({ db, claims: a2.claims }, { id: a.fr, status: 'accepted' }), 'FORBIDDEN');
    ok(await A.human.call('attach_remove', { attachment_id: a.attachment }));
    proofs += 6;
  });
});

describe('the reaper across workspaces', () => {
  it('abandons A’s silent run and releases its lease, leaving B’s run of the same key alone', async () => {
    await db.query(`update public.runs set last_active_at = now() - interval '2 hours' where tenant_id = $1 and run_key = 'shared-key'`, [A.id]);
    const swept = await reapRuns(db, { afterSeconds: 1800 });
    expect(swept).toMatchObject({ abandoned: 1, released: 1 });
    expect(ok(await A.human.call('task_get', { task_id: a.task })).task.status).toBe('todo');
    expect(ok(await B.human.call('task_get', { task_id: b.task })).task.status).toBe('in_progress');
    expect(ok(await B.agent.call('run_get', { run_key: 'shared-key' })).run.status).toBe('running');
    const bLog = ok(await B.agent.call('activity_query', { verb: 'run.abandoned' }));
    expect(bLog.activity).toEqual([]);
    proofs += 4;
  });
});
