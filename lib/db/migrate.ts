import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from './types';

/** Where the SQL lives: supabase/ at the project root. */
export function supabaseDir(): string {
  return path.resolve(process.env.BULLPEN_ROOT ?? process.cwd(), 'supabase');
}

/**
 * Applies the compat bootstrap (unless this is Supabase) and every migration not yet recorded,
 * in file-name order, each in its own transaction. Migrations that need pgvector are skipped where
 * the extension is missing; they apply later if it appears. Returns the names applied now.
 */
export async function migrate(db: Db, dir = supabaseDir()): Promise<string[]> {
  const [{ supabase }] = await db.query<{ supabase: boolean }>(
    `select exists(select 1 from pg_roles where rolname = 'supabase_admin') as supabase`,
  );
  if (!supabase) {
    await db.exec(await readFile(path.join(dir, 'compat', '0000_bootstrap.sql'), 'utf8'));
  }
  await db.exec(`
    create schema if not exists bullpen;
    create table if not exists bullpen.migrations (name text primary key, applied_at timestamptz not null default now());
    alter table bullpen.migrations enable row level security;
    alter table bullpen.migrations force row level security;
  `);
  const done = new Set((await db.query<{ name: string }>(`select name from bullpen.migrations`)).map((r) => r.name));
  const files = (await readdir(path.join(dir, 'migrations'))).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file)) continue;
    if (file.includes('vector') && !db.vector) continue;
    const sql = await readFile(path.join(dir, 'migrations', file), 'utf8');
    // serialize concurrent starters on one database
    await db.exec(
      `begin; select pg_advisory_xact_lock(7405291); ${sql}\n; insert into bullpen.migrations (name) values ('${file}'); commit;`,
    ).catch(async (err) => {
      await db.exec('rollback').catch(() => {});
      throw new Error(`migration ${file} failed: ${(err as Error).message}`);
    });
    applied.push(file);
  }
  return applied;
}
