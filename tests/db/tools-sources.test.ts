import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSourceFiles, syncSource } from '../../lib/cli/knowledge-sync';
import { chunkDocument } from '../../lib/core/sources';
import { embedDue } from '../../lib/memory/backfill';
import { localEmbedder, setEmbedder } from '../../lib/memory/embedder';
import { fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * Document sources: `bullpen knowledge sync` over a fixture folder written here, synced again after
 * an edit, a delete and a rename; chunks along headings with offsets; the per-source lock;
 * source_get, chunk_get, source_list; chunks embedded by the notes' job and found by
 * knowledge_search {types}; source documents as link ends.
 */

let db: TestDb;
let T: Tenant;
let dir: string;
const quiet = { log: () => {}, error: () => {} };
// each section is long enough (about 1,600 characters) that the chunker keeps the three apart
const PAD = {
  intro: 'The billing service bills every workspace once a day and sends invoices by mail. '.repeat(20),
  rollback: 'A rollback restores the last good tag; check the dashboards after it finishes. '.repeat(20),
  migrations: 'Each migration is reviewed, applied on staging first, then on production. '.repeat(22),
};
const GUIDE = `# Deploy guide

Intro paragraph about deploying the billing service.

${PAD.intro}

## Rollback

To roll back, redeploy the previous tag with the pipeline and watch the error rate.

\`\`\`sh
# not a heading: inside a fence
make rollback
\`\`\`

${PAD.rollback}

## Database migrations

Run migrations before the new pods start; they must be backward compatible.

${PAD.migrations}
`;
const SMALL_GUIDE = GUIDE.replace(PAD.intro, '').replace(PAD.rollback, '').replace(PAD.migrations, '');

const call = (actor: Actor) => (tool: string, input: unknown) => actor.call(tool, input) as never;
const sync = (actor: Actor = T.agent, source = 'docs') => syncSource({ dir, source, project: 'DOC', call: call(actor), out: quiet });
const docByPath = async (p: string, source = 'docs') =>
  (await db.query<{ id: string; tombstoned_at: string | null; updated_at: string }>(
    `select d.id, d.tombstoned_at, d.updated_at from public.source_documents d join public.sources s on s.tenant_id = d.tenant_id and s.id = d.source_id
      where d.tenant_id = $1 and s.name = $2 and d.path = $3`,
    [T.id, source, p],
  ))[0];

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'sources');
  setEmbedder(localEmbedder());
  ok(await T.agent.call('project_create', { title: 'Docs', key: 'DOC' }));
  dir = await mkdtemp(path.join(tmpdir(), 'bullpen-sources-'));
  await mkdir(path.join(dir, 'ops'), { recursive: true });
  await mkdir(path.join(dir, '.obsidian'), { recursive: true });
  await writeFile(path.join(dir, 'deploy.md'), GUIDE);
  await writeFile(path.join(dir, 'ops', 'oncall.md'), '# On-call\n\nPages go to the rota. Escalate after fifteen minutes.\n');
  await writeFile(path.join(dir, 'glossary.txt'), 'Tenant: one workspace.\n\nLease: a claim on a task that expires.\n');
  await writeFile(path.join(dir, '.obsidian', 'workspace.md'), '# editor state');
  await writeFile(path.join(dir, 'diagram.png'), 'not text');
});
afterAll(async () => {
  setEmbedder(null);
  await rm(dir, { recursive: true, force: true });
  await db.drop();
});

