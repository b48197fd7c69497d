import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataError, EXPORT_VERSION, exportWorkspace, importWorkspace, type ExportDoc } from '../../lib/server/export';
import { downloadAttachment, localStore, uploadAndAttach, type FileStore } from '../../lib/server/files';
import { refusal } from '../helpers/data';
import { freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/**
 * Exports are versioned and every earlier version imports: the fixture is an export written by the
 * previous release (scripts/make-export-fixture.ts run at bd8ef70). An import re-checks what the
 * database's own rules would refuse, and is all or nothing, bytes included. PGlite and Postgres.
 */

const fixture = JSON.parse(readFileSync(path.join(import.meta.dirname, '../fixtures/export/1.json'), 'utf8')) as ExportDoc;
let db: TestDb;
let S: Tenant;
let dir: string;
let store: FileStore;
let doc: ExportDoc;
const bytes = new TextEncoder().encode('evidence bytes');

async function tenantCount(slug: string): Promise<number> {
  return (await db.query<{ n: number }>(`select count(*)::int as n from public.tenants where slug = $1`, [slug]))[0].n;
}

function filesIn(d: string): number {
  const walk = (p: string): number => readdirSync(p, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? walk(path.join(p, e.name)) : 1), 0);
  return walk(d);
}

beforeAll(async () => {
  db = await freshDb();
  dir = mkdtempSync(path.join(tmpdir(), 'bullpen-versions-'));
  store = localStore(dir);
  S = await seedTenant(db, 'ver-src');
  ok(await S.agent.call('project_create', { title: 'Versions', key: 'VER' }));
  ok(await S.agent.call('task_create', { project_id: 'VER', title: 'Proof', requires_evidence: true }));
  ok(await uploadAndAttach({ db, claims: S.agent.claims }, { object_type: 'task', object_id: 'VER-1', filename: 'proof.txt', content_type: 'text/plain' }, bytes, store));
  doc = await exportWorkspace(db, S.slug, { store });
});
afterAll(async () => {
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('earlier versions import', () => {
  it('this release writes the current version; the fixture is version 1, written by the previous release', () => {
    expect(doc.version).toBe(EXPORT_VERSION);
    expect(EXPORT_VERSION).toBeGreaterThan(1);
    expect(fixture).toMatchObject({ format: 'bullpen.workspace-export', version: 1 });
    expect(fixture).not.toHaveProperty('files');
  });

  it('a version 1 export imports whole; its file attachment, whose bytes it never carried, imports without counting as stored', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'bullpen-versions-v1-'));
    try {
      const r = await importWorkspace(db, structuredClone(fixture), { slug: 'from-v1', store: localStore(empty) });
      expect(r).toMatchObject({ version: 1, created_workspace: true, files: { stored: 0, missing: 1 } });
      for (const [section, rows] of Object.entries(fixture.tables)) {
        if (rows.length) expect(r.counts[section], section).toBe(rows.length);
      }
      const again = await exportWorkspace(db, 'from-v1', { store: localStore(empty) });
      expect(again.version).toBe(EXPORT_VERSION);
      expect(again.tables.tasks.map((t) => t.title).sort()).toEqual(fixture.tables.tasks.map((t) => t.title).sort());
      expect(again.tables.attachments).toHaveLength(2);
      expect(again.tables.stored_files).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('a column the file lacks (an export from before it existed) takes its default, not null', async () => {
    const old = structuredClone(fixture);
    // handoffs.response_settled and handoff_recipients.settled arrived in 0015: an older export has neither
    for (const h of old.tables.handoffs) delete h.response_settled;
    for (const h of old.tables.handoff_recipients) delete h.settled;
    const r = await importWorkspace(db, old, { slug: 'from-older', store });
    expect(r.counts).toMatchObject({ handoffs: 1, handoff_recipients: 1 });
    const [h] = await db.query<{ response_settled: boolean }>(
      `select h.response_settled from public.handoffs h join public.tenants t on t.id = h.tenant_id where t.slug = 'from-older'`,
    );
    expect(h.response_settled).toBe(false);
    const [rc] = await db.query<{ settled: boolean }>(
      `select r.settled from public.handoff_recipients r join public.tenants t on t.id = r.tenant_id where t.slug = 'from-older'`,
    );
    expect(rc.settled).toBe(false);
  });

  it("a decision's consequences written as one text (before 0038) import as a one-item list; null as none", async () => {
    const old = structuredClone(fixture);
    const [d] = old.tables.decisions;
    old.tables.decisions.push({ ...d, id: 'c071815e-5981-43d5-9239-eeff93fd6e6d', title: 'Backups nightly', consequences: 'Restores lose at most a day' });
    const r = await importWorkspace(db, old, { slug: 'from-text-consequences', store });
    expect(r.counts).toMatchObject({ decisions: 2 });
    const rows = await db.query<{ title: string; consequences: string[] }>(
      `select d.title, d.consequences from public.decisions d join public.tenants t on t.id = d.tenant_id
        where t.slug = 'from-text-consequences' order by d.title`,
    );
    expect(rows).toEqual([
      { title: 'Backups nightly', consequences: ['Restores lose at most a day'] },
      { title: 'Postgres for the ledger', consequences: [] },
    ]);
    // and this release's export carries the list
    const again = await exportWorkspace(db, 'from-text-consequences', { store });
    expect(again.tables.decisions.map((x) => x.consequences).sort()).toEqual([[], ['Restores lose at most a day']]);
  });

  it('a version 1 import beside its source picks up the bytes the old server still holds', async () => {
    const here = mkdtempSync(path.join(tmpdir(), 'bullpen-versions-beside-'));
    try {
      const s = localStore(here);
      const att = fixture.tables.attachments.find((a) => a.kind === 'file')!;
      const content = new TextEncoder().encode('hello from the previous release\n');
      await s.put(String(att.storage_path), content, 'text/plain');
      const elsewhere = await freshDb();
      try {
        const r = await importWorkspace(elsewhere, structuredClone(fixture), { store: s });
        expect(r).toMatchObject({ workspace: { id: fixture.workspace.id }, files: { stored: 1, missing: 0 } });
        const [agent] = await elsewhere.query<{ id: string }>(`select id from public.actors where tenant_id = $1 and kind = 'agent'`, [fixture.workspace.id]);
        const claims = { sub: agent.id, role: 'authenticated' as const, tenant_id: fixture.workspace.id, actor_id: agent.id };
        const res = await downloadAttachment({ db: elsewhere, claims }, String(att.id), s);
        expect(new Uint8Array(await res!.arrayBuffer())).toEqual(content);
      } finally {
        await elsewhere.drop();
      }
    } finally {
      rmSync(here, { recursive: true, force: true });
    }
  });
});

describe('import re-checks the rules, all or nothing', () => {
  it('no agent owns a workspace: refused naming tables.actors.is_owner, nothing created, no bytes left behind', async () => {
    const bad = structuredClone(doc);
    bad.tables.actors.find((a) => a.kind === 'agent')!.is_owner = true;
    const before = filesIn(dir);
    const e = await refusal(importWorkspace(db, bad, { slug: 'bad-owner', store }));
    expect(e).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: ['tables.actors.is_owner'] } });
    expect(e.message).toContain('only people own a workspace');
    expect(await tenantCount('bad-owner')).toBe(0);
    expect(filesIn(dir)).toBe(before);
  });

  it('no human registered by an agent: refused naming tables.actors.kind', async () => {
    const bad = structuredClone(doc);
    const agent = bad.tables.actors.find((a) => a.kind === 'agent')!;
    const human = { ...bad.tables.actors.find((a) => a.kind === 'human')!, id: '00000000-0000-4000-8000-0000000000aa', external_ref: 'email:eve@example.com', display_name: 'Eve', is_owner: false };
    bad.tables.actors.push(human);
    const last = bad.tables.activity[bad.tables.activity.length - 1];
    bad.tables.activity.push({ ...last, id: Number(last.id) + 1, verb: 'actor.registered', object_type: 'actor', object_id: human.id, actor_id: agent.id, project_id: null, run_id: null, content_hash: null, summary: 'human Eve' });
    const e = await refusal(importWorkspace(db, bad, { slug: 'bad-human', store }));
    expect(e).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: ['tables.actors.kind'] } });
    expect(e.message).toContain('only people create people');
    expect(await tenantCount('bad-human')).toBe(0);
  });

  it('references stay inside the file: an attachment on an object the file lacks is refused naming tables.attachments.object_id', async () => {
    const bad = structuredClone(doc);
    const a = bad.tables.attachments[0];
    Object.assign(a, { object_type: 'decision', object_id: '00000000-0000-4000-8000-0000000000bb', task_id: null });
    const e = await refusal(importWorkspace(db, bad, { slug: 'bad-ref', store }));
    expect(e).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: ['tables.attachments.object_id'] } });
    expect(await tenantCount('bad-ref')).toBe(0);
  });

  it('bytes must match their sha256: refused naming files[0].data', async () => {
    const bad = structuredClone(doc);
    bad.files![0].data = Buffer.from('tampered bytes').toString('base64');
    const e = await refusal(importWorkspace(db, bad, { slug: 'bad-bytes', store }));
    expect(e).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: ['files[0].data'] } });
    expect(await tenantCount('bad-bytes')).toBe(0);
  });

  it('a stored file outside the exported workspace is refused naming tables.stored_files.storage_path', async () => {
    const bad = structuredClone(doc);
    bad.tables.stored_files[0].storage_path = `00000000-0000-4000-8000-000000000000/x/y.txt`;
    const e = await refusal(importWorkspace(db, bad, { slug: 'bad-path', store }));
    expect(e.details).toMatchObject({ fields: ['tables.stored_files.storage_path'] });
  });

  it('the same file imported twice at once: one lands, the other is refused, nothing half-written', async () => {
    const results = await Promise.allSettled([importWorkspace(db, structuredClone(doc), { slug: 'twice', store }), importWorkspace(db, structuredClone(doc), { slug: 'twice', store })]);
    const landed = results.filter((x) => x.status === 'fulfilled');
    expect(landed).toHaveLength(1);
    const refused = results.find((x) => x.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(DataError);
    expect((refused.reason as DataError).error.code).toBe('ALREADY_EXISTS');
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.tasks k join public.tenants t on t.id = k.tenant_id where t.slug = 'twice'`);
    expect(n).toBe(1);
  });
});
