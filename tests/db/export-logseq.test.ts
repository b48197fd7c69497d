import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportWorkspace, importWorkspace, type ExportDoc } from '../../lib/server/export';
import { exportLogseq } from '../../lib/server/export-logseq';
import { exportMarkdown } from '../../lib/server/export-markdown';
import { filterExportTypes, parseExportTypes } from '../../lib/server/export-types';
import { localStore, type FileStore } from '../../lib/server/files';
import { freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/**
 * `bullpen export --format logseq` and `--types`: the graph folder is parsed page by page (its
 * properties and every [[link]]), every link must name a page the export wrote, and the typed links
 * appear as properties named by their relation. A cut by type imports on its own. PGlite and Postgres.
 */

let db: TestDb;
let S: Tenant;
let other: Tenant;
let store: FileStore;
const filesDir = mkdtempSync(path.join(tmpdir(), 'bullpen-logseq-files-'));
const ids: Record<string, string> = {};

type Page = { file: string; props: Record<string, string>; body: string; links: string[] };

/** Reads a page as Logseq does: the first block's `key:: value` lines are the page's properties. */
function parsePage(file: string, text: string): Page {
  const [head, ...rest] = text.split('\n\n');
  const props: Record<string, string> = {};
  for (const line of head.split('\n')) {
    const m = /^([a-z][a-z0-9-]*):: (.*)$/.exec(line);
    if (!m) throw new Error(`${file}: "${line}" is not a property line`);
    props[m[1]] = m[2];
  }
  const links = [...text.matchAll(/\[\[([^\]]*)\]\]/g)].map((m) => m[1]);
  return { file, props, body: rest.join('\n\n'), links };
}

function pagesOf(doc: ExportDoc): Page[] {
  const graph = exportLogseq(doc);
  expect(graph.get('logseq/config.edn')).toContain(':preferred-format :markdown');
  return [...graph].filter(([f]) => f.startsWith('pages/')).map(([f, text]) => parsePage(f, text));
}

/** Every [[link]] names a page (Logseq folds case); returns the names. */
function expectResolved(pages: Page[]): Map<string, Page> {
  const byName = new Map<string, Page>();
  for (const p of pages) {
    expect(p.props.title, `${p.file} has a title`).toBeTruthy();
    expect(byName.has(p.props.title.toLowerCase()), `page name ${p.props.title} is unique`).toBe(false);
    byName.set(p.props.title.toLowerCase(), p);
  }
  const dangling = pages.flatMap((p) => p.links.filter((l) => !byName.has(l.toLowerCase())).map((l) => `${p.file} → [[${l}]]`));
  expect(dangling).toEqual([]);
  return byName;
}

beforeAll(async () => {
  db = await freshDb();
  store = localStore(filesDir);
  S = await seedTenant(db, 'lsq-src');
  other = await seedTenant(db, 'lsq-other');
  ok(await S.agent.call('project_create', { title: 'Payments', key: 'PAY' }));
  const a = ok(await S.agent.call('task_create', { project_id: 'PAY', title: 'Schema [[not a link]]', acceptance_criteria: [{ text: 'tables exist', met: true }, 'indexes'] }));
  ids.a = a.task_id;
  const b = ok(await S.agent.call('task_create', { project_id: 'PAY', title: 'API / v2 #fast', body: 'Calls [[Nowhere]] and ((block)) with key:: value', depends_on: [a.task_id] }));
  ids.b = b.task_id;
  const d = ok(await S.agent.call('decision_log', { title: 'Money as integer cents', choice: 'Integer cents', rationale: 'No rounding', consequences: ['Reports divide by 100', 'The API formats at the edge'], project_id: 'PAY', related_task_ids: ['PAY-1'] }));
  ids.d = d.decision_id;
  const n = ok(await S.agent.call('knowledge_write', { title: 'Restart the consumer', body: 'systemctl restart [[x]]', kind: 'runbook', tags: ['ops', 'on/call'], related_task_ids: ['PAY-2'] }));
  ids.n = n.note_id;
  // two notes with one title: two pages, two names
  const twin = ok(await S.agent.call('knowledge_write', { title: 'restart  the consumer', body: 'the same name as the runbook, as Logseq folds it', kind: 'note' }));
  ids.twin = twin.note_id;
  ok(await S.agent.call('link_add', { from: { type: 'note', id: n.note_id }, to: { type: 'task', id: 'PAY-2' }, relation: 'explains', strength: 0.7 }));
  ok(await S.agent.call('link_add', { from: { type: 'decision', id: d.decision_id }, to: { type: 'note', id: twin.note_id }, relation: 'relates_to' }));
  ok(await S.agent.call('link_add', { from: { type: 'task', id: 'PAY-1' }, to: { type: 'decision', id: d.decision_id }, relation: 'implements' }));
  ok(await S.agent.call('comment_add', { object_type: 'note', object_id: n.note_id, body: 'Also [[drain]] first' }));
  ok(await S.agent.call('skill_upsert', { slug: 'release', description: 'Use when shipping', body: '1. Tag' }));
  ok(await S.agent.call('handoff_create', { to_actor_ids: [S.human.id], title: 'Approve the schema?', kind: 'approval', related_task_id: 'PAY-1' }));
  ok(await other.agent.call('project_create', { title: 'Elsewhere', key: 'ELS' }));
  ok(await other.agent.call('knowledge_write', { title: 'Secret of another workspace', body: 'x' }));
});
afterAll(async () => {
  await db.drop();
  rmSync(filesDir, { recursive: true, force: true });
});

