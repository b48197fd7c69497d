import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BULK_ACTIVITY_SQL, BULK_NOTES_SQL, BULK_TASKS_SQL } from '../../bench/_scale-seed';
import type { Claims } from '../../lib/db/types';
import { freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/**
 * The scale bench (bench/scale.ts) seeds notes and most of the activity log through a bulk path
 * instead of one RPC call per row. Its rows must be the rows the RPCs write: here each bulk row is
 * compared, column by column, with the row knowledge_write or activity_log writes for the same input.
 */

let db: TestDb;
let A: Tenant;
beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db);
  ok(await A.human.call('project_create', { title: 'Scale', key: 'P0' }));
});
afterAll(async () => {
  await db?.drop();
});

/** Runs a bulk statement as the seeder does: as the server, the caller's claims set. */
async function bulk(claims: Claims, sql: string | string[], params: unknown[] | unknown[][]) {
  await db.transaction(async (s) => {
    await s.query(`select set_config('request.jwt.claims', $1, true), set_config('bullpen.notify', 'off', true)`, [JSON.stringify(claims)]);
    const statements = Array.isArray(sql) ? sql : [sql];
    for (const [k, statement] of statements.entries()) await s.query(statement, (Array.isArray(sql) ? params[k] : params) as unknown[]);
  });
}

/** A row without the columns that differ between any two writes (ids, times, the text itself). */
// xid: the transaction that wrote an activity row (event_poll's cursor), different for every write by nature
const shape = (row: Record<string, unknown>, drop: string[]) =>
  Object.fromEntries(Object.entries(row).filter(([k]) => k !== 'xid' && !drop.includes(k)));

