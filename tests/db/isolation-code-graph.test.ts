import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadCodeGraph } from '../../lib/cli/code-graph';
import { fails, freshDb, ok, seedTenant, target, type Tenant, type TestDb } from '../helpers/db';

/**
 * Tenant isolation proofs for the code graph: workspace B tries to read and write A's graph through
 * SQL as the API role and through every code graph tool, and A's tasks never show up in B's
 * collision warnings. tests/db/isolation.test.ts finds the tool cases below by their text.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
let proofs = 0;
const a = { repo: '', graph: '', task: '' };
const b = { repo: '', task: '' };

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'cg-a');
  B = await seedTenant(db, 'cg-b');
  a.repo = ok(await A.agent.call('repo_register', { slug: 'acme/secret' })).repository_id;
  const up = await uploadCodeGraph(A.agent.call, a.repo, { files: ['core.ts', 'use.ts'], imports: [[1, 0]], dependents: [1, 0], cycles: [], languages: {} }, 'abcdef1');
  a.graph = (up.graph as { graph_id: string }).graph_id;
  ok(await A.agent.call('project_create', { title: 'Secret', key: 'SEC' }));
  a.task = ok(await A.agent.call('task_create', { project_id: 'SEC', title: 'Secret work' })).task.id;
  ok(await A.agent.call('task_code_ref', { task_id: a.task, ref_type: 'branch', branch: 'x', repository_id: a.repo, files: ['use.ts'] }));
  ok(await A.agent.call('task_claim', { task_id: a.task }));
  // B has the same files in a repository of its own
  b.repo = ok(await B.agent.call('repo_register', { slug: 'acme/secret' })).repository_id;
  await uploadCodeGraph(B.agent.call, b.repo, { files: ['core.ts', 'use.ts'], imports: [[1, 0]], dependents: [1, 0], cycles: [], languages: {} }, null);
  ok(await B.agent.call('project_create', { title: 'Open', key: 'OPN' }));
  b.task = ok(await B.agent.call('task_create', { project_id: 'OPN', title: 'Open work' })).task.id;
  ok(await B.agent.call('task_code_ref', { task_id: b.task, ref_type: 'branch', branch: 'y', repository_id: b.repo, files: ['core.ts'] }));
});
afterAll(async () => {
  console.log(`[isolation-code-graph:${target}] ${proofs} tenant isolation proofs passed`);
  await db.drop();
});

describe('the tables', () => {
  it('show B none of A’s graph, while A sees its own', async () => {
    for (const t of ['code_graphs', 'code_graph_files', 'code_graph_imports']) {
      const seen = await db.withClaims<{ n: number }>(B.agent.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect({ t, n: seen[0].n }).toEqual({ t, n: 0 });
      const own = await db.withClaims<{ n: number }>(A.agent.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect(own[0].n, t).toBeGreaterThan(0);
      proofs += 2;
    }
  });

  it('refuse every write by the API roles, into either workspace', async () => {
    const attempts = [
      `insert into public.code_graphs (tenant_id, repository_id, created_by_actor_id) values ('${A.id}', '${a.repo}', '${B.agent.id}')`,
      `insert into public.code_graph_files (tenant_id, graph_id, n, path) values ('${A.id}', '${a.graph}', 9, 'evil.ts')`,
      `insert into public.code_graph_imports (tenant_id, graph_id, from_n, to_n) values ('${A.id}', '${a.graph}', 0, 1)`,
      `insert into public.code_graph_cycles (tenant_id, graph_id, n, files) values ('${A.id}', '${a.graph}', 0, '{0,1}')`,
      `update public.code_graphs set commit_sha = 'fff0000'`,
      `delete from public.code_graph_imports`,
      `update public.code_refs set files = '{core.ts}'`,
    ];
    for (const sql of attempts) {
      await expect(db.withClaims(B.agent.claims, sql), sql).rejects.toMatchObject({ code: '42501' });
      await expect(db.withClaims(A.agent.claims, sql), sql).rejects.toMatchObject({ code: '42501' });
      proofs += 2;
    }
  });
});

describe('every code graph tool, called with another workspace’s ids', () => {
  const cases: [string, () => Record<string, unknown>][] = [
    ['code_graph_upload', () => ({ repository_id: a.repo, files: ['evil.ts'], done: true })],
    ['code_graph_upload', () => ({ repository_id: b.repo, upload_id: a.graph, done: true })],
    ['code_impact', () => ({ repository_id: a.repo, file_path: 'core.ts' })],
    ['code_cycles', () => ({ repository_id: a.repo })],
    ['code_critical_files', () => ({ repository_id: a.repo })],
    ['code_collisions', () => ({ project_id: 'SEC' })],
  ];

  it.each(cases)('%s answers NOT_FOUND (%#)', async (tool, input) => {
    fails(await B.agent.call(tool, input()), 'NOT_FOUND');
    proofs++;
  });

  it('A’s tasks never appear in B’s impact or collisions, on the same paths', async () => {
    const impact = ok(await B.agent.call('code_impact', { repository_id: b.repo, file_path: 'core.ts' }));
    expect(impact.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([b.task]);
    const claimed = ok(await B.agent.call('task_claim', { task_id: b.task }));
    expect(claimed).not.toHaveProperty('collisions');
    expect(JSON.stringify(ok(await B.agent.call('task_get', { task_id: b.task })))).not.toContain('Secret');
    expect(ok(await B.agent.call('code_collisions', { project_id: 'OPN' })).tasks).toEqual([]);
    const own = ok(await A.agent.call('code_impact', { repository_id: a.repo, file_path: 'core.ts' }));
    expect(own.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([a.task]);
    proofs += 3;
  });
});