describe('export --format logseq', () => {
  it('writes a page per object whose every [[link]] resolves to a page it wrote', async () => {
    const doc = await exportWorkspace(db, S.slug, { store });
    const pages = pagesOf(doc);
    const byName = expectResolved(pages);
    const types = pages.map((p) => p.props.type).sort();
    expect(types.filter((t) => t === 'task')).toHaveLength(2);
    expect(types.filter((t) => t === 'note')).toHaveLength(2);
    for (const t of ['workspace', 'project', 'decision', 'skill', 'handoff', 'actor']) expect(types).toContain(t);
    // nothing of another workspace
    expect(pages.some((p) => p.props.title.includes('Elsewhere') || p.props.title.includes('Secret'))).toBe(false);
    // two pages may not share a name: the later one says its id
    const twins = pages.filter((p) => p.props.title.toLowerCase().startsWith('restart the consumer'));
    expect(twins).toHaveLength(2);
    const suffixed = twins.filter((p) => p.props.title.endsWith(` (${p.props['bullpen-id'].slice(0, 8)})`));
    expect(suffixed).toHaveLength(1);
    expect(byName.has('pay-1 schema not a link')).toBe(true);
  });

  it('writes typed links as properties named by their relation, both ways, with task dependencies', async () => {
    const pages = pagesOf(await exportWorkspace(db, S.slug, { store }));
    const note = pages.find((p) => p.props['bullpen-id'] === ids.n)!;
    const api = pages.find((p) => p.props['bullpen-id'] === ids.b)!;
    const schema = pages.find((p) => p.props['bullpen-id'] === ids.a)!;
    const decision = pages.find((p) => p.props['bullpen-id'] === ids.d)!;
    expect(note.props).toMatchObject({ type: 'note', kind: 'runbook', explains: `[[${api.props.title}]]` });
    expect(note.props.tags.split(', ').sort()).toEqual(['on call', 'ops']);
    expect(note.body).toContain(`explains [[${api.props.title}]] 0.7`);
    expect(api.props['explains-by']).toBe(`[[${note.props.title}]]`);
    expect(api.props['depends-on']).toBe(`[[${schema.props.title}]]`);
    expect(schema.props.blocks).toBe(`[[${api.props.title}]]`);
    expect(schema.props.implements).toBe(`[[${decision.props.title}]]`);
    expect(decision.props['implements-by']).toBe(`[[${schema.props.title}]]`);
    expect(decision.props['relates-to']).toBe(`[[${pages.find((p) => p.props['bullpen-id'] === ids.twin)!.props.title}]]`);
    expect(schema.props.project).toBe('[[PAY Payments]]');
    // a decision's consequences: one block each under the heading
    expect(decision.body).toContain('- **consequences**\n\t- Reports divide by 100\n\t- The API formats at the edge');
    expect(schema.body).toContain('- DONE tables exist');
    expect(schema.body).toContain('- TODO indexes');
    // what people wrote cannot open a link, a block reference or a property
    expect(api.links).not.toContain('Nowhere');
    expect(api.body).not.toContain('((block))');
    expect(api.body).not.toContain('key:: value');
    expect(note.links).not.toContain('drain');
    expect(note.body).toContain('drain');
  });

  it('keeps only the chosen types, and people and projects always', async () => {
    const cut = filterExportTypes(await exportWorkspace(db, S.slug, { store }), parseExportTypes('note,decisions'));
    const pages = pagesOf(cut);
    expectResolved(pages);
    expect([...new Set(pages.map((p) => p.props.type))].sort()).toEqual(['actor', 'decision', 'note', 'project', 'workspace']);
    // the decision↔note link travels; the links to tasks stay behind with the tasks
    expect(cut.counts).toMatchObject({ notes: 2, decisions: 1, tasks: 0, links: 1, note_tasks: 0, decision_tasks: 0, handoffs: 0, skills: 0, activity: 0 });
    expect(cut.types).toEqual(['note', 'decision']);
    const md = exportMarkdown(cut);
    expect(md).toContain('Money as integer cents');
    expect(md).not.toContain('Approve the schema?');
    expect(() => parseExportTypes('notes,widgets')).toThrow(/no type widgets/);
    expect(() => parseExportTypes(' , ')).toThrow(/at least one/);
  });

  it('a cut by type imports on its own into an empty workspace, whole', async () => {
    for (const list of ['note,decision', 'handoff', 'task,activity']) {
      const cut = filterExportTypes(await exportWorkspace(db, S.slug, { store }), parseExportTypes(list));
      const slug = `lsq-cut-${list.replace(/,/g, '-')}`;
      const r = await importWorkspace(db, JSON.parse(JSON.stringify(cut)), { slug, store });
      const back = await exportWorkspace(db, slug, { store });
      for (const [section, n] of Object.entries(cut.counts)) if (section !== 'activity') expect(back.counts[section] ?? 0, `${list}: ${section}`).toBe(n);
      expect(r.created_workspace).toBe(true);
    }
  });
});
