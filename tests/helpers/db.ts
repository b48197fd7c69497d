import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { execute, type Envelope } from '../../lib/core/execute';
import { getTool } from '../../lib/core/registry';
import type { ToolContext } from '../../lib/core/tool';
import { migrate } from '../../lib/db/migrate';
import type { Claims, Db } from '../../lib/db/types';
import { ensureActor, ensureWorkspace } from '../../lib/server/workspace';
import '../../lib/server/wiring';

/** pg when the pg project runs (a real Postgres via DATABASE_URL), else embedded PGlite. */
export const target: 'pg' | 'pglite' = process.env.BULLPEN_TEST_TARGET === 'pg' ? 'pg' : 'pglite';

export type TestDb = Db & { drop: () => Promise<void> };

/**
 * Whether the Postgres of the pg suite has pgvector installed (npm test builds it from vendor/;
 * without root it cannot, and the pg suite runs the fallback only). PGlite always has it.
 */
export async function pgvectorInstalled(): Promise<boolean> {
  if (target === 'pglite') return true;
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  try {
    const { rows } = await c.query(`select exists(select 1 from pg_available_extensions where name = 'vector') as v`);
    return rows[0].v as boolean;
  } finally {
    await c.end();
  }
}

/** A database opened as if pgvector were not installed: the vector migration and definitions are skipped, the extension never created. */
function withoutVectors<T extends Db>(db: T, vector: boolean | undefined): T {
  if (vector === false) (db as { vector: boolean }).vector = false;
  return db;
}

/**
 * A fresh, migrated database for one test file: an in-memory PGlite, or a new database on the
 * Postgres server named by DATABASE_URL (dropped afterwards). opts.vector = false: a database where
 * the pgvector extension is not created (the fallback), whether or not the server has it.
 */
export async function freshDb(opts: { vector?: boolean } = {}): Promise<TestDb> {
  if (target === 'pglite') {
    const { openPglite } = await import('../../lib/db/pglite');
    const db = withoutVectors(await openPglite(), opts.vector);
    await migrate(db);
    return Object.assign(db, { drop: () => db.close() });
  }
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error('the pg project needs DATABASE_URL (a Postgres ≥ 15 superuser URL); .ci/run and npm test set it');
  const name = `bp_test_${randomBytes(6).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const { openPg } = await import('../../lib/db/pg');
  const db = withoutVectors(await openPg(url.toString(), { max: 40 }), opts.vector);
  await migrate(db);
  return Object.assign(db, {
    drop: async () => {
      await db.close();
      // let sockets that are still closing finish before the drop terminates whatever is left
      await new Promise((r) => setTimeout(r, 50));
      const c2 = new pg.Client({ connectionString: admin });
      await c2.connect();
      await c2.query(`drop database if exists ${name} with (force)`);
      await c2.end();
    },
  });
}

/**
 * A database that outlives its connections, for restart and multi-instance tests: open() gives a
 * new migrated handle each time — PGlite on a temp data dir (one open at a time), or a new pool on
 * a fresh Postgres database. drop() removes it all (close the handles first). open({vector: false})
 * opens it as if pgvector were not installed (an upgrade test opens it again with it).
 */
export async function reopenableDb(): Promise<{ open: (opts?: { vector?: boolean }) => Promise<Db>; drop: () => Promise<void> }> {
  if (target === 'pglite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-reopen-'));
    const { openPglite } = await import('../../lib/db/pglite');
    return {
      open: async (opts = {}) => {
        const db = withoutVectors(await openPglite(dir), opts.vector);
        await migrate(db);
        return db;
      },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const admin = process.env.DATABASE_URL;
  if (!admin) throw new Error('the pg project needs DATABASE_URL');
  const name = `bp_test_${randomBytes(6).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  const { openPg } = await import('../../lib/db/pg');
  return {
    open: async (opts = {}) => {
      const db = withoutVectors(await openPg(url.toString(), { max: 10 }), opts.vector);
      await migrate(db);
      return db;
    },
    drop: async () => {
      const c2 = new pg.Client({ connectionString: admin });
      await c2.connect();
      await c2.query(`drop database if exists ${name} with (force)`);
      await c2.end();
    },
  };
}

export type Actor = { id: string; claims: Claims; ctx: ToolContext; call: (tool: string, input?: unknown) => Promise<Envelope> };
export type Tenant = { id: string; slug: string; agent: Actor; human: Actor; addAgent: (name: string) => Promise<Actor> };

/**
 * Checks an {ok:true} envelope against the tool's output schema and throws, naming the tool and
 * the path of each mismatch, when the answer drifted from the contract. Every db test's calls go
 * through here, so every tool's real answers are checked on PGlite and on Postgres.
 */
export function assertOutput(tool: string, env: Envelope): Envelope {
  if (!env.ok) return env;
  const def = getTool(tool);
  if (!def) return env;
  const { ok: _ok, ...body } = env;
  const r = def.output.safeParse(body);
  if (!r.success) {
    const issues = r.error.issues
      .slice(0, 8)
      .map((i) => `  ${i.path.map(String).join('.') || '(body)'}: ${i.message}${i.code === 'unrecognized_keys' ? ` (${i.keys.join(', ')})` : ''}`)
      .join('\n');
    throw new Error(`${tool}: the answer does not match its output schema\n${issues}\n${JSON.stringify(body).slice(0, 600)}`);
  }
  return env;
}

// each actor its own run: a run belongs to the actor that started it
function actorHandle(db: Db, tenantId: string, id: string, kind: 'agent' | 'human', runId = `run-test-${id.slice(0, 8)}`): Actor {
  const claims: Claims = { sub: id, role: 'authenticated', tenant_id: tenantId, actor_id: id, run_id: runId, kind };
  const ctx = { db, claims };
  return { id, claims, ctx, call: async (tool, input = {}) => assertOutput(tool, await execute(ctx, tool, input)) };
}

/** A workspace with one agent and one human owner, each with a call() bound to its claims. */
export async function seedTenant(db: Db, slug = `t-${randomBytes(4).toString('hex')}`): Promise<Tenant> {
  const ws = await ensureWorkspace(db, slug, slug);
  const agent = await ensureActor(db, ws.id, { kind: 'agent', external_ref: `agent:${slug}`, display_name: `Agent ${slug}` });
  const human = await ensureActor(db, ws.id, { kind: 'human', external_ref: `human:${slug}`, display_name: `Human ${slug}`, is_owner: true });
  return {
    id: ws.id,
    slug: ws.slug,
    agent: actorHandle(db, ws.id, agent.id, 'agent'),
    human: actorHandle(db, ws.id, human.id, 'human'),
    addAgent: async (name: string) => {
      const a = await ensureActor(db, ws.id, { kind: 'agent', external_ref: `agent:${slug}:${name}`, display_name: name });
      return actorHandle(db, ws.id, a.id, 'agent', `run-${name}`);
    },
  };
}

/** Asserts an envelope is ok and returns it typed loosely for further checks. */
export function ok(env: Envelope): Record<string, any> {
  if (!env.ok) throw new Error(`expected ok, got ${env.error.code}: ${env.error.message}`);
  return env as Record<string, any>;
}

/** Asserts an envelope failed with the code and returns the error. */
export function fails(env: Envelope, code: string): { code: string; message: string; hint: string; retryable: boolean; details?: any } {
  if (env.ok) throw new Error(`expected ${code}, got ok: ${JSON.stringify(env).slice(0, 300)}`);
  if (env.error.code !== code) throw new Error(`expected ${code}, got ${env.error.code}: ${env.error.message}`);
  return env.error as never;
}
