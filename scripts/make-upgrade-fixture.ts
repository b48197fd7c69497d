/**
 * Makes an upgrade fixture: a seeded workspace as the current release stores it, once on embedded
 * PGlite (a data-directory tarball) and once on Postgres (a pg_dump). The upgrade test opens these
 * with the next release's migrate() and checks that every row survives and the new behaviour is on.
 *
 *   DATABASE_URL=postgres://… npx tsx scripts/make-upgrade-fixture.ts tests/fixtures/upgrade/NAME
 *
 * Without DATABASE_URL only the PGlite half is made.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { execute } from '../lib/core/execute';
import type { Claims, Db } from '../lib/db/types';
import { migrate } from '../lib/db/migrate';
import { ensureActor, ensureWorkspace, mintKey } from '../lib/server/workspace';

const out = path.resolve(process.argv[2] ?? 'tests/fixtures/upgrade/current');
mkdirSync(out, { recursive: true });

/** The tables whose rows the upgrade must keep, with a stable order for comparing contents. */
export const FIXTURE_TABLES = [
  'public.tenants',
  'public.actors',
  'public.api_keys',
  'public.projects',
  'public.tasks',
  'public.task_dependencies',
  'public.comments',
  'public.activity',
];

async function seed(db: Db): Promise<void> {
  const ws = await ensureWorkspace(db, 'fixture', 'Fixture workspace');
  const owner = await ensureActor(db, ws.id, { kind: 'human', external_ref: 'email:ada@example.com', display_name: 'Ada', is_owner: true });
  const agent = await ensureActor(db, ws.id, { kind: 'agent', external_ref: 'agent:builder', display_name: 'Builder' });
  await mintKey(db, ws.id, agent.id, 'fixture key');
  const as = (id: string, run: string) => {
    const claims: Claims = { sub: id, role: 'authenticated', tenant_id: ws.id, actor_id: id, run_id: run };
    return async (tool: string, input: unknown) => {
      const r = await execute({ db, claims }, tool, input);
      if (!r.ok) throw new Error(`${tool}: ${r.error.code} ${r.error.message}`);
      return r as Record<string, any>;
    };
  };
  const human = as(owner.id, 'run-fixture-human');
  const bot = as(agent.id, 'run-fixture-agent');
  await human('project_create', { title: 'Payments', key: 'PAY', summary: 'Card payments' });
  await human('project_create', { title: 'Docs', key: 'DOC' });
  const many = await human('task_create_many', {
    project_id: 'PAY',
    tasks: [
      { title: 'Schema for charges', priority: 1, labels: ['db'] },
      { title: 'Charge endpoint', depends_on: [{ batch_index: 0 }], labels: ['api'],
        acceptance_criteria: [{ text: 'returns 201', met: false }] },
      { title: 'Refunds', depends_on: [{ batch_index: 1 }] },
    ],
  });
  const [schema, endpoint] = many.task_ids as string[];
  await bot('task_claim', { task_id: schema, lease_seconds: 3600 });
  await bot('comment_add', { object_type: 'task', object_id: schema, body: 'Started on the charges table.' });
  await bot('task_update', { task_id: schema, patch: { status: 'done' } });
  await bot('task_claim', { task_id: endpoint, lease_seconds: 3600 });
  await human('task_create', { project_id: 'DOC', title: 'Write the guide', body: 'Outline first.' });
  await human('task_update', { task_id: 'DOC-1', patch: { status: 'backlog' }, idempotency_key: 'fixture-key-1' });
}

async function counts(db: Db): Promise<Record<string, number>> {
  const r: Record<string, number> = {};
  for (const t of FIXTURE_TABLES) r[t] = Number((await db.query<{ n: number }>(`select count(*)::int as n from ${t}`))[0].n);
  return r;
}

async function main(): Promise<void> {
  // PGlite: a data directory, as a user's .bullpen/data holds it
  const { PGlite } = await import('@electric-sql/pglite');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { pgcrypto } = await import('@electric-sql/pglite/contrib/pgcrypto');
  const { wrapPglite } = await import('../lib/db/pglite');
  const lite = await PGlite.create({ extensions: { vector, pg_trgm, pgcrypto } });
  const db = wrapPglite(lite);
  await migrate(db);
  await seed(db);
  const liteCounts = await counts(db);
  const blob = (await lite.dumpDataDir('gzip')) as Blob;
  writeFileSync(path.join(out, 'pglite.tar.gz'), Buffer.from(await blob.arrayBuffer()));
  await lite.close();
  const meta: Record<string, unknown> = { made_by: process.env.npm_package_version ?? 'bullpen', pglite: liteCounts };

  const admin = process.env.DATABASE_URL;
  if (admin) {
    const name = `bp_fixture_${Date.now()}`;
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`create database ${name}`);
    const url = new URL(admin);
    url.pathname = `/${name}`;
    const { openPg } = await import('../lib/db/pg');
    const pdb = await openPg(url.toString());
    await migrate(pdb);
    await seed(pdb);
    meta.pg = await counts(pdb);
    await pdb.close();
    const dump = execFileSync('pg_dump', ['--no-owner', '--dbname', url.toString()], { encoding: 'utf8', maxBuffer: 1 << 28 });
    writeFileSync(path.join(out, 'pg.sql'), dump);
    await c.query(`drop database ${name} with (force)`);
    await c.end();
  }
  writeFileSync(path.join(out, 'meta.json'), JSON.stringify(meta, null, 2) + '\n');
  console.log(`fixture written to ${out}`, meta);
}

await main();
