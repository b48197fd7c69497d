import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { dataDir } from '../db';
import { mkdirPrivate, writeFilePrivate } from '../db/private-fs';
import { backupEmbedded, restoreEmbedded } from '../server/backup';
import { DataError, exportWorkspace, importWorkspaceStream, type ExportDoc, type ImportResult } from '../server/export';
import { exportLogseq } from '../server/export-logseq';
import { exportMarkdown } from '../server/export-markdown';
import { filterExportTypes, parseExportTypes, type ExportType } from '../server/export-types';
import { shellQuote } from '../mcp/connect';
import { DataDirHeld, lockDataDir } from './data-lock';
import { commandArgs, usageExit } from './args';
import { adminStep, heldRefusal, readLiveServer, withDirectDb } from './server-file';
import { EXIT } from './tools';

/**
 * Data the user keeps: `bullpen backup` / `bullpen restore` for the embedded database, and
 * `bullpen export` / `bullpen import` for one workspace on either database. While a server runs
 * it holds the embedded database, so backup, export and import go through its admin routes (like
 * `bullpen agent add`); otherwise they open the database themselves.
 */

function stamp(): string {
  return new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

function refused(err: unknown): number {
  if (err instanceof DataError) {
    console.error(`bullpen: ${err.error.code}: ${err.error.message}\n  ${err.error.hint}`);
    return err.error.retryable ? EXIT.RETRYABLE : EXIT.FAILED;
  }
  console.error(`bullpen: ${(err as Error).message}`);
  return EXIT.FAILED;
}

function kib(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`;
}

const BACKUP_USAGE = `Usage: bullpen backup [--out FILE] [--json]

Copies the embedded database (BULLPEN_DATA_DIR) into one .tar.gz, consistent even while the server
runs and writes. Restore it with \`bullpen restore FILE\`. For a Postgres server (DATABASE_URL) use
pg_dump or your host’s backups; \`bullpen export\` works on both.`;

export async function backupCmd(argv: string[]): Promise<number> {
  const { values } = commandArgs(argv, { out: { type: 'string', short: 'o' }, json: { type: 'boolean' } });
  if (values.help) return usageExit(BACKUP_USAGE, true, console.log);
  const out = path.resolve(values.out ?? `bullpen-backup-${stamp()}.tar.gz`);
  const live = await readLiveServer();
  let tarball: Buffer;
  if (live) {
    const res = await fetch(`${live.url}/api/admin/backup`, { method: 'POST', headers: { 'x-bullpen-admin-token': live.admin_token } });
    if (!res.ok) {
      const env = (await res.json().catch(() => null)) as { error?: { code: string; message: string; hint: string; retryable: boolean } } | null;
      if (env?.error) return refused(new DataError(env.error as never));
      console.error(`bullpen: the running server answered HTTP ${res.status}`);
      return EXIT.FAILED;
    }
    tarball = Buffer.from(await res.arrayBuffer());
  } else {
    if (process.env.DATABASE_URL) {
      console.error('bullpen: DATABASE_URL names a Postgres server: back it up with pg_dump (or your host’s backups); `bullpen export --workspace SLUG` works on both');
      return EXIT.USAGE;
    }
    try {
      tarball = await withDirectDb('bullpen backup', (db) => backupEmbedded(db));
    } catch (err) {
      return refused(err);
    }
  }
  await writeFilePrivate(out, tarball);
  if (values.json) console.log(JSON.stringify({ file: out, bytes: tarball.length, while_running: !!live }));
  else console.log(`Backed up the embedded database${live ? ' (the server kept running)' : ''} to ${out} (${kib(tarball.length)}).\nRestore with: npx bullpen restore ${shellQuote(path.relative(process.cwd(), out) || out)} --data-dir EMPTY_DIR`);
  return EXIT.OK;
}

const RESTORE_USAGE = `Usage: bullpen restore FILE [--data-dir DIR] [--json]

Unpacks a backup from \`bullpen backup\` into an empty data directory (default BULLPEN_DATA_DIR,
.bullpen/data) and brings it up to this release. It never overwrites: move a current directory aside first.`;

export async function restoreCmd(argv: string[]): Promise<number> {
  const { values, positionals } = commandArgs(argv, { 'data-dir': { type: 'string' }, json: { type: 'boolean' } }, true);
  if (values.help || positionals.length !== 1) return usageExit(RESTORE_USAGE, !!values.help);
  const target = path.resolve(values['data-dir'] ?? dataDir());
  let archive: Buffer;
  try {
    archive = await readFile(positionals[0]);
  } catch (err) {
    console.error(`bullpen: cannot read ${positionals[0]}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return EXIT.USAGE;
  }
  // a restore fills a directory no one else may have open: it takes the directory's lock
  let lock;
  try {
    lock = await lockDataDir(target, { kind: 'cli', command: 'bullpen restore' });
  } catch (err) {
    if (err instanceof DataDirHeld) return refused(new Error(heldRefusal(err, 'bullpen restore', { throughServer: false })));
    throw err;
  }
  try {
    const r = await restoreEmbedded(archive, target);
    if (values.json) console.log(JSON.stringify(r));
    else {
      console.log(`Restored into ${r.data_dir}${r.migrations_applied.length ? ` (upgraded: ${r.migrations_applied.join(', ')})` : ''}:`);
      for (const w of r.workspaces) console.log(`  ${w.slug}  ${w.name}  (${w.tasks} tasks)`);
      console.log(`Start it with: BULLPEN_DATA_DIR=${shellQuote(target)} npx bullpen start`);
    }
    return EXIT.OK;
  } catch (err) {
    return refused(err);
  } finally {
    lock.release();
  }
}

const EXPORT_USAGE = `Usage: bullpen export --workspace SLUG [--format json|markdown|logseq] [--types LIST] [--out PATH]
                      [--markdown FILE.md | --no-markdown] [--json]

Writes the workspace for keeping or reading:
  json      (default) every row (projects, tasks, dependencies, comments, decisions, notes, links,
            handoffs, activity, …) as JSON, read in one snapshot, plus the same as Markdown for people.
            \`bullpen import\` reads the JSON back into an empty workspace. API keys stay behind.
  markdown  the Markdown alone (--out FILE.md).
  logseq    a graph folder (--out DIR, new or empty) for Logseq and other outliners: a page per
            project, task, decision, note, skill and handoff, with properties, and the typed links
            as [[links]] named by their relation (explains:: [[…]]).
--types task,decision,note,… keeps those kinds only (people and projects always travel): task,
decision, note, skill, handoff, run, code_ref, attachment, feature_request, activity.`;

export async function exportCmd(argv: string[]): Promise<number> {
  const { values } = commandArgs(argv, {
    workspace: { type: 'string', short: 'w' },
    out: { type: 'string', short: 'o' },
    format: { type: 'string', short: 'f' },
    types: { type: 'string' },
    markdown: { type: 'string' },
    'no-markdown': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (values.help || !values.workspace) return usageExit(EXPORT_USAGE, !!values.help);
  const format = values.format ?? 'json';
  if (!['json', 'markdown', 'logseq'].includes(format)) {
    console.error(`bullpen: --format: no format ${format}; choose json, markdown or logseq`);
    return EXIT.USAGE;
  }
  let types: ExportType[] | null = null;
  if (values.types !== undefined) {
    try {
      types = parseExportTypes(values.types);
    } catch (err) {
      console.error(`bullpen: ${(err as Error).message}`);
      return EXIT.USAGE;
    }
  }
  const slug = values.workspace;
  let doc: ExportDoc;
  try {
    doc = (await adminStep('export', { workspace: slug }, async (db) => ({ export: await exportWorkspace(db, slug) }))).result.export;
  } catch (err) {
    return refused(err);
  }
  if (types) doc = filterExportTypes(doc, types);
  const summary = () => Object.entries(doc.counts).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k.replace(/_/g, ' ')}`).join(', ') || 'no rows';
  const scope = types ? ` (${types.join(', ')})` : '';
  if (format === 'logseq') {
    const dir = path.resolve(values.out ?? `${doc.workspace.slug}-logseq-${stamp()}`);
    if (existsSync(dir) && readdirSync(dir).length) {
      console.error(`bullpen: --out: ${dir} is not empty; name a new or empty folder for the graph`);
      return EXIT.USAGE;
    }
    const graph = exportLogseq(doc);
    for (const [rel, text] of graph) {
      await mkdirPrivate(path.dirname(path.join(dir, rel)));
      await writeFilePrivate(path.join(dir, rel), text);
    }
    const pages = [...graph.keys()].filter((k) => k.startsWith('pages/')).length;
    if (values.json) console.log(JSON.stringify({ folder: dir, pages, workspace: doc.workspace.slug, types, counts: doc.counts }));
    else console.log(`Exported workspace ${doc.workspace.slug}${scope} as a Logseq graph: ${pages} pages in ${dir}\n  (${summary()}). Open the folder as a graph in Logseq.`);
    return EXIT.OK;
  }
  if (format === 'markdown') {
    const md = path.resolve(values.out ?? values.markdown ?? `${doc.workspace.slug}-export-${stamp()}.md`);
    await writeFilePrivate(md, exportMarkdown(doc));
    if (values.json) console.log(JSON.stringify({ file: null, markdown: md, workspace: doc.workspace.slug, types, counts: doc.counts }));
    else console.log(`Exported workspace ${doc.workspace.slug}${scope} as Markdown: ${summary()}.\n  Markdown  ${md}`);
    return EXIT.OK;
  }
  const out = path.resolve(values.out ?? `${doc.workspace.slug}-export-${stamp()}.json`);
  const json = JSON.stringify(doc, null, 1);
  await writeFilePrivate(out, json);
  let md: string | null = null;
  if (!values['no-markdown']) {
    md = path.resolve(values.markdown ?? out.replace(/\.json$/i, '') + '.md');
    await writeFilePrivate(md, exportMarkdown(doc));
  }
  if (values.json) console.log(JSON.stringify({ file: out, markdown: md, workspace: doc.workspace.slug, ...(types ? { types } : {}), counts: doc.counts }));
  else console.log(`Exported workspace ${doc.workspace.slug}${scope}: ${summary()}.\n  JSON      ${out} (${kib(Buffer.byteLength(json))})${md ? `\n  Markdown  ${md}` : ''}`);
  return EXIT.OK;
}

const IMPORT_USAGE = `Usage: bullpen import FILE.json [--workspace SLUG] [--name NAME] [--json]

Loads a file from \`bullpen export\` into a new or empty workspace (default: the exported slug), all or
nothing, keeping ids, history and authorship. Then mint keys for its agents with \`bullpen agent add NAME --workspace SLUG\`.`;

export async function importCmd(argv: string[]): Promise<number> {
  const { values, positionals } = commandArgs(argv, { workspace: { type: 'string', short: 'w' }, name: { type: 'string' }, json: { type: 'boolean' } }, true);
  if (values.help || positionals.length !== 1) return usageExit(IMPORT_USAGE, !!values.help);
  if (!existsSync(positionals[0])) {
    console.error(`bullpen: no such file: ${positionals[0]}`);
    return EXIT.USAGE;
  }
  let r: ImportResult;
  const live = await readLiveServer();
  if (live) {
    // the running server holds the database: stream the file to it as it is, never parsed or copied here
    const params = new URLSearchParams();
    if (values.workspace) params.set('workspace', values.workspace);
    if (values.name) params.set('name', values.name);
    let res: Response;
    try {
      res = await fetch(`${live.url}/api/admin/import${params.size ? `?${params}` : ''}`, {
        method: 'POST',
        // the front door wants a declared length (it refuses a chunked body on this route)
        headers: { 'content-type': 'application/json', 'content-length': String(statSync(positionals[0]).size), 'x-bullpen-admin-token': live.admin_token },
        body: Readable.toWeb(createReadStream(positionals[0])) as ReadableStream<Uint8Array>,
        duplex: 'half',
      } as RequestInit & { duplex: 'half' });
    } catch (err) {
      console.error(`bullpen: the running server at ${live.url} could not be reached: ${(err as Error).message}`);
      return EXIT.RETRYABLE;
    }
    const env = (await res.json().catch(() => null)) as ({ ok: true } & ImportResult) | { ok: false; error?: { code: string; message: string; hint: string; retryable: boolean } } | null;
    if (!env?.ok) {
      if (env?.error) return refused(new DataError(env.error as never));
      console.error(`bullpen: the running server answered HTTP ${res.status}`);
      return EXIT.FAILED;
    }
    const { ok: _ok, ...result } = env;
    r = result;
  } else {
    // no server holds the database: this process imports the file itself, reading it piece by piece
    try {
      r = await withDirectDb('bullpen import', (db) =>
        importWorkspaceStream(db, createReadStream(positionals[0], { highWaterMark: 1024 * 1024 }), { slug: values.workspace, name: values.name }),
      );
    } catch (err) {
      return refused(err);
    }
  }
  if (values.json) console.log(JSON.stringify(r));
  else {
    const counts = Object.entries(r.counts).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k.replace(/_/g, ' ')}`);
    console.log(
      `Imported into workspace ${r.workspace.slug}${r.created_workspace ? ' (created now)' : ''}: ${counts.join(', ') || 'no rows'}.\n` +
        (r.files?.missing ? `${r.files.missing} stored file(s) had no bytes in the file: their attachments are listed but do not download.\n` : '') +
        `Agents need new keys: npx bullpen agent add NAME --workspace ${r.workspace.slug}`,
    );
  }
  return EXIT.OK;
}
