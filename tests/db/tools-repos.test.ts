import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';
import { REMOTE_CASES } from '../fixtures/remotes';
import { asRun } from '../helpers/runs';

let db: TestDb;
let T: Tenant;
let other: Actor;
const ids: Record<string, string> = {};

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'repos');
  other = await T.addAgent('other');
  ids.api = ok(await T.agent.call('project_create', { title: 'API', key: 'API' })).project_id;
  ids.web = ok(await T.agent.call('project_create', { title: 'Web', key: 'WEB' })).project_id;
  ok(await T.agent.call('project_create', { title: 'Loose', key: 'LSE' }));
});
afterAll(() => db.drop());

describe('remote normalisation in SQL', () => {
  it.each(REMOTE_CASES)('%s → %s (the same table as lib/core/remote.test.ts)', async (input, url) => {
    const [row] = await db.query<{ n: { url: string } | null }>(`select bullpen.normalize_remote($1) as n`, [input]);
    expect(row.n?.url ?? null).toBe(url);
  });
});

describe('repo_register', () => {
  it('deduplicates spellings of one remote and never stores credentials', async () => {
    const one = ok(await T.agent.call('repo_register', { remote_url: 'git@github.com:Acme/api.git', default_branch: 'main' }));
    expect(one).toMatchObject({ created: true, repository: { host: 'github.com', owner: 'Acme', name: 'api', slug: 'Acme/api', remote_url: 'https://github.com/Acme/api', default_branch: 'main' } });
    ids.repo = one.repository_id;
    for (const spelling of ['https://user:ghp_abcdef123456@github.com/acme/api', 'https://github.com/acme/api/', 'ssh://git@github.com:22/ACME/api.git']) {
      const again = ok(await other.call('repo_register', { remote_url: spelling }));
      expect(again).toMatchObject({ created: false, repository_id: ids.repo });
    }
    const stored = await db.query(`select * from public.repositories where tenant_id = $1`, [T.id]);
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain('ghp_');
    const logged = await db.query(`select metadata, summary from public.activity where tenant_id = $1 and verb like 'repo.%'`, [T.id]);
    expect(JSON.stringify(logged)).not.toContain('ghp_');
    const keys = await db.query(`select result from public.idempotency_keys where tenant_id = $1`, [T.id]);
    expect(JSON.stringify(keys)).not.toContain('ghp_');
  });

  it('takes owner/name or a slug (host defaults to github.com) or another host', async () => {
    const bySlug = ok(await T.agent.call('repo_register', { slug: 'acme/web' }));
    expect(bySlug.repository).toMatchObject({ remote_url: 'https://github.com/acme/web', created_by_actor_id: T.agent.id });
    ids.webRepo = bySlug.repository_id;
    const byParts = ok(await T.agent.call('repo_register', { owner: 'acme', name: 'web' }));
    expect(byParts).toMatchObject({ repository_id: ids.webRepo, created: false });
    const gl = ok(await T.agent.call('repo_register', { host: 'GitLab.com', owner: 'grp/sub', name: 'tool' }));
    expect(gl.repository).toMatchObject({ host: 'gitlab.com', owner: 'grp/sub', slug: 'grp/sub/tool' });
    ids.glRepo = gl.repository_id;
  });

  it('with no input uses where the caller stands: X-Bullpen-Repo, else its run’s repository', async () => {
    const here = asRun(T.agent, { run_id: 'standing', repo: 'https://github.com/acme/docs' });
    const r = ok(await here.call('repo_register', {}));
    expect(r).toMatchObject({ created: true, current_run: true, repository: { slug: 'acme/docs' } });
    const runRow = ok(await here.call('run_get', {}));
    expect(runRow.run.repository).toBe('acme/docs');
    // a run that reported its remote in a heartbeat
    const beat = asRun(T.agent, { run_id: 'beating' });
    ok(await beat.call('run_heartbeat', { remote_url: 'git@github.com:acme/api.git' }));
    expect(ok(await beat.call('repo_register', { autodetect: true })).repository_id).toBe(ids.repo);
    // autodetect: false means "not from where I stand": a name is then required
    const e = fails(await here.call('repo_register', { autodetect: false }), 'VALIDATION_ERROR');
    expect(e.message).toContain('remote_url');
    expect(e.message).toContain('autodetect');
    expect(ok(await here.call('repo_register', { autodetect: false, slug: 'acme/docs' }))).toMatchObject({ created: false, current_run: false });
  });

  it('says how to name the repository when it cannot tell, and refuses what is not a remote', async () => {
    const e = fails(await asRun(T.agent, { run_id: 'nowhere' }).call('repo_register', {}), 'VALIDATION_ERROR');
    expect(e.message).toContain('remote_url');
    expect(e.hint).toContain('X-Bullpen-Repo');
    expect(fails(await T.agent.call('repo_register', { remote_url: '/home/me/api' }), 'VALIDATION_ERROR').message).toContain('remote_url');
    expect(fails(await T.agent.call('repo_register', { owner: 'acme' }), 'VALIDATION_ERROR').message).toContain('name');
    expect(fails(await T.agent.call('repo_register', { slug: 'justone' }), 'VALIDATION_ERROR').message).toContain('slug');
    expect(fails(await T.agent.call('repo_register', { remote_url: 'https://github.com/a/b', colour: 'red' }), 'VALIDATION_ERROR').message).toContain('colour');
  });
});

