import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../lib/db/types';
import { embedDue } from '../../lib/memory/backfill';
import { localEmbedder, LOCAL_MODEL, setEmbedder } from '../../lib/memory/embedder';
import { freshDb, ok, pgvectorInstalled, reopenableDb, seedTenant, target, type TestDb } from '../helpers/db';

/**
 * The vector paths of memory on both databases: on PGlite always, on Postgres with the pgvector that
 * npm test builds from vendor/ (scripts/pgvector.mjs). Here: the fallback in a database where the
 * extension is not created, the 0010 vector migration on an upgraded database (migrated without the
 * extension, then it appears), and the HNSW index with its iterative scan under a selective filter.
 */

let installed = false;
beforeAll(async () => {
  installed = await pgvectorInstalled();
  setEmbedder(localEmbedder());
});
afterAll(() => setEmbedder(null));

describe('without pgvector: a database where the extension is not created', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await freshDb({ vector: false });
  });
  afterAll(() => db.drop());

  it('writes answer unavailable, search runs on words and says why, the backfill embeds nothing', async () => {
    const [ext] = await db.query<{ ext: boolean; table: boolean }>(
      `select exists(select 1 from pg_extension where extname = 'vector') as ext, to_regclass('public.memory_embeddings') is not null as table`,
    );
    expect(ext).toEqual({ ext: false, table: false });
    const T = await seedTenant(db, 'no-vectors');
    const note = ok(await T.agent.call('knowledge_write', { title: 'Restarting the invoice consumer', body: 'systemctl restart invoice-consumer on the worker host' }));
    expect(note.embedding_status).toBe('unavailable');
    const decision = ok(await T.agent.call('decision_log', { title: 'Money as integer cents', choice: 'bigint cents everywhere' }));
    expect(decision.embedding_status).toBe('unavailable');
    expect(await embedDue(db, localEmbedder())).toMatchObject({ embedded: 0, failed: 0 });
    const words = ok(await T.agent.call('knowledge_search', { q: 'restart the invoice consumer' }));
    expect(words).toMatchObject({ mode: 'lexical', model: null });
    expect(words.fallback_reason).toContain('pgvector');
    expect(words.results[0].id).toBe(note.note_id);
    const recall = ok(await T.agent.call('decision_query', { q: 'integer cents', semantic: true }));
    expect(recall.mode).toBe('lexical');
    expect(recall.fallback_reason).toContain('pgvector');
    expect(recall.decisions[0].id).toBe(decision.decision_id);
  });
});

describe('the 0010 vector migration on an upgraded database', () => {
  it('a database migrated without the extension gets it, its table and index when pgvector appears, and the backfill embeds the old rows', async () => {
    const r = await reopenableDb();
    let db: Db | null = null;
    try {
      db = await r.open({ vector: false });
      const applied = async (d: Db) =>
        (await d.query<{ name: string }>(`select name from bullpen.migrations where name like '%vector%' order by kind, name`)).map((x) => x.name);
      expect(await applied(db)).toEqual([]);
      const T = await seedTenant(db, 'upgraded');
      const note = ok(await T.agent.call('knowledge_write', { title: 'Restarting the invoice consumer', body: 'If invoices stop going out, run systemctl restart invoice-consumer on the worker host.' }));
      ok(await T.agent.call('knowledge_write', { title: 'Release procedure', body: 'Tag the commit, push the tag, and the pipeline publishes the package.' }));
      expect(note.embedding_status).toBe('unavailable');
      await db.close();
      db = null;

      if (!installed) {
        // this server has no pgvector (npm test could not build it: not root); the upgrade waits for it
        const again = await r.open();
        expect(again.vector).toBe(false);
        expect(await applied(again)).toEqual([]);
        await again.close();
        return;
      }
      db = await r.open();
      expect(db.vector).toBe(true);
      expect(await applied(db)).toEqual(['0010_memory_vector.sql', '0010_memory_vector.sql', '0031_sources_vector.sql']);
      const [state] = await db.query<{ ext: boolean; hnsw: boolean; status: string }>(
        `select exists(select 1 from pg_extension where extname = 'vector') as ext,
                to_regclass('public.memory_embeddings_hnsw_use_lite') is not null as hnsw,
                (select embedding_status from public.knowledge_notes where id = $1) as status`,
        [note.note_id],
      );
      expect(state).toEqual({ ext: true, hnsw: true, status: 'unavailable' });
      const report = await embedDue(db, localEmbedder());
      expect(report).toMatchObject({ embedded: 2, failed: 0 });
      const [row] = await db.query<{ embedding_status: string; embedding_model: string }>(
        `select embedding_status, embedding_model from public.knowledge_notes where id = $1`,
        [note.note_id],
      );
      expect(row).toEqual({ embedding_status: 'ready', embedding_model: LOCAL_MODEL });
      // the same workspace, now by meaning: no word of the query is in the note
      const { execute } = await import('../../lib/core/execute');
      const found = ok(await execute({ db, claims: T.agent.claims }, 'knowledge_search', { q: 'clients are not receiving their bills', top_k: 1 }));
      expect(found).toMatchObject({ mode: 'hybrid', model: LOCAL_MODEL, fallback_reason: null });
      expect(found.results[0].id).toBe(note.note_id);
    } finally {
      await db?.close();
      await r.drop();
    }
    // two opens of an on-disk database, each migrated, and the model's first load
  }, 300_000);
});

