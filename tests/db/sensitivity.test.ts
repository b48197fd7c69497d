import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, executeDef } from '../../lib/core/execute';
import { getReader } from '../../lib/core/resources';
import type { Claims } from '../../lib/core/ports';
import { assertOutput, fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * Sensitivity: a note marked sensitive is seen only by callers whose claims say `sensitive` (a key
 * with the sensitive scope, a person's console session). A normal key never sees one, by any path
 * that can return a note: search (by meaning and words, newest, by kind and tag, duplicates),
 * global search, reads by id (note_item, the resources' read), the graph (find_related as root
 * and as a node on the way, link_add, conflicts), guidelines, briefs and summaries, comments and
 * their @mentions in the inbox, the activity log and whoami, and writes that would reach it.
 */

let db: TestDb;
let T: Tenant;
let O: Tenant;
let seer: Actor;
let plain: Actor;
let other: Actor;
const ids: Record<string, string> = {};
const SECRET = 'Quokka';

function withClaims(base: Actor, extra: Partial<Claims>): Actor {
  const claims = { ...base.claims, ...extra };
  const ctx = { db, claims };
  // the reads behind resources and prompts run through the executor's path too (executeDef)
  const run = async (tool: string, input: unknown) => {
    const reader = getReader(tool);
    if (!reader) return assertOutput(tool, await execute(ctx, tool, input));
    const env = await executeDef(ctx, reader, input);
    if (env.ok) {
      const { ok: _ok, ...body } = env;
      reader.output.parse(body);
    }
    return env;
  };
  return { ...base, claims, ctx, call: (tool, input = {}) => run(tool, input) };
}

// an answer leaks when it carries the secret word anywhere but the query it echoes
const leaks = (v: unknown) => {
  const { q: _q, ...rest } = v as Record<string, unknown>;
  return JSON.stringify(rest).includes(SECRET);
};

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'sens-t');
  O = await seedTenant(db, 'sens-o');
  seer = withClaims(T.agent, { sensitive: true });
  plain = withClaims(T.agent, {});
  other = withClaims(await T.addAgent('Plain Reader'), {});
  ids.project = ok(await seer.call('project_create', { title: 'Vault', key: 'VLT' })).project.id;
  ids.task = ok(await seer.call('task_create', { project_id: 'VLT', title: 'Open the vault' })).task_id;
  ids.secret = ok(
    await seer.call('knowledge_write', {
      title: `${SECRET} payroll runbook`,
      body: `${SECRET} salaries live in the vault`,
      tags: ['payroll', 'risk'],
      project_id: 'VLT',
      related_task_ids: [ids.task],
      sensitivity: 'sensitive',
    }),
  ).note_id;
  ids.guideline = ok(
    await seer.call('knowledge_write', {
      title: `${SECRET} guideline`, body: 'Never log salaries.', kind: 'guideline', language: 'go', category: 'privacy', project_id: 'VLT', sensitivity: 'sensitive',
    }),
  ).note_id;
  ids.pattern = ok(await seer.call('knowledge_write', { title: `${SECRET} pattern`, body: 'Pattern body.', kind: 'pattern', project_id: 'VLT', sensitivity: 'sensitive' })).note_id;
  ids.normal = ok(await seer.call('knowledge_write', { title: 'Vault hours', body: 'The vault opens at nine.', tags: ['payroll'], project_id: 'VLT' })).note_id;
  ids.decision = ok(await seer.call('decision_log', { title: 'Vault policy', choice: 'two keys', project_id: 'VLT' })).decision_id;
  // the graph: task -> secret -> decision, normal contradicts secret
  ok(await seer.call('link_add', { from: { type: 'task', id: ids.task }, to: { type: 'note', id: ids.secret }, relation: 'relates_to' }));
  ok(await seer.call('link_add', { from: { type: 'note', id: ids.secret }, to: { type: 'decision', id: ids.decision }, relation: 'explains' }));
  ok(await seer.call('link_add', { from: { type: 'note', id: ids.normal }, to: { type: 'note', id: ids.secret }, relation: 'contradicts' }));
  // a comment on the secret note mentions the plain reader
  ok(await seer.call('comment_add', { object_type: 'note', object_id: ids.secret, body: `@Plain Reader the ${SECRET} numbers are in` }));
});
afterAll(() => db.drop());

describe('a caller that may see sensitive notes', () => {
  it('writes, reads and finds them, marked sensitive', async () => {
    const hit = ok(await seer.call('knowledge_search', { q: 'payroll runbook', lexical_only: true })).results;
    expect(hit.map((n: { id: string }) => n.id)).toContain(ids.secret);
    expect(hit.find((n: { id: string }) => n.id === ids.secret).sensitivity).toBe('sensitive');
    expect(ok(await seer.call('find_related', { type: 'note', id: ids.secret })).nodes.length).toBeGreaterThan(0);
  });

  it('a person in the console sees them too (session claims carry sensitive)', async () => {
    const { toDbClaims } = await import('../../lib/console/session');
    const person = withClaims(T.human, toDbClaims({ sub: T.human.id, tenant_id: T.id, actor_id: T.human.id }));
    expect(ok(await person.call('knowledge_search', { q: SECRET, lexical_only: true })).results.length).toBeGreaterThan(0);
  });
});

