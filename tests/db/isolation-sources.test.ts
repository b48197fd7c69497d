import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlLiteral } from '../../lib/db/types';
import { fails, freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/**
 * Document sources stay inside their workspace: another workspace's source documents, chunks and
 * sources read as NOT_FOUND (source_get, chunk_get, link_add, find_related) or as nothing
 * (source_list, knowledge_search {types}); a source of the same name is its own; a sync_id of
 * another workspace's sync moves nothing; RLS hides the tables and the RPC role cannot write
 * into another workspace.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
const a: Record<string, string> = {};

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'sources-a');
  B = await seedTenant(db, 'sources-b');
  const begin = ok(await A.agent.call('source_sync', { action: 'begin', source: 'docs' }));
  a.sync = begin.sync_id;
  ok(await A.agent.call('source_sync', { action: 'put', source: 'docs', sync_id: a.sync, documents: { 'secret.md': '# Zanzibar plan\n\nThe Zanzibar launch is in March.\n\n## Budget\n\nZanzibar costs a lot.' } }));
  const [doc] = await db.query<{ id: string }>(`select id from public.source_documents where tenant_id = $1`, [A.id]);
  a.doc = doc.id;
  const [chunk] = await db.query<{ id: string }>(`select id from public.source_chunks where tenant_id = $1 order by ord limit 1`, [A.id]);
  a.chunk = chunk.id;
  a.project = ok(await A.agent.call('project_create', { title: 'Zanzibar', key: 'ZAN' })).project.id;
  a.note = ok(await A.agent.call('knowledge_write', { title: 'Zanzibar', body: 'A note.' })).note_id;
  a.link = ok(await A.agent.call('link_add', { from: { type: 'note', id: a.note }, to: { type: 'source', id: a.doc }, relation: 'explains' })).link.id;
  b.note = ok(await B.agent.call('knowledge_write', { title: 'B note', body: 'Mine.' })).note_id;
});
afterAll(() => db.drop());
const b: Record<string, string> = {};

describe("another workspace's sources read as NOT_FOUND or nothing", () => {
  const cases: [string, () => Record<string, unknown>][] = [
    ['source_get', () => ({ document_id: a.doc })],
    ['chunk_get', () => ({ chunk_id: a.chunk, context_chunks: 10 })],
    ['link_add', () => ({ from: { type: 'note', id: b.note }, to: { type: 'source', id: a.doc }, relation: 'relates_to' })],
    ['find_related', () => ({ type: 'source', id: a.doc, depth: 3 })],
    ['source_sync', () => ({ action: 'begin', source: 'elsewhere', project_id: a.project })],
    ['source_list', () => ({ project_id: a.project })],
  ];

  it.each(cases)('%s answers NOT_FOUND (%#)', async (tool, input) => {
    fails(await B.agent.call(tool, input()), 'NOT_FOUND');
  });

  it("lists and searches only its own; a source of the same name is B's own; A's sync_id moves nothing in B", async () => {
    expect(ok(await B.agent.call('source_list', {})).sources).toEqual([]);
    const hits = ok(await B.agent.call('knowledge_search', { q: 'Zanzibar launch budget', types: ['chunk', 'note', 'decision'], lexical_only: true })).results;
    expect(hits).toEqual([]);
    // A's sync holds A's source; B's source "docs" is another one, free to sync
    const mine = ok(await B.agent.call('source_sync', { action: 'begin', source: 'docs' }));
    expect(mine.documents).toEqual({});
    fails(await B.agent.call('source_sync', { action: 'finish', source: 'docs', sync_id: a.sync, paths: [] }), 'CONFLICT');
    ok(await B.agent.call('source_sync', { action: 'finish', source: 'docs', sync_id: mine.sync_id, paths: [] }));
    // A's document is still live, A's lock still held
    const [row] = await db.query<{ tomb: string | null; sync: string | null }>(
      `select d.tombstoned_at::text tomb, s.sync_id::text sync from public.source_documents d join public.sources s on s.id = d.source_id where d.id = $1`, [a.doc]);
    expect(row).toEqual({ tomb: null, sync: a.sync });
    const [src] = ok(await A.agent.call('source_list', {})).sources;
    expect(src).toMatchObject({ documents: 1, syncing: true });
  });

  it('RLS hides the tables; the RPC role cannot write into another workspace', async () => {
    for (const table of ['sources', 'source_documents', 'source_chunks']) {
      const [theirs] = await db.withClaims<{ n: number }>(B.agent.claims, `select count(*)::int as n from public.${table} where tenant_id = '${A.id}'`);
      expect(theirs.n).toBe(0);
    }
    const asWriter = async (sql: string) => {
      try {
        await db.exec(`set local role bullpen_writer; select set_config('request.jwt.claims', ${sqlLiteral(JSON.stringify(B.agent.claims))}, true); ${sql}`);
        return 'ok';
      } catch (err) {
        return (err as { code?: string }).code;
      }
    };
    expect(await asWriter(`insert into public.sources (tenant_id, name, created_by_actor_id) values ('${A.id}', 'x', '${A.agent.id}')`)).toBe('42501');
    expect(await asWriter(`insert into public.source_documents (tenant_id, source_id, path, title, body, bytes, content_hash) values ('${A.id}', gen_random_uuid(), 'x.md', 'x', 'x', 1, 'h')`)).toBe('42501');
    expect(await asWriter(`insert into public.source_chunks (tenant_id, document_id, ord, start_offset, end_offset, body, doc_title, content_hash) values ('${A.id}', '${a.doc}', 9, 0, 1, 'x', 'x', 'h')`)).toBe('42501');
    await asWriter(`update public.source_chunks set body = 'owned' where id = '${a.chunk}'`);
    await asWriter(`delete from public.source_documents where id = '${a.doc}'`);
    const [row] = await db.query<{ body: string; n: number }>(
      `select body, (select count(*)::int from public.source_documents where id = $2) n from public.source_chunks where id = $1`, [a.chunk, a.doc]);
    expect(row.body).not.toBe('owned');
    expect(row.n).toBe(1);
  });

  it('the API role writes nothing directly', async () => {
    const asAuth = async (sql: string) => {
      try {
        await db.exec(`set local role authenticated; select set_config('request.jwt.claims', ${sqlLiteral(JSON.stringify(A.agent.claims))}, true); ${sql}`);
        return 'ok';
      } catch (err) {
        return (err as { code?: string }).code;
      }
    };
    expect(await asAuth(`update public.source_chunks set body = 'x' where id = '${a.chunk}'`)).toBe('42501');
    expect(await asAuth(`update public.sources set sync_id = null`)).toBe('42501');
  });
});
