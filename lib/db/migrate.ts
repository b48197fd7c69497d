import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Db, Session } from './types';
import { env } from '../shared/env';

/** Where the SQL lives: supabase/ at the project root. */
export function supabaseDir(): string {
  return path.resolve(env('BULLPEN_ROOT') ?? process.cwd(), 'supabase');
}

/** Every starter on one database queues on this lock; only one migrates at a time. */
const MIGRATE_LOCK = 7405291;

export type SqlFile = { name: string; sql: string; checksum: string };

/** sha256 of a file's bytes with line endings normalised, so a checkout's CRLF changes nothing. */
export function checksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

async function sqlFiles(dir: string): Promise<SqlFile[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  } catch {
    return [];
  }
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name), 'utf8');
      return { name, sql, checksum: checksum(sql) };
    }),
  );
}

/** Forward-only migrations (tables, indexes, policies, grants): applied once, never edited. */
export function migrationFiles(dir = supabaseDir()): Promise<SqlFile[]> {
  return sqlFiles(path.join(dir, 'migrations'));
}

/** Definitions (functions, triggers, views): re-applied, all in order, whenever one changes. */
export function definitionFiles(dir = supabaseDir()): Promise<SqlFile[]> {
  return sqlFiles(path.join(dir, 'definitions'));
}

/** A landed migration whose file no longer matches what this database applied. */
export class MigrationChangedError extends Error {
  constructor(
    readonly file: string,
    readonly recorded: string,
    readonly current: string,
  ) {
    super(
      `supabase/migrations/${file} changed after this database applied it ` +
        `(applied sha256 ${recorded.slice(0, 12)}…, file now ${current.slice(0, 12)}…). ` +
        `A landed migration never changes: restore the file and put the change in a new migration ` +
        `(functions, triggers and views belong in supabase/definitions/, which upgrades re-apply).`,
    );
    this.name = 'MigrationChangedError';
  }
}

export type MigrateResult = { applied: string[]; definitions: boolean };

/** What migrate() is doing, for start-up to print: each pending migration (n of m), then the definitions. */
export type MigrateProgress = { step: 'migration'; n: number; of: number; name: string } | { step: 'definitions'; files: number };
export type MigrateOptions = { onProgress?: (p: MigrateProgress) => void };

/** Files that need pgvector are skipped where the extension is missing; they apply once it appears. */
function needsVector(name: string): boolean {
  return name.includes('vector');
}

/**
 * Brings the database to this checkout's schema, all under one session-level advisory lock, so
 * instances starting together on one database queue instead of racing:
 * 1. the compat bootstrap (unless this is Supabase);
 * 2. checks every applied migration's checksum: a changed landed file stops start-up, naming it;
 *    rows from releases that recorded names only are stamped with the file's checksum;
 * 3. applies pending migrations in name order, each in its own transaction;
 * 4. re-applies every definition file in one transaction when any of them (or the set of
 *    migrations) changed since the last start.
 */
export async function migrate(db: Db, dir = supabaseDir(), opts: MigrateOptions = {}): Promise<MigrateResult> {
  // the embedded database is one connection, where a session lock does not exclude the same
  // session: calls on one Db queue here as well
  const prev = running.get(db) ?? Promise.resolve();
  const next = prev.catch(() => {}).then(() => migrateOnce(db, dir, opts));
  running.set(db, next);
  try {
    return await next;
  } finally {
    if (running.get(db) === next) running.delete(db);
  }
}

const running = new WeakMap<Db, Promise<MigrateResult>>();

async function migrateOnce(db: Db, dir: string, opts: MigrateOptions): Promise<MigrateResult> {
  const migrations = await migrationFiles(dir);
  const definitions = await definitionFiles(dir);
  const bootstrap = await readFile(path.join(dir, 'compat', '0000_bootstrap.sql'), 'utf8');
  return db.session(async (s) => {
    await s.exec(`select pg_advisory_lock(${MIGRATE_LOCK})`);
    try {
      return await migrateLocked(s, db.vector, bootstrap, migrations, definitions, opts.onProgress ?? (() => {}));
    } finally {
      await s.exec(`select pg_advisory_unlock(${MIGRATE_LOCK})`).catch(() => {});
    }
  });
}