describe('chunking', () => {
  it('cuts along headings outside code fences, with offsets whose slice is the text', () => {
    const chunks = chunkDocument(GUIDE);
    expect(chunks.map((c) => c.heading)).toEqual(['Deploy guide', 'Rollback', 'Database migrations']);
    for (const c of chunks) expect(GUIDE.slice(c.start_offset, c.end_offset)).toBe(c.text);
    expect(chunks[1].text).toContain('make rollback');
    // without merging, every heading starts a chunk
    expect(chunkDocument(SMALL_GUIDE, { target: 0 }).map((c) => c.heading)).toEqual(['Deploy guide', 'Rollback', 'Database migrations']);
  });

  it('merges consecutive small sections up to the target, never across a higher heading', () => {
    // the small guide is one chunk: its two ## sections join the # one, under the first heading
    const [one, ...rest] = chunkDocument(SMALL_GUIDE);
    expect(rest).toEqual([]);
    expect(one).toMatchObject({ heading: 'Deploy guide', start_offset: 0, text: SMALL_GUIDE.trim() });
    const para = (w: string) => `${w} `.repeat(120).trim();
    const body = [
      'Preamble without a heading.', '', '# Alpha', '', para('alpha'), '', '## Alpha one', '', para('one'), '', '## Alpha two', '', para('two'),
      '', '# Beta', '', para('beta'), '', '### Beta deep', '', para('deep'), '', '## Beta sibling', '', para('sib'), '',
    ].join('\n');
    const chunks = chunkDocument(body, { target: 1500 });
    for (const c of chunks) {
      expect(body.slice(c.start_offset, c.end_offset)).toBe(c.text);
      expect(c.text.length).toBeLessThanOrEqual(1500);
    }
    // the preamble has no heading: its chunk takes the first one it holds; `## Alpha two` would pass
    // 1,500 characters; `# Beta` is higher than `## Alpha two`, so it starts a chunk; `### Beta deep` joins it
    expect(chunks.map((c) => c.heading)).toEqual(['Alpha', 'Alpha two', 'Beta', 'Beta sibling']);
    expect(chunks[0].text).toMatch(/^Preamble[^]*## Alpha one[^]*one$/);
    expect(chunks[2].text).toMatch(/^# Beta[^]*### Beta deep[^]*deep$/);
    // small sections: a higher heading still starts a new chunk
    const small = chunkDocument('## A\n\nsmall\n\n### A deep\n\nsmall\n\n## A next\n\nsmall\n\n# B\n\nsmall');
    expect(small.map((c) => c.heading)).toEqual(['A', 'B']);
    expect(small[0].text).toContain('## A next');
    // every character of the body outside whitespace is in exactly one chunk
    expect(chunks.map((c) => c.text).join('\n\n').replace(/\s+/g, '')).toBe(body.replace(/\s+/g, ''));
  });

  it('cuts a long section at blank lines and counts offsets in characters', () => {
    const para = 'word '.repeat(150).trim();
    const body = `# Long\n\n${Array.from({ length: 12 }, () => para).join('\n\n')}`;
    const chunks = chunkDocument(body, { max: 2000 });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(2000);
      expect(body.slice(c.start_offset, c.end_offset)).toBe(c.text);
    }
    const emoji = chunkDocument('# 🚀 Launch\n\nGo.\n\n# Next\n\nThen.', { target: 0 });
    expect(emoji[1]).toMatchObject({ heading: 'Next', start_offset: [...'# 🚀 Launch\n\nGo.\n\n'].length });
    const pad = 'x'.repeat(40);
    const merged = chunkDocument(`# 🚀 Launch\n\n${pad}\n\n# Next\n\n${pad} 🚀 then.`);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ heading: '🚀 Launch', start_offset: 0 });
    expect(merged[0].end_offset).toBe([...merged[0].text].length);
  });

  it('lists Markdown and text files, skipping dot folders and other files', async () => {
    expect(await listSourceFiles(dir)).toEqual(['deploy.md', 'glossary.txt', 'ops/oncall.md']);
  });
});

