import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../lib/core/registry';
import { mintKey } from '../../lib/server/workspace';
import { fails, freshDb, ok, seedTenant, target, type Tenant, type TestDb } from '../helpers/db';

/**
 * Tenant isolation proofs. Workspace B's actors try to read and write everything workspace A owns,
 * through raw SQL as the API role and through every tool. Each proof is counted and the total is
 * printed, so a table or tool added later without a proof shows up as a failing count.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
const a: Record<string, string> = {};
let proofs = 0;

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'iso-a');
  B = await seedTenant(db, 'iso-b');
  const pr = ok(await A.agent.call('project_create', { title: 'Secret plans', key: 'SEC' }));
  a.project = pr.project_id;
  const t1 = ok(await A.agent.call('task_create', { project_id: 'SEC', title: 'first' }));
  const t2 = ok(await A.agent.call('task_create', { project_id: 'SEC', title: 'second', depends_on: [t1.task_id], idempotency_key: 'a-key' }));
  a.task = t1.task_id;
  a.task2 = t2.task_id;
  ok(await A.agent.call('task_claim', { task_id: a.task }));
  ok(await A.agent.call('task_release', { task_id: a.task, note: 'a comment from A' }));
  a.actor = A.agent.id;
  a.key = (await mintKey(db, A.id, A.agent.id, 'iso')).key_id;
  // B has its own data so "sees nothing of A" is not the same as "sees nothing"
  ok(await B.agent.call('project_create', { title: 'Open plans', key: 'OPN' }));
  a.b_task = ok(await B.agent.call('task_create', { project_id: 'OPN', title: 'b task' })).task_id;
  // memory (more proofs in isolation-memory.test.ts)
  a.decision = ok(await A.agent.call('decision_log', { title: 'secret decision', choice: 'x', project_id: 'SEC', related_task_ids: [a.task] })).decision_id;
  a.note = ok(await A.agent.call('knowledge_write', { title: 'secret note', body: 'x', project_id: 'SEC', related_task_ids: [a.task] })).note_id;
  a.skill = ok(await A.agent.call('skill_upsert', { slug: 'secret-skill', description: 'd', body: 'b' })).skill.id;
});

afterAll(async () => {
  console.log(`[isolation:${target}] ${proofs} tenant isolation proofs passed`);
  await db.drop();
});

async function publicTables(): Promise<{ name: string; rls: boolean; forced: boolean }[]> {
  return db.query(
    `select c.relname as name, c.relrowsecurity as rls, c.relforcerowsecurity as forced
       from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') order by 1`,
  );
}

/**
 * The isolation suites of later rooms (tests/db/isolation-<room>.test.ts), as text: a table or tool
 * they prove is covered there, so each room adds its proofs without editing this file.
 */
const roomSuites = readdirSync(import.meta.dirname)
  .filter((f) => /^isolation-.+\.test\.ts$/.test(f))
  .map((f) => readFileSync(path.join(import.meta.dirname, f), 'utf8'))
  .join('\n');

function tenantColumn(table: string): string {
  return table === 'tenants' ? 'id' : 'tenant_id';
}

