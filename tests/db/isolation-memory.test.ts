import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedDue } from '../../lib/memory/backfill';
import { localEmbedder } from '../../lib/memory/embedder';
import { sqlLiteral } from '../../lib/db/types';
import { fails, freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/**
 * The memory room's tenant wall: another workspace's decisions, notes, skills, task links and
 * vectors read as NOT_FOUND through every tool and are invisible to RLS; authorship always comes
 * from the claims, never from input.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
const a: Record<string, string> = {};

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'mem-a');
  B = await seedTenant(db, 'mem-b');
  a.project = ok(await A.agent.call('project_create', { title: 'Secret plans', key: 'SEC' })).project.id;
  a.task = ok(await A.agent.call('task_create', { project_id: 'SEC', title: 'Hidden task' })).task_id;
  a.decision = ok(await A.agent.call('decision_log', { title: 'Zanzibar launch date', choice: 'March', project_id: 'SEC', related_task_ids: ['SEC-1'] })).decision_id;
  a.note = ok(await A.agent.call('knowledge_write', { title: 'Zanzibar vault code', body: 'The vault code rotates weekly.', project_id: 'SEC', related_task_ids: ['SEC-1'] })).note_id;
  a.skill = ok(await A.agent.call('skill_upsert', { slug: 'zanzibar-ops', description: 'Zanzibar operations', body: 'Classified.' })).skill.id;
  ok(await A.agent.call('skill_upsert', { slug: 'zanzibar-ops', project_id: 'SEC', description: 'Project copy', body: 'Classified too.' }));
  await embedDue(db, localEmbedder());
  // B has a project with the same key, so key-based references must resolve inside B only
  ok(await B.agent.call('project_create', { title: 'B plans', key: 'SEC' }));
  ok(await B.agent.call('task_create', { project_id: 'SEC', title: 'B task' }));
});
afterAll(() => db.drop());

describe("another workspace's memory reads as NOT_FOUND", () => {
  it('decisions: status, supersede, query by task or project', async () => {
    fails(await B.agent.call('decision_set_status', { decision_id: a.decision, status: 'rejected' }), 'NOT_FOUND');
    fails(await B.agent.call('decision_log', { title: 'x', choice: 'y', supersedes_decision_id: a.decision }), 'NOT_FOUND');
    fails(await B.agent.call('decision_log', { title: 'x', choice: 'y', related_task_ids: [a.task] }), 'NOT_FOUND');
    fails(await B.agent.call('decision_log', { title: 'x', choice: 'y', project_id: a.project }), 'NOT_FOUND');
    fails(await B.agent.call('decision_query', { task_id: a.task }), 'NOT_FOUND');
    fails(await B.agent.call('decision_query', { project_id: a.project }), 'NOT_FOUND');
    const [row] = await db.query<{ status: string; superseded_by: string | null }>(`select status, superseded_by from public.decisions where id = $1`, [a.decision]);
    expect(row).toEqual({ status: 'accepted', superseded_by: null });
  });

  it('notes: update, link, search by project', async () => {
    fails(await B.agent.call('knowledge_update', { note_id: a.note, patch: { title: 'pwned' } }), 'NOT_FOUND');
    fails(await B.agent.call('knowledge_write', { title: 'x', body: 'y', related_task_ids: [a.task] }), 'NOT_FOUND');
    fails(await B.agent.call('knowledge_write', { title: 'x', body: 'y', project_id: a.project }), 'NOT_FOUND');
    fails(await B.agent.call('knowledge_search', { q: 'vault', project_id: a.project }), 'NOT_FOUND');
    const [row] = await db.query<{ title: string }>(`select title from public.knowledge_notes where id = $1`, [a.note]);
    expect(row.title).toBe('Zanzibar vault code');
  });

  it('threads: a decision or note of A takes no comment from B and shows B none', async () => {
    for (const [object_type, object_id] of [['decision', a.decision], ['note', a.note]]) {
      fails(await B.agent.call('comment_add', { object_type, object_id, body: 'intrude' }), 'NOT_FOUND');
      fails(await B.agent.call('comment_query', { object_type, object_id }), 'NOT_FOUND');
    }
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int n from public.comments where object_id in ($1, $2)`, [a.decision, a.note]);
    expect(n).toBe(0);
  });

  it('skills: get by id, get by slug, project scope', async () => {
    fails(await B.agent.call('skill_get', { skill_id: a.skill }), 'NOT_FOUND');
    fails(await B.agent.call('skill_get', { slug: 'zanzibar-ops' }), 'NOT_FOUND');
    fails(await B.agent.call('skill_get', { slug: 'zanzibar-ops', project_id: a.project }), 'NOT_FOUND');
    fails(await B.agent.call('skill_list', { project_id: a.project }), 'NOT_FOUND');
    fails(await B.agent.call('skill_upsert', { slug: 'x', description: 'd', body: 'b', project_id: a.project }), 'NOT_FOUND');
    // the same slug in B is B's own skill, not an edit of A's
    const own = ok(await B.agent.call('skill_upsert', { slug: 'zanzibar-ops', description: 'B', body: 'B body' }));
    expect(own).toMatchObject({ created: true, skill: { version: 1 } });
    expect(own.skill.id).not.toBe(a.skill);
    expect(ok(await A.agent.call('skill_get', { skill_id: a.skill })).skill).toMatchObject({ body: 'Classified.', version: 1 });
  });

  it("search, recall and listings never show A's objects to B", async () => {
    expect(ok(await B.agent.call('search', { q: 'zanzibar' })).results.map((r: { title: string }) => r.title)).toEqual(['zanzibar-ops (zanzibar-ops)']);
    expect(ok(await B.agent.call('knowledge_search', { q: 'what is the vault code' })).results).toEqual([]);
    expect(ok(await B.agent.call('decision_query', { q: 'when do we launch', semantic: true })).decisions).toEqual([]);
    expect(ok(await B.agent.call('decision_query', {})).decisions).toEqual([]);
    expect(ok(await B.agent.call('skill_list', {})).skills.map((s: { id: string }) => s.id)).not.toContain(a.skill);
    const bTask = ok(await B.agent.call('task_get', { task_id: 'SEC-1' }));
    expect(bTask).toMatchObject({ decisions: [], notes: [] });
    const brief = ok(await B.agent.call('project_brief', { project: 'SEC' }));
    expect(brief).toMatchObject({ recent_decisions: [], knowledge: [] });
    // A still sees its own
    expect(ok(await A.agent.call('task_get', { task_id: 'SEC-1' })).decisions.map((d: { id: string }) => d.id)).toEqual([a.decision]);
  });
});

describe('row-level security on the memory tables', () => {
  const tables = ['decisions', 'decision_tasks', 'knowledge_notes', 'note_tasks', 'skills', 'memory_embeddings'];

  it("hides A's rows from B's claims and shows them to A's", async () => {
    for (const t of tables) {
      const [exists] = await db.query<{ ok: boolean }>(`select to_regclass($1) is not null as ok`, [`public.${t}`]);
      if (!exists.ok) {
        // no pgvector on this database: the vector table is absent, not merely empty
        expect(t).toBe('memory_embeddings');
        expect(db.vector).toBe(false);
        continue;
      }
      const [mine] = await db.withClaims<{ n: number }>(A.agent.claims, `select count(*)::int as n from public.${t}`);
      const [theirs] = await db.withClaims<{ n: number }>(B.agent.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect({ t, n: mine.n > 0 }).toEqual({ t, n: true });
      expect({ t, n: theirs.n }).toEqual({ t, n: 0 });
    }
  });

  it('the RPC role cannot write under another author or into another workspace', async () => {
    const asWriter = async (sql: string) => {
      try {
        await db.exec(`set local role bullpen_writer; select set_config('request.jwt.claims', ${sqlLiteral(JSON.stringify(B.agent.claims))}, true); ${sql}`);
        return 'ok';
      } catch (err) {
        return (err as { code?: string }).code;
      }
    };
    expect(await asWriter(`insert into public.knowledge_notes (tenant_id, title, body, author_actor_id, content_hash) values ('${B.id}', 't', 'b', '${B.human.id}', 'h')`)).toBe('42501');
    expect(await asWriter(`insert into public.knowledge_notes (tenant_id, title, body, author_actor_id, content_hash) values ('${A.id}', 't', 'b', '${A.agent.id}', 'h')`)).toBe('42501');
    expect(await asWriter(`insert into public.skills (tenant_id, slug, name, description, body, content_hash, created_by_actor_id, updated_by_actor_id) values ('${B.id}', 's', 's', 'd', 'b', '${'0'.repeat(64)}', '${B.human.id}', '${B.human.id}')`)).toBe('42501');
    expect(await asWriter(`insert into public.decisions (tenant_id, title, choice, author_actor_id, content_hash) values ('${B.id}', 't', 'c', '${B.human.id}', 'h')`)).toBe('42501');
    await asWriter(`update public.knowledge_notes set title = 'pwned', updated_by_actor_id = '${B.agent.id}' where id = '${a.note}'`);
    await asWriter(`update public.skills set body = 'pwned', updated_by_actor_id = '${B.agent.id}' where id = '${a.skill}'`);
    const [row] = await db.query<{ title: string; body: string }>(
      `select (select title from public.knowledge_notes where id = $1) as title, (select body from public.skills where id = $2) as body`,
      [a.note, a.skill],
    );
    expect(row).toEqual({ title: 'Zanzibar vault code', body: 'Classified.' });
  });

  it('authorship comes from the claims: the author is the caller', async () => {
    const d = ok(await B.human.call('decision_log', { title: 'B decides', choice: 'yes' }));
    expect(d.decision).toMatchObject({ author_actor_id: B.human.id, author: `Human ${B.slug}` });
    const n = ok(await B.agent.call('knowledge_write', { title: 'B note', body: 'b' }));
    const u = ok(await B.human.call('knowledge_update', { note_id: n.note_id, patch: { body: 'b2' } }));
    expect(u.note).toMatchObject({ author_actor_id: B.agent.id, updated_by_actor_id: B.human.id });
  });
});