describe('knowledge sync, three times', () => {
  it('indexes the folder: documents, chunks, a source with its last sync', async () => {
    const first = await sync();
    expect(first).toMatchObject({ files: 3, written: 3, unchanged: 0, tombstoned: [] });
    const [src] = ok(await T.agent.call('source_list', {})).sources;
    expect(src).toMatchObject({ name: 'docs', project_key: 'DOC', documents: 3, tombstoned: 0, chunks: 5, syncing: false, errors: [] });
    expect(src.last_sync_at).not.toBeNull();
    const doc = await docByPath('deploy.md');
    const got = ok(await T.agent.call('source_get', { document_id: doc.id }));
    expect(got.document).toMatchObject({ path: 'deploy.md', title: 'Deploy guide', source: 'docs', tombstoned_at: null });
    expect(got.chunks.map((c: { heading: string }) => c.heading)).toEqual(['Deploy guide', 'Rollback', 'Database migrations']);
    for (const c of got.chunks) expect(GUIDE.slice(c.start_offset, c.end_offset)).toBe(c.text);
  });

  it('a second sync with nothing changed writes nothing', async () => {
    const before = await docByPath('deploy.md');
    expect(await sync()).toMatchObject({ files: 3, written: 0, unchanged: 3 });
    expect((await docByPath('deploy.md')).updated_at).toEqual(before.updated_at);
  });

  it('after an edit: only the changed file is written; unchanged chunks keep their vectors', async () => {
    await embedDue(db, localEmbedder(), { batch: 16, maxBatches: 20 });
    const doc = await docByPath('deploy.md');
    const before = ok(await T.agent.call('source_get', { document_id: doc.id })).chunks;
    await writeFile(path.join(dir, 'deploy.md'), GUIDE.replace('backward compatible', 'backward compatible and reversible'));
    expect(await sync()).toMatchObject({ written: 1, unchanged: 2, tombstoned: [] });
    const after = ok(await T.agent.call('source_get', { document_id: doc.id })).chunks;
    expect(after[2].text).toContain('reversible');
    expect(after[0]).toMatchObject({ id: before[0].id, text: before[0].text, embedding_status: before[0].embedding_status });
    expect(after[2].embedding_status).not.toBe('ready');
  });

  it('after a delete: the vanished file is tombstoned, readable by id, gone from search', async () => {
    const doc = await docByPath('ops/oncall.md');
    const chunk = ok(await T.agent.call('source_get', { document_id: doc.id })).chunks[0];
    await rm(path.join(dir, 'ops', 'oncall.md'));
    expect(await sync()).toMatchObject({ files: 2, written: 0, tombstoned: ['ops/oncall.md'] });
    const got = ok(await T.agent.call('source_get', { document_id: doc.id }));
    expect(got.document.tombstoned_at).not.toBeNull();
    expect(got.chunks).toEqual([]);
    fails(await T.agent.call('chunk_get', { chunk_id: chunk.id }), 'NOT_FOUND');
    const hits = ok(await T.agent.call('knowledge_search', { q: 'escalate rota pages', types: ['chunk'], lexical_only: true })).results;
    expect(hits).toEqual([]);
  });

  it('after a rename: the old path is tombstoned and the new one is live with the same text', async () => {
    await rename(path.join(dir, 'glossary.txt'), path.join(dir, 'terms.txt'));
    expect(await sync()).toMatchObject({ files: 2, written: 1, tombstoned: ['glossary.txt'] });
    expect((await docByPath('glossary.txt')).tombstoned_at).not.toBeNull();
    const renamed = await docByPath('terms.txt');
    expect(renamed.tombstoned_at).toBeNull();
    const got = ok(await T.agent.call('source_get', { document_id: renamed.id }));
    expect(got.document.title).toBe('terms');
    expect(got.chunks.map((c: { text: string }) => c.text).join('\n')).toContain('Lease: a claim');
    const [src] = ok(await T.agent.call('source_list', {})).sources;
    expect(src).toMatchObject({ documents: 2, tombstoned: 2 });
  });

  it('a file that comes back is live again', async () => {
    await writeFile(path.join(dir, 'ops', 'oncall.md'), '# On-call\n\nPages go to the rota. Escalate after ten minutes.\n');
    expect(await sync()).toMatchObject({ written: 1, tombstoned: [] });
    expect((await docByPath('ops/oncall.md')).tombstoned_at).toBeNull();
  });
});

describe('the sync lock', () => {
  it('refuses a second sync of the same source while one runs, naming the rule', async () => {
    const begin = ok(await T.agent.call('source_sync', { action: 'begin', source: 'locked' }));
    const other = await T.addAgent('second-syncer');
    const err = fails(await other.call('source_sync', { action: 'begin', source: 'locked' }), 'CONFLICT');
    expect(err.message).toMatch(/two syncs of one source never run at once/);
    expect(err.message).toContain('a sync by');
    expect(err.hint).toMatch(/wait for it to finish/);
    await expect(syncSource({ dir, source: 'locked', call: call(other), out: quiet })).rejects.toThrow(/CONFLICT/);
    // another source is not held by it
    ok(await other.call('source_sync', { action: 'begin', source: 'unrelated' }));
    // a step with another sync's id is refused
    fails(await other.call('source_sync', { action: 'put', source: 'locked', sync_id: '00000000-0000-4000-8000-000000000000', documents: { 'a.md': '# A' } }), 'CONFLICT');
    ok(await T.agent.call('source_sync', { action: 'finish', source: 'locked', sync_id: begin.sync_id, paths: [] }));
    // finished: the next sync begins, and the finished sync's id is spent
    ok(await other.call('source_sync', { action: 'begin', source: 'locked' }));
    fails(await T.agent.call('source_sync', { action: 'finish', source: 'locked', sync_id: begin.sync_id, paths: [], idempotency_key: 'finish-again' }), 'CONFLICT');
  });

  it('takes over a lapsed lock', async () => {
    await db.query(`update public.sources set sync_expires_at = now() - interval '1 second' where tenant_id = $1 and name = 'locked'`, [T.id]);
    ok(await T.agent.call('source_sync', { action: 'begin', source: 'locked' }));
  });

  it('validates names and batch sizes', async () => {
    fails(await T.agent.call('source_sync', { action: 'begin', source: '../etc' }), 'VALIDATION_ERROR');
    const many = Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`f${i}.md`, 'x']));
    fails(await T.agent.call('source_sync', { action: 'put', source: 'docs', sync_id: '00000000-0000-4000-8000-000000000000', documents: many }), 'VALIDATION_ERROR');
  });
});

