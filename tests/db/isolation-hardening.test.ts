import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../lib/core/execute';
import { parseScopes } from '../../lib/core/scopes';
import { openSession, revokeSessions, sessionLive } from '../../lib/console/session';
import { revokeAgentKey } from '../../lib/console/ops';
import { mapDbError } from '../../lib/core/sql-errors';
import { addAgent, findKey, revokeKey, rotateKey } from '../../lib/server/workspace';
import { fails, freshDb, ok, seedTenant, target, type Tenant, type TestDb } from '../helpers/db';

/**
 * Tenant walls around what hardening added: console sessions (private to their human, invisible to
 * another workspace and to other people of the same one), the rate-limit store (no API role sees
 * it), and key scopes, expiry and rotation (another workspace's key ids read as missing). The count
 * of proofs is printed.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
let proofs = 0;
const proof = () => proofs++;

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'iso-hard-a');
  B = await seedTenant(db, 'iso-hard-b');
  ok(await B.agent.call('project_create', { title: 'Other', key: 'OTH' }));
  ok(await B.agent.call('task_create', { project_id: 'OTH', title: 'theirs' }));
});

afterAll(async () => {
  console.log(`[isolation-hardening:${target}] ${proofs} tenant isolation proofs passed`);
  await db.drop();
});

describe('bullpen.sessions', () => {
  it('has row-level security enabled and forced', async () => {
    for (const t of ['bullpen.sessions', 'bullpen.rate_limits']) {
      const [r] = await db.query<{ rls: boolean; forced: boolean }>(`select relrowsecurity as rls, relforcerowsecurity as forced from pg_class where oid = $1::regclass`, [t]);
      expect(r, t).toEqual({ rls: true, forced: true });
      proof();
    }
  });

  it('shows a person their own sessions only: not another workspace’s, not a colleague’s', async () => {
    const mine = await openSession(db, { tenant_id: A.id, actor_id: A.human.id });
    const theirs = await openSession(db, { tenant_id: B.id, actor_id: B.human.id });
    const colleague = await (async () => {
      const [c] = await db.query<{ id: string }>(
        `insert into public.actors (tenant_id, kind, external_ref, display_name) values ($1, 'human', 'human:colleague', 'Colleague') returning id`,
        [A.id],
      );
      return { id: c.id, s: await openSession(db, { tenant_id: A.id, actor_id: c.id }) };
    })();
    const seen = await db.withClaims<{ id: string }>(A.human.claims, `select id from bullpen.sessions`);
    expect(seen.map((r) => r.id)).toContain(mine.sid);
    expect(seen.map((r) => r.id)).not.toContain(theirs.sid);
    expect(seen.map((r) => r.id)).not.toContain(colleague.s.sid);
    proof();
    const across = await db.withClaims<{ n: number }>(A.human.claims, `select count(*)::int as n from bullpen.sessions where tenant_id = '${B.id}'`);
    expect(across[0].n).toBe(0);
    proof();
    const agentView = await db.withClaims<{ n: number }>(A.agent.claims, `select count(*)::int as n from bullpen.sessions`);
    expect(agentView[0].n).toBe(0);
    proof();
  });

  it('refuses every write by an API role, even on one’s own row', async () => {
    const s = await openSession(db, { tenant_id: A.id, actor_id: A.human.id });
    for (const sql of [
      `update bullpen.sessions set revoked_at = null, expires_at = now() + interval '10 years' where id = '${s.sid}'`,
      `insert into bullpen.sessions (tenant_id, actor_id, expires_at) values ('${A.id}', '${A.human.id}', now() + interval '1 day')`,
      `delete from bullpen.sessions where id = '${s.sid}'`,
      `select * from bullpen.rate_limits`,
      `insert into bullpen.rate_limits (key, points) values ('key:x', 0)`,
    ]) {
      await expect(db.withClaims(A.human.claims, sql)).rejects.toMatchObject({ code: '42501' });
      proof();
    }
  });

  it('answers a session id only inside its own workspace and for its own human', async () => {
    const s = await openSession(db, { tenant_id: A.id, actor_id: A.human.id });
    expect(await sessionLive(db, { tenant_id: B.id, actor_id: A.human.id, sid: s.sid })).toBe(false);
    expect(await sessionLive(db, { tenant_id: B.id, actor_id: B.human.id, sid: s.sid })).toBe(false);
    proof();
    // signing out everywhere in another workspace does not touch this one
    const b = await openSession(db, { tenant_id: B.id, actor_id: B.human.id });
    await revokeSessions(db, { tenant_id: B.id, actor_id: B.human.id, sid: b.sid }, true);
    expect(await sessionLive(db, { tenant_id: A.id, actor_id: A.human.id, sid: s.sid })).toBe(true);
    // naming A's session from B's workspace revokes nothing
    expect(await revokeSessions(db, { tenant_id: B.id, actor_id: B.human.id, sid: s.sid }, false)).toBe(0);
    expect(await sessionLive(db, { tenant_id: A.id, actor_id: A.human.id, sid: s.sid })).toBe(true);
    proof();
  });
});

describe('keys across workspaces', () => {
  it('reads another workspace’s key id as missing: rotate, revoke, find', async () => {
    const theirs = await addAgent(db, { workspace: 'iso-hard-b', name: 'their-bot', scopes: parseScopes('tasks:read') });
    expect(mapDbError(await rotateKey(db, A.id, theirs.key_id, 60).catch((e) => e)).code).toBe('NOT_FOUND');
    proof();
    expect(await revokeKey(db, A.id, theirs.key_id)).toBe(false);
    proof();
    expect(mapDbError(await findKey(db, theirs.key_id, 'iso-hard-a').catch((e) => e)).code).toBe('NOT_FOUND');
    proof();
    fails(await revokeAgentKey({ db, claims: A.human.claims }, { key_id: theirs.key_id }), 'NOT_FOUND');
    proof();
  });

  it('shows scopes and expiry to the key’s own workspace only, never a hash', async () => {
    const mine = await addAgent(db, { workspace: 'iso-hard-a', name: 'my-bot', scopes: parseScopes('comments'), expires_in_seconds: 3600 });
    const own = await db.withClaims<{ scopes: string[]; expires_at: string }>(A.human.claims, `select scopes, expires_at from public.api_keys where id = '${mine.key_id}'`);
    expect(own[0].scopes).toEqual(['comments']);
    proof();
    const across = await db.withClaims(B.human.claims, `select scopes from public.api_keys where id = '${mine.key_id}'`);
    expect(across).toHaveLength(0);
    proof();
    await expect(db.withClaims(A.human.claims, `select key_hash from public.api_keys`)).rejects.toMatchObject({ code: '42501' });
    proof();
  });

  it('a scoped key’s tools still see only their own workspace', async () => {
    const ctx = { ...A.agent.ctx, scopes: parseScopes('tasks:read') };
    fails(await execute(ctx, 'task_get', { task_id: 'OTH-1' }), 'NOT_FOUND');
    proof();
    expect(ok(await execute(ctx, 'task_query', {})).tasks).toHaveLength(0);
    proof();
  });
});
