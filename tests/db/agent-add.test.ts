import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapDbError } from '../../lib/core/sql-errors';
import { addAgent, revokeKey } from '../../lib/server/workspace';
import { freshDb, type TestDb } from '../helpers/db';

/**
 * `bullpen agent add NAME` (and its admin route) never quietly hands out another live key: an
 * agent that exists and has one is refused ALREADY_EXISTS, naming --new-key and key rotate; with
 * new_key it gets one more. An existing agent without a live key (after an import, or once its
 * keys are revoked) gets one as before. Runs on PGlite and on Postgres.
 */

let db: TestDb;
beforeAll(async () => {
  db = await freshDb();
});
afterAll(async () => {
  await db?.drop();
});

describe('agent add for an agent that exists', () => {
  it('is refused while the agent has a live key, minting nothing; --new-key mints one more', async () => {
    const first = await addAgent(db, { workspace: 'dup-keys', name: 'builder' });
    expect(first).toMatchObject({ created_agent: true, live_keys: 1 });
    const err = await addAgent(db, { workspace: 'dup-keys', name: 'builder' }).catch((e) => e);
    const mapped = mapDbError(err);
    expect(mapped.code).toBe('ALREADY_EXISTS');
    expect(mapped.message).toContain('agent "builder" already exists in workspace dup-keys with 1 live key');
    expect(mapped.hint).toContain('--new-key');
    expect(mapped.hint).toContain('bullpen key rotate');
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int as n from public.api_keys where actor_id = $1`, [first.actor_id]);
    expect(n).toBe(1);
    const more = await addAgent(db, { workspace: 'dup-keys', name: 'builder', new_key: true });
    expect(more).toMatchObject({ actor_id: first.actor_id, created_agent: false, live_keys: 2 });
    expect(more.api_key).not.toBe(first.api_key);
  });

  it('mints a key without the flag when the agent has no live key left', async () => {
    const made = await addAgent(db, { workspace: 'dup-keys', name: 'reviver' });
    await revokeKey(db, made.workspace.id, made.key_id);
    const again = await addAgent(db, { workspace: 'dup-keys', name: 'reviver' });
    expect(again).toMatchObject({ actor_id: made.actor_id, created_agent: false, live_keys: 1 });
  });
});