describe('repo_link and the repository filters', () => {
  it('links projects with a role, relinking changes the role, and remove unlinks', async () => {
    const l = ok(await T.agent.call('repo_link', { project_id: 'API', repository_id: ids.repo }));
    expect(l).toMatchObject({ linked: true, role: 'primary', created: true, project_key: 'API' });
    const docs = ok(await T.agent.call('repo_link', { project_id: 'API', repo_slug: 'acme/docs', role: 'docs' }));
    expect(docs.repository.slug).toBe('acme/docs');
    ok(await T.agent.call('repo_link', { project_id: 'WEB', repo_slug: 'github.com/acme/web', role: 'dependency' }));
    const relink = ok(await T.agent.call('repo_link', { project_id: 'WEB', repository_id: ids.webRepo, role: 'primary' }));
    expect(relink).toMatchObject({ role: 'primary', previous_role: 'dependency', created: false });
    ok(await T.agent.call('repo_link', { project_id: 'LSE', repository_id: ids.glRepo }));
    const gone = ok(await T.agent.call('repo_link', { project_id: 'LSE', repository_id: ids.glRepo, remove: true }));
    expect(gone).toMatchObject({ linked: false, previous_role: 'primary' });
    const brief = ok(await T.agent.call('project_brief', { project: 'API' }));
    expect(brief.repositories.map((r: { slug: string; role: string }) => [r.slug, r.role])).toEqual([['Acme/api', 'primary'], ['acme/docs', 'docs']]);
  });

  it('refuses unknown repositories, projects and roles', async () => {
    fails(await T.agent.call('repo_link', { project_id: 'API', repository_id: '00000000-0000-4000-8000-000000000000' }), 'NOT_FOUND');
    fails(await T.agent.call('repo_link', { project_id: 'API', repo_slug: 'acme/none' }), 'NOT_FOUND');
    fails(await T.agent.call('repo_link', { project_id: 'NOPE', repository_id: ids.repo }), 'NOT_FOUND');
    expect(fails(await T.agent.call('repo_link', { project_id: 'API' }), 'VALIDATION_ERROR').message).toContain('repository_id');
    expect(fails(await T.agent.call('repo_link', { project_id: 'API', repository_id: ids.repo, role: 'owner' }), 'VALIDATION_ERROR').message).toContain('role');
    expect(fails(await T.agent.call('repo_link', { project_id: 'API', repository_id: ids.repo, repo_slug: 'acme/api' }), 'VALIDATION_ERROR').message).toContain('repo_slug');
  });

  it('repo_query lists repositories with their projects, filters and pages', async () => {
    const all = ok(await T.agent.call('repo_query', {}));
    expect(all.repositories.map((r: { slug: string }) => r.slug)).toEqual(['Acme/api', 'acme/beat', 'acme/docs', 'acme/web', 'grp/sub/tool'].filter((s) => s !== 'acme/beat'));
    expect(all.repositories[0].projects).toEqual([{ project_id: ids.api, key: 'API', title: 'API', role: 'primary' }]);
    expect(ok(await T.agent.call('repo_query', { project_id: 'WEB' })).repositories.map((r: { slug: string }) => r.slug)).toEqual(['acme/web']);
    expect(ok(await T.agent.call('repo_query', { host: 'gitlab.com' })).repositories).toHaveLength(1);
    expect(ok(await T.agent.call('repo_query', { q: 'doc' })).repositories.map((r: { slug: string }) => r.slug)).toEqual(['acme/docs']);
    expect(ok(await T.agent.call('repo_query', { repository_id: ids.repo })).repositories).toHaveLength(1);
    const p1 = ok(await T.agent.call('repo_query', { limit: 2 }));
    const p2 = ok(await T.agent.call('repo_query', { limit: 2, cursor: p1.next_cursor }));
    expect([...p1.repositories, ...p2.repositories].map((r: { id: string }) => r.id)).toEqual(all.repositories.slice(0, 4).map((r: { id: string }) => r.id));
    fails(await T.agent.call('repo_query', { project_id: 'NOPE' }), 'NOT_FOUND');
    expect(fails(await T.agent.call('repo_query', { cursor: '%%%' }), 'VALIDATION_ERROR').message).toContain('cursor');
  });

  it('task_claim repository_ids claims only work of projects linked to those repositories', async () => {
    ok(await T.agent.call('task_create', { project_id: 'LSE', title: 'unlinked work', priority: 0 }));
    const web = ok(await T.agent.call('task_create', { project_id: 'WEB', title: 'web work', priority: 3 }));
    const claim = ok(await other.call('task_claim', { repository_ids: [ids.webRepo] }));
    expect(claim).toMatchObject({ claimed: true, task: { id: web.task_id } });
    const none = ok(await other.call('task_claim', { repository_ids: [ids.glRepo] }));
    expect(none).toMatchObject({ claimed: false, reason: 'no_match' });
    const empty = ok(await other.call('task_claim', { repository_ids: [ids.webRepo] }));
    expect(empty).toMatchObject({ claimed: false, reason: 'pool_empty' });
  });

  it('project_query repository_id lists the linked projects', async () => {
    const p = ok(await T.agent.call('project_query', { repository_id: ids.repo }));
    expect(p.projects.map((x: { key: string }) => x.key)).toEqual(['API']);
    expect(ok(await T.agent.call('project_query', { repository_id: ids.glRepo })).projects).toEqual([]);
  });

  it('project_brief says whether the caller’s run stands in one of the project’s repositories', async () => {
    const inApi = asRun(T.agent, { run_id: 'in-api', repo: 'https://github.com/acme/api' });
    const b1 = ok(await inApi.call('project_brief', { project: 'API' }));
    expect(b1).toMatchObject({ in_repository: true, repo_match: { repository_id: ids.repo, slug: 'Acme/api', role: 'primary' } });
    const b2 = ok(await inApi.call('project_brief', { project: 'WEB' }));
    expect(b2).toMatchObject({ in_repository: false, repo_match: null, current_repository: { slug: 'Acme/api' } });
    const b3 = ok(await asRun(T.agent, { run_id: 'homeless' }).call('project_brief', { project: 'API' }));
    expect(b3).toMatchObject({ in_repository: null, repo_match: null, current_repository: null });
    // a registered run whose heartbeat named the repository
    const beat = asRun(T.agent, { run_id: 'beat-web' });
    ok(await beat.call('run_heartbeat', { remote_url: 'https://github.com/acme/web' }));
    expect(ok(await beat.call('project_brief', { project: 'WEB' })).repo_match).toMatchObject({ slug: 'acme/web' });
  });
});

