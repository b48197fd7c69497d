import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_TABLES, NOT_EXPORTED, exportWorkspace, importWorkspace, type ExportDoc } from '../../lib/server/export';
import { downloadAttachment, localStore, uploadAndAttach, type FileStore } from '../../lib/server/files';
import { exportMarkdown } from '../../lib/server/export-markdown';
import { ensureActor } from '../../lib/server/workspace';
import { refusal } from '../helpers/data';
import { freshDb, ok, seedTenant, target, type Tenant, type TestDb } from '../helpers/db';

/**
 * Workspace export and import: every row out, every row back, nothing else touched. The round trip
 * is compared row by row, table by table (activity rows by their order: they get new sequence
 * numbers on import). Runs on PGlite and on Postgres.
 */

let db: TestDb;
let S: Tenant;
let other: Tenant;
let compared = { tables: 0, rows: 0 };

/**
 * The comparable content of an export: activity without its sequence numbers, and the workspace id
 * (which prefixes its files' storage paths) as WS: a copy on the same server gets a new one.
 */
function content(doc: ExportDoc): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [k, rows] of Object.entries(doc.tables)) {
    out[k] = k === 'activity' ? rows.map(({ id: _id, ...r }) => r) : rows;
  }
  return JSON.parse(JSON.stringify(out).replaceAll(doc.workspace.id, 'WS')) as Record<string, unknown[]>;
}

const filesDir = mkdtempSync(path.join(tmpdir(), 'bullpen-export-files-'));
const fileBytes = new TextEncoder().encode('%PDF-1.4 the proof, travelling with the export');

/** The workspace's file store: the uploads of this suite live in their own folder. */
let store: FileStore;
const exportWith = (d: Parameters<typeof exportWorkspace>[0], slug: string, o: Parameters<typeof exportWorkspace>[2] = {}) => exportWorkspace(d, slug, { store, ...o });
const importWith = (d: Parameters<typeof importWorkspace>[0], doc: unknown, o: Parameters<typeof importWorkspace>[2] = {}) => importWorkspace(d, doc, { store, ...o });

