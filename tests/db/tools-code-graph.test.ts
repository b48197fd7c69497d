import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCodeGraph, indexRepository, uploadCodeGraph, type CodeGraph } from '../../lib/cli/code-graph';
import { PY_REPO, TS_REPO, writeRepo } from '../helpers/code-fixtures';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

let db: TestDb;
let T: Tenant;
let ada: Actor;
let bob: Actor;
const repos: { remove: () => void }[] = [];
const ids: Record<string, string> = {};

const edgesOf = (g: CodeGraph) => g.imports.map(([a, b]) => `${g.files[a]} -> ${g.files[b]}`).sort();
const fixture = (files: Record<string, string>) => {
  const r = writeRepo(files);
  repos.push(r);
  return r.root;
};

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'codegraph');
  ada = await T.addAgent('Ada');
  bob = await T.addAgent('Bob');
  ok(await T.agent.call('project_create', { title: 'Web', key: 'WEB' }));
  ids.ts = ok(await T.agent.call('repo_register', { slug: 'acme/web' })).repository_id;
  ids.py = ok(await T.agent.call('repo_register', { slug: 'acme/py' })).repository_id;
  ids.self = ok(await T.agent.call('repo_register', { slug: 'acme/bullpen' })).repository_id;
  ids.empty = ok(await T.agent.call('repo_register', { slug: 'acme/empty' })).repository_id;
});
afterAll(async () => {
  for (const r of repos) r.remove();
  await db.drop();
});

describe('the indexer', () => {
  it('reads TypeScript and JavaScript imports with the compiler: paths, .js specifiers, re-exports, require, import(), import type', async () => {
    const g = await buildCodeGraph(fixture(TS_REPO));
    expect(edgesOf(g)).toEqual([
      'lib.js -> src/util.ts',
      'src/a.ts -> src/util.ts',
      'src/b.ts -> src/a.ts',
      'src/c.ts -> src/b.ts',
      'src/cyc1.ts -> src/cyc2.ts',
      'src/cyc2.ts -> src/cyc1.ts',
      'src/cyc2.ts -> src/util.ts',
      'src/index.tsx -> src/a.ts',
      'src/index.tsx -> src/c.ts',
      'src/index.tsx -> src/lazy.ts',
      'src/index.tsx -> src/types.ts',
    ]);
    expect(g.cycles.map((c) => c.map((i) => g.files[i]).sort())).toEqual([['src/cyc1.ts', 'src/cyc2.ts']]);
    const dependents = Object.fromEntries(g.files.map((f, i) => [f, g.dependents[i]]));
    // util: a, b, c, index, lib.js, cyc1, cyc2
    expect(dependents['src/util.ts']).toBe(7);
    expect(dependents['src/cyc1.ts']).toBe(1);
    expect(dependents['src/index.tsx']).toBe(0);
    expect(g.languages).toEqual({ javascript: 1, typescript: 10 });
  });

  it('reads Python imports with tree-sitter and resolves them against the package layout', async () => {
    const g = await buildCodeGraph(fixture(PY_REPO));
    expect(edgesOf(g)).toEqual([
      'app.py -> pkg/sub/views.py',
      'loop_a.py -> loop_b.py',
      'loop_b.py -> loop_a.py',
      'pkg/models.py -> pkg/core.py',
      'pkg/sub/helpers.py -> pkg/core.py',
      'pkg/sub/views.py -> pkg/models.py',
      'pkg/sub/views.py -> pkg/sub/helpers.py',
    ]);
    expect(g.cycles.map((c) => c.map((i) => g.files[i]).sort())).toEqual([['loop_a.py', 'loop_b.py']]);
    expect(g.dependents[g.files.indexOf('pkg/core.py')]).toBe(4);
  });

  it('reads Go imports with tree-sitter through go.mod', async () => {
    const g = await buildCodeGraph(
      fixture({
        'go.mod': 'module example.com/shop\n\ngo 1.22\n',
        'main.go': 'package main\n\nimport (\n\t"fmt"\n\t"example.com/shop/store"\n)\n\nfunc main() { fmt.Println(store.X) }\n',
        'store/store.go': 'package store\n\nimport "example.com/shop/money"\n\nvar X = money.Y\n',
        'store/store_test.go': 'package store\n',
        'money/money.go': 'package money\n\nvar Y = 1\n',
      }),
    );
    expect(edgesOf(g)).toEqual(['main.go -> store/store.go', 'store/store.go -> money/money.go']);
  });
});

