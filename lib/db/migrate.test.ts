import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { definitionFiles, migrationFiles } from './migrate';

const root = path.resolve(import.meta.dirname, '..', '..', 'supabase');

/** The committed record of landed migrations: "sha256  file" per line. */
function landed(): Map<string, string> {
  const text = readFileSync(path.join(root, 'migrations', 'landed.sha256'), 'utf8');
  return new Map(text.split('\n').filter(Boolean).map((l) => l.split(/\s+/)).map(([h, f]) => [f, h]));
}

describe('landed migrations never change', () => {
  it('every migration file matches its recorded checksum (edit a landed file → this fails)', async () => {
    const record = landed();
    const files = await migrationFiles(root);
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const f of files) {
      expect(record.get(f.name), `${f.name} is not in supabase/migrations/landed.sha256: run npm run migrations:land`).toBeDefined();
      expect(f.checksum, `${f.name} changed after it landed: put the change in a new migration`).toBe(record.get(f.name));
    }
  });

  it('every recorded migration still exists', async () => {
    const names = new Set((await migrationFiles(root)).map((f) => f.name));
    for (const f of landed().keys()) expect(names.has(f), `${f} was deleted after it landed`).toBe(true);
  });
});

describe('definitions', () => {
  it('hold only re-runnable statements: no create table, no bare create function or trigger', async () => {
    for (const f of await definitionFiles(root)) {
      const sql = f.sql.replace(/--.*$/gm, '');
      expect(sql, f.name).not.toMatch(/\bcreate\s+table\b/i);
      expect(sql, f.name).not.toMatch(/\bcreate\s+function\b/i);
      expect(sql, f.name).not.toMatch(/\bcreate\s+trigger\b/i);
      expect(sql, f.name).not.toMatch(/\bcreate\s+view\b/i);
    }
  });

  it('never grant execute on all functions', async () => {
    for (const f of [...(await definitionFiles(root)), ...(await migrationFiles(root)).filter((m) => m.name >= '0006')]) {
      expect(f.sql, f.name).not.toMatch(/grant\s+execute\s+on\s+all\s+functions/i);
    }
  });

  it('make every public RPC security definer with an empty search_path, owned by bullpen_writer', async () => {
    for (const f of await definitionFiles(root)) {
      for (const m of f.sql.matchAll(/create or replace function (public\.[a-z_]+)\(p jsonb\)[\s\S]*?\nas \$\$/g)) {
        expect(m[0], `${m[1]} in ${f.name}`).toMatch(/security definer/);
        expect(m[0], `${m[1]} in ${f.name}`).toMatch(/set search_path = ''/);
        expect(f.sql, `${m[1]} in ${f.name}`).toContain(`alter function ${m[1]}(jsonb) owner to bullpen_writer;`);
        expect(f.sql, `${m[1]} in ${f.name}`).toContain(`grant execute on function ${m[1]}(jsonb) to authenticated`);
      }
    }
  });
});