beforeAll(async () => {
  db = await freshDb();
  S = await seedTenant(db, 'exp-src');
  other = await seedTenant(db, 'exp-other');
  const helper = await S.addAgent('helper');
  ok(await S.agent.call('project_create', { title: 'Payments', key: 'PAY', summary: 'Take money', description: 'Line one\n\nLine **two**' }));
  ok(await S.agent.call('project_create', { title: 'Refunds', key: 'REF', parent_project_id: 'PAY', target_on: '2026-09-30' }));
  const a = ok(await S.agent.call('task_create', { project_id: 'PAY', title: 'Schema', labels: ['db'], acceptance_criteria: [{ text: 'tables exist', met: true }, 'indexes'] }));
  ok(await S.agent.call('task_create', { project_id: 'PAY', title: 'API "quotes" é 👩‍👩‍👧', body: "O'Brien's\nnotes", depends_on: [a.task_id], due_on: '2026-08-01', priority: 0 }));
  ok(await S.agent.call('task_create', { project_id: 'PAY', title: 'Subtask', parent_task_id: 'PAY-1', assignee_actor_id: helper.id }));
  ok(await S.agent.call('task_create_many', { project_id: 'REF', tasks: [{ title: 'r1' }, { title: 'r2', depends_on: [{ batch_index: 0 }] }] }));
  ok(await helper.call('task_claim', { task_id: 'PAY-3', lease_seconds: 600 }));
  ok(await S.agent.call('task_update', { task_id: 'PAY-1', patch: { status: 'in_progress', acceptance_criteria: [{ text: 'tables exist', met: true }] } }));
  ok(await S.agent.call('task_update', { task_id: 'PAY-1', patch: { status: 'done' } }));
  const c = ok(await S.human.call('comment_add', { object_type: 'task', object_id: 'PAY-2', body: 'Why "quotes"?', mentions: [S.agent.id] }));
  ok(await S.agent.call('comment_add', { object_type: 'task', object_id: 'PAY-2', body: 'Legacy API', parent_comment_id: c.comment_id }));
  ok(await S.agent.call('comment_add', { object_type: 'project', object_id: 'PAY', body: 'Kick-off notes' }));
  // the task model's fields travel too: metadata, the manual order, skipped, notes and log lines
  ok(await S.agent.call('task_create', { project_id: 'REF', title: 'Skipped work', meta: { team: 'infra', n: 3, deep: { a: [1, null] } }, order_index: 2.5, priority: 'high' }));
  ok(await S.agent.call('task_update', { task_id: 'REF-3', patch: { status: 'skipped' }, note: 'not needed after all' }));
  ok(await S.agent.call('comment_add', { object_type: 'task', object_id: 'REF-3', body: 'build 12 ok', kind: 'log', tags: ['ci'], meta: { build: 12 } }));
  // the memory and coordination rooms' records travel too
  ok(await S.agent.call('decision_log', { title: 'Use Postgres for the ledger', choice: 'Postgres 15, one schema per room', rationale: 'RLS and SKIP LOCKED', consequences: ['One database to back up', 'Migrations need a lock'], project_id: 'PAY', related_task_ids: ['PAY-1'], options: [{ label: 'Postgres' }, { label: 'SQLite', cons: ['one writer'] }] }));
  const note = ok(await S.agent.call('knowledge_write', { title: 'Restart the consumer', body: 'systemctl restart invoice-consumer', kind: 'runbook', tags: ['ops'], language: 'sh', category: 'operations', related_task_ids: ['PAY-2'] }));
  // typed links travel with the objects they join
  ok(await S.agent.call('link_add', { from: { type: 'note', id: note.note_id }, to: { type: 'task', id: 'PAY-2' }, relation: 'explains', strength: 0.7, note: 'how to unstick it' }));
  ok(await S.agent.call('skill_upsert', { slug: 'release-checklist', description: 'Use when shipping a release', body: '# Release\n\n1. Tag\n2. Push' }));
  const h = ok(await S.agent.call('handoff_create', { to_actor_ids: [S.human.id], title: 'Approve the schema?', kind: 'approval', related_task_id: 'PAY-1' }));
  ok(await S.human.call('handoff_claim', { handoff_id: h.handoff_id }));
  ok(await S.human.call('handoff_respond', { handoff_id: h.handoff_id, response: { chosen_option: 'approve', text: 'Ship it' } }));
  // an uploaded file: its bytes travel in the export
  store = localStore(filesDir);
  ok(await uploadAndAttach({ db, claims: S.agent.claims }, { object_type: 'task', object_id: 'PAY-2', filename: 'proof.pdf', content_type: 'application/pdf' }, fileBytes, store));
  // vectors for the note and the decision, where pgvector is there (a stand-in model: the rows are what matters)
  const { embedDue } = await import('../../lib/memory/backfill');
  await embedDue(db, { model: 'export-test', kind: 'openai', embed: async (texts) => texts.map((t) => Array.from({ length: 8 }, (_, i) => ((t.length + i) % 7) / 7)) });
  ok(await other.agent.call('project_create', { title: 'Elsewhere', key: 'ELS' }));
  ok(await other.agent.call('task_create', { project_id: 'ELS', title: 'not exported' }));
});
afterAll(async () => {
  await db.drop();
  rmSync(filesDir, { recursive: true, force: true });
});