describe('the HNSW index and its iterative scan', () => {
  let db: TestDb;
  let tenantId: string;
  let claims: Awaited<ReturnType<typeof seedTenant>>['agent']['claims'];
  const DIMS = 512;
  const RUNBOOKS = 2000;
  const NOTES = 500;
  const query = `[${Array.from({ length: DIMS }, (_, i) => (i === 0 ? 1 : 0)).join(',')}]`;

  beforeAll(async () => {
    db = await freshDb();
    if (!db.vector) return;
    const T = await seedTenant(db, 'hnsw');
    tenantId = T.id;
    claims = T.agent.claims;
    // runbooks point away from the query (similarity ≈ 0.3), plain notes towards it (≈ 0.98): the
    // graph's nearest neighbours of the query are all notes, which a kind filter then drops
    await db.query(
      `with x as (
         select i, gen_random_uuid() as id, case when i <= $3::int then 'runbook' else 'note' end as kind
           from generate_series(1, $3::int + $4::int) i
       ), n as (
         insert into public.knowledge_notes (tenant_id, id, kind, title, body, author_actor_id, updated_by_actor_id,
                content_hash, embedding_status, embedding_model, embedding_dims, embedded_at)
         select $1::uuid, x.id, x.kind, x.kind || ' ' || x.i, 'synthetic ' || x.i, $2::uuid, $2::uuid,
                bullpen.memory_hash(bullpen.note_embed_text(x.kind || ' ' || x.i, 'synthetic ' || x.i)), 'ready', $5::text, $6::int, now()
           from x returning id, content_hash)
       insert into public.memory_embeddings (tenant_id, object_type, object_id, model, dims, content_hash, embedding)
       select $1::uuid, 'note', x.id, $5::text, $6::int, n.content_hash,
              (select array_agg(case
                   when d = 1 then case when x.kind = 'runbook' then 0.3 + x.i * 0.0001 else 1 end
                   when d = 2 then case when x.kind = 'runbook' then 1 else 0.2 end
                   else 0.02 * sin(x.i * d) end order by d)
                 from generate_series(1, $6::int) d)::public.vector
         from x join n on n.id = x.id`,
      [tenantId, T.agent.id, RUNBOOKS, NOTES, LOCAL_MODEL, DIMS],
    );
    await db.exec('analyze public.knowledge_notes; analyze public.memory_embeddings;');
  }, 300_000);
  afterAll(() => db.drop());

  /** The vector arm's query shape (bullpen.memory_vector_candidates) with the kind filter, as the table owner. */
  const armSql = (limit: number) =>
    `select n.id from public.memory_embeddings e
       join public.knowledge_notes n on n.tenant_id = e.tenant_id and n.id = e.note_id
      where e.tenant_id = '${tenantId}' and e.model = '${LOCAL_MODEL}' and e.object_type = 'note' and n.kind = 'runbook'
      order by e.embedding::public.vector(${DIMS}) operator(public.<=>) '${query}'::public.vector(${DIMS}) limit ${limit}`;

  it('the arm walks the model\'s HNSW index, and only the iterative scan fills a selective filter', async () => {
    if (!db.vector) {
      // no pgvector on this server (npm test could not install it): nothing to walk
      expect(target).toBe('pg');
      expect(installed).toBe(false);
      return;
    }
    const rows = await db.session(async (s) => {
      await s.exec('begin');
      try {
        await s.exec('set local enable_seqscan = off');
        const plan = (await s.query<{ 'QUERY PLAN': string }>(`explain ${armSql(50)}`)).map((r) => r['QUERY PLAN']).join('\n');
        await s.exec(`set local hnsw.ef_search = 100; set local hnsw.iterative_scan = off`);
        const off = await s.query(armSql(50));
        await s.exec(`set local hnsw.iterative_scan = relaxed_order; set local hnsw.max_scan_tuples = 50000`);
        const on = await s.query(armSql(50));
        return { plan, off: off.length, on: on.length };
      } finally {
        await s.exec('rollback');
      }
    });
    expect(rows.plan).toContain('memory_embeddings_hnsw_use_lite');
    // without the iterative scan the 100 nearest are plain notes and the filter leaves (almost) none
    expect(rows.off).toBeLessThan(10);
    expect(rows.on).toBe(50);
  });

  it('knowledge_search with the filter answers top_k runbooks, the same as an exact ranking', async () => {
    if (!db.vector) {
      expect(installed).toBe(false);
      return;
    }
    const res = (await db.call(claims, 'knowledge_search', {
      q: 'zzqxv', kind: 'runbook', top_k: 10, query_embedding: JSON.parse(query), embedding_model: LOCAL_MODEL,
    })) as { mode: string; results: { id: string; kind: string; similarity: number }[] };
    expect(res.mode).toBe('hybrid');
    expect(res.results).toHaveLength(10);
    expect(res.results.every((r) => r.kind === 'runbook')).toBe(true);
    const exact = await db.session(async (s) => {
      await s.exec('begin');
      try {
        await s.exec('set local enable_indexscan = off; set local enable_bitmapscan = off');
        return (await s.query<{ id: string }>(armSql(10))).map((r) => r.id);
      } finally {
        await s.exec('rollback');
      }
    });
    const got = new Set(res.results.map((r) => r.id));
    expect(exact.filter((id) => got.has(id)).length).toBeGreaterThanOrEqual(9);
  });
});
