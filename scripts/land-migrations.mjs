#!/usr/bin/env node
// Records the checksum of every migration in supabase/migrations/landed.sha256. New files are
// added; a file whose recorded checksum differs is refused: a landed migration never changes.
//   npm run migrations:land
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'supabase', 'migrations');
const list = path.join(dir, 'landed.sha256');
const sum = (f) => createHash('sha256').update(readFileSync(path.join(dir, f), 'utf8').replace(/\r\n/g, '\n')).digest('hex');
const landed = new Map(
  (existsSync(list) ? readFileSync(list, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(/\s+/))
    .map(([h, f]) => [f, h]),
);
let bad = 0;
for (const f of readdirSync(dir).filter((n) => /^\d{4}_.+\.sql$/.test(n)).sort()) {
  const h = sum(f);
  if (!landed.has(f)) {
    landed.set(f, h);
    console.log(`landed ${f}`);
  } else if (landed.get(f) !== h) {
    console.error(`${f} changed after it landed: put the change in a new migration (or in supabase/definitions/)`);
    bad++;
  }
}
if (bad) process.exit(1);
writeFileSync(list, [...landed].sort(([a], [b]) => a.localeCompare(b)).map(([f, h]) => `${h}  ${f}`).join('\n') + '\n');
