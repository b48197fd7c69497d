import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedDue, MAX_ATTEMPTS, purgeExpired, queueModelChange } from '../../lib/memory/backfill';
import { localEmbedder, LOCAL_MODEL, openaiEmbedder, setEmbedder } from '../../lib/memory/embedder';
import { fails, freshDb, ok, pgvectorInstalled, seedTenant, type Tenant, type TestDb } from '../helpers/db';
import { startEmbeddingsStandIn, type EmbeddingsStandIn } from '../helpers/embeddings-standin';

let db: TestDb;
let T: Tenant;
let standIn: EmbeddingsStandIn;
/** pgvector: always on PGlite; on Postgres where npm test installed it (scripts/pgvector.mjs). */
let vector: boolean;
const missing = '00000000-0000-4000-8000-000000000000';

const NOTES = [
  { title: 'Restarting the invoice consumer', body: 'If invoices stop going out, run systemctl restart invoice-consumer on the worker host and watch its log.', tags: ['ops', 'billing'], kind: 'runbook' },
  { title: 'Staging credentials', body: 'Use the shared staging account from the Team vault; never the production one.', tags: ['ops'], kind: 'note' },
  { title: 'Running the test suite', body: 'npx vitest run --project unit for fast checks; the pg project needs DATABASE_URL.', tags: ['dev'], kind: 'snippet' },
  { title: 'Why the importer streams', body: 'CSV uploads reach 2 GB; buffering them crashed the container out of memory, so the importer reads them as a stream.', tags: ['dev', 'importer'], kind: 'finding' },
  { title: 'Release procedure', body: 'Tag the commit, push the tag, and the pipeline publishes the package.', tags: ['dev'], kind: 'runbook' },
] as const;
const ids: Record<string, string> = {};

async function noteRow(id: string) {
  const [row] = await db.query<{ embedding_status: string; embedding_model: string | null; embedding_attempts: number; embedding_error: string | null }>(
    `select embedding_status, embedding_model, embedding_attempts, embedding_error from public.knowledge_notes where id = $1`,
    [id],
  );
  return row;
}

beforeAll(async () => {
  db = await freshDb();
  vector = db.vector;
  T = await seedTenant(db, 'knowledge');
  ok(await T.agent.call('project_create', { title: 'Operations', key: 'OPS' }));
  ok(await T.agent.call('task_create', { project_id: 'OPS', title: 'Invoices are stuck' }));
  standIn = await startEmbeddingsStandIn(64);
  setEmbedder(localEmbedder());
});
afterAll(async () => {
  setEmbedder(null);
  await standIn.close();
  await db.drop();
});

describe('knowledge_write', () => {
  it('returns at once with embedding_status pending, links tasks, and the brief lists the title', async () => {
    for (const n of NOTES) {
      const env = ok(await T.agent.call('knowledge_write', { ...n, tags: [...n.tags], project_id: 'OPS', related_task_ids: n.kind === 'runbook' && (n.tags as readonly string[]).includes('billing') ? ['OPS-1'] : undefined }));
      expect(env.embedding_status).toBe(vector ? 'pending' : 'unavailable');
      expect(env.note).toMatchObject({ title: n.title, kind: n.kind, project_key: 'OPS', version: 1, body: n.body, author_actor_id: T.agent.id });
      ids[n.title] = env.note_id;
    }
    const task = ok(await T.human.call('task_get', { task_id: 'OPS-1' }));
    expect(task.notes).toEqual([expect.objectContaining({ id: ids['Restarting the invoice consumer'], kind: 'runbook' })]);
    const brief = ok(await T.human.call('project_brief', { project: 'OPS' }));
    expect(brief.knowledge.map((k: { title: string }) => k.title).sort()).toEqual(NOTES.map((n) => n.title).sort());
  });

  it('refuses bad input naming the field, and unknown projects and tasks', async () => {
    expect(fails(await T.agent.call('knowledge_write', { title: 'x' }), 'VALIDATION_ERROR').message).toContain('body');
    expect(fails(await T.agent.call('knowledge_write', { title: 'x', body: 'y', kind: 'poem' }), 'VALIDATION_ERROR').message).toContain('kind');
    expect(fails(await T.agent.call('knowledge_write', { title: 'x', body: 'y', expires_at: 'soon' }), 'VALIDATION_ERROR').message).toContain('expires_at');
    expect(fails(await T.agent.call('knowledge_write', { title: 'x', body: 'y', expires_at: '2001-01-01T00:00:00Z' }), 'VALIDATION_ERROR').message).toContain('expires_at');
    expect(fails(await T.agent.call('knowledge_write', { title: 'x', body: 'y', tags: [''] }), 'VALIDATION_ERROR').message).toContain('tags[0]');
    fails(await T.agent.call('knowledge_write', { title: 'x', body: 'y', project_id: 'NOPE' }), 'NOT_FOUND');
    expect(fails(await T.agent.call('knowledge_write', { title: 'x', body: 'y', related_task_ids: ['OPS-77'] }), 'NOT_FOUND').message).toContain('related_task_ids[0]');
  });
});