describe('every table', () => {
  it('has row-level security enabled and forced', async () => {
    const tables = await publicTables();
    expect(tables.length).toBeGreaterThanOrEqual(9);
    for (const t of tables) {
      expect({ table: t.name, rls: t.rls, forced: t.forced }).toEqual({ table: t.name, rls: true, forced: true });
      proofs++;
    }
  });

  it('shows another workspace none of its rows', async () => {
    for (const t of await publicTables()) {
      const col = tenantColumn(t.name);
      const [{ total }] = await db.query<{ total: number }>(`select count(*)::int as total from public.${t.name} where ${col} = $1`, [A.id]);
      const seen = await db.withClaims<{ n: number }>(B.agent.claims, `select count(*)::int as n from public.${t.name} where ${col} = '${A.id}'`);
      expect({ table: t.name, seen: seen[0].n }).toEqual({ table: t.name, seen: 0 });
      // A itself sees its rows, so the zero above is the wall and not an empty table
      if (t.name !== 'idempotency_keys' || total > 0) {
        const own = await db.withClaims<{ n: number }>(A.agent.claims, `select count(*)::int as n from public.${t.name} where ${col} = '${A.id}'`);
        expect(own[0].n, `${t.name}: A sees its own rows`).toBe(total);
      }
      proofs++;
    }
  });

  it('refuses to update or delete another workspace’s rows', async () => {
    for (const t of await publicTables()) {
      const col = tenantColumn(t.name);
      for (const stmt of [
        `update public.${t.name} set ${col} = ${col} where ${col} = '${A.id}' returning 1`,
        `delete from public.${t.name} where ${col} = '${A.id}' returning 1`,
      ]) {
        let rows: unknown[] = [];
        try {
          rows = await db.withClaims(B.agent.claims, stmt);
        } catch (err) {
          // no grant, or an append-only guard: refused outright, which is also a wall
          expect((err as { code?: string }).code, `${t.name}: ${stmt}`).toMatch(/^(42501|BPFRB)$/);
        }
        expect(rows, `${t.name}: ${stmt}`).toHaveLength(0);
        proofs++;
      }
    }
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.tasks where tenant_id = $1`, [A.id]);
    expect(n).toBe(2);
  });

  it('refuses rows written into another workspace', async () => {
    const attempts: Record<string, string> = {
      tenants: `insert into public.tenants (id, slug, name) values ('${A.id}', 'x-evil', 'x')`,
      actors: `insert into public.actors (tenant_id, kind, external_ref, display_name) values ('${A.id}', 'agent', 'evil', 'evil')`,
      api_keys: `insert into public.api_keys (tenant_id, actor_id, key_hash, prefix) values ('${A.id}', '${A.agent.id}', '${'e'.repeat(64)}', 'bp_live_evil')`,
      projects: `insert into public.projects (tenant_id, key, title) values ('${A.id}', 'EVIL', 'evil')`,
      tasks: `insert into public.tasks (tenant_id, project_id, seq, title) values ('${A.id}', '${a.project}', 99, 'evil')`,
      task_dependencies: `insert into public.task_dependencies (tenant_id, task_id, depends_on_task_id) values ('${A.id}', '${a.task2}', '${a.task}')`,
      comments: `insert into public.comments (tenant_id, object_type, object_id, author_actor_id, body) values ('${A.id}', 'task', '${a.task}', '${A.agent.id}', 'evil')`,
      activity: `insert into public.activity (tenant_id, verb, object_type) values ('${A.id}', 'evil', 'task')`,
      idempotency_keys: `insert into public.idempotency_keys (tenant_id, actor_id, key, tool, request_hash, expires_at) values ('${A.id}', '${A.agent.id}', 'evil', 't', 'h', now())`,
      decisions: `insert into public.decisions (tenant_id, title, choice, author_actor_id, content_hash) values ('${A.id}', 'evil', 'evil', '${A.agent.id}', 'h')`,
      decision_tasks: `insert into public.decision_tasks (tenant_id, decision_id, task_id) values ('${A.id}', '${a.decision}', '${a.task2}')`,
      knowledge_notes: `insert into public.knowledge_notes (tenant_id, title, body, author_actor_id, content_hash) values ('${A.id}', 'evil', 'evil', '${A.agent.id}', 'h')`,
      note_tasks: `insert into public.note_tasks (tenant_id, note_id, task_id) values ('${A.id}', '${a.note}', '${a.task2}')`,
      skills: `insert into public.skills (tenant_id, slug, name, description, body, content_hash, created_by_actor_id, updated_by_actor_id) values ('${A.id}', 'evil', 'evil', 'd', 'b', '${'0'.repeat(64)}', '${A.agent.id}', '${A.agent.id}')`,
    };
    const tables = (await publicTables()).map((t) => t.name);
    if (tables.includes('memory_embeddings')) {
      attempts.memory_embeddings = `insert into public.memory_embeddings (tenant_id, object_type, object_id, model, dims, content_hash, embedding) values ('${A.id}', 'note', '${a.note}', 'm', 3, 'h', '[1,2,3]')`;
    }
    const elsewhere = tables.filter((t) => !(t in attempts) && roomSuites.includes(`insert into public.${t} (`));
    expect([...Object.keys(attempts), ...elsewhere].sort(), 'every table has a cross-tenant insert proof').toEqual([...tables].sort());
    for (const [table, sql] of Object.entries(attempts)) {
      await expect(db.withClaims(B.agent.claims, sql), table).rejects.toMatchObject({ code: expect.stringMatching(/^(42501|23505|23503)$/) });
      proofs++;
    }
  });
});

describe('every tool, called with another workspace’s ids', () => {
  const cases: [string, () => Record<string, unknown>][] = [
    ['project_update', () => ({ project_id: a.project, patch: { title: 'mine now' } })],
    ['project_update', () => ({ project_id: 'OPN', patch: { owner_actor_id: a.actor } })],
    ['project_update', () => ({ project_id: 'OPN', patch: { parent_project_id: a.project } })],
    ['project_brief', () => ({ project: a.project })],
    ['project_brief', () => ({ project: 'SEC' })],
    ['project_insights', () => ({ project_id: a.project })],
    ['project_insights', () => ({ project_id: 'SEC' })],
    ['project_create', () => ({ title: 'child', parent_project_id: a.project })],
    ['project_create', () => ({ title: 'owned', owner_actor_id: a.actor })],
    ['task_create', () => ({ project_id: a.project, title: 'intrude' })],
    ['task_create', () => ({ project_id: 'SEC', title: 'intrude' })],
    ['task_create', () => ({ project_id: 'OPN', title: 'dep', depends_on: [a.task] })],
    ['task_create', () => ({ project_id: 'OPN', title: 'assign', assignee_actor_id: a.actor })],
    ['task_create', () => ({ project_id: 'OPN', title: 'parent', parent_task_id: a.task })],
    ['task_create', () => ({ project_id: 'OPN', title: 'reviewer', reviewer_actor_id: a.actor })],
    ['task_create_many', () => ({ project_id: a.project, tasks: [{ title: 'x' }] })],
    ['task_create_many', () => ({ project_id: 'OPN', tasks: [{ title: 'x', depends_on: [a.task] }] })],
    ['task_update', () => ({ task_id: a.task, patch: { title: 'mine' } })],
    ['task_update', () => ({ task_id: 'SEC-1', patch: { title: 'mine' } })],
    ['task_update', () => ({ task_id: a.b_task, patch: { assignee_actor_id: a.actor } })],
    ['task_update', () => ({ task_id: a.b_task, patch: { reviewer_actor_id: a.actor } })],
    ['task_assign', () => ({ task_id: a.task, actor_id: 'me' })],
    ['task_assign', () => ({ task_id: a.b_task, actor_id: a.actor })],
    ['task_query', () => ({ project_id: a.project })],
    ['task_get', () => ({ task_id: a.task })],
    ['task_get', () => ({ task_id: 'SEC-2' })],
    ['task_link', () => ({ task_id: a.task, add_depends_on: [a.task2] })],
    ['task_link', () => ({ task_id: a.b_task, add_depends_on: [a.task] })],
    ['task_link', () => ({ task_id: a.b_task, remove_depends_on: [a.task] })],
    ['task_link', () => ({ task_id: a.b_task, set_parent_task_id: a.task })],
    ['task_claim', () => ({ task_id: a.task })],
    ['task_claim', () => ({ project_id: a.project })],
    ['task_release', () => ({ task_id: a.task })],
    ['task_recover', () => ({ task_id: a.task, to_status: 'todo', note: 'intrude' })],
    ['task_recover', () => ({ task_id: 'SEC-1', to_status: 'failed', note: 'intrude' })],
    ['comment_add', () => ({ object_type: 'task', object_id: a.task, body: 'intrude' })],
    ['comment_add', () => ({ object_type: 'project', object_id: 'SEC', body: 'intrude' })],
    ['comment_add', () => ({ object_type: 'task', object_id: a.b_task, body: 'ping', mentions: [a.actor] })],
    ['comment_query', () => ({ object_type: 'task', object_id: a.task })],
    ['comment_query', () => ({ object_type: 'project', object_id: a.project })],
    ['decision_log', () => ({ title: 'x', choice: 'y', project_id: a.project })],
    ['decision_log', () => ({ title: 'x', choice: 'y', supersedes_decision_id: a.decision })],
    ['decision_log', () => ({ title: 'x', choice: 'y', related_task_ids: [a.task] })],
    ['decision_set_status', () => ({ decision_id: a.decision, status: 'rejected' })],
    ['decision_query', () => ({ project_id: a.project })],
    ['decision_query', () => ({ task_id: a.task })],
    ['knowledge_write', () => ({ title: 'x', body: 'y', project_id: a.project })],
    ['knowledge_write', () => ({ title: 'x', body: 'y', related_task_ids: [a.task] })],
    ['knowledge_update', () => ({ note_id: a.note, patch: { title: 'mine' } })],
    ['knowledge_search', () => ({ q: 'secret', project_id: a.project })],
    ['skill_list', () => ({ project_id: a.project })],
    ['skill_get', () => ({ skill_id: a.skill })],
    ['skill_get', () => ({ slug: 'secret-skill' })],
    ['skill_upsert', () => ({ slug: 'x', description: 'd', body: 'b', project_id: a.project })],
  ];

  it.each(cases)('%s answers NOT_FOUND (%#)', async (tool, input) => {
    fails(await B.agent.call(tool, input()), 'NOT_FOUND');
    proofs++;
  });

  it('covers every tool that takes an id', () => {
    const withIds = registry
      .filter((t) => Object.keys(t.input.shape).some((k) => /(_id|_ids|^project|depends_on|mentions)$/.test(k)))
      .map((t) => t.name);
    const covered = new Set(cases.map(([t]) => t));
    const missing = withIds.filter(
      (t) => !covered.has(t) && !['project_query', 'actor_query'].includes(t) && !roomSuites.includes(`['${t}', `),
    );
    expect(missing).toEqual([]);
  });

  it('filters rather than leaks on list tools', async () => {
    const pq = ok(await B.agent.call('project_query', { project_id: a.project }));
    expect(pq.projects).toEqual([]);
    const aq = ok(await B.agent.call('actor_query', { q: 'iso-a' }));
    expect(aq.actors).toEqual([]);
    const tq = ok(await B.agent.call('task_query', {}));
    expect(tq.tasks.map((t: { id: string }) => t.id)).toEqual([a.b_task]);
    const who = ok(await B.agent.call('whoami', {}));
    expect(JSON.stringify(who)).not.toContain(A.id);
    expect(JSON.stringify(who)).not.toContain('Secret plans');
    const claim = ok(await B.agent.call('task_claim', {}));
    expect(claim.task.id).toBe(a.b_task);
    proofs += 5;
  });

  it('cannot reuse another workspace’s idempotency key to read its result', async () => {
    const env = ok(await B.agent.call('task_create', { project_id: 'OPN', title: 'second', idempotency_key: 'a-key' }));
    expect(env.idempotent_replay).toBeUndefined();
    expect(env.task.project_key).toBe('OPN');
    proofs++;
  });

  it('authenticates keys only into their own workspace', async () => {
    const rows = await db.query<{ tenant_id: string }>(
      `select tenant_id from bullpen.authenticate_key((select key_hash from public.api_keys where id = $1))`,
      [a.key],
    );
    expect(rows).toEqual([{ tenant_id: A.id }]);
    await expect(db.withClaims(B.agent.claims, `select * from bullpen.authenticate_key('${'0'.repeat(64)}')`)).rejects.toMatchObject({ code: '42501' });
    const hashes = await db.withClaims(A.agent.claims, `select key_hash from public.api_keys`).catch((e) => e);
    expect(hashes).toMatchObject({ code: '42501' });
    proofs += 3;
  });
});