describe('a normal key never sees a sensitive note, by any path', () => {
  const notFound: [string, () => Record<string, unknown>][] = [
    ['note_item', () => ({ id: ids.secret })],
    ['note_item', () => ({ id: ids.guideline, kind: 'guideline' })],
    ['find_related', () => ({ type: 'note', id: ids.secret, depth: 3 })],
    ['knowledge_update', () => ({ note_id: ids.secret, patch: { title: 'mine' } })],
    ['knowledge_update', () => ({ note_id: ids.normal, supersedes: ids.secret })],
    ['knowledge_retract', () => ({ note_id: ids.secret, reason: 'gone' })],
    ['link_add', () => ({ from: { type: 'task', id: ids.task }, to: { type: 'note', id: ids.secret }, relation: 'relates_to' })],
    ['comment_query', () => ({ object_type: 'note', object_id: ids.secret })],
  ];
  it.each(notFound)('%s answers NOT_FOUND (%#)', async (tool, input) => {
    fails(await plain.call(tool, input()), 'NOT_FOUND');
  });

  it('search, listings, guidelines and duplicates leave it out', async () => {
    const reads: [string, Record<string, unknown>][] = [
      ['knowledge_search', { q: `${SECRET} payroll`, lexical_only: true }],
      ['knowledge_search', { q: `${SECRET} salaries` }],
      ['knowledge_search', {}],
      ['knowledge_search', { project_id: 'VLT', top_k: 50 }],
      ['knowledge_search', { kind: 'pattern' }],
      ['knowledge_search', { tags: ['risk'] }],
      ['knowledge_search', { duplicates: true }],
      ['search', { q: SECRET }],
      ['guidelines_get', { project_id: 'VLT' }],
      ['guidelines_get', {}],
      ['project_brief', { project: 'VLT' }],
      ['project_summary', { project: 'VLT' }],
      ['task_get', { task_id: 'VLT-1', include: ['brief'] }],
      ['activity_query', { limit: 200 }],
      ['whoami', {}],
    ];
    for (const [tool, input] of reads) {
      const env = ok(await plain.call(tool, input));
      expect(leaks(env), `${tool} ${JSON.stringify(input)} leaked: ${JSON.stringify(env).slice(0, 400)}`).toBe(false);
      // the activity log says that a sensitive note was written (its id, no title or tags): nothing else names it
      const named = JSON.stringify(env, (_k, v) => (v && typeof v === 'object' && 'verb' in v && /a sensitive note$/.test(String(v.summary)) ? undefined : v));
      expect(named.includes(ids.secret), `${tool} named the id: ${named.slice(0, 600)}`).toBe(false);
    }
    // the same calls for a caller that may see: the secret is there (the test is not vacuous)
    expect(leaks(ok(await seer.call('search', { q: SECRET })))).toBe(true);
    expect(leaks(ok(await seer.call('project_summary', { project: 'VLT' })))).toBe(true);
    expect(leaks(ok(await seer.call('guidelines_get', { project_id: 'VLT' })))).toBe(true);
  });

  it('the graph: a walk does not step through it, and a conflict does not name it', async () => {
    const from = ok(await plain.call('find_related', { type: 'task', id: ids.task, depth: 3 }));
    expect(leaks(from) || JSON.stringify(from).includes(ids.secret)).toBe(false);
    // the decision is reached only through the secret note
    expect(from.nodes.map((n: { id: string }) => n.id)).not.toContain(ids.decision);
    const seen = ok(await seer.call('find_related', { type: 'task', id: ids.task, depth: 3 }));
    expect(seen.nodes.map((n: { id: string }) => n.id)).toEqual(expect.arrayContaining([ids.secret, ids.decision]));
    const normal = ok(await plain.call('note_item', { id: ids.normal })).note;
    expect(normal.conflicts).toEqual([]);
    expect(ok(await seer.call('note_item', { id: ids.normal })).note.conflicts).toHaveLength(1);
  });

  it('inbox and notifications: the mention names neither the note nor the comment', async () => {
    const inbox = ok(await other.call('inbox', {}));
    const notes = ok(await other.call('notification_query', {}));
    expect(JSON.stringify(notes)).toContain('a sensitive note');
    expect(leaks(inbox) || leaks(notes)).toBe(false);
    expect(leaks(ok(await other.call('whoami', {})))).toBe(false);
  });

  it('refuses to write or mark a note sensitive, naming the field, and writes nothing', async () => {
    const before = await db.query<{ n: number }>(`select count(*)::int as n from public.knowledge_notes where tenant_id = $1`, [T.id]);
    const e = fails(await plain.call('knowledge_write', { title: 'x', body: 'y', sensitivity: 'sensitive' }), 'FORBIDDEN');
    expect(e.message).toMatch(/^sensitivity:/);
    const u = fails(await plain.call('knowledge_update', { note_id: ids.normal, patch: { sensitivity: 'sensitive' } }), 'FORBIDDEN');
    expect(u.message).toMatch(/^patch\.sensitivity:/);
    const after = await db.query<{ n: number }>(`select count(*)::int as n from public.knowledge_notes where tenant_id = $1`, [T.id]);
    expect(after[0].n).toBe(before[0].n);
  });

  it('RLS hides it from the API role reading the table directly', async () => {
    const rows = await db.withClaims<{ n: number }>(plain.claims, `select count(*)::int as n from public.knowledge_notes where id = '${ids.secret}'`);
    expect(rows[0].n).toBe(0);
    const seen = await db.withClaims<{ n: number }>(seer.claims, `select count(*)::int as n from public.knowledge_notes where id = '${ids.secret}'`);
    expect(seen[0].n).toBe(1);
  });

  it('a note made sensitive later leaves every read; made normal again it is back', async () => {
    const id = ok(await seer.call('knowledge_write', { title: 'Wombat plan', body: 'later hidden' })).note_id;
    const found = async () => ok(await plain.call('knowledge_search', { q: 'Wombat', lexical_only: true })).results.length;
    expect(await found()).toBe(1);
    expect(ok(await seer.call('knowledge_update', { note_id: id, patch: { sensitivity: 'sensitive' } })).changed).toEqual(['sensitivity']);
    expect(await found()).toBe(0);
    ok(await seer.call('knowledge_update', { note_id: id, patch: { sensitivity: 'normal' } }));
    expect(await found()).toBe(1);
  });
});