describe('search by meaning on the local model', () => {
  it('the backfill embeds every pending note and marks it ready with the model', async () => {
    const report = await embedDue(db, localEmbedder());
    if (!vector) {
      expect(report.embedded).toBe(0);
      expect((await noteRow(ids['Release procedure'])).embedding_status).toBe('unavailable');
      return;
    }
    expect(report).toMatchObject({ embedded: NOTES.length, failed: 0, more: false });
    for (const id of Object.values(ids)) expect(await noteRow(id)).toMatchObject({ embedding_status: 'ready', embedding_model: LOCAL_MODEL });
    const [v] = await db.query<{ dims: number; n: number }>(`select min(dims) as dims, count(*)::int as n from public.memory_embeddings`);
    expect(v).toEqual({ dims: 512, n: NOTES.length });
  });

  it('finds a note from a query that shares no content words with it', async () => {
    const q = 'clients are not receiving their bills';
    const words = ok(await T.agent.call('knowledge_search', { q, lexical_only: true }));
    expect(words.mode).toBe('lexical');
    expect(words.results.map((r: { id: string }) => r.id)).not.toContain(ids['Restarting the invoice consumer']);
    const meaning = ok(await T.agent.call('knowledge_search', { q, top_k: 3 }));
    if (!vector) {
      expect(meaning.mode).toBe('lexical');
      expect(meaning.fallback_reason).toContain('pgvector');
      return;
    }
    expect(meaning).toMatchObject({ mode: 'hybrid', model: LOCAL_MODEL, fallback_reason: null });
    expect(meaning.results[0]).toMatchObject({ id: ids['Restarting the invoice consumer'], lexical_rank: null });
    expect(meaning.results[0].similarity).toBeGreaterThan(0.3);
  });

  it('fuses words and meaning, honours top_k, min_similarity and the filters', async () => {
    const hybrid = ok(await T.agent.call('knowledge_search', { q: 'restart the invoice consumer' }));
    expect(hybrid.results[0].id).toBe(ids['Restarting the invoice consumer']);
    expect(hybrid.results[0].lexical_rank).toBeGreaterThan(0);
    const one = ok(await T.agent.call('knowledge_search', { q: 'how do I ship a new version', top_k: 1, min_score: 0 }));
    // by words alone nothing matches ship/new/version; by meaning the release runbook is nearest
    // (below the default min_score of the bundled model: min_score 0 asks for the nearest anyway)
    expect(one.results).toHaveLength(vector ? 1 : 0);
    const dev = ok(await T.agent.call('knowledge_search', { q: 'publish a release', tags: ['dev'], kind: 'runbook' }));
    expect(dev.results.map((r: { title: string }) => r.title)).toEqual(['Release procedure']);
    if (vector) {
      expect(one.results[0].id).toBe(ids['Release procedure']);
      const loose = ok(await T.agent.call('knowledge_search', { q: 'how do I ship a new version', top_k: 10, min_score: 0 }));
      const strict = ok(await T.agent.call('knowledge_search', { q: 'how do I ship a new version', top_k: 10, min_score: 0, min_similarity: 0.35 }));
      expect(loose.results.length).toBe(NOTES.length);
      expect(strict.results.length).toBeLessThan(loose.results.length);
      for (const r of strict.results) expect(r.similarity).toBeGreaterThanOrEqual(0.35);
    }
    const other = ok(await T.agent.call('knowledge_search', { q: 'restart', project_id: 'OPS', kind: 'snippet' }));
    expect(other.results.map((r: { kind: string }) => r.kind).every((k: string) => k === 'snippet')).toBe(true);
    const listed = ok(await T.agent.call('knowledge_search', { tags: ['ops'] }));
    expect(listed.results.map((r: { title: string }) => r.title).sort()).toEqual(['Restarting the invoice consumer', 'Staging credentials']);
  });

  it('refuses bad search input and unknown projects', async () => {
    expect(fails(await T.agent.call('knowledge_search', { q: 'x', top_k: 0 }), 'VALIDATION_ERROR').message).toContain('top_k');
    expect(fails(await T.agent.call('knowledge_search', { q: 'x', min_similarity: -1 }), 'VALIDATION_ERROR').message).toContain('min_similarity');
    expect(fails(await T.agent.call('knowledge_search', { q: 'x', kind: 'memo' }), 'VALIDATION_ERROR').message).toContain('kind');
    fails(await T.agent.call('knowledge_search', { q: 'x', project_id: 'NOPE' }), 'NOT_FOUND');
  });
});