describe('upload and the read tools', () => {
  it('uploads in batches, marked with the commit, and answers code_impact by distance with a risk level', async () => {
    const root = fixture(TS_REPO);
    const r = await indexRepository({ root, call: T.agent.call, repositoryId: ids.ts, commit: 'abc1234def', out: { log: () => {} } });
    expect(r).toMatchObject({ files: 11, imports: 11, cycles: 1 });
    const impact = ok(await ada.call('code_impact', { repository_id: ids.ts, file_path: './src/util.ts' }));
    expect(impact).toMatchObject({ file_path: 'src/util.ts', max_depth: 3, dependent_count: 7, risk: 'medium', truncated: false });
    expect(impact.graph).toMatchObject({ commit_sha: 'abc1234def', files: 11, imports: 11, cycles: 1, languages: { typescript: 10, javascript: 1 } });
    const at = (d: number) => impact.dependents.filter((x: { distance: number }) => x.distance === d).map((x: { path: string }) => x.path);
    expect(at(1)).toEqual(['lib.js', 'src/a.ts', 'src/cyc2.ts']);
    expect(at(2)).toEqual(['src/b.ts', 'src/cyc1.ts', 'src/index.tsx']);
    expect(at(3)).toEqual(['src/c.ts']);
    const near = ok(await ada.call('code_impact', { repository_id: ids.ts, file_path: 'src/util.ts', max_depth: 1 }));
    expect(near).toMatchObject({ dependent_count: 3, risk: 'low' });
    const leaf = ok(await ada.call('code_impact', { repository_id: ids.ts, file_path: 'src/index.tsx' }));
    expect(leaf).toMatchObject({ dependent_count: 0, risk: 'none', dependents: [] });
  });

  it('lists cycles as file loops and critical files by transitive dependents', async () => {
    const cycles = ok(await ada.call('code_cycles', { repository_id: ids.ts }));
    expect(cycles.total).toBe(1);
    expect(cycles.cycles).toHaveLength(1);
    const loop = cycles.cycles[0];
    expect(loop[0]).toBe(loop[loop.length - 1]);
    expect(loop).toHaveLength(3);
    expect(new Set(loop)).toEqual(new Set(['src/cyc1.ts', 'src/cyc2.ts']));
    const critical = ok(await ada.call('code_critical_files', { repository_id: ids.ts, limit: 3 }));
    expect(critical.files[0]).toMatchObject({ path: 'src/util.ts', dependents: 7, direct_dependents: 3, risk: 'medium' });
    expect(critical.files).toHaveLength(3);
  });

  it('indexes a Python repository end to end', async () => {
    await indexRepository({ root: fixture(PY_REPO), call: T.agent.call, repositoryId: ids.py, out: { log: () => {} } });
    const impact = ok(await ada.call('code_impact', { repository_id: ids.py, file_path: 'pkg/core.py' }));
    expect(impact.dependents).toEqual([
      { path: 'pkg/models.py', distance: 1 },
      { path: 'pkg/sub/helpers.py', distance: 1 },
      { path: 'pkg/sub/views.py', distance: 2 },
      { path: 'app.py', distance: 3 },
    ]);
    const cycles = ok(await ada.call('code_cycles', { repository_id: ids.py }));
    expect(new Set(cycles.cycles[0])).toEqual(new Set(['loop_a.py', 'loop_b.py']));
  });

  it('indexes this repository itself', async () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const r = await indexRepository({ root, call: T.agent.call, repositoryId: ids.self, out: { log: () => {} } });
    expect(r.files).toBeGreaterThan(300);
    expect(r.imports).toBeGreaterThan(1000);
    const impact = ok(await ada.call('code_impact', { repository_id: ids.self, file_path: 'lib/core/code-graph.ts' }));
    const paths = impact.dependents.map((d: { path: string }) => d.path);
    expect(paths).toContain('lib/core/registry.ts');
    expect(paths).toContain('lib/core/tasks.ts');
    const critical = ok(await ada.call('code_critical_files', { repository_id: ids.self }));
    expect(critical.files).toHaveLength(10);
    expect(critical.files[0].dependents).toBeGreaterThan(100);
  });

  it('replaces the graph atomically: an unfinished upload changes nothing, the last batch swaps', async () => {
    const g: CodeGraph = { files: ['x.ts', 'y.ts'], imports: [[1, 0]], dependents: [1, 0], cycles: [], languages: {} };
    const started = ok(await T.agent.call('code_graph_upload', { repository_id: ids.ts, commit_sha: 'fff0000', files: g.files, dependents: g.dependents }));
    expect(started).toMatchObject({ done: false, files: 2, graph: null });
    const before = ok(await ada.call('code_impact', { repository_id: ids.ts, file_path: 'src/util.ts' }));
    expect(before.graph.commit_sha).toBe('abc1234def');
    fails(await ada.call('code_impact', { repository_id: ids.ts, file_path: 'x.ts' }), 'NOT_FOUND');
    const done = ok(await T.agent.call('code_graph_upload', { repository_id: ids.ts, upload_id: started.upload_id, imports: [1, 0], done: true }));
    expect(done.graph).toMatchObject({ commit_sha: 'fff0000', files: 2, imports: 1, cycles: 0 });
    expect(ok(await ada.call('code_impact', { repository_id: ids.ts, file_path: 'x.ts' })).dependents).toEqual([{ path: 'y.ts', distance: 1 }]);
    fails(await ada.call('code_impact', { repository_id: ids.ts, file_path: 'src/util.ts' }), 'NOT_FOUND');
    const left = await db.query<{ n: number }>(
      `select (select count(*) from public.code_graphs where repository_id = $1)::int +
              (select count(*) from public.code_graph_files f join public.code_graphs g on g.tenant_id = f.tenant_id and g.id = f.graph_id where g.repository_id = $1)::int as n`,
      [ids.ts],
    );
    expect(left[0].n).toBe(1 + 2);
    const logged = await db.query<{ summary: string }>(`select summary from public.activity where tenant_id = $1 and verb = 'code_graph.indexed' order by id`, [T.id]);
    expect(logged.at(-1)!.summary).toMatch(/indexed acme\/web at fff0000: 2 files, 1 imports, 0 cycles/);
    // the fixture's graph back, for the collision tests
    await indexRepository({ root: fixture(TS_REPO), call: T.agent.call, repositoryId: ids.ts, commit: 'abc1234def', out: { log: () => {} } });
  });

  it('refuses what is not a graph, naming the field, and keeps the current graph', async () => {
    fails(await T.agent.call('code_graph_upload', { repository_id: ids.ts, files: ['a.ts'], dependents: [1, 2] }), 'VALIDATION_ERROR');
    fails(await T.agent.call('code_graph_upload', { repository_id: ids.ts, imports: [1, 0, 2] }), 'VALIDATION_ERROR');
    fails(await T.agent.call('code_graph_upload', { repository_id: ids.ts, cycles: [3, 0, 1] }), 'VALIDATION_ERROR');
    const s = ok(await T.agent.call('code_graph_upload', { repository_id: ids.ts, files: ['a.ts'] }));
    const bad = fails(await T.agent.call('code_graph_upload', { repository_id: ids.ts, upload_id: s.upload_id, imports: [0, 5], done: true }), 'VALIDATION_ERROR');
    expect(bad.message).toMatch(/imports: 1 imports or cycles name a file number/);
    expect(ok(await ada.call('code_impact', { repository_id: ids.ts, file_path: 'src/util.ts' })).graph.commit_sha).toBe('abc1234def');
    // a newer upload drops the unfinished one
    ok(await T.agent.call('code_graph_upload', { repository_id: ids.ts, files: ['b.ts'] }));
    fails(await T.agent.call('code_graph_upload', { repository_id: ids.ts, upload_id: s.upload_id, done: true }), 'NOT_FOUND');
    expect(ok(await ada.call('code_impact', { repository_id: ids.ts, file_path: 'src/util.ts' })).graph.commit_sha).toBe('abc1234def');
    const missing = fails(await ada.call('code_impact', { repository_id: ids.empty, file_path: 'a.ts' }), 'NOT_FOUND');
    expect(missing.hint).toMatch(/bullpen repo index/);
    fails(await ada.call('code_cycles', { repository_id: ids.empty }), 'NOT_FOUND');
    fails(await ada.call('code_critical_files', { repository_id: ids.empty }), 'NOT_FOUND');
    fails(await ada.call('code_impact', { repository_id: ids.ts, file_path: 'src/util.ts', max_depth: 11 }), 'VALIDATION_ERROR');
  });
});

