import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPglite } from '../../lib/db/pglite';
import { exportWorkspace, type ExportDoc } from '../../lib/server/export';
import { call, mintKey } from '../../scripts/fuzz/run';

/**
 * Data the user keeps, through the bullpen command as a user runs it, against the started server
 * (which holds the embedded database, so backup, export and import go through its admin routes):
 * a backup taken while an agent writes restores into an empty directory with every write that was
 * acknowledged before it began; restore refuses a directory that holds anything; an export
 * imported into a new workspace exports again identical, row by row.
 */

const server = inject('server');
const root = path.resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-data-'));
const serverEnv = { ...process.env, BULLPEN_DATA_DIR: server.dataDir } as Record<string, string | undefined>;
delete serverEnv.DATABASE_URL;
const slug = `keep-${Date.now().toString(36)}`;
let key: string;

type Run = { code: number; stdout: string; stderr: string };
function bullpen(env: Record<string, string | undefined>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(root, 'bin/bullpen.mjs'), ...args], { cwd: dir, env: env as NodeJS.ProcessEnv, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Everything but the sequence numbers activity rows get anew on import, and the workspace id (storage paths start with it). */
function content(doc: ExportDoc): Record<string, unknown[]> {
  const rows = Object.fromEntries(Object.entries(doc.tables).map(([k, rows]) => [k, k === 'activity' ? rows.map(({ id: _id, ...r }) => r) : rows]));
  return JSON.parse(JSON.stringify(rows).replaceAll(doc.workspace.id, 'WS')) as Record<string, unknown[]>;
}

/** A file the workspace holds: its bytes must travel with the export and download after the import (1.5 MiB, so the export passes the front door only by the import route's own limit). */
const fileBytes = new Uint8Array(Array.from({ length: 1536 * 1024 }, (_, i) => (i * 7919) % 251));

beforeAll(async () => {
  key = (await mintKey(server.url, server.adminToken, slug, 'keeper')).key;
  await call(server.url, key, 'project_create', { title: 'Keep me', key: 'KEEP', description: 'Everything here must survive' });
  await call(server.url, key, 'task_create_many', {
    project_id: 'KEEP',
    tasks: [{ title: 'first', acceptance_criteria: ['one', { text: 'two', met: true }] }, { title: 'second', depends_on: [{ batch_index: 0 }] }],
  });
  await call(server.url, key, 'comment_add', { object_type: 'task', object_id: 'KEEP-2', body: 'Ünïcødé, "quotes" and\nnewlines' });
  const up = await fetch(`${server.url}/api/files?object_type=task&object_id=KEEP-1&filename=measurements.bin`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
    body: fileBytes,
  });
  expect(up.status, await up.clone().text()).toBe(201);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bullpen backup and restore', () => {
  it('backs up while the server runs and an agent writes; the restore has every write acknowledged before the backup began, whole', async () => {
    const acked: string[] = [];
    let writing = true;
    let n = 0;
    const writer = (async () => {
      while (writing) {
        const r = await call(server.url, key, 'task_create', { project_id: 'KEEP', title: `during backup ${n++}` });
        acked.push(r.task_id as string);
      }
    })();
    const waitUntil = Date.now() + 30_000;
    while (acked.length < 5 && Date.now() < waitUntil) await new Promise((r) => setTimeout(r, 10));
    expect(acked.length).toBeGreaterThanOrEqual(5);
    const ackedBefore = [...acked];
    const file = path.join(dir, 'live.tar.gz');
    const backup = await bullpen(serverEnv, 'backup', '--out', file, '--json');
    writing = false;
    await writer;
    expect(backup.code, backup.stderr).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({ file, while_running: true });
    expect(readFileSync(file).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));

    const target = path.join(dir, 'restored');
    const restore = await bullpen(serverEnv, 'restore', file, '--data-dir', target, '--json');
    expect(restore.code, restore.stderr).toBe(0);
    expect(JSON.parse(restore.stdout).workspaces).toEqual(expect.arrayContaining([expect.objectContaining({ slug })]));

    const db = await openPglite(target);
    try {
      const ids = new Set((await db.query<{ id: string }>(`select id from public.tasks`)).map((r) => r.id));
      expect(ackedBefore.filter((id) => !ids.has(id))).toEqual([]);
      // consistent: no task without its creation in the log, every project's counter matches its tasks
      const [bad] = await db.query<{ unlogged: number; miscounted: number }>(
        `select (select count(*)::int from public.tasks t where not exists (select 1 from public.activity a where a.tenant_id = t.tenant_id and a.object_id = t.id and a.verb = 'task.created')) as unlogged,
                (select count(*)::int from public.projects p where p.task_seq <> (select count(*) from public.tasks t where t.tenant_id = p.tenant_id and t.project_id = p.id)) as miscounted`,
      );
      expect(bad).toEqual({ unlogged: 0, miscounted: 0 });
      console.log(
        `[data] backup while writing: ${(readFileSync(file).length / 1024).toFixed(0)} KB; ${ackedBefore.length} writes acknowledged before it began, all restored; ` +
          `${acked.filter((id) => ids.has(id)).length}/${acked.length} of all writes during the run are in it; 0 half-written rows`,
      );
    } finally {
      await db.close();
    }
  });

  it('restore refuses a directory that holds anything, and a file that is not a backup; nothing is touched', async () => {
    const full = path.join(dir, 'occupied');
    mkdirSync(full);
    writeFileSync(path.join(full, 'keep.txt'), 'mine');
    const file = path.join(dir, 'live.tar.gz');
    const r = await bullpen(serverEnv, 'restore', file, '--data-dir', full);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ALREADY_EXISTS');
    expect(r.stderr).toContain('not empty');
    expect(readdirSync(full)).toEqual(['keep.txt']);
    const junk = path.join(dir, 'junk.tar.gz');
    writeFileSync(junk, 'this is not a backup '.repeat(100));
    const empty = path.join(dir, 'for-junk');
    const j = await bullpen(serverEnv, 'restore', junk, '--data-dir', empty);
    expect(j.code).toBe(1);
    expect(j.stderr).toContain('not a backup');
    expect(existsSync(empty) ? readdirSync(empty) : []).toEqual([]);
  });

  it('backs up an embedded database no server holds, directly; that copy restores to the same rows', async () => {
    const offline = { ...serverEnv, BULLPEN_DATA_DIR: path.join(dir, 'restored') };
    const file = path.join(dir, 'offline.tar.gz');
    const backup = await bullpen(offline, 'backup', '--out', file, '--json');
    expect(backup.code, backup.stderr).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({ while_running: false });
    const again = path.join(dir, 'restored-again');
    expect((await bullpen(offline, 'restore', file, '--data-dir', again)).code).toBe(0);
    const [a, b] = [await openPglite(path.join(dir, 'restored')), await openPglite(again)];
    try {
      expect(content(await exportWorkspace(b, slug))).toEqual(content(await exportWorkspace(a, slug)));
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('bullpen export and import', () => {
  it('exports JSON and Markdown; import into a new workspace; export again: identical, row by row', async () => {
    const out = path.join(dir, 'keep.json');
    const ex = await bullpen(serverEnv, 'export', '--workspace', slug, '--out', out, '--json');
    expect(ex.code, ex.stderr).toBe(0);
    expect(JSON.parse(ex.stdout)).toMatchObject({ file: out, markdown: path.join(dir, 'keep.md'), workspace: slug });
    const doc = JSON.parse(readFileSync(out, 'utf8')) as ExportDoc;
    expect(doc.counts.tasks).toBeGreaterThanOrEqual(7);
    const md = readFileSync(path.join(dir, 'keep.md'), 'utf8');
    expect(md).toContain('## KEEP — Keep me');
    expect(md).toContain('- [x] two');
    expect(md).toContain('> Ünïcødé, "quotes" and');

    const copy = `${slug}-copy`;
    const im = await bullpen(serverEnv, 'import', out, '--workspace', copy);
    expect(im.code, im.stderr).toBe(0);
    expect(im.stdout).toContain(`Imported into workspace ${copy} (created now)`);
    const out2 = path.join(dir, 'copy.json');
    expect((await bullpen(serverEnv, 'export', '--workspace', copy, '--out', out2, '--no-markdown')).code).toBe(0);
    const doc2 = JSON.parse(readFileSync(out2, 'utf8')) as ExportDoc;
    expect(content(doc2)).toEqual(content(doc));
    // the file's bytes travelled (the CLI streamed the file to the running server) and download from the copy
    expect(doc.files).toHaveLength(1);
    expect(doc2.files).toHaveLength(1);
    expect(doc2.files![0].sha256).toBe(doc.files![0].sha256);
    expect(existsSync(path.join(dir, 'copy.md'))).toBe(false);
    // a second import into the now populated workspace is refused and changes nothing
    const again = await bullpen(serverEnv, 'import', out, '--workspace', copy);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('ALREADY_EXISTS');
    // an agent of the imported workspace gets a key and finds its work
    const agent = await mintKey(server.url, server.adminToken, copy, 'keeper');
    const got = await call(server.url, agent.key, 'task_get', { task_id: 'KEEP-2' });
    expect(got.task).toMatchObject({ title: 'second' });
    const listed = await call(server.url, agent.key, 'attachment_query', { object_type: 'task', object_id: 'KEEP-1' });
    const file = (listed.attachments as { kind: string; download_url: string }[]).find((a) => a.kind === 'file')!;
    const dl = await fetch(`${server.url}${file.download_url}`, { headers: { authorization: `Bearer ${agent.key}` } });
    expect(dl.status).toBe(200);
    expect(new Uint8Array(await dl.arrayBuffer())).toEqual(fileBytes);
    console.log(`[data] export → import → export: ${Object.values(doc.counts).reduce((a, b) => a + b, 0)} rows in ${Object.keys(doc.tables).length} tables identical`);
  });

  it('imports directly when no server holds the database: the CLI reads the file itself, piece by piece', async () => {
    const out = path.join(dir, 'keep.json');
    const doc = JSON.parse(readFileSync(out, 'utf8')) as ExportDoc;
    const offline = { ...serverEnv, BULLPEN_DATA_DIR: path.join(dir, 'offline-import') };
    const direct = await bullpen(offline, 'import', out, '--workspace', 'direct-copy', '--json');
    expect(direct.code, direct.stderr).toBe(0);
    expect(JSON.parse(direct.stdout)).toMatchObject({ created_workspace: true, counts: { tasks: doc.counts.tasks }, files: { stored: 1, missing: 0 } });
  }, 240_000);

  it('exports a Logseq graph folder of the chosen types: private pages whose every [[link]] resolves', async () => {
    const folder = path.join(dir, 'graph');
    const ex = await bullpen(serverEnv, 'export', '--workspace', slug, '--format', 'logseq', '--types', 'task', '--out', folder, '--json');
    expect(ex.code, ex.stderr).toBe(0);
    const said = JSON.parse(ex.stdout) as { folder: string; pages: number; types: string[]; counts: Record<string, number> };
    expect(said).toMatchObject({ folder, types: ['task'], counts: { notes: 0 } });
    const files = readdirSync(path.join(folder, 'pages'));
    expect(files).toHaveLength(said.pages);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    const titles = new Set<string>();
    const links: string[] = [];
    for (const f of files) {
      const text = readFileSync(path.join(folder, 'pages', f), 'utf8');
      expect(statSync(path.join(folder, 'pages', f)).mode & 0o777).toBe(0o600);
      titles.add(/^title:: (.*)$/m.exec(text)![1].toLowerCase());
      links.push(...[...text.matchAll(/\[\[([^\]]*)\]\]/g)].map((m) => m[1]));
    }
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((l) => !titles.has(l.toLowerCase()))).toEqual([]);
    expect([...titles].some((t) => t.startsWith('keep-2 second'))).toBe(true);
    // a folder that holds anything is refused; so are an unknown format and an unknown type
    expect((await bullpen(serverEnv, 'export', '--workspace', slug, '--format', 'logseq', '--out', folder)).code).toBe(2);
    expect((await bullpen(serverEnv, 'export', '--workspace', slug, '--format', 'pdf')).stderr).toContain('choose json, markdown or logseq');
    const bad = await bullpen(serverEnv, 'export', '--workspace', slug, '--types', 'widgets');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no type widgets');
    // markdown alone, cut to the chosen types
    const md = path.join(dir, 'tasks-only.md');
    expect((await bullpen(serverEnv, 'export', '--workspace', slug, '--format', 'markdown', '--types', 'task', '--out', md)).code).toBe(0);
    expect(readFileSync(md, 'utf8')).toContain('## KEEP — Keep me');
  });

  it('explains itself: usage errors exit 2, an unknown workspace exits 1 with NOT_FOUND', async () => {
    expect((await bullpen(serverEnv, 'export')).code).toBe(2);
    const nf = await bullpen(serverEnv, 'export', '--workspace', 'no-such-workspace', '--out', path.join(dir, 'x.json'));
    expect(nf.code).toBe(1);
    expect(nf.stderr).toContain('NOT_FOUND');
    expect((await bullpen(serverEnv, 'import')).code).toBe(2);
    expect((await bullpen(serverEnv, 'restore')).code).toBe(2);
    // the admin routes behind them answer nobody without the per-start admin token
    for (const route of ['backup', 'export', 'import']) {
      const res = await fetch(`${server.url}/api/admin/${route}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-bullpen-admin-token': 'guess' }, body: '{"workspace":"x"}' });
      expect(res.status, route).toBe(401);
      expect((await res.json()).error.code).toBe('UNAUTHENTICATED');
    }
    const help = await bullpen(serverEnv, 'help');
    for (const cmd of ['bullpen backup', 'bullpen restore FILE', 'bullpen export --workspace SLUG', 'bullpen import FILE']) expect(help.stdout).toContain(cmd);
  });
});
