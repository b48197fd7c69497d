import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlLiteral } from '../../lib/db/types';
import { fails, freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/**
 * The graph's tenant wall: links never cross workspaces. Another workspace's objects read as
 * NOT_FOUND through link_add, link_remove, find_related, guidelines_get, knowledge_retract and
 * knowledge_update's supersedes; its links are invisible to RLS and cannot be written by the RPC role.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
const a: Record<string, string> = {};
const b: Record<string, string> = {};

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'graph-a');
  B = await seedTenant(db, 'graph-b');
  a.project = ok(await A.agent.call('project_create', { title: 'Secret plans', key: 'SEC' })).project.id;
  a.task = ok(await A.agent.call('task_create', { project_id: 'SEC', title: 'Hidden task' })).task_id;
  a.note = ok(await A.agent.call('knowledge_write', { title: 'Zanzibar guideline', body: 'Classified.', kind: 'guideline', language: 'go', category: 'x', project_id: 'SEC' })).note_id;
  a.decision = ok(await A.agent.call('decision_log', { title: 'Zanzibar date', choice: 'March' })).decision_id;
  a.link = ok(await A.agent.call('link_add', { from: { type: 'note', id: a.note }, to: { type: 'decision', id: a.decision }, relation: 'explains' })).link.id;
  b.project = ok(await B.agent.call('project_create', { title: 'B plans', key: 'SEC' })).project.id;
  b.task = ok(await B.agent.call('task_create', { project_id: 'SEC', title: 'B task' })).task_id;
  b.note = ok(await B.agent.call('knowledge_write', { title: 'B note', body: 'Mine.' })).note_id;
});
afterAll(() => db.drop());

describe("another workspace's graph reads as NOT_FOUND", () => {
  const cases: [string, () => Record<string, unknown>][] = [
    ['link_add', () => ({ from: { type: 'note', id: b.note }, to: { type: 'note', id: a.note }, relation: 'relates_to' })],
    ['link_add', () => ({ from: { type: 'decision', id: a.decision }, to: { type: 'note', id: b.note }, relation: 'explains' })],
    ['link_add', () => ({ from: { type: 'task', id: a.task }, to: { type: 'note', id: b.note }, relation: 'relates_to' })],
    ['link_add', () => ({ from: { type: 'project', id: a.project }, to: { type: 'note', id: b.note }, relation: 'relates_to' })],
    ['link_remove', () => ({ link_id: a.link })],
    ['link_remove', () => ({ from: { type: 'note', id: a.note }, to: { type: 'decision', id: a.decision } })],
    ['find_related', () => ({ type: 'note', id: a.note, depth: 3 })],
    ['find_related', () => ({ type: 'decision', id: a.decision })],
    ['find_related', () => ({ type: 'project', id: a.project })],
    ['guidelines_get', () => ({ project_id: a.project })],
    ['knowledge_retract', () => ({ note_id: a.note, reason: 'mine now' })],
    ['knowledge_update', () => ({ note_id: b.note, supersedes: a.note })],
  ];

  it.each(cases)('%s answers NOT_FOUND (%#)', async (tool, input) => {
    fails(await B.agent.call(tool, input()), 'NOT_FOUND');
  });

  it("B's key-based references resolve inside B, and A's graph is untouched", async () => {
    // SEC-1 and SEC name B's own task and project
    const l = ok(await B.agent.call('link_add', { from: { type: 'task', id: 'SEC-1' }, to: { type: 'project', id: 'SEC' }, relation: 'relates_to' }));
    expect(l.link).toMatchObject({ from: { id: b.task }, to: { id: b.project } });
    expect(ok(await B.agent.call('guidelines_get', { project_id: 'SEC' })).guidelines).toEqual([]);
    expect(ok(await B.agent.call('guidelines_get', {})).guidelines).toEqual([]);
    const [row] = await db.query<{ n: number; retracted: string | null; superseded: string | null }>(
      `select (select count(*)::int from public.links where tenant_id = $1) as n,
              (select retracted_at::text from public.knowledge_notes where id = $2) as retracted,
              (select superseded_by::text from public.knowledge_notes where id = $2) as superseded`,
      [A.id, a.note],
    );
    expect(row).toEqual({ n: 1, retracted: null, superseded: null });
  });

  it('RLS hides the links table; the RPC role cannot write a link into another workspace or under another author', async () => {
    const [theirs] = await db.withClaims<{ n: number }>(B.agent.claims, `select count(*)::int as n from public.links where tenant_id = '${A.id}'`);
    expect(theirs.n).toBe(0);
    const asWriter = async (sql: string) => {
      try {
        await db.exec(`set local role bullpen_writer; select set_config('request.jwt.claims', ${sqlLiteral(JSON.stringify(B.agent.claims))}, true); ${sql}`);
        return 'ok';
      } catch (err) {
        return (err as { code?: string }).code;
      }
    };
    expect(await asWriter(`insert into public.links (tenant_id, from_type, from_id, to_type, to_id, relation, created_by_actor_id) values ('${A.id}', 'note', '${a.note}', 'decision', '${a.decision}', 'relates_to', '${A.agent.id}')`)).toBe('42501');
    expect(await asWriter(`insert into public.links (tenant_id, from_type, from_id, to_type, to_id, relation, created_by_actor_id) values ('${B.id}', 'note', '${b.note}', 'task', '${b.task}', 'relates_to', '${B.human.id}')`)).toBe('42501');
    await asWriter(`delete from public.links where id = '${a.link}'`);
    await asWriter(`update public.links set strength = 0 where id = '${a.link}'`);
    const [row] = await db.query<{ strength: number }>(`select strength from public.links where id = $1`, [a.link]);
    expect(row.strength).toBe(1);
  });
});