describe('knowledge_update', () => {
  it('re-embeds only when the text changes', async () => {
    const id = ids['Staging credentials'];
    const tagsOnly = ok(await T.agent.call('knowledge_update', { note_id: id, patch: { tags: ['ops', 'secrets'] } }));
    expect(tagsOnly).toMatchObject({ changed: ['tags'], re_embed: false, embedding_status: vector ? 'ready' : 'unavailable' });
    expect(tagsOnly.note.version).toBe(2);
    const body = ok(await T.agent.call('knowledge_update', { note_id: id, patch: { body: 'Use the staging account from the Team vault. Rotate it monthly.' } }));
    expect(body).toMatchObject({ changed: ['body'], re_embed: true, embedding_status: vector ? 'pending' : 'unavailable' });
    const same = ok(await T.agent.call('knowledge_update', { note_id: id, patch: { kind: 'note' } }));
    expect(same).toMatchObject({ changed: [], re_embed: false });
    const report = await embedDue(db, localEmbedder());
    expect(report.embedded).toBe(vector ? 1 : 0);
    if (vector) expect(await noteRow(id)).toMatchObject({ embedding_status: 'ready' });
  });

  it('links and unlinks tasks, and guards concurrent edits with expected_version', async () => {
    const id = ids['Release procedure'];
    ok(await T.agent.call('knowledge_update', { note_id: id, patch: { related_task_ids: ['OPS-1'] } }));
    let task = ok(await T.agent.call('task_get', { task_id: 'OPS-1' }));
    expect(task.notes.map((n: { id: string }) => n.id)).toContain(id);
    ok(await T.agent.call('knowledge_update', { note_id: id, patch: { related_task_ids: [] } }));
    task = ok(await T.agent.call('task_get', { task_id: 'OPS-1' }));
    expect(task.notes.map((n: { id: string }) => n.id)).not.toContain(id);
    const current = ok(await T.agent.call('knowledge_search', { q: 'Release procedure', lexical_only: true, top_k: 1 }));
    const e = fails(await T.agent.call('knowledge_update', { note_id: id, expected_version: current.results[0].version - 1, patch: { title: 'Releasing' } }), 'CONFLICT');
    expect(e.message).toContain(`version ${current.results[0].version}`);
    ok(await T.agent.call('knowledge_update', { note_id: id, expected_version: current.results[0].version, patch: { title: 'Releasing' } }));
  });

  it('refuses an empty patch, bad fields and unknown notes', async () => {
    expect(fails(await T.agent.call('knowledge_update', { note_id: ids['Release procedure'], patch: {} }), 'VALIDATION_ERROR').message).toContain('patch');
    expect(fails(await T.agent.call('knowledge_update', { note_id: ids['Release procedure'], patch: { colour: 'red' } }), 'VALIDATION_ERROR').message).toContain('colour');
    expect(fails(await T.agent.call('knowledge_update', { note_id: 'x', patch: { title: 'y' } }), 'VALIDATION_ERROR').message).toContain('note_id');
    fails(await T.agent.call('knowledge_update', { note_id: missing, patch: { title: 'y' } }), 'NOT_FOUND');
  });
});