describe('code refs', () => {
  it('task_code_ref defaults repository, branch and sha from the run; the same ref again updates it', async () => {
    const a = asRun(T.agent, { run_id: 'coder' });
    ok(await a.call('run_heartbeat', { remote_url: 'https://github.com/acme/api', branch: 'fix/login', head_sha: 'abc1234def5678' }));
    const t = ok(await a.call('task_create', { project_id: 'API', title: 'Fix login' }));
    ids.task = t.task_id;
    const c = ok(await a.call('task_code_ref', { task_id: 'API-1', ref_type: 'commit' }));
    expect(c.created).toBe(true);
    expect(c.code_ref).toMatchObject({ object_type: 'task', object_id: t.task_id, ref_type: 'commit', repository_id: ids.repo, repository: 'Acme/api',
      branch: 'fix/login', sha: 'abc1234def5678', label: 'commit abc1234', href: 'https://github.com/Acme/api/commit/abc1234def5678', run_key: 'coder', live: true });
    const again = ok(await a.call('task_code_ref', { task_id: t.task_id, ref_type: 'commit', title: 'Fix the login redirect' }));
    expect(again).toMatchObject({ created: false, code_ref_id: c.code_ref_id, code_ref: { title: 'Fix the login redirect' } });
    const pr = ok(await a.call('task_code_ref', { task_id: t.task_id, ref_type: 'pr', pr_url: 'https://github.com/Acme/api/pull/42', title: 'Fix login' }));
    expect(pr.code_ref).toMatchObject({ pr_number: 42, pr_state: 'open', branch: 'fix/login', label: 'PR #42', href: 'https://github.com/Acme/api/pull/42' });
    ids.pr = pr.code_ref_id;
    const got = ok(await T.human.call('task_get', { task_id: t.task_id }));
    expect(got.code_refs.map((r: { label: string }) => r.label)).toEqual(['PR #42', 'commit abc1234']);
    expect(got.activity.map((x: { verb: string }) => x.verb).slice(0, 3)).toEqual(['code_ref.added', 'code_ref.updated', 'code_ref.added']);
  });

  it('falls back to the project’s only primary repository, and needs what each ref type names', async () => {
    const bare = asRun(T.agent, { run_id: 'bare' });
    const b = ok(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'branch', branch: 'main' }));
    expect(b.code_ref).toMatchObject({ repository_id: ids.repo, href: 'https://github.com/Acme/api/tree/main' });
    const tag = ok(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'tag', tag: 'v1.2.0', sha: 'fedcba98' }));
    expect(tag.code_ref.label).toBe('tag v1.2.0');
    const cmp = ok(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'compare', url: 'https://github.com/Acme/api/compare/v1.1...v1.2' }));
    expect(cmp.code_ref.href).toBe('https://github.com/Acme/api/compare/v1.1...v1.2');
    expect(fails(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'commit' }), 'VALIDATION_ERROR').message).toContain('sha');
    expect(fails(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'branch' }), 'VALIDATION_ERROR').message).toContain('branch');
    expect(fails(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'pr' }), 'VALIDATION_ERROR').message).toContain('pr_number');
    expect(fails(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'tag' }), 'VALIDATION_ERROR').message).toContain('tag');
    expect(fails(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'compare' }), 'VALIDATION_ERROR').message).toContain('url');
    expect(fails(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'commit', sha: 'abc1234', pr_state: 'merged' }), 'VALIDATION_ERROR').message).toContain('pr_state');
    expect(fails(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'merge' }), 'VALIDATION_ERROR').message).toContain('ref_type');
    expect(fails(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'pr', pr_number: 1, pr_url: 'ftp://x/y' }), 'VALIDATION_ERROR').message).toContain('pr_url');
    fails(await bare.call('task_code_ref', { task_id: 'API-99', ref_type: 'branch', branch: 'x' }), 'NOT_FOUND');
    fails(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'branch', branch: 'x', repository_id: '00000000-0000-4000-8000-000000000000' }), 'NOT_FOUND');
    fails(await bare.call('task_code_ref', { task_id: ids.task, ref_type: 'branch', branch: 'x', run_id: 'no-such-run' }), 'NOT_FOUND');
  });

  it('code_ref_add links a project, a decision and a note', async () => {
    const p = ok(await T.agent.call('code_ref_add', { object_type: 'project', object_id: 'WEB', ref_type: 'branch', branch: 'release', repository_id: ids.webRepo }));
    expect(p.code_ref).toMatchObject({ object_type: 'project', object_id: ids.web, project_id: ids.web, task_id: null });
    const t = ok(await T.agent.call('code_ref_add', { object_type: 'task', object_id: ids.task, ref_type: 'pr', pr_number: 43, repository_id: ids.repo }));
    expect(t.code_ref.task_id).toBe(ids.task);
    const d = ok(await T.agent.call('decision_log', { title: 'Use Postgres advisory locks', choice: 'one lock per workspace graph', project_id: 'API' }));
    const onDecision = ok(await T.agent.call('code_ref_add', { object_type: 'decision', object_id: d.decision_id, ref_type: 'pr', pr_number: 44, repository_id: ids.repo }));
    expect(onDecision.code_ref).toMatchObject({ object_type: 'decision', object_id: d.decision_id, project_id: ids.api, task_id: null });
    const n = ok(await T.agent.call('knowledge_write', { title: 'How the login redirect works', body: 'It reads the return_to cookie.' }));
    const onNote = ok(await T.agent.call('code_ref_add', { object_type: 'note', object_id: n.note_id, ref_type: 'commit', sha: 'abcdef0', repository_id: ids.repo }));
    expect(onNote.code_ref).toMatchObject({ object_type: 'note', object_id: n.note_id, project_id: null });
    expect(ok(await T.agent.call('code_ref_query', { object_type: 'decision', object_id: d.decision_id })).code_refs).toHaveLength(1);
    fails(await T.agent.call('code_ref_add', { object_type: 'decision', object_id: '00000000-0000-4000-8000-000000000000', ref_type: 'pr', pr_number: 1 }), 'NOT_FOUND');
    fails(await T.agent.call('code_ref_add', { object_type: 'note', object_id: '00000000-0000-4000-8000-000000000000', ref_type: 'pr', pr_number: 1 }), 'NOT_FOUND');
    expect(fails(await T.agent.call('code_ref_add', { object_type: 'comment', object_id: ids.task, ref_type: 'pr', pr_number: 1 }), 'VALIDATION_ERROR').message).toContain('object_type');
    fails(await T.agent.call('code_ref_add', { object_type: 'project', object_id: 'NOPE', ref_type: 'branch', branch: 'x' }), 'NOT_FOUND');
  });

  it('code_ref_update moves a PR: merged and closed are logged on the task', async () => {
    const m = ok(await other.call('code_ref_update', { code_ref_id: ids.pr, patch: { pr_state: 'merged', sha: 'ABCDEF0123' } }));
    expect(m).toMatchObject({ previous_pr_state: 'open', changed: ['pr_state', 'sha'], code_ref: { pr_state: 'merged', sha: 'abcdef0123', live: true } });
    const task = ok(await T.human.call('task_get', { task_id: ids.task }));
    expect(task.activity[0]).toMatchObject({ verb: 'pr.merged', summary: 'PR #42 merged', actor_id: other.id });
    const pr43 = task.code_refs.find((r: { pr_number: number | null }) => r.pr_number === 43);
    const closed = ok(await T.agent.call('code_ref_update', { code_ref_id: pr43.id, patch: { pr_state: 'closed' } }));
    expect(closed.code_ref.live).toBe(false);
    expect(ok(await T.human.call('task_get', { task_id: ids.task })).activity[0]).toMatchObject({ verb: 'pr.closed' });
    const titled = ok(await T.agent.call('code_ref_update', { code_ref_id: ids.pr, patch: { title: 'Fix login for good', url: null } }));
    expect(titled.code_ref.title).toBe('Fix login for good');
    expect(ok(await T.human.call('task_get', { task_id: ids.task })).activity[0]).toMatchObject({ verb: 'code_ref.updated' });
    const branchRef = task.code_refs.find((r: { ref_type: string }) => r.ref_type === 'branch');
    expect(fails(await T.agent.call('code_ref_update', { code_ref_id: branchRef.id, patch: { pr_state: 'merged' } }), 'VALIDATION_ERROR').message).toContain('patch.pr_state');
    expect(fails(await T.agent.call('code_ref_update', { code_ref_id: ids.pr, patch: {} }), 'VALIDATION_ERROR').message).toContain('patch');
    expect(fails(await T.agent.call('code_ref_update', { code_ref_id: ids.pr, patch: { pr_state: 'approved' } }), 'VALIDATION_ERROR').message).toContain('pr_state');
    fails(await T.agent.call('code_ref_update', { code_ref_id: '00000000-0000-4000-8000-000000000000', patch: { title: 'x' } }), 'NOT_FOUND');
    // moving a commit ref onto a commit the task already has would make two rows of one thing
    const one = ok(await T.agent.call('task_code_ref', { task_id: ids.task, ref_type: 'commit', sha: '1111111', repository_id: ids.repo }));
    ok(await T.agent.call('task_code_ref', { task_id: ids.task, ref_type: 'commit', sha: '2222222', repository_id: ids.repo }));
    fails(await T.agent.call('code_ref_update', { code_ref_id: one.code_ref_id, patch: { sha: '2222222' } }), 'ALREADY_EXISTS');
  });

  it('code_ref_query finds refs by object, repository, type, state and run, newest first', async () => {
    const onTask = ok(await T.agent.call('code_ref_query', { object_type: 'task', object_id: 'API-1' }));
    expect(onTask.code_refs.length).toBe(8);
    expect(onTask.code_refs[0].label).toBe('commit 2222222');
    expect(ok(await T.agent.call('code_ref_query', { object_id: 'API-1', ref_type: 'pr' })).code_refs.map((r: { pr_number: number }) => r.pr_number)).toEqual([43, 42]);
    expect(onTask.code_refs.filter((r: { ref_type: string }) => r.ref_type === 'pr')[0].label).toBe('PR #43');
    expect(ok(await T.agent.call('code_ref_query', { pr_state: 'merged' })).code_refs.map((r: { pr_number: number }) => r.pr_number)).toEqual([42]);
    expect(ok(await T.agent.call('code_ref_query', { repository_id: ids.webRepo })).code_refs).toHaveLength(1);
    expect(ok(await T.agent.call('code_ref_query', { run_id: 'coder' })).code_refs).toHaveLength(2);
    expect(ok(await T.agent.call('code_ref_query', { object_type: 'project', object_id: 'WEB' })).code_refs).toHaveLength(1);
    const p1 = ok(await T.agent.call('code_ref_query', { limit: 4 }));
    const p2 = ok(await T.agent.call('code_ref_query', { limit: 4, cursor: p1.next_cursor }));
    const p3 = p2.next_cursor ? ok(await T.agent.call('code_ref_query', { limit: 4, cursor: p2.next_cursor })) : { code_refs: [], next_cursor: null };
    expect(p3.next_cursor).toBeNull();
    expect(new Set([...p1.code_refs, ...p2.code_refs, ...p3.code_refs].map((r: { id: string }) => r.id)).size).toBe(11);
    fails(await T.agent.call('code_ref_query', { object_type: 'task', object_id: 'API-77' }), 'NOT_FOUND');
    fails(await T.agent.call('code_ref_query', { run_id: 'never' }), 'NOT_FOUND');
    expect(fails(await T.agent.call('code_ref_query', { cursor: '%%%' }), 'VALIDATION_ERROR').message).toContain('cursor');
  });
});