describe('the scale seed writes what the RPCs write', () => {
  it('bulk tasks equal task_create tasks, and so do their task.created rows', async () => {
    // g = 5 is todo, priority 0; g = 13 is todo, priority 3, assigned (13 % 10 = 3) to agents[13 % 1];
    // g = 19 is backlog, priority 4
    const agents = [A.agent.id];
    const made = [
      ok(await A.agent.call('task_create', { project_id: 'P0', title: 'scale task P0 5', body: 'what to do for item 5', priority: 0, labels: ['area-5', 'scale'] })),
      ok(await A.agent.call('task_create', { project_id: 'P0', title: 'scale task P0 13', body: 'what to do for item 13', priority: 3, status: 'todo', labels: ['area-6', 'scale'], assignee_actor_id: A.agent.id })),
      ok(await A.agent.call('task_create', { project_id: 'P0', title: 'scale task P0 19', body: 'what to do for item 19', priority: 4, status: 'backlog', labels: ['area-5', 'scale'] })),
    ];
    const [{ task_seq: before }] = await db.query<{ task_seq: number }>(`select task_seq from public.projects where tenant_id = $1 and key = 'P0'`, [A.id]);
    for (const g of [5, 13, 19]) await bulk(A.agent.claims, BULK_TASKS_SQL, ['P0', g, 1, JSON.stringify(agents)]);
    const [{ task_seq: after }] = await db.query<{ task_seq: number }>(`select task_seq from public.projects where tenant_id = $1 and key = 'P0'`, [A.id]);
    expect(after).toBe(before + 3);
    const differ = ['id', 'seq', 'created_at', 'updated_at', 'order_index'];
    for (const [k, title] of ['scale task P0 5', 'scale task P0 13', 'scale task P0 19'].entries()) {
      const rows = await db.query<{ j: Record<string, unknown> }>(`select to_jsonb(t) as j from public.tasks t where tenant_id = $1 and title = $2 order by seq`, [A.id, title]);
      expect(rows).toHaveLength(2);
      expect(rows[0].j.id).toBe(made[k].task_id);
      expect(rows[1].j.seq).toBe(before + 1 + k);
      expect(shape(rows[1].j, differ)).toEqual(shape(rows[0].j, differ));
      expect(rows[1].j.status).toBe(k === 2 ? 'backlog' : 'todo');
      const logged = await db.query<{ j: Record<string, unknown> }>(
        `select to_jsonb(a) as j from public.activity a where tenant_id = $1 and object_id = any($2::uuid[]) order by id`,
        [A.id, rows.map((r) => r.j.id)],
      );
      const ofTask = (id: unknown) => logged.filter((a) => a.j.object_id === id).map((a) => shape(a.j, ['id', 'at', 'object_id', 'summary']));
      expect(ofTask(rows[1].j.id)).toEqual(ofTask(rows[0].j.id));
      expect(logged.find((a) => a.j.object_id === rows[1].j.id && a.j.verb === 'task.created')?.j.summary).toBe(`P0-${rows[1].j.seq} ${title}`);
    }
  });

  it('a bulk note equals a knowledge_write note, and so does its note.written row', async () => {
    const [{ title, body }] = await db.query<{ title: string; body: string }>(
      `select substr(md5('5'), 1, 10) || ' ' || substr(md5('35'), 1, 10) as title, 'what we learned about area 5 while working on item 5' as body`,
    );
    const viaRpc = ok(await A.agent.call('knowledge_write', { title, body, kind: 'finding', project_id: 'P0', tags: ['area-5'] })).note_id;
    await bulk(A.agent.claims, BULK_NOTES_SQL, [5, 1, 1]);
    const notes = await db.query<Record<string, unknown>>(`select to_jsonb(n) as j from public.knowledge_notes n where tenant_id = $1 and title = $2 order by created_at`, [A.id, title]);
    expect(notes).toHaveLength(2);
    const [rpc, viaBulk] = notes.map((n) => n.j as Record<string, unknown>);
    expect(rpc.id).toBe(viaRpc);
    const differ = ['id', 'created_at', 'updated_at', 'search'];
    expect(shape(viaBulk, differ)).toEqual(shape(rpc, differ));
    expect(viaBulk.search).toEqual(rpc.search);
    const logged = await db.query<{ j: Record<string, unknown> }>(
      `select to_jsonb(a) as j from public.activity a where tenant_id = $1 and verb = 'note.written' and object_id = any($2::uuid[]) order by id`,
      [A.id, [rpc.id, viaBulk.id]],
    );
    expect(logged).toHaveLength(2);
    expect(shape(logged[1].j, ['id', 'at', 'object_id'])).toEqual(shape(logged[0].j, ['id', 'at', 'object_id']));
  });

  it('a bulk milestone equals an activity_log milestone, content hash included', async () => {
    // a workspace of its own, with one task: the bulk path picks its tasks among the workspace's
    const A = await seedTenant(db);
    ok(await A.human.call('project_create', { title: 'Scale', key: 'P0' }));
    const task = ok(await A.agent.call('task_create', { project_id: 'P0', title: 'the one task' })).task_id;
    // g = 3 is tests.passed, "milestone 3", info, on the workspace's one task
    const viaRpc = ok(await A.agent.call('activity_log', { verb: 'tests.passed', summary: 'milestone 3', object_type: 'task', object_id: task }));
    expect(viaRpc.deduplicated).toBe(false);
    const before = await db.query<{ n: number }>(`select count(*)::int as n from public.activity where tenant_id = $1`, [A.id]);
    // g = 3 again: the same content hash, so the log's dedup keeps the RPC's row; g = 4 is new
    await bulk(A.agent.claims, BULK_ACTIVITY_SQL, [3, 2]);
    const after = await db.query<{ n: number }>(`select count(*)::int as n from public.activity where tenant_id = $1`, [A.id]);
    expect(after[0].n).toBe(before[0].n + 1);
    const rows = await db.query<{ j: Record<string, unknown> }>(
      `select to_jsonb(a) as j from public.activity a where tenant_id = $1 and summary in ('milestone 3', 'milestone 4') order by id`,
      [A.id],
    );
    expect(rows.map((r) => r.j.summary)).toEqual(['milestone 3', 'milestone 4']);
    expect(rows[0].j.id).toBe(viaRpc.seq);
    const differ = ['id', 'at', 'verb', 'summary', 'content_hash'];
    expect(shape(rows[1].j, differ)).toEqual(shape(rows[0].j, differ));
    expect(rows[1].j).toMatchObject({ verb: 'deploy.finished', object_type: 'task', object_id: task, actor_id: A.agent.id });
  });
});
