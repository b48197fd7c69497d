import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localStore, uploadAndAttach } from '../../lib/server/files';
import { fails, freshDb, ok, seedTenant, target, type Tenant, type TestDb } from '../helpers/db';

/**
 * Tenant isolation proofs for the files room's own table, public.stored_files (the bytes the server
 * stored): workspace B can neither read A's records, nor write any, nor attach A's files by path.
 * tests/db/isolation.test.ts finds the insert proof below by its text.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
let dir: string;
let aPath: string;
let proofs = 0;

beforeAll(async () => {
  db = await freshDb();
  A = await seedTenant(db, 'files-a');
  B = await seedTenant(db, 'files-b');
  dir = mkdtempSync(path.join(tmpdir(), 'bullpen-iso-stored-'));
  ok(await A.agent.call('project_create', { title: 'Secret', key: 'SEC' }));
  ok(await B.agent.call('project_create', { title: 'Open', key: 'OPN' }));
  const up = ok(await uploadAndAttach({ db, claims: A.agent.claims }, { object_type: 'project', object_id: 'SEC', filename: 'secret.txt', content_type: 'text/plain' }, new TextEncoder().encode('secret'), localStore(dir)));
  aPath = up.attachment.storage_path;
  ok(await uploadAndAttach({ db, claims: B.agent.claims }, { object_type: 'project', object_id: 'OPN', filename: 'open.txt', content_type: 'text/plain' }, new TextEncoder().encode('open'), localStore(dir)));
});
afterAll(async () => {
  console.log(`[isolation-files:${target}] ${proofs} tenant isolation proofs passed`);
  rmSync(dir, { recursive: true, force: true });
  await db.drop();
});

describe('public.stored_files', () => {
  it('has RLS enabled and forced; B sees none of A’s records while A sees its own', async () => {
    const [r] = await db.query<{ rls: boolean; forced: boolean }>(`select relrowsecurity as rls, relforcerowsecurity as forced from pg_class where oid = 'public.stored_files'::regclass`);
    expect(r).toEqual({ rls: true, forced: true });
    const seen = await db.withClaims<{ n: number }>(B.agent.claims, `select count(*)::int as n from public.stored_files where tenant_id = '${A.id}'`);
    expect(seen[0].n).toBe(0);
    const own = await db.withClaims<{ n: number }>(A.agent.claims, `select count(*)::int as n from public.stored_files where tenant_id = '${A.id}'`);
    expect(own[0].n).toBe(1);
    proofs += 2;
  });

  it('refuses every write by the API roles: only the server records stored bytes', async () => {
    const attempts = [
      `insert into public.stored_files (tenant_id, storage_path, size_bytes, mime_type) values ('${A.id}', '${A.id}/x/evil.txt', 1, 'text/plain')`,
      `insert into public.stored_files (tenant_id, storage_path, size_bytes, mime_type) values ('${B.id}', '${B.id}/x/mine.txt', 1, 'text/plain')`,
      `update public.stored_files set size_bytes = 0`,
      `delete from public.stored_files`,
    ];
    for (const sql of attempts) {
      await expect(db.withClaims(B.agent.claims, sql), sql).rejects.toMatchObject({ code: '42501' });
      proofs++;
    }
  });

  it('B cannot attach A’s stored file by its path', async () => {
    const e = fails(await B.agent.call('attach_add', { object_type: 'project', object_id: 'OPN', kind: 'file', storage_path: aPath }), 'VALIDATION_ERROR');
    expect(e.details).toMatchObject({ fields: ['storage_path'] });
    proofs++;
  });
});