describe('expiring notes', () => {
  it('leave search, task_get and the brief when they expire, and the sweep purges them', async () => {
    const env = ok(
      await T.agent.call('knowledge_write', {
        title: 'Deploy freeze this week', body: 'No deploys until Friday: the payment provider is migrating.', project_id: 'OPS',
        expires_at: new Date(Date.now() + 1500).toISOString(), related_task_ids: ['OPS-1'],
      }),
    );
    expect(ok(await T.agent.call('knowledge_search', { q: 'deploy freeze', lexical_only: true })).results.map((r: { id: string }) => r.id)).toContain(env.note_id);
    expect(ok(await T.agent.call('search', { q: 'deploy freeze' })).results.map((r: { object_id: string }) => r.object_id)).toContain(env.note_id);
    await new Promise((r) => setTimeout(r, 1700));
    expect(ok(await T.agent.call('knowledge_search', { q: 'deploy freeze', lexical_only: true })).results).toEqual([]);
    expect(ok(await T.agent.call('knowledge_search', { q: 'deploy freeze' })).results.map((r: { id: string }) => r.id)).not.toContain(env.note_id);
    expect(ok(await T.agent.call('search', { q: 'deploy freeze' })).results.map((r: { object_id: string }) => r.object_id)).not.toContain(env.note_id);
    expect(ok(await T.agent.call('task_get', { task_id: 'OPS-1' })).notes.map((n: { id: string }) => n.id)).not.toContain(env.note_id);
    expect(ok(await T.agent.call('project_brief', { project: 'OPS' })).knowledge.map((n: { id: string }) => n.id)).not.toContain(env.note_id);
    fails(await T.agent.call('knowledge_update', { note_id: env.note_id, patch: { title: 'x' } }), 'NOT_FOUND');
    const visible = await db.withClaims<{ n: number }>(T.agent.claims, `select count(*)::int as n from public.knowledge_notes where id = '${env.note_id}'`);
    expect(visible[0].n).toBe(0);
    expect(await purgeExpired(db)).toBe(1);
    const [row] = await db.query<{ n: number; logged: number }>(
      `select (select count(*) from public.knowledge_notes where id = $1)::int as n,
              (select count(*) from public.activity where object_id = $1 and verb = 'note.expired')::int as logged`,
      [env.note_id],
    );
    expect(row).toEqual({ n: 0, logged: 1 });
  });
});