describe('the export', () => {
  it('covers every workspace table: each one is exported or named as left behind, with a reason', async () => {
    const tables = await db.query<{ name: string }>(
      `select n.nspname || '.' || c.relname as name
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and n.nspname in ('public', 'bullpen')
          and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped)
        order by 1`,
    );
    const listed = new Set([...EXPORT_TABLES.map((t) => t.table), ...Object.keys(NOT_EXPORTED)]);
    const missing = tables.map((t) => t.name).filter((n) => !listed.has(n));
    expect(missing, 'add these to EXPORT_TABLES or NOT_EXPORTED in lib/server/export.ts').toEqual([]);
    expect(tables.length).toBeGreaterThanOrEqual(7);
    for (const reason of Object.values(NOT_EXPORTED)) expect(reason.length).toBeGreaterThan(20);
  });

  it('writes every row of the workspace and nothing of another one', async () => {
    const doc = await exportWith(db, S.slug);
    expect(doc).toMatchObject({ format: 'bullpen.workspace-export', version: 2, workspace: { id: S.id, slug: S.slug } });
    // the bytes of the stored file travel with it
    expect(doc.counts).toMatchObject({ attachments: 1, stored_files: 1 });
    expect(doc.files).toHaveLength(1);
    expect(Buffer.from(doc.files![0].data, 'base64')).toEqual(Buffer.from(fileBytes));
    expect(doc.counts).toMatchObject({ actors: 3, projects: 2, tasks: 6, task_dependencies: 2, comments: 6, decisions: 1, decision_tasks: 1, notes: 1, note_tasks: 1, skills: 1, handoffs: 1, handoff_recipients: 1, links: 1 });
    expect(doc.tables.notes[0]).toMatchObject({ language: 'sh', category: 'operations', superseded_by: null, retracted_at: null });
    expect(doc.tables.links[0]).toMatchObject({ from_type: 'note', to_type: 'task', relation: 'explains', strength: 0.7, note: 'how to unstick it' });
    expect(doc.counts.notifications).toBeGreaterThanOrEqual(1);
    if (db.vector) expect(doc.counts.memory_embeddings).toBe(2);
    expect(doc.counts.activity).toBeGreaterThanOrEqual(12);
    const text = JSON.stringify(doc);
    expect(text).not.toContain(other.id);
    expect(text).not.toContain('Elsewhere');
    expect(text).not.toContain('tenant_id');
    const api = doc.tables.tasks.find((t) => t.seq === 2 && t.title === 'API "quotes" é 👩‍👩‍👧');
    expect(api).toMatchObject({ body: "O'Brien's\nnotes", due_on: '2026-08-01', priority: 0 });
    // no credentials and no replay records travel
    expect(doc.tables).not.toHaveProperty('api_keys');
    expect(doc.tables).not.toHaveProperty('idempotency_keys');
  });

  it('answers NOT_FOUND for a workspace this server does not have', async () => {
    expect((await refusal(exportWith(db, 'no-such-ws'))).code).toBe('NOT_FOUND');
  });

  it('renders Markdown people can read: projects, tasks with status and criteria, threads, history', async () => {
    const md = exportMarkdown(await exportWith(db, S.slug));
    expect(md).toContain(`# ${S.slug} (${S.slug})`);
    expect(md).toContain('## PAY — Payments');
    expect(md).toContain('#### PAY-2 · API "quotes" é 👩‍👩‍👧');
    expect(md).toMatch(/#### PAY-1 · Schema\n\n\*\*done\*\*/);
    expect(md).toContain('- [x] tables exist');
    expect(md).toContain('depends on PAY-1');
    expect(md).toContain('subtask of PAY-1');
    expect(md).toContain(`> Why "quotes"?`);
    expect(md).toContain(`**Human ${S.slug}**`);
    expect(md).toContain('## REF — Refunds');
    expect(md).toContain('## Decisions');
    expect(md).toContain('### Use Postgres for the ledger');
    expect(md).toContain('**consequences**\n\n- One database to back up\n- Migrations need a lock');
    expect(md).toContain('## Notes');
    expect(md).toContain('### Approve the schema?');
    expect(md).toContain('## Activity');
  });
});

describe('import', () => {
  it('round trip: export → import into a new workspace → export again loses nothing, row by row', async () => {
    const first = await exportWith(db, S.slug);
    const r = await importWith(db, first, { slug: 'exp-copy' });
    expect(r).toMatchObject({ created_workspace: true, workspace: { slug: 'exp-copy' } });
    expect(r.counts).toMatchObject(first.counts);
    const second = await exportWith(db, 'exp-copy');
    expect(second.workspace.id).not.toBe(first.workspace.id);
    const a = content(first);
    const b = content(second);
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    for (const table of Object.keys(a)) expect(b[table], table).toEqual(a[table]);
    compared = { tables: Object.keys(a).length, rows: Object.values(a).reduce((n, rows) => n + rows.length, 0) };
    // activity: same rows in the same order, fresh sequence numbers
    expect(second.tables.activity.map((x) => x.verb)).toEqual(first.tables.activity.map((x) => x.verb));
    // the task model's fields came back: metadata, manual order, skipped, a note and a log line
    expect(second.tables.tasks.find((x) => x.title === 'Skipped work')).toMatchObject({
      status: 'skipped', priority: 1, order_index: 2.5, meta: { team: 'infra', n: 3, deep: { a: [1, null] } },
    });
    const kinds = second.tables.comments.filter((x) => x.kind !== 'message').map((x) => [x.kind, x.tags, x.meta]);
    expect(kinds.sort((p, q) => String(p[0]).localeCompare(String(q[0])))).toEqual([
      ['log', ['ci'], { build: 12 }],
      ['note', [], {}],
    ]);
    // the source is untouched
    expect(content(await exportWith(db, S.slug))).toEqual(a);
  });

  it('the imported workspace works: its agent claims by KEY-N, numbering continues, the graph holds', async () => {
    const [ws] = await db.query<{ id: string }>(`select id from public.tenants where slug = 'exp-copy'`);
    // bullpen agent add NAME finds the imported agent by its external_ref and mints it a key
    const agent = await ensureActor(db, ws.id, { kind: 'agent', external_ref: `agent:${S.slug}`, display_name: 'ignored' });
    expect(agent).toMatchObject({ id: S.agent.id, created: false });
    const { execute } = await import('../../lib/core/execute');
    const ctx = { db, claims: { sub: agent.id, role: 'authenticated' as const, tenant_id: ws.id, actor_id: agent.id, run_id: 'imp' } };
    const got = await execute(ctx, 'task_get', { task_id: 'PAY-2' });
    expect(ok(got).task).toMatchObject({ title: 'API "quotes" é 👩‍👩‍👧', ready: true });
    const created = ok(await execute(ctx, 'task_create', { project_id: 'PAY', title: 'after import' }));
    expect(created.ref).toBe('PAY-4');
    const claimed = ok(await execute(ctx, 'task_claim', { project_id: 'PAY' }));
    expect(claimed).toMatchObject({ claimed: true, task: { title: 'API "quotes" é 👩‍👩‍👧' } });
    // and the source workspace still has its own PAY-2, unclaimed
    expect(ok(await S.agent.call('task_get', { task_id: 'PAY-2' })).task.status).toBe('todo');
  });

  it('refuses a workspace that holds data, and changes nothing there', async () => {
    const doc = await exportWith(db, S.slug);
    const before = content(await exportWith(db, other.slug));
    const e = await refusal(importWith(db, doc, { slug: other.slug }));
    expect(e.code).toBe('ALREADY_EXISTS');
    expect(e.message).toContain(other.slug);
    expect(content(await exportWith(db, other.slug))).toEqual(before);
  });

  it('fills an existing empty workspace', async () => {
    await db.query(`insert into public.tenants (slug, name) values ('exp-empty', 'Empty')`);
    const r = await importWith(db, await exportWith(db, S.slug), { slug: 'exp-empty' });
    expect(r).toMatchObject({ created_workspace: false, counts: { tasks: 6 } });
  });

  it('loads into another database entirely (a fresh server): the second export equals the first, ids included, and every file downloads', async () => {
    const doc = JSON.parse(JSON.stringify(await exportWith(db, S.slug))) as ExportDoc;
    const elsewhere = await freshDb();
    const otherDir = mkdtempSync(path.join(tmpdir(), 'bullpen-export-elsewhere-'));
    const store = localStore(otherDir);
    try {
      const r = await importWith(elsewhere, doc, { store });
      expect(r).toMatchObject({ workspace: { id: S.id, slug: S.slug }, created_workspace: true, version: 2, files: { stored: 1, missing: 0 } });
      const again = await exportWith(elsewhere, S.slug, { store });
      // equal with ids included: the workspace keeps its id on a server that has no workspace with it
      const { exported_at: _a, ...first } = doc;
      const { exported_at: _b, ...second } = again;
      const activityless = (d: typeof first) => ({ ...d, tables: { ...d.tables, activity: d.tables.activity.map(({ id: _id, ...x }) => x) } });
      expect(activityless(second)).toEqual(activityless(first));
      expect(second.tables.activity.map((x) => x.verb)).toEqual(first.tables.activity.map((x) => x.verb));
      // every file attachment downloads with the same bytes
      const [agent] = await elsewhere.query<{ id: string }>(`select id from public.actors where tenant_id = $1 and external_ref = $2`, [S.id, `agent:${S.slug}`]);
      const claims = { sub: agent.id, role: 'authenticated' as const, tenant_id: S.id, actor_id: agent.id };
      const files = doc.tables.attachments.filter((a) => a.kind === 'file');
      expect(files).toHaveLength(1);
      for (const a of files) {
        const res = await downloadAttachment({ db: elsewhere, claims }, String(a.id), store);
        expect(res?.status).toBe(200);
        expect(new Uint8Array(await res!.arrayBuffer())).toEqual(fileBytes);
      }
      // and still meets an evidence gate there: the bytes are recorded as stored
      const [{ n }] = await elsewhere.query<{ n: number }>(`select count(*)::int as n from public.stored_files where tenant_id = $1`, [S.id]);
      expect(n).toBe(1);
    } finally {
      await elsewhere.drop();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('a copy on the same server gets a new workspace id; its files move under it and download', async () => {
    const [ws] = await db.query<{ id: string }>(`select id from public.tenants where slug = 'exp-copy'`);
    const copy = await exportWith(db, 'exp-copy');
    expect(copy.files).toHaveLength(1);
    expect(copy.files![0].storage_path.startsWith(`${ws.id}/`)).toBe(true);
    const att = copy.tables.attachments.find((a) => a.kind === 'file')!;
    expect(String(att.storage_path).startsWith(`${ws.id}/`)).toBe(true);
    const [agent] = await db.query<{ id: string }>(`select id from public.actors where tenant_id = $1 and kind = 'agent' limit 1`, [ws.id]);
    const res = await downloadAttachment({ db, claims: { sub: agent.id, role: 'authenticated', tenant_id: ws.id, actor_id: agent.id } }, String(att.id), store);
    expect(new Uint8Array(await res!.arrayBuffer())).toEqual(fileBytes);
  });

  it('refuses a file with a dangling reference, all or nothing, naming the field', async () => {
    const doc = structuredClone(await exportWith(db, S.slug));
    doc.tables.tasks[0].project_id = '00000000-0000-4000-8000-000000000000';
    const env = await refusal(importWith(db, doc, { slug: 'exp-dangling' }));
    expect(env.code).toBe('VALIDATION_ERROR');
    expect(env.message).toContain('tables.tasks.project_id');
    expect(env.details).toMatchObject({ fields: ['tables.tasks.project_id'] });
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.tenants where slug = 'exp-dangling'`);
    expect(n).toBe(0);
  });

  it('refuses a link whose end the file does not have, naming the field', async () => {
    const doc = structuredClone(await exportWith(db, S.slug));
    doc.tables.links[0].to_id = '00000000-0000-4000-8000-000000000000';
    const env = await refusal(importWith(db, doc, { slug: 'exp-dangling-link' }));
    expect(env).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: ['tables.links.to_id'] } });
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.tenants where slug = 'exp-dangling-link'`);
    expect(n).toBe(0);
  });

  it('embeddings are derived: a server without their table (no pgvector) imports everything else', async () => {
    const [{ present }] = await db.query<{ present: boolean }>(`select to_regclass('public.memory_embeddings') is not null as present`);
    const doc = structuredClone(await exportWith(db, S.slug));
    if (present) {
      // this server has the table: the embeddings travel like any other rows (the round trip above)
      expect(doc.tables).toHaveProperty('memory_embeddings');
      return;
    }
    doc.tables.memory_embeddings = [{ object_type: 'note', object_id: '00000000-0000-4000-8000-000000000001', model: 'm', embedding: '[0.1,0.2]' }];
    const r = await importWith(db, doc, { slug: 'exp-no-vectors' });
    expect(r.counts).toMatchObject({ tasks: 5, comments: 4 });
    expect(r.counts).not.toHaveProperty('memory_embeddings');
  });

  it('refuses unknown columns, unknown tables with rows, and files that are not exports, naming the field', async () => {
    const doc = structuredClone(await exportWith(db, S.slug));
    const bogus = structuredClone(doc);
    bogus.tables.tasks[0].colour = 'red';
    let e = await refusal(importWith(db, bogus, { slug: 'exp-bad1' }));
    expect(e).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: ['tables.tasks.colour'] } });
    const tenantCol = structuredClone(doc);
    tenantCol.tables.projects[0].tenant_id = other.id;
    e = await refusal(importWith(db, tenantCol, { slug: 'exp-bad2' }));
    expect(e.details).toMatchObject({ fields: ['tables.projects.tenant_id'] });
    const future = structuredClone(doc);
    future.tables.starships = [{ id: 'x' }];
    e = await refusal(importWith(db, future, { slug: 'exp-bad3' }));
    expect(e.message).toContain('tables.starships');
    e = await refusal(importWith(db, { hello: 'world' }, { slug: 'exp-bad4' }));
    expect(e).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: ['format'] } });
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.tenants where slug like 'exp-bad%'`);
    expect(n).toBe(0);
  });
});

afterAll(() => {
  console.log(`[export:${target}] round trip: ${compared.rows} rows in ${compared.tables} tables identical after export → import → export`);
});
