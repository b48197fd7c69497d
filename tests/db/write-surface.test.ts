import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../lib/core/registry';
import { readers } from '../../lib/core/resources';
import { claimsSql, sqlLiteral } from '../../lib/db/types';
import { fails, freshDb, ok, seedTenant, target, type Tenant, type TestDb } from '../helpers/db';

/**
 * The write surface is the RPCs. A JWT carrying a tenant_id (what a Supabase client holds) must not
 * change the ledger by any other path: every table × insert/update/delete/truncate is refused to
 * `authenticated` with valid claims, `anon` gets nothing at all, helpers are not executable by the
 * API roles, and the rules that protect one actor from another hold inside a workspace. Tables and
 * functions are read from the catalog, so ones added later are covered without editing this file.
 * Each proof is counted and the total printed.
 */

let db: TestDb;
let A: Tenant;
let proofs = 0;

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'ws-a');
  ok(await A.agent.call('project_create', { title: 'Writes', key: 'WR' }));
  ok(await A.agent.call('task_create', { project_id: 'WR', title: 'guarded' }));
});

afterAll(async () => {
  console.log(`[write-surface:${target}] ${proofs} write-surface proofs passed`);
  await db.drop();
});

type Table = { schema: string; name: string; col: string };

/** Every ordinary table of ours (public and bullpen), with one column to name in an UPDATE. */
async function tables(): Promise<Table[]> {
  return db.query<Table>(
    `select n.nspname as schema, c.relname as name,
            (select a.attname from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
              order by a.attnum limit 1) as col
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in ('public', 'bullpen') and c.relkind in ('r', 'p')
        and not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype = 'e')
      order by 1, 2`,
  );
}