describe('chunk_get', () => {
  it('returns a chunk with its neighbours and document', async () => {
    const doc = await docByPath('deploy.md');
    const chunks = ok(await T.agent.call('source_get', { document_id: doc.id })).chunks;
    const got = ok(await T.agent.call('chunk_get', { chunk_id: chunks[1].id, context_chunks: 1 }));
    expect(got.chunk.heading).toBe('Rollback');
    expect(got.before.map((c: { ord: number }) => c.ord)).toEqual([0]);
    expect(got.after.map((c: { ord: number }) => c.ord)).toEqual([2]);
    expect(got.document.path).toBe('deploy.md');
    const alone = ok(await T.agent.call('chunk_get', { chunk_id: chunks[1].id }));
    expect([alone.before, alone.after]).toEqual([[], []]);
    fails(await T.agent.call('chunk_get', { chunk_id: chunks[1].id, context_chunks: 11 }), 'VALIDATION_ERROR');
  });
});

describe('search and links', () => {
  it('knowledge_search {types} ranks notes, decisions and chunks together, each saying its type', async () => {
    ok(await T.agent.call('knowledge_write', { title: 'Rollback checklist', body: 'Before a rollback, freeze deploys and tell support.' }));
    ok(await T.agent.call('decision_log', { title: 'Rollbacks go through the pipeline', choice: 'Never roll back by hand', context: 'A manual rollback lost data', consequences: ['Slower rollbacks'] }));
    const r = ok(await T.agent.call('knowledge_search', { q: 'rollback', types: ['note', 'decision', 'chunk'], lexical_only: true }));
    const types = new Set(r.results.map((h: { type: string }) => h.type));
    expect(types).toEqual(new Set(['note', 'decision', 'chunk']));
    const chunk = r.results.find((h: { type: string }) => h.type === 'chunk');
    expect(chunk).toMatchObject({ path: 'deploy.md', title: 'Deploy guide', source: 'docs', heading: 'Rollback' });
    const decision = r.results.find((h: { type: string }) => h.type === 'decision');
    expect(decision).toMatchObject({ context: 'A manual rollback lost data', consequences: ['Slower rollbacks'] });
    // only the named types
    const onlyChunks = ok(await T.agent.call('knowledge_search', { q: 'rollback', types: ['chunk'], lexical_only: true })).results;
    expect(onlyChunks.every((h: { type: string }) => h.type === 'chunk')).toBe(true);
    // a chunk's document title finds it
    const byTitle = ok(await T.agent.call('knowledge_search', { q: 'deploy guide', types: ['chunk'], lexical_only: true })).results;
    expect(byTitle.length).toBeGreaterThan(0);
    // paging through the merged list
    const page1 = ok(await T.agent.call('knowledge_search', { q: 'rollback', types: ['note', 'decision', 'chunk'], lexical_only: true, top_k: 1 }));
    expect(page1.next_cursor).toBeTruthy();
    const page2 = ok(await T.agent.call('knowledge_search', { q: 'rollback', types: ['note', 'decision', 'chunk'], lexical_only: true, top_k: 1, cursor: page1.next_cursor }));
    expect(page2.results[0].id).not.toBe(page1.results[0].id);
  });

  it('chunks are embedded by the background job and found by meaning; an unrelated query finds nothing', async () => {
    const report = await embedDue(db, localEmbedder(), { batch: 16, maxBatches: 50 });
    if (!db.vector) {
      expect(report.embedded).toBe(0);
      return;
    }
    const [{ n }] = await db.query<{ n: number }>(
      `select count(*)::int n from public.source_chunks where tenant_id = $1 and embedding_status <> 'ready'`, [T.id]);
    expect(n).toBe(0);
    const [{ v }] = await db.query<{ v: number }>(`select count(*)::int v from public.memory_embeddings where tenant_id = $1 and object_type = 'chunk'`, [T.id]);
    expect(v).toBeGreaterThan(0);
    // no word of the query is in the chunk: the vector arm finds it (the bundled model rates this
    // paraphrase near 0.34, below the default min_score, so the test lowers it)
    const r = ok(await T.agent.call('knowledge_search', { q: 'how do I undo a bad release', types: ['chunk'], min_score: 0.2 }));
    expect(r.results[0].lexical_rank).toBeNull();
    expect(r.mode).toBe('hybrid');
    expect(r.results[0]).toMatchObject({ type: 'chunk', heading: 'Rollback' });
    const none = ok(await T.agent.call('knowledge_search', { q: 'recipe for sourdough pancakes', types: ['chunk', 'note', 'decision'] }));
    expect(none.results).toEqual([]);
    // min_score 0 lets the nearest through again
    const near = ok(await T.agent.call('knowledge_search', { q: 'recipe for sourdough pancakes', types: ['chunk'], min_score: 0 }));
    expect(near.results.length).toBeGreaterThan(0);
  });

  it('typed search keeps a decision or chunk below min_score only when half the query\'s words match it, and a hit by words alone likewise', async () => {
    const keeps = async (type: string, similarity: number | null, lexical: number | null, coverage: number | null) =>
      (await db.query<{ k: boolean }>(`select bullpen.search_keeps_typed($1, $2, $3, $4, 0.4) as k`, [type, similarity, lexical, coverage]))[0].k;
    // what bench/retrieval.ts saw slip through for unrelated queries: one word of four or five at 0.32–0.40
    expect(await keeps('chunk', 0.3415, 0.0762, 0.25)).toBe(false);
    expect(await keeps('chunk', 0.3419, 0.1482, 0.2)).toBe(false);
    expect(await keeps('decision', 0.3889, 0.4343, 0.333)).toBe(false);
    // found by words alone (no similarity) on a third of the query
    expect(await keeps('note', null, 0.1559, 0.333)).toBe(false);
    // half the words, or near enough by meaning, keeps any type
    expect(await keeps('chunk', 0.35, 0.3, 0.5)).toBe(true);
    expect(await keeps('decision', 0.41, null, null)).toBe(true);
    expect(await keeps('chunk', null, 0.3, 0.66)).toBe(true);
    // a note keeps the single-type rule: a weaker word match within three quarters of min_score
    expect(await keeps('note', 0.303, 0.1358, 0.25)).toBe(true);
    expect(await keeps('note', 0.29, 0.1358, 0.25)).toBe(false);
  });

  it('a source document is a link end: link_add, find_related; deleting it forgets its links', async () => {
    const doc = await docByPath('deploy.md');
    const note = ok(await T.agent.call('knowledge_write', { title: 'Rollback owner', body: 'The platform team owns rollbacks.' })).note_id;
    const link = ok(await T.agent.call('link_add', { from: { type: 'note', id: note }, to: { type: 'source', id: doc.id }, relation: 'explains' }));
    expect(link.to).toMatchObject({ type: 'source', label: 'Deploy guide (deploy.md)', status: 'live' });
    const rel = ok(await T.agent.call('find_related', { type: 'source', id: doc.id }));
    expect(rel.nodes.map((n: { id: string }) => n.id)).toContain(note);
    await db.query(`delete from public.source_documents where tenant_id = $1 and id = $2`, [T.id, doc.id]);
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int n from public.links where tenant_id = $1 and to_id = $2`, [T.id, doc.id]);
    expect(n).toBe(0);
  });

  it('logs each sync as source.synced', async () => {
    const rows = await db.query<{ verb: string; summary: string }>(
      `select verb, summary from public.activity where tenant_id = $1 and verb = 'source.synced' order by id`, [T.id]);
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(rows[0].summary).toMatch(/source docs: 3 files, 0 tombstoned/);
  });
});