// The embedder's paths need vectors: on the pg suite this runs on Postgres with pgvector (npm test
// installs it); where the server has none, on an embedded database of its own, so the embedder's
// behaviour is proven on both suites either way.
describe('the OpenAI path, against a local stand-in of the embeddings API', () => {
  let vdb: TestDb;
  let V: Tenant;
  const vids: Record<string, string> = {};
  async function vrow(id: string) {
    const [row] = await vdb.query<{ embedding_status: string; embedding_model: string | null; embedding_attempts: number; embedding_error: string | null }>(
      `select embedding_status, embedding_model, embedding_attempts, embedding_error from public.knowledge_notes where id = $1`,
      [id],
    );
    return row;
  }
  beforeAll(async () => {
    if (await pgvectorInstalled()) vdb = await freshDb();
    else {
      const { openPglite } = await import('../../lib/db/pglite');
      const { migrate } = await import('../../lib/db/migrate');
      const pgl = await openPglite();
      await migrate(pgl);
      vdb = Object.assign(pgl, { drop: () => pgl.close() });
    }
    expect(vdb.vector).toBe(true);
    V = await seedTenant(vdb, 'openai-path');
    for (const n of NOTES) vids[n.title] = ok(await V.agent.call('knowledge_write', { ...n, tags: [...n.tags] })).note_id;
    await embedDue(vdb, localEmbedder());
  });
  afterAll(() => vdb.drop());

  it('a write wakes the background job (one per workspace), and the worker embeds the notes', async () => {
    const { JobWorker } = await import('../../lib/jobs');
    setEmbedder(localEmbedder());
    const w1 = ok(await V.agent.call('knowledge_write', { title: 'Job one', body: 'first note for the worker' }));
    const w2 = ok(await V.agent.call('decision_log', { title: 'Job two', choice: 'second object for the worker' }));
    const jobs = await vdb.query<{ kind: string; key: string; tenant_id: string }>(`select kind, key, tenant_id from bullpen.jobs where status = 'pending' and kind = 'memory.embed'`);
    expect(jobs).toEqual([{ kind: 'memory.embed', key: 'memory.embed', tenant_id: V.id }]);
    const worker = new JobWorker(vdb);
    expect(await worker.drain()).toBeGreaterThanOrEqual(1);
    expect(await vrow(w1.note_id)).toMatchObject({ embedding_status: 'ready', embedding_model: LOCAL_MODEL });
    const [d] = await vdb.query<{ embedding_status: string }>(`select embedding_status from public.decisions where id = $1`, [w2.decision_id]);
    expect(d.embedding_status).toBe('ready');
    const [left] = await vdb.query<{ n: number }>(`select count(*)::int as n from bullpen.jobs where kind = 'memory.embed'`);
    expect(left.n).toBe(0);
  });

  it('an outage leaves writes ok and notes pending; after recovery they become ready', async () => {
    const openai = openaiEmbedder({ apiKey: 'test-key', baseURL: standIn.baseURL });
    setEmbedder(openai);
    standIn.failing = true;
    const written = ok(await V.agent.call('knowledge_write', { title: 'Webhook signing', body: 'Verify the HMAC header before parsing the payload.', tags: ['security'] }));
    expect(written.embedding_status).toBe('pending');
    const down = await embedDue(vdb, openai, { firstRetryMs: 100 });
    expect(down.failed).toBeGreaterThanOrEqual(1);
    expect(down.error).toContain('500');
    expect(await vrow(written.note_id)).toMatchObject({ embedding_status: 'pending', embedding_attempts: 1 });
    // a search while the embedder is down still answers, by words, and says why
    const meanwhile = ok(await V.agent.call('knowledge_search', { q: 'webhook signing' }));
    expect(meanwhile).toMatchObject({ mode: 'lexical' });
    expect(meanwhile.fallback_reason).toContain('embedder is unavailable');
    expect(meanwhile.results[0].id).toBe(written.note_id);
    standIn.failing = false;
    await new Promise((r) => setTimeout(r, 150));
    const up = await embedDue(vdb, openai, { firstRetryMs: 100 });
    expect(up.failed).toBe(0);
    expect(await vrow(written.note_id)).toMatchObject({ embedding_status: 'ready', embedding_model: 'text-embedding-3-small', embedding_error: null });
    const [v] = await vdb.query<{ dims: number }>(`select dims from public.memory_embeddings where object_id = $1 and model = 'text-embedding-3-small'`, [written.note_id]);
    expect(v.dims).toBe(64);
    const found = ok(await V.agent.call('knowledge_search', { q: 'verify the HMAC header' }));
    expect(found).toMatchObject({ mode: 'hybrid', model: 'text-embedding-3-small' });
    expect(found.results[0].id).toBe(written.note_id);
  });

  it('gives up after its attempts: the note is failed, the write was never affected', async () => {
    const openai = openaiEmbedder({ apiKey: 'test-key', baseURL: standIn.baseURL });
    standIn.failing = true;
    const written = ok(await V.agent.call('knowledge_write', { title: 'Flaky', body: 'never embeds' }));
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await vdb.exec(`update public.knowledge_notes set embedding_retry_at = now() where id = '${written.note_id}' and embedding_status = 'pending'`);
      await embedDue(vdb, openai, { firstRetryMs: 10 });
    }
    expect(await vrow(written.note_id)).toMatchObject({ embedding_status: 'failed', embedding_attempts: MAX_ATTEMPTS });
    expect((await vrow(written.note_id)).embedding_error).toContain('500');
    standIn.failing = false;
  });

  it('a model change re-embeds in the background while search keeps answering', async () => {
    const openai = openaiEmbedder({ apiKey: 'test-key', baseURL: standIn.baseURL });
    setEmbedder(openai);
    const queued = await queueModelChange(vdb, openai.model);
    // everything the local model embedded: the five notes and the job test's note and decision
    // (the note that never embedded stays failed)
    expect(queued).toBe(NOTES.length + 2);
    const id = vids['Restarting the invoice consumer'];
    expect(await vrow(id)).toMatchObject({ embedding_status: 'pending', embedding_model: LOCAL_MODEL });
    const meanwhile = ok(await V.agent.call('knowledge_search', { q: 'restart the invoice consumer' }));
    expect(meanwhile.mode).toBe('hybrid');
    expect(meanwhile.results[0].id).toBe(id);
    await embedDue(vdb, openai);
    expect(await vrow(id)).toMatchObject({ embedding_status: 'ready', embedding_model: 'text-embedding-3-small' });
    const [models] = await vdb.query<{ models: string[] }>(`select array_agg(distinct model) as models from public.memory_embeddings where object_id = $1`, [id]);
    expect(models.models).toEqual(['text-embedding-3-small']);
    const after = ok(await V.agent.call('knowledge_search', { q: 'restart the invoice consumer' }));
    expect(after.results[0]).toMatchObject({ id });
    expect(after.results[0].similarity).toBeGreaterThan(0.5);
    setEmbedder(localEmbedder());
  });
});