/** Runs one statement as an API role inside one implicit transaction; returns the SQLSTATE or 'ok'. */
async function as(role: 'authenticated' | 'anon', sql: string): Promise<string> {
  const batch =
    role === 'authenticated'
      ? claimsSql(A.agent.claims, sql, sqlLiteral)
      : `set local role anon; select set_config('request.jwt.claims', ${sqlLiteral(JSON.stringify(A.agent.claims))}, true); ${sql}`;
  try {
    await db.exec(batch);
    return 'ok';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

describe('authenticated with valid claims', () => {
  it('is refused insert, update, delete and truncate on every table', async () => {
    const all = await tables();
    expect(all.length).toBeGreaterThanOrEqual(12);
    for (const t of all) {
      const q = `${t.schema}.${t.name}`;
      for (const [verb, sql] of [
        ['insert', `insert into ${q} default values`],
        ['update', `update ${q} set "${t.col}" = "${t.col}"`],
        ['delete', `delete from ${q}`],
        ['truncate', `truncate ${q} cascade`],
      ] as const) {
        expect({ table: q, verb, result: await as('authenticated', sql) }).toEqual({ table: q, verb, result: '42501' });
        proofs++;
      }
    }
  });

  it('is no member of the RPC owner role, and neither is anon', async () => {
    const [r] = await db.query<{ a: boolean; b: boolean; bypass: boolean; sup: boolean }>(
      `select pg_has_role('authenticated', 'bullpen_writer', 'member') as a, pg_has_role('anon', 'bullpen_writer', 'member') as b,
              rolbypassrls as bypass, rolsuper as sup from pg_roles where rolname = 'bullpen_writer'`,
    );
    // and the owner itself is bound by forced RLS: no BYPASSRLS, no superuser
    expect(r).toEqual({ a: false, b: false, bypass: false, sup: false });
    proofs += 3;
  });

  it('cannot execute a helper: only the RPCs and the policies’ claim readers are callable', async () => {
    const allowed = new Set([
      'bullpen.claims', 'bullpen.tenant_id', 'bullpen.actor_id', 'bullpen.auth_user_tenant_ids', 'bullpen.can_see_sensitive',
      'bullpen.change_head', 'bullpen.change_replay',
      // the file routes read one attachment under the caller's claims; owners triage feedback (checked inside)
      'bullpen.attachment_file', 'bullpen.feature_request_triage',
    ]);
    const fns = await db.query<{ name: string; callable: boolean; definer: boolean; owner: string }>(
      `select n.nspname || '.' || p.proname as name, has_function_privilege('authenticated', p.oid, 'execute') as callable,
              p.prosecdef as definer, pg_get_userbyid(p.proowner) as owner
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = 'bullpen'
          and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`,
    );
    expect(fns.length).toBeGreaterThan(30);
    for (const f of fns) {
      expect({ fn: f.name, callable: f.callable }).toEqual({ fn: f.name, callable: allowed.has(f.name) });
      proofs++;
    }
  });

  it('reaches every public function only as a security definer RPC owned by bullpen_writer', async () => {
    // the tools, and the reads behind MCP resources and prompts (lib/core/resources.ts)
    const tools = new Set([...registry, ...readers].filter((t) => !t.run).map((t) => t.name));
    const fns = await db.query<{ name: string; callable: boolean; definer: boolean; owner: string; config: string[] | null }>(
      `select p.proname as name, has_function_privilege('authenticated', p.oid, 'execute') as callable,
              p.prosecdef as definer, pg_get_userbyid(p.proowner) as owner, p.proconfig as config
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = 'public'
          and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')`,
    );
    for (const f of fns.filter((x) => x.callable)) {
      expect({ fn: f.name, definer: f.definer, owner: f.owner, search_path: f.config?.includes('search_path=""') })
        .toEqual({ fn: f.name, definer: true, owner: 'bullpen_writer', search_path: true });
      expect(tools.has(f.name), `public.${f.name} is callable but is no tool of the registry`).toBe(true);
      proofs++;
    }
    for (const name of tools) expect(fns.find((f) => f.name === name)?.callable, `${name} must be callable`).toBe(true);
  });
});

describe('anon', () => {
  it('is refused every verb, reads included, on every table', async () => {
    for (const t of await tables()) {
      const q = `${t.schema}.${t.name}`;
      for (const [verb, sql] of [
        ['select', `select 1 from ${q} limit 1`],
        ['insert', `insert into ${q} default values`],
        ['update', `update ${q} set "${t.col}" = "${t.col}"`],
        ['delete', `delete from ${q}`],
        ['truncate', `truncate ${q} cascade`],
      ] as const) {
        expect({ table: q, verb, result: await as('anon', sql) }).toEqual({ table: q, verb, result: '42501' });
        proofs++;
      }
    }
  });

  it('cannot call an RPC', async () => {
    expect(await as('anon', `select public.whoami('{}'::jsonb)`)).toBe('42501');
    proofs++;
  });
});

describe('rules inside a workspace', () => {
  let peerId: string;
  beforeAll(async () => {
    peerId = (ok(await A.human.call('register_actor', { external_ref: `peer:${A.slug}`, kind: 'agent', display_name: `Peer ${A.slug}` })) as { actor: { id: string } }).actor.id;
  });
  it('register_actor cannot rename, re-role or regroup another actor', async () => {
    for (const patch of [{ display_name: 'Renamed' }, { role: 'admin' }, { group: 'elsewhere' }, { capabilities: ['all'] }]) {
      const e = fails(await A.agent.call('register_actor', { external_ref: `human:${A.slug}`, kind: 'human', ...patch }), 'FORBIDDEN');
      expect(e.message).toContain('only a workspace owner registers people');
      const peer = fails(await A.agent.call('register_actor', { external_ref: `peer:${A.slug}`, kind: 'agent', ...patch }), 'FORBIDDEN');
      expect(peer.message).toContain('only that actor or a workspace owner');
      proofs += 2;
    }
    const [row] = await db.query<{ display_name: string; role: string | null }>('select display_name, role from public.actors where id = $1', [A.human.id]);
    expect(row).toEqual({ display_name: `Human ${A.slug}`, role: null });
  });

  it('register_actor still converges when the profile is the same, and lets an actor change its own', async () => {
    const same = ok(await A.agent.call('register_actor', { external_ref: `peer:${A.slug}`, kind: 'agent', display_name: `Peer ${A.slug}` }));
    expect(same).toMatchObject({ created: false, actor: { id: peerId } });
    const own = ok(await A.agent.call('register_actor', { external_ref: `agent:${A.slug}`, kind: 'agent', role: 'builder' }));
    expect(own.actor).toMatchObject({ id: A.agent.id, role: 'builder' });
    proofs += 2;
  });

  it('an owner may change another actor’s profile', async () => {
    const r = ok(await A.human.call('register_actor', { external_ref: `agent:${A.slug}`, kind: 'agent', display_name: 'Builder Bot' }));
    expect(r.actor).toMatchObject({ id: A.agent.id, display_name: 'Builder Bot' });
    proofs++;
  });

  it('the owner flag is no input of register_actor', async () => {
    const e = fails(await A.agent.call('register_actor', { external_ref: `agent:${A.slug}`, kind: 'agent', is_owner: true }), 'VALIDATION_ERROR');
    expect(e.message).toContain('is_owner');
    proofs++;
  });

  it('the RPC role itself cannot write activity under another actor or run, nor touch another actor’s row', async () => {
    const run = async (sql: string) => {
      const batch = `set local role bullpen_writer; select set_config('request.jwt.claims', ${sqlLiteral(JSON.stringify(A.agent.claims))}, true); ${sql}`;
      try {
        await db.exec(batch);
        return 'ok';
      } catch (err) {
        return (err as { code?: string }).code;
      }
    };
    const forged = `insert into public.activity (tenant_id, actor_id, run_id, verb, object_type) values ('${A.id}', '${A.human.id}', 'run-test', 'x.forged', 'task')`;
    expect(await run(forged)).toBe('42501');
    const otherRun = `insert into public.activity (tenant_id, actor_id, run_id, verb, object_type) values ('${A.id}', '${A.agent.id}', 'someone-else', 'x.forged', 'task')`;
    expect(await run(otherRun)).toBe('42501');
    // its own row passes the policy, but the owner flag is guarded: only an owner moves it
    expect(await run(`update public.actors set is_owner = true where id = '${A.agent.id}'`)).toBe('BPFRB');
    const [self] = await db.query<{ is_owner: boolean }>('select is_owner from public.actors where id = $1', [A.agent.id]);
    expect(self.is_owner).toBe(false);
    await run(`update public.actors set display_name = 'hijacked' where id = '${A.human.id}'`);
    const [human] = await db.query<{ display_name: string }>('select display_name from public.actors where id = $1', [A.human.id]);
    expect(human.display_name).not.toBe('hijacked');
    proofs += 4;
  });
});