describe('collisions', () => {
  it('code refs carry the files a task touches', async () => {
    ids.t1 = ok(await T.agent.call('task_create', { project_id: 'WEB', title: 'Change util' })).task.id;
    ids.t2 = ok(await T.agent.call('task_create', { project_id: 'WEB', title: 'Rework b' })).task.id;
    ids.t3 = ok(await T.agent.call('task_create', { project_id: 'WEB', title: 'Docs' })).task.id;
    const ref = ok(await ada.call('task_code_ref', { task_id: ids.t1, ref_type: 'branch', branch: 'util', repository_id: ids.ts, files: ['./src/util.ts'] }));
    expect(ref.code_ref.files).toEqual(['src/util.ts']);
    ok(await bob.call('task_code_ref', { task_id: ids.t2, ref_type: 'branch', branch: 'b', repository_id: ids.ts, files: ['src/b.ts'] }));
    ok(await bob.call('task_code_ref', { task_id: ids.t3, ref_type: 'branch', branch: 'docs', repository_id: ids.ts }));
  });

  it('code_impact names the open tasks on the file and its dependents, with who holds them', async () => {
    ok(await bob.call('task_claim', { task_id: ids.t2 }));
    const impact = ok(await ada.call('code_impact', { repository_id: ids.ts, file_path: 'src/util.ts' }));
    expect(impact.tasks.map((t: { key: string; holder: string | null; files: string[]; status: string }) => [t.key, t.status, t.holder, t.files])).toEqual([
      ['WEB-2', 'in_progress', 'Bob', ['src/b.ts']],
      ['WEB-1', 'todo', null, ['src/util.ts']],
    ]);
  });

  it('task_claim and task_get warn of collisions on both tasks, and say nothing without one', async () => {
    const claimed = ok(await ada.call('task_claim', { task_id: ids.t1 }));
    expect(claimed.collisions).toEqual([{ task: 'WEB-2', task_id: ids.t2, holder: 'Bob', files: ['src/b.ts'] }]);
    const theirs = ok(await bob.call('task_get', { task_id: ids.t2 }));
    expect(theirs.collisions).toEqual([{ task: 'WEB-1', task_id: ids.t1, holder: 'Ada', files: ['src/util.ts'] }]);
    // the board's badges: both cards, each naming the other
    const board = ok(await T.human.call('code_collisions', { project_id: 'WEB' })).tasks;
    expect(board.map((t: { task: string }) => t.task)).toEqual(['WEB-1', 'WEB-2']);
    expect(board[0].collisions.map((c: { task: string }) => c.task)).toEqual(['WEB-2']);
    expect(board[1].collisions.map((c: { task: string }) => c.task)).toEqual(['WEB-1']);
    ok(await T.agent.call('task_claim', { task_id: ids.t3 }));
    const quiet = ok(await T.agent.call('task_get', { task_id: ids.t3 }));
    expect(quiet).not.toHaveProperty('collisions');
    // a file far from the others' files
    ok(await bob.call('task_code_ref', { task_id: ids.t2, ref_type: 'branch', branch: 'b', repository_id: ids.ts, files: ['src/lazy.ts'] }));
    expect(ok(await ada.call('task_get', { task_id: ids.t1 }))).not.toHaveProperty('collisions');
    expect(ok(await T.human.call('code_collisions', { project_id: 'WEB' })).tasks).toEqual([]);
  });

  it('a task whose repository has no graph gets no collisions key', async () => {
    const t = ok(await T.agent.call('task_create', { project_id: 'WEB', title: 'Elsewhere' })).task.id;
    ok(await ada.call('task_code_ref', { task_id: t, ref_type: 'branch', branch: 'e', repository_id: ids.empty, files: ['src/b.ts'] }));
    expect(ok(await ada.call('task_claim', { task_id: t }))).not.toHaveProperty('collisions');
  });

  it('uploadCodeGraph sends several batches when the graph is large', async () => {
    const n = 12_000;
    const g: CodeGraph = {
      files: Array.from({ length: n }, (_, i) => `gen/f${i}.ts`),
      imports: Array.from({ length: n - 1 }, (_, i) => [i + 1, i] as [number, number]),
      dependents: Array.from({ length: n }, (_, i) => n - 1 - i),
      cycles: [],
      languages: {},
    };
    const calls: string[] = [];
    const last = await uploadCodeGraph(async (tool, input) => {
      calls.push(tool);
      return T.agent.call(tool, input);
    }, ids.empty, g, null);
    expect(calls.length).toBe(4);
    expect(last.graph).toMatchObject({ files: n, imports: n - 1 });
    const impact = ok(await ada.call('code_impact', { repository_id: ids.empty, file_path: 'gen/f0.ts', max_depth: 10 }));
    expect(impact).toMatchObject({ dependent_count: 10, risk: 'medium' });
  });
});
