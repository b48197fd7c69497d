import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { execute } from '../../lib/core/execute';
import { migrate, MigrationChangedError, supabaseDir } from '../../lib/db/migrate';
import type { Claims, Db } from '../../lib/db/types';
import { freshDb, ok, seedTenant, target, type TestDb } from '../helpers/db';

/**
 * Upgrades. A database made by release 0.1.0 (tests/fixtures/upgrade/0.1.0: a PGlite data
 * directory and a pg_dump of the same seeded workspace) is migrated in place: it keeps every row,
 * ends up with exactly the functions, policies and grants a fresh database has, and behaves the new
 * way. A landed migration that changed stops start-up naming the file; definitions are re-applied
 * when they change; starters racing on an empty database all come up.
 */

const fixture = path.resolve(import.meta.dirname, '..', 'fixtures', 'upgrade', '0.1.0');
const meta = JSON.parse(readFileSync(path.join(fixture, 'meta.json'), 'utf8')) as { pglite: Record<string, number>; pg: Record<string, number> };
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

/** A Postgres database on the pg suite's server, dropped after the file. */
async function pgDatabase(): Promise<{ url: string }> {
  const admin = process.env.DATABASE_URL!;
  const name = `bp_upgrade_${randomBytes(5).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  cleanups.push(async () => {
    const d = new pg.Client({ connectionString: admin });
    await d.connect();
    await d.query(`drop database if exists ${name} with (force)`);
    await d.end();
  });
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString() };
}

function psqlBin(): string {
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    for (const v of readdirSync(base).sort((a, b) => Number(b) - Number(a))) {
      const p = path.join(base, v, 'bin', 'psql');
      if (existsSync(p)) return p;
    }
  }
  return 'psql';
}

/** Opens the 0.1.0 fixture as the release left it, without migrating. */
async function openFixture(): Promise<Db> {
  if (target === 'pglite') {
    const { PGlite } = await import('@electric-sql/pglite');
    const { vector } = await import('@electric-sql/pglite-pgvector');
    const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
    const { pgcrypto } = await import('@electric-sql/pglite/contrib/pgcrypto');
    const { wrapPglite } = await import('../../lib/db/pglite');
    const blob = new Blob([readFileSync(path.join(fixture, 'pglite.tar.gz'))]);
    const lite = await PGlite.create({ loadDataDir: blob, extensions: { vector, pg_trgm, pgcrypto } });
    const db = wrapPglite(lite);
    cleanups.push(() => db.close());
    return db;
  }
  const { url } = await pgDatabase();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  // the API roles are cluster-wide; a fresh cluster needs them before the dump's grants
  await admin.query(`do $$ begin
    if not exists (select 1 from pg_roles where rolname = 'anon') then create role anon nologin noinherit; end if;
    if not exists (select 1 from pg_roles where rolname = 'authenticated') then create role authenticated nologin noinherit; end if;
    if not exists (select 1 from pg_roles where rolname = 'service_role') then create role service_role nologin noinherit bypassrls; end if;
  end $$`);
  await admin.end();
  execFileSync(psqlBin(), ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-f', path.join(fixture, 'pg.sql')], { stdio: 'pipe' });
  const { openPg } = await import('../../lib/db/pg');
  const db = await openPg(url, { max: 4 });
  cleanups.push(() => db.close());
  return db;
}

const TABLES = Object.keys(meta.pglite);

async function counts(db: Db): Promise<Record<string, number>> {
  const r: Record<string, number> = {};
  for (const t of TABLES) r[t] = (await db.query<{ n: number }>(`select count(*)::int as n from ${t}`))[0].n;
  return r;
}

/** What a schema is made of, as text: functions (with owner and rights), policies, table rights, triggers. */
async function shape(db: Db): Promise<Record<string, string[]>> {
  const fns = await db.query<{ x: string }>(`
    select n.nspname || '.' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') owner=' ||
           pg_get_userbyid(p.proowner) || ' acl=' || coalesce(p.proacl::text, '') || ' ' || md5(pg_get_functiondef(p.oid)) as x
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname in ('public', 'bullpen', 'auth', 'realtime') and p.prokind = 'f'
       and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
     order by 1`);
  const policies = await db.query<{ x: string }>(`
    select schemaname || '.' || tablename || '.' || policyname || ' ' || cmd || ' ' || array_to_string(roles, ',') || ' ' ||
           coalesce(qual, '') || ' ' || coalesce(with_check, '') as x from pg_policies order by 1`);
  const grants = await db.query<{ x: string }>(`
    select c.relnamespace::regnamespace::text || '.' || c.relname || ' ' || coalesce(c.relacl::text, '') as x
      from pg_class c where c.relnamespace in ('public'::regnamespace, 'bullpen'::regnamespace) and c.relkind in ('r', 'p', 'v')
     order by 1`);
  const columns = await db.query<{ x: string }>(`
    select table_schema || '.' || table_name || '.' || column_name || ' ' || grantee || ' ' || privilege_type as x
      from information_schema.column_privileges
     where table_schema in ('public', 'bullpen') and grantee in ('anon', 'authenticated', 'bullpen_writer')
     order by 1`);
  const triggers = await db.query<{ x: string }>(`
    select tgrelid::regclass::text || '.' || tgname || ' ' || md5(pg_get_triggerdef(oid)) as x
      from pg_trigger where not tgisinternal order by 1`);
  return {
    functions: fns.map((r) => r.x),
    policies: policies.map((r) => r.x),
    tables: grants.map((r) => r.x),
    columns: columns.map((r) => r.x),
    triggers: triggers.map((r) => r.x),
  };
}

describe('an upgrade from release 0.1.0', () => {
  it('keeps every row, matches a fresh database exactly, and behaves the new way', async () => {
    const old = await openFixture();
    const before = await counts(old);
    expect(before).toEqual(target === 'pglite' ? meta.pglite : meta.pg);
    const legacy = await old.query<{ name: string }>(`select name from bullpen.migrations order by name`);
    expect(legacy.map((r) => r.name)).toEqual(['0001_foundation.sql', '0002_projects.sql', '0003_tasks.sql', '0004_console.sql', '0005_comments.sql']);
    // before: the API role could write the ledger directly
    const [{ could }] = await old.query<{ could: boolean }>(`select has_table_privilege('authenticated', 'public.actors', 'UPDATE') as could`);
    expect(could).toBe(true);

    const result = await migrate(old);
    expect(result.applied).toContain('0006_write_surface.sql');
    expect(result.definitions).toBe(true);
    expect(await counts(old)).toEqual(before);

    // release 0.1.0 recorded names only; the upgrade stamps them with their checksums
    const stamped = await old.query<{ name: string; checksum: string | null }>(
      `select name, checksum from bullpen.migrations where kind = 'migration' order by name`,
    );
    expect(stamped.every((r) => /^[0-9a-f]{64}$/.test(r.checksum ?? ''))).toBe(true);

    const fresh: TestDb = await freshDb();
    cleanups.push(() => fresh.drop());
    expect(await shape(old)).toEqual(await shape(fresh));

    // a second start changes nothing
    expect(await migrate(old)).toEqual({ applied: [], definitions: false });

    // the new behaviour on the old rows
    const [ws] = await old.query<{ id: string }>(`select id from public.tenants where slug = 'fixture'`);
    const [agent] = await old.query<{ id: string }>(`select id from public.actors where external_ref = 'agent:builder'`);
    const claims: Claims = { sub: agent.id, role: 'authenticated', tenant_id: ws.id, actor_id: agent.id, run_id: 'run-upgrade' };
    const call = (tool: string, input: unknown) => execute({ db: old, claims }, tool, input);
    const who = await call('whoami', {});
    expect(who).toMatchObject({ ok: true, actor: { display_name: 'Builder' }, tenant: { slug: 'fixture' } });
    const brief = await call('task_get', { task_id: 'PAY-2' });
    expect(brief).toMatchObject({ ok: true, task: { title: 'Charge endpoint', status: 'in_progress' }, handoffs: [], code_refs: [] });
    // A → B → A is applied in full (0.1.0 replayed the third call)
    // (DOC-1 sits in backlog: todo → backlog → todo)
    for (const status of ['todo', 'backlog', 'todo']) {
      const r = await call('task_update', { task_id: 'DOC-1', patch: { status } });
      expect(r).toMatchObject({ ok: true });
      expect(r).not.toHaveProperty('idempotent_replay');
    }
    expect(await call('task_get', { task_id: 'DOC-1' })).toMatchObject({ task: { status: 'todo' } });
    // the done gate is the composed one: criteria named, summary reported
    const refused = await call('task_update', { task_id: 'PAY-2', patch: { status: 'done' } });
    expect(refused).toMatchObject({ ok: false, error: { code: 'GATE_UNMET', details: { gate: 'acceptance_criteria', satisfied_by: 'task_update' } } });
    const done = await call('task_update', { task_id: 'PAY-2', patch: { status: 'done', acceptance_criteria: [{ text: 'returns 201', met: true }] } });
    expect(done).toMatchObject({ ok: true, gate: { summary: 'criteria 1/1' } });
    // and the API role lost its write rights on the old tables
    const [{ can }] = await old.query<{ can: boolean }>(`select has_table_privilege('authenticated', 'public.actors', 'UPDATE') as can`);
    expect(can).toBe(false);
  });
});

describe('an upgrade over actors that share a display name', () => {
  it('keeps every actor, renames the later look-alikes, and then holds names unique per kind', async () => {
    const old = await openFixture();
    const [ws] = await old.query<{ id: string }>(`select id from public.tenants where slug = 'fixture'`);
    const [builder] = await old.query<{ display_name: string }>(`select display_name from public.actors where external_ref = 'agent:builder'`);
    expect(builder.display_name).toBe('Builder');
    // names an earlier release let through: the same name in another case or spacing, and a
    // name that the renaming's first suffix would collide with
    const add = (ref: string, kind: string, name: string, minutes: number) =>
      old.query(`insert into public.actors (tenant_id, kind, external_ref, display_name, created_at) values ($1, $2, $3, $4, now() + make_interval(mins => $5))`, [
        ws.id, kind, ref, name, minutes,
      ]);
    await add('dup:one', 'agent', 'builder', 1);
    await add('dup:two', 'agent', 'B U I L D E R', 2);
    await add('dup:suffix', 'agent', 'Builder (2)', 0);
    await add('dup:human', 'human', 'Builder', 3);
    const [{ n: before }] = await old.query<{ n: number }>(`select count(*)::int as n from public.actors`);
    await migrate(old);
    const [{ n: after }] = await old.query<{ n: number }>(`select count(*)::int as n from public.actors`);
    expect(after).toBe(before);
    const names = Object.fromEntries(
      (await old.query<{ external_ref: string; display_name: string }>(`select external_ref, display_name from public.actors where tenant_id = $1`, [ws.id])).map((r) => [
        r.external_ref,
        r.display_name,
      ]),
    );
    expect(names).toMatchObject({
      'agent:builder': 'Builder',
      'dup:suffix': 'Builder (2)',
      'dup:one': 'builder (3)',
      'dup:two': 'B U I L D E R (4)',
      'dup:human': 'Builder',
    });
    const renamed = await old.query<{ metadata: { from: string; to: string } }>(`select metadata from public.activity where verb = 'actor.renamed' order by id`);
    expect(renamed.map((r) => r.metadata)).toEqual([
      expect.objectContaining({ from: 'builder', to: 'builder (3)' }),
      expect.objectContaining({ from: 'B U I L D E R', to: 'B U I L D E R (4)' }),
    ]);
    await expect(add('dup:late', 'agent', 'BUILDER', 4)).rejects.toMatchObject({ constraint: 'actors_display_name_key' });
  });
});

describe('migrate', () => {
  function copySupabase(): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-sql-'));
    cpSync(supabaseDir(), dir, { recursive: true });
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  it('refuses to start when a landed migration changed, naming the file', async () => {
    const db = await freshDb();
    cleanups.push(() => db.drop());
    const dir = copySupabase();
    const file = path.join(dir, 'migrations', '0002_projects.sql');
    writeFileSync(file, readFileSync(file, 'utf8') + '\n-- an edit after landing\n');
    const err = await migrate(db, dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationChangedError);
    expect((err as Error).message).toContain('supabase/migrations/0002_projects.sql changed after this database applied it');
    expect((err as Error).message).toContain('new migration');
  });

  it('re-applies definitions when one changes, and only then', async () => {
    const db = await freshDb();
    cleanups.push(() => db.drop());
    const dir = copySupabase();
    expect((await migrate(db, dir)).definitions).toBe(false);
    const file = path.join(dir, 'definitions', '0005_comments.sql');
    writeFileSync(
      file,
      readFileSync(file, 'utf8') +
        `\ncreate or replace function bullpen.upgrade_probe() returns int language sql immutable as $$ select 42 $$;\n`,
    );
    expect(await migrate(db, dir)).toEqual({ applied: [], definitions: true });
    expect((await db.query<{ v: number }>('select bullpen.upgrade_probe() as v'))[0].v).toBe(42);
    expect((await migrate(db, dir)).definitions).toBe(false);
  });

  it('lets starters racing on one empty database all come up, one of them migrating', async () => {
    let dbs: Db[];
    if (target === 'pg') {
      // three app instances, each with its own pool
      const { url } = await pgDatabase();
      const { openPg } = await import('../../lib/db/pg');
      dbs = await Promise.all([1, 2, 3].map(() => openPg(url, { max: 2 })));
    } else {
      // the embedded database has one connection: two starts in one process share it
      const { openPglite } = await import('../../lib/db/pglite');
      const one = await openPglite();
      dbs = [one, one];
    }
    cleanups.push(async () => {
      for (const d of new Set(dbs)) await d.close();
    });
    const results = await Promise.all(dbs.map((d) => migrate(d)));
    expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
    const [{ n }] = await dbs[0].query<{ n: number }>(`select count(*)::int as n from bullpen.migrations where kind = 'migration'`);
    expect(n).toBe(results.find((r) => r.applied.length > 0)!.applied.length);
  });
});

describe('an upgrade over decisions whose consequences were one text (0038)', () => {
  it('makes each a one-item list (null and empty: the empty list), keeps its content hash, and still finds it by words', async () => {
    let db: Db;
    if (target === 'pg') {
      const { url } = await pgDatabase();
      const { openPg } = await import('../../lib/db/pg');
      db = await openPg(url, { max: 2 });
    } else {
      const { openPglite } = await import('../../lib/db/pglite');
      db = await openPglite();
    }
    cleanups.push(() => db.close());
    // the schema as it was before 0038
    const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-sql-'));
    cpSync(supabaseDir(), dir, { recursive: true });
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    rmSync(path.join(dir, 'migrations', '0038_decision_consequences.sql'));
    await migrate(db, dir);
    const [{ type }] = await db.query<{ type: string }>(
      `select data_type as type from information_schema.columns where table_schema = 'public' and table_name = 'decisions' and column_name = 'consequences'`,
    );
    expect(type).toBe('text');
    const t = await seedTenant(db);
    const old = [
      ['Rollbacks through the pipeline', 'Slower rollbacks, and nobody rolls back by hand'],
      ['No consequences written', null],
      ['An empty consequence', ''],
    ] as const;
    for (const [title, consequences] of old) {
      await db.query(
        `insert into public.decisions (tenant_id, title, choice, consequences, author_actor_id, content_hash, embedding_status)
         values ($1, $2::text, 'choice', $3::text, $4, bullpen.memory_hash(concat_ws(E'\\n', $2::text, 'choice', nullif($3::text, ''))), 'unavailable')`,
        [t.id, title, consequences, t.agent.id],
      );
    }

    await migrate(db);
    const rows = await db.query<{ title: string; consequences: string[]; same_hash: boolean }>(
      `select title, consequences,
              content_hash = bullpen.memory_hash(bullpen.decision_embed_text(title, choice, context, rationale, consequences)) as same_hash
         from public.decisions where tenant_id = $1 order by created_at, title`,
      [t.id],
    );
    expect(Object.fromEntries(rows.map((r) => [r.title, r.consequences]))).toEqual({
      'Rollbacks through the pipeline': ['Slower rollbacks, and nobody rolls back by hand'],
      'No consequences written': [],
      'An empty consequence': [],
    });
    // the embedded text of a one-item list is the old text: nothing re-embeds
    expect(rows.every((r) => r.same_hash)).toBe(true);
    const [{ n }] = await db.query<{ n: number }>(
      `select count(*)::int as n from public.decisions where tenant_id = $1 and search @@ plainto_tsquery('english', 'nobody rolls back')`,
      [t.id],
    );
    expect(n).toBe(1);
    const listed = ok(await t.agent.call('decision_query', { limit: 10 }));
    expect(listed.decisions.find((d: { title: string }) => d.title === old[0][0])).toMatchObject({ consequences: ['Slower rollbacks, and nobody rolls back by hand'] });
  });
});