describe('another workspace', () => {
  it('reads its ids as NOT_FOUND through note_item and project_summary, even with the sensitive claim', async () => {
    const theirs = withClaims(O.agent, { sensitive: true });
    fails(await theirs.call('note_item', { id: ids.normal }), 'NOT_FOUND');
    fails(await theirs.call('decision_item', { id: ids.decision }), 'NOT_FOUND');
    fails(await theirs.call('note_item', { id: ids.secret }), 'NOT_FOUND');
    fails(await theirs.call('project_summary', { project: ids.project }), 'NOT_FOUND');
  });
});

describe('a sensitive source: its documents and chunks, by any path', () => {
  const src: Record<string, string> = {};

  beforeAll(async () => {
    const begin = ok(await seer.call('source_sync', { action: 'begin', source: 'vault-docs', project_id: 'VLT', sensitivity: 'sensitive' }));
    expect(begin.source.sensitivity).toBe('sensitive');
    ok(await seer.call('source_sync', { action: 'put', source: 'vault-docs', sync_id: begin.sync_id, documents: { 'vault.md': `# ${SECRET} combination\n\n${SECRET} opens at midnight` } }));
    ok(await seer.call('source_sync', { action: 'finish', source: 'vault-docs', sync_id: begin.sync_id, paths: ['vault.md'] }));
    src.doc = (await db.query<{ id: string }>(`select id from public.source_documents where tenant_id = $1 and path = 'vault.md'`, [T.id]))[0].id;
    src.chunk = ok(await seer.call('source_get', { document_id: src.doc })).chunks[0].id;
  });

  it('the caller that may see sensitive items reads the document, its chunk and finds it', async () => {
    expect(ok(await seer.call('source_get', { document_id: src.doc })).document.title).toContain(SECRET);
    ok(await seer.call('chunk_get', { chunk_id: src.chunk }));
    const found = ok(await seer.call('knowledge_search', { q: `${SECRET} combination`, types: ['chunk'], lexical_only: true }));
    expect(leaks(found)).toBe(true);
  });

  it('a normal key reads neither, finds nothing, and may not sync the source again', async () => {
    for (const who of [plain, other]) {
      fails(await who.call('source_get', { document_id: src.doc }), 'NOT_FOUND');
      fails(await who.call('chunk_get', { chunk_id: src.chunk }), 'NOT_FOUND');
      const found = ok(await who.call('knowledge_search', { q: `${SECRET} combination`, types: ['chunk', 'note'], lexical_only: true }));
      expect(leaks(found)).toBe(false);
      const listed = ok(await who.call('source_list', {}));
      expect(leaks(listed)).toBe(false);
      expect(listed.sources.find((s: { name: string }) => s.name === 'vault-docs')).toMatchObject({ documents: 0 });
      const refused = fails(await who.call('source_sync', { action: 'begin', source: 'vault-docs' }), 'FORBIDDEN');
      expect(refused.message).toMatch(/^source vault-docs:/);
      fails(await who.call('source_sync', { action: 'begin', source: 'open-docs', sensitivity: 'sensitive' }), 'FORBIDDEN');
    }
  });
});