async function inTransaction(s: Session, sql: string, what: string): Promise<void> {
  try {
    await s.exec(`begin;\n${sql}\n;commit;`);
  } catch (err) {
    await s.exec('rollback').catch(() => {});
    throw new Error(`${what} failed: ${(err as Error).message}`);
  }
}

const q = (v: string) => `'${v.replace(/'/g, "''")}'`;

async function migrateLocked(
  s: Session,
  vector: boolean,
  bootstrap: string,
  migrations: SqlFile[],
  definitions: SqlFile[],
  progress: (p: MigrateProgress) => void,
): Promise<MigrateResult> {
  const [{ supabase }] = await s.query<{ supabase: boolean }>(
    `select exists(select 1 from pg_roles where rolname = 'supabase_admin') as supabase`,
  );
  if (!supabase) await s.exec(bootstrap);
  await s.exec(`
    create schema if not exists bullpen;
    create table if not exists bullpen.migrations (name text primary key, applied_at timestamptz not null default now());
    alter table bullpen.migrations add column if not exists checksum text;
    alter table bullpen.migrations add column if not exists kind text not null default 'migration';
    do $$
    begin
      -- a definition file and a migration may share a name
      if (select array_length(conkey, 1) from pg_constraint
           where conrelid = 'bullpen.migrations'::regclass and contype = 'p') = 1 then
        alter table bullpen.migrations drop constraint migrations_pkey;
        alter table bullpen.migrations add constraint migrations_pkey primary key (kind, name);
      end if;
    end
    $$;
    alter table bullpen.migrations enable row level security;
    alter table bullpen.migrations force row level security;
  `);
  const rows = await s.query<{ name: string; checksum: string | null; kind: string }>(
    `select name, checksum, kind from bullpen.migrations`,
  );
  const applied = new Map(rows.filter((r) => r.kind === 'migration').map((r) => [r.name, r.checksum]));
  const defined = new Map(rows.filter((r) => r.kind === 'definition').map((r) => [r.name, r.checksum]));

  for (const f of migrations) {
    const recorded = applied.get(f.name);
    if (recorded === undefined) continue;
    if (recorded === null) {
      // applied by a release that recorded names only: the file as it stands is what it ran
      await s.query(`update bullpen.migrations set checksum = $1 where name = $2 and kind = 'migration'`, [f.checksum, f.name]);
    } else if (recorded !== f.checksum) {
      throw new MigrationChangedError(f.name, recorded, f.checksum);
    }
  }

  const done: string[] = [];
  const pending = migrations.filter((f) => !applied.has(f.name) && (vector || !needsVector(f.name)));
  for (const f of pending) {
    progress({ step: 'migration', n: done.length + 1, of: pending.length, name: f.name });
    await inTransaction(
      s,
      `${f.sql}\n;insert into bullpen.migrations (name, checksum, kind) values (${q(f.name)}, ${q(f.checksum)}, 'migration');`,
      `migration ${f.name}`,
    );
    done.push(f.name);
  }

  const wanted = definitions.filter((f) => !needsVector(f.name) || vector);
  const stale =
    done.length > 0 || wanted.length !== defined.size || wanted.some((f) => defined.get(f.name) !== f.checksum);
  if (stale && wanted.length) {
    progress({ step: 'definitions', files: wanted.length });
    const body = wanted.map((f) => `-- ${f.name}\n${f.sql}`).join('\n;\n');
    const record = wanted
      .map((f) => `insert into bullpen.migrations (name, checksum, kind) values (${q(f.name)}, ${q(f.checksum)}, 'definition');`)
      .join('\n');
    await inTransaction(
      s,
      `${body}\n;delete from bullpen.migrations where kind = 'definition';\n${record}`,
      `definitions (${wanted.map((f) => f.name).join(', ')})`,
    );
  }
  return { applied: done, definitions: stale && wanted.length > 0 };
}
