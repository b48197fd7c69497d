import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportWorkspace, importWorkspace, importWorkspaceStream, type ExportDoc } from '../../lib/server/export';
import { downloadAttachment, localStore, uploadAndAttach, type FileStore } from '../../lib/server/files';
import { refusal } from '../helpers/data';
import { freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/**
 * An import reads the export's bytes as they stream by (the route and the CLI hand it a file), so
 * it must come out the same whatever the chunking: a chunk boundary may fall inside a string, a
 * number or an escape. A file that is not JSON, stops early or says more after its end is refused
 * naming the file, with nothing written. PGlite and Postgres.
 */

let db: TestDb;
let S: Tenant;
let dir: string;
let store: FileStore;
let doc: ExportDoc;
let json: string;
const bytes = new TextEncoder().encode('streamed evidence: ünïcödé ✓ and "quotes"\\');

/** The text cut into pieces of `size` bytes (cutting through multi-byte characters too). */
async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const all = Buffer.from(text);
  for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size);
}

const tenantCount = async (slug: string) => (await db.query<{ n: number }>(`select count(*)::int as n from public.tenants where slug = $1`, [slug]))[0].n;

/** An export without its volatile parts, for comparing two of them. */
function comparable(d: ExportDoc) {
  const { exported_at: _at, workspace, ...rest } = d;
  // storage paths begin with the workspace's id, which an import into a second workspace changes
  const text = JSON.stringify(rest).replaceAll(`${workspace.id}/`, 'WORKSPACE/');
  const out = JSON.parse(text) as Omit<ExportDoc, 'exported_at' | 'workspace'>;
  // activity rows are renumbered on import (their order is kept: see below)
  out.tables.activity = out.tables.activity.map(({ id: _id, ...row }) => row);
  return { ...out, workspace: { ...workspace, slug: undefined, id: undefined } };
}

beforeAll(async () => {
  db = await freshDb();
  dir = mkdtempSync(path.join(tmpdir(), 'bullpen-import-stream-'));
  store = localStore(dir);
  S = await seedTenant(db, 'stream-src');
  ok(await S.agent.call('project_create', { title: 'Streams', key: 'STR' }));
  for (let i = 0; i < 12; i++) ok(await S.agent.call('task_create', { project_id: 'STR', title: `Task ${i} with "quotes", a tab\tand ✓`, body: 'x'.repeat(300 + i) }));
  ok(await S.agent.call('comment_add', { object_type: 'task', object_id: 'STR-1', body: 'a comment\nover two lines \\ with a backslash' }));
  ok(await uploadAndAttach({ db, claims: S.agent.claims }, { object_type: 'task', object_id: 'STR-2', filename: 'proof.txt', content_type: 'text/plain' }, bytes, store));
  doc = await exportWorkspace(db, S.slug, { store });
  json = JSON.stringify(doc, null, 2);
});
afterAll(async () => {
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('an import streamed in pieces', () => {
  it.each([1, 7, 4096])('in chunks of %i bytes lands the same workspace as the parsed file', async (size) => {
    const slug = `stream-${size}`;
    const r = await importWorkspaceStream(db, chunks(json, size), { slug, store });
    expect(r).toMatchObject({ created_workspace: true, version: doc.version, files: { stored: 1, missing: 0 } });
    expect(r.counts).toEqual(doc.counts);
    const again = await exportWorkspace(db, slug, { store });
    expect(comparable(again)).toEqual(comparable(doc));
    // the file's bytes came through the stream intact
    const att = again.tables.attachments.find((a) => a.kind === 'file')!;
    const [agent] = await db.query<{ id: string }>(`select id from public.actors where tenant_id = $1 and kind = 'agent' limit 1`, [r.workspace.id]);
    const res = await downloadAttachment({ db, claims: { sub: agent.id, role: 'authenticated', tenant_id: r.workspace.id, actor_id: agent.id } }, String(att.id), store);
    expect(new Uint8Array(await res!.arrayBuffer())).toEqual(bytes);
  });

  it('takes the shape earlier CLIs sent, {export, workspace, name}, with the options after the rows', async () => {
    const wrapped = `{"export": ${json}, "workspace": "stream-wrapped", "name": "Wrapped by an older CLI"}`;
    const r = await importWorkspaceStream(db, chunks(wrapped, 333), { store });
    expect(r.workspace).toMatchObject({ slug: 'stream-wrapped', name: 'Wrapped by an older CLI' });
    expect(r.counts.tasks).toBe(12);
    // the options given with the call win over the wrapper's
    const r2 = await importWorkspaceStream(db, chunks(wrapped, 333), { slug: 'stream-wrapped-2', store });
    expect(r2.workspace.slug).toBe('stream-wrapped-2');
  });

  it('keeps the order of the history: activity rows arrive renumbered in their original order', async () => {
    const r = await importWorkspaceStream(db, chunks(json, 97), { slug: 'stream-order', store });
    const verbs = async (tenant: string) =>
      (await db.query<{ verb: string; object_id: string }>(`select verb, object_id::text from public.activity where tenant_id = $1 order by id`, [tenant])).map((x) => `${x.verb} ${x.object_id}`);
    expect(await verbs(r.workspace.id)).toEqual(await verbs(S.id));
  });

  it('refuses what is not JSON, what stops early and what goes on after the end, naming the file, with nothing written', async () => {
    const cases: [string, string][] = [
      ['stream-bad-json', json.replace('"tables"', 'tables')],
      ['stream-cut', json.slice(0, Math.floor(json.length * 0.6))],
      ['stream-trailing', `${json} {"more": true}`],
    ];
    for (const [slug, text] of cases) {
      const e = await refusal(importWorkspaceStream(db, chunks(text, 512), { slug, store }));
      expect(e, slug).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: ['(file)'] } });
      expect(e.message, slug).toMatch(/^\(file\): not JSON/);
      expect(await tenantCount(slug)).toBe(0);
    }
    // trailing whitespace is not "more"
    const r = await importWorkspaceStream(db, chunks(`${json}\n\n  \n`, 512), { slug: 'stream-ws', store });
    expect(r.counts.tasks).toBe(12);
  });

  it('refuses a file that is not an export before reading its rows, and a bad row naming its table', async () => {
    const notExport = JSON.stringify({ ...doc, format: 'something-else' });
    let e = await refusal(importWorkspaceStream(db, chunks(notExport, 1000), { slug: 'stream-format', store }));
    expect(e).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: ['format'] } });
    const badRow = JSON.stringify({ ...doc, tables: { ...doc.tables, tasks: [...doc.tables.tasks, 'not a row'] } });
    e = await refusal(importWorkspaceStream(db, chunks(badRow, 1000), { slug: 'stream-row', store }));
    expect(e).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: ['tables.tasks'] } });
    expect(e.message).toContain('tables.tasks.12');
    const badSlug = await refusal(importWorkspaceStream(db, chunks(json, 1000), { slug: '', store }));
    expect(badSlug).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: ['workspace'] } });
    for (const slug of ['stream-format', 'stream-row']) expect(await tenantCount(slug)).toBe(0);
  });

  it('a parsed file and its bytes import alike (one reader behind both)', async () => {
    const a = await importWorkspace(db, structuredClone(doc), { slug: 'stream-parsed', store });
    const b = await importWorkspaceStream(db, chunks(json, 64), { slug: 'stream-bytes', store });
    expect(a.counts).toEqual(b.counts);
    expect(comparable(await exportWorkspace(db, 'stream-parsed', { store }))).toEqual(comparable(await exportWorkspace(db, 'stream-bytes', { store })));
  });
});
