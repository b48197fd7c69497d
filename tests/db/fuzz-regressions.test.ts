import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/**
 * Inputs the fuzzer (npm run fuzz) found that reached the database and came back as INTERNAL or as a
 * validation error that named no field. Each is pinned here, on PGlite and on Postgres.
 */

let db: TestDb;
let T: Tenant;

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'fuzzed');
  ok(await T.agent.call('project_create', { title: 'Fuzzed', key: 'FZ' }));
  for (let i = 0; i < 3; i++) ok(await T.agent.call('task_create', { project_id: 'FZ', title: `t${i}` }));
});
afterAll(() => db.drop());

const b64 = (s: string) => Buffer.from(s).toString('base64');

function named(env: Awaited<ReturnType<Tenant['agent']['call']>>, field: string) {
  const e = fails(env, 'VALIDATION_ERROR');
  expect(e.details?.fields, e.message).toEqual([expect.stringContaining(field)]);
  expect(e.message).toContain(field);
  return e;
}

describe('text Postgres cannot hold', () => {
  it('a NUL byte in a string, anywhere, is VALIDATION_ERROR naming the field (was INTERNAL)', async () => {
    named(await T.agent.call('task_query', { label: 'nul\u0000inside' }), 'label');
    named(await T.agent.call('task_create', { project_id: 'FZ', title: 'ok', labels: ['a', '\u0000'] }), 'labels[1]');
    named(await T.agent.call('comment_query', { object_type: 'task', object_id: 'FZ-1', cursor: 'nul\u0000' }), 'cursor');
  });

  it('a lone surrogate is VALIDATION_ERROR naming the field (was "invalid input syntax for type json")', async () => {
    named(await T.agent.call('task_create', { project_id: 'FZ', title: 'par\ud800ser' }), 'title');
    named(await T.agent.call('register_actor', { external_ref: 'tes\udfff', kind: 'agent' }), 'external_ref');
    named(await T.agent.call('task_update', { task_id: 'FZ-1', patch: { labels: ['\udfff'] } }), 'patch.labels[0]');
    // a well-formed pair is fine
    ok(await T.agent.call('task_create', { project_id: 'FZ', title: 'emoji 😀 ok' }));
  });

  it('a key with a NUL byte is refused too, and the empty key is named as ""', async () => {
    named(await T.agent.call('whoami', { ['k\u0000']: 1 }), 'input');
    const e = fails(await T.agent.call('task_get', { task_id: 'FZ-1', '': {} }), 'VALIDATION_ERROR');
    expect(e.details?.fields).toEqual(['""']);
    expect(e.message).toContain('unknown key: ""');
  });
});

describe('shapes no schema expects', () => {
  it('nesting 20,000 deep is VALIDATION_ERROR naming where (was a stack overflow, -32603)', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    named(await T.agent.call('task_release', { task_id: 'FZ-1', note: deep }), 'note');
    let obj: unknown = 'x';
    for (let i = 0; i < 40; i++) obj = { a: obj };
    named(await T.agent.call('project_update', { project_id: 'FZ', patch: { title: obj } }), 'patch.title');
  });

  it('a version past the integer range is refused by the schema, naming the field (was "out of range for type integer")', async () => {
    named(await T.agent.call('skill_upsert', { slug: 'big-version', description: 'x', body: 'y', expected_version: 2 ** 31 }), 'expected_version');
    named(await T.agent.call('knowledge_update', { note_id: '00000000-0000-4000-8000-000000000000', patch: { title: 'x' }, expected_version: 2 ** 31 }), 'expected_version');
  });

  it('an unknown tool names "name"', async () => {
    const e = named(await T.agent.call('task_drop', {}), 'name');
    expect(e.message).toContain('task_drop');
  });

  it('year 0000 is refused by the schema, naming the field (was an out-of-range date from Postgres)', async () => {
    named(await T.agent.call('project_create', { title: 'Year zero', target_on: '0000-01-01' }), 'target_on');
    named(await T.agent.call('task_query', { due_before: '0000-12-31' }), 'due_before');
    ok(await T.agent.call('task_query', { due_before: '0001-01-01' }));
  });
});

describe('forged cursors', () => {
  it('task_query: a cursor that is not JSON, not an array, or whose keys do not cast, names cursor', async () => {
    for (const cursor of [b64('zzz'), b64('0'), b64('{}'), b64('["x","y","z"]'), b64('[1, "not a time", "x"]'), 'not base64 at all!']) {
      named(await T.agent.call('task_query', { cursor }), 'cursor');
    }
    // a cursor from another order_by
    const page = ok(await T.agent.call('task_query', { order_by: 'created_at', limit: 1 }));
    expect(page.next_cursor).toBeTruthy();
    named(await T.agent.call('task_query', { order_by: 'due_on', cursor: page.next_cursor }), 'cursor');
    // and a real one still pages
    const next = ok(await T.agent.call('task_query', { order_by: 'created_at', limit: 1, cursor: page.next_cursor }));
    expect(next.tasks[0].id).not.toBe(page.tasks[0].id);
  });

  it('handoff_query and notification_query: forged keyset cursors name cursor (found once the coordination room arrived)', async () => {
    for (const tool of ['handoff_query', 'notification_query']) {
      for (const cursor of [b64('zzz'), b64('[1]'), b64('["not a time", "x"]'), b64('["2026-01-01T00:00:00Z", "not a uuid"]'), b64('["2026-13-45", "00000000-0000-4000-8000-000000000000"]')]) {
        named(await T.agent.call(tool, { cursor }), 'cursor');
      }
    }
  });

  it('actor_query, project_query and comment_query name cursor too', async () => {
    named(await T.agent.call('actor_query', { cursor: 'e30=s' }), 'cursor');
    named(await T.agent.call('project_query', { cursor: '") or ("1"="1' }), 'cursor');
    named(await T.agent.call('comment_query', { object_type: 'task', object_id: 'FZ-1', cursor: 'MXx4s' }), 'cursor');
  });

  it('task_create_many: a forward batch_index names the item', async () => {
    named(
      await T.agent.call('task_create_many', { project_id: 'FZ', tasks: [{ title: 'a', depends_on: [{ batch_index: 1 }] }, { title: 'b' }] }),
      'tasks[0].depends_on[0]',
    );
  });
});
