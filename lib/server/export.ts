import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JSONParser } from '@streamparser/json';
import { z } from 'zod';
import { toolError, type ToolError } from '../core/errors';
import { mapDbError } from '../core/sql-errors';
import type { Db, Session } from '../db/types';
import { fileStore, sha256Hex, type FileStore } from './files';
import { slugify } from './workspace';

/**
 * A workspace as a file people can keep: every row the workspace owns, table by table, as JSON
 * (and Markdown for reading). `bullpen import` loads the JSON into an empty workspace, on this
 * server or another one, with the same ids (primary keys are per workspace, so they cannot clash).
 *
 * The list below is the contract. Rooms that arrive later add their tables here; a table that does
 * not exist in this database yet is skipped on export and refused on import only if the file has
 * rows for it. Every workspace table must be either exported or named in NOT_EXPORTED with the
 * reason (tests/db/export.test.ts reads the catalog and holds us to it).
 */
export type ExportTable = {
  /** schema-qualified table */
  table: string;
  /** the column that names the workspace */
  tenant: string;
  /** the section of the file (defaults to the table name) */
  as?: string;
  /**
   * Rows derived from others (embeddings): exported so an import needs no recomputation, but an
   * importing server without the table (no pgvector) skips them instead of refusing the file.
   */
  derived?: boolean;
};

export const EXPORT_TABLES: readonly ExportTable[] = [
  { table: 'public.actors', tenant: 'tenant_id' },
  { table: 'public.projects', tenant: 'tenant_id' },
  // workflows (before tasks: a step's task names its instance)
  { table: 'public.workflows', tenant: 'tenant_id' },
  { table: 'public.workflow_instances', tenant: 'tenant_id' },
  { table: 'public.tasks', tenant: 'tenant_id' },
  { table: 'public.task_dependencies', tenant: 'tenant_id' },
  { table: 'public.comments', tenant: 'tenant_id' },
  // memory
  { table: 'public.decisions', tenant: 'tenant_id' },
  { table: 'public.decision_tasks', tenant: 'tenant_id' },
  // deliberation
  { table: 'public.decision_participants', tenant: 'tenant_id' },
  { table: 'public.councils', tenant: 'tenant_id' },
  { table: 'public.knowledge_notes', tenant: 'tenant_id', as: 'notes' },
  { table: 'public.note_tasks', tenant: 'tenant_id' },
  { table: 'public.skills', tenant: 'tenant_id' },
  // document sources (bullpen knowledge sync): the folders' documents and their chunks
  { table: 'public.sources', tenant: 'tenant_id' },
  { table: 'public.source_documents', tenant: 'tenant_id' },
  { table: 'public.source_chunks', tenant: 'tenant_id' },
  { table: 'public.memory_embeddings', tenant: 'tenant_id', derived: true },
  // typed links between any two objects (after the tables whose rows they name)
  { table: 'public.links', tenant: 'tenant_id' },
  // coordination
  { table: 'public.handoffs', tenant: 'tenant_id' },
  { table: 'public.handoff_recipients', tenant: 'tenant_id' },
  { table: 'public.handoff_acks', tenant: 'tenant_id' },
  { table: 'public.notifications', tenant: 'tenant_id' },
  // provenance
  { table: 'public.repositories', tenant: 'tenant_id' },
  { table: 'public.project_repositories', tenant: 'tenant_id' },
  { table: 'public.runs', tenant: 'tenant_id' },
  // costs: the usage ledger (after the runs, tasks and workflows its rows name) and the budgets
  { table: 'public.usage_events', tenant: 'tenant_id' },
  { table: 'public.budgets', tenant: 'tenant_id' },
  { table: 'public.code_refs', tenant: 'tenant_id' },
  { table: 'public.attachments', tenant: 'tenant_id' },
  // the bytes the server holds for file attachments (the bytes themselves travel in `files`)
  { table: 'public.stored_files', tenant: 'tenant_id' },
  { table: 'public.feature_requests', tenant: 'tenant_id' },
  // the history: who did what, in order (ids are renumbered on import, the order is kept)
  { table: 'public.activity', tenant: 'tenant_id' },
];

/** Workspace tables that stay behind, and why. */
export const NOT_EXPORTED: Readonly<Record<string, string>> = {
  'public.api_keys': 'keys are credentials of this server: mint new ones after an import (bullpen agent add NAME finds the imported agent)',
  'public.idempotency_keys': 'replay records of recent writes, kept 24 h; meaningless elsewhere',
  'bullpen.signin_tokens': 'one-time sign-in links of this server',
  'bullpen.sessions': 'console sessions of this server',
  'bullpen.rate_limits': 'rate-limit counters of this server',
  'bullpen.jobs': 'pending background work of this server; the importing server schedules its own',
  'public.code_graphs': 'derived from the code: run `bullpen repo index` in a checkout after an import',
  'public.code_graph_files': 'part of a code graph (derived from the code)',
  'public.code_graph_imports': 'part of a code graph (derived from the code)',
  'public.code_graph_cycles': 'part of a code graph (derived from the code)',
  'public.webhooks': 'their signing secrets are credentials of this server: add the webhooks again after an import',
  'public.budget_reservations': 'live reservations of live leases; leases end with the move, and so do they',
  'public.webhook_deliveries': 'the delivery log of this server\'s webhooks',
};

export const EXPORT_FORMAT = 'bullpen.workspace-export';
/**
 * The version this release writes. Every earlier one still imports:
 *  1  rows only (releases up to bd8ef70); file attachments' bytes stayed on the old server.
 *  2  rows, plus `files`: the bytes of every stored file, base64, with their sha256.
 * A column a file does not have takes the column's default on import, whatever the version.
 */
export const EXPORT_VERSION = 2;
export const EXPORT_VERSIONS = [1, 2] as const;

/** The bytes of one stored file, as they travel in an export. */
export type ExportFile = { storage_path: string; sha256: string; size_bytes: number; mime_type: string; data: string };

export type ExportDoc = {
  format: typeof EXPORT_FORMAT;
  version: number;
  exported_at: string;
  workspace: { id: string; slug: string; name: string; created_at: string };
  /** Row counts by section. */
  counts: Record<string, number>;
  /** Rows by section, without the workspace column; generated columns are left out too. */
  tables: Record<string, Record<string, unknown>[]>;
  /** Version 2: the bytes behind stored_files, by storage path. */
  files?: ExportFile[];
};

const exportFile = z.strictObject({
  storage_path: z.string().min(1).max(1000),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size_bytes: z.number().int().min(0),
  mime_type: z.string().min(1).max(255),
  data: z.string(),
});

const exportDoc = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.union([z.literal(1), z.literal(2)]),
  exported_at: z.string(),
  workspace: z.object({ id: z.string(), slug: z.string(), name: z.string().min(1).max(200), created_at: z.string() }),
  counts: z.record(z.string(), z.number()).optional(),
  tables: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))),
  files: z.array(exportFile).optional(),
});
/** An export or import refusal with the envelope's code; the admin routes and the CLI show it as is. */
export class DataError extends Error {
  constructor(readonly error: ToolError) {
    super(`${error.code}: ${error.message}`);
  }
}

function sectionOf(t: ExportTable): string {
  return t.as ?? t.table.split('.')[1];
}

type Column = { name: string; generated: boolean; identityAlways: boolean };
type TableInfo = ExportTable & { section: string; columns: Column[]; pk: string[] };

function splitName(table: string): [string, string] {
  const [schema, name] = table.split('.');
  return [schema, name];
}

/** The export tables this database has, with their columns and primary keys, from the catalog. */
async function presentTables(db: Db): Promise<TableInfo[]> {
  const rows = await db.query<{ schema: string; name: string; column: string; generated: boolean; identity_always: boolean; pk_pos: number | null }>(
    // a transaction id (activity.xid, event_poll's order) is this server's, like a generated column
    `select n.nspname as schema, c.relname as name, a.attname as column, a.attgenerated <> '' or a.atttypid = 'pg_catalog.xid8'::regtype as generated,
            a.attidentity = 'a' as identity_always,
            array_position(i.indkey::int2[], a.attnum) as pk_pos
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
       left join pg_index i on i.indrelid = c.oid and i.indisprimary
      where c.relkind in ('r', 'p') and n.nspname || '.' || c.relname = any($1::text[])
      order by n.nspname, c.relname, a.attnum`,
    [EXPORT_TABLES.map((t) => t.table)],
  );
  const out: TableInfo[] = [];
  for (const t of EXPORT_TABLES) {
    const [schema, name] = splitName(t.table);
    const cols = rows.filter((r) => r.schema === schema && r.name === name);
    if (!cols.length) continue;
    out.push({
      ...t,
      section: sectionOf(t),
      columns: cols.map((c) => ({ name: c.column, generated: c.generated, identityAlways: c.identity_always })),
      pk: cols
        .filter((c) => c.pk_pos !== null)
        .sort((a, b) => (a.pk_pos ?? 0) - (b.pk_pos ?? 0))
        .map((c) => c.column),
    });
  }
  return out;
}

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
const qualified = (table: string) => splitName(table).map(ident).join('.');

/**
 * Every row of one workspace, read in one statement (one snapshot: a write that lands meanwhile is
 * either wholly in the file or wholly out of it). NOT_FOUND when no workspace has the slug.
 */
export async function exportWorkspace(db: Db, slug: string, opts: { store?: FileStore } = {}): Promise<ExportDoc> {
  const [ws] = await db.query<{ id: string; slug: string; name: string; created_at: string }>(
    `select id, slug, name, to_jsonb(created_at) #>> '{}' as created_at from public.tenants where slug = $1`,
    [slugify(slug)],
  );
  if (!ws) throw new DataError(toolError('NOT_FOUND', `workspace: no workspace ${slug} on this server`, 'check the slug: it is the workspace part of the console URL and of `bullpen agent add --workspace`'));
  const tables = await presentTables(db);
  const parts = tables.map((t) => {
    const drop = [t.tenant, ...t.columns.filter((c) => c.generated).map((c) => c.name)].map((c) => `'${c}'`).join(', ');
    const keys = t.pk.length ? t.pk.filter((c) => c !== t.tenant) : t.columns.map((c) => c.name);
    const order = keys.map((c) => `x.${ident(c)}`).join(', ');
    return `'${t.section}', (select coalesce(jsonb_agg(to_jsonb(x) - array[${drop}]::text[] order by ${order}), '[]'::jsonb)
                   from ${qualified(t.table)} x where x.${ident(t.tenant)} = $1)`;
  });
  const [row] = await db.query<{ tables: Record<string, Record<string, unknown>[]> }>(
    `select jsonb_build_object(${parts.join(',\n')}) as tables`,
    [ws.id],
  );
  const counts: Record<string, number> = {};
  for (const [k, v] of Object.entries(row.tables)) counts[k] = v.length;
  // the bytes behind every stored file travel too, so an imported attachment downloads
  const files: ExportFile[] = [];
  const stored = row.tables.stored_files ?? [];
  if (stored.length) {
    const store = opts.store ?? fileStore();
    for (const f of stored) {
      const storagePath = String(f.storage_path);
      const got = await store.get(storagePath);
      if (!got) continue; // lost from the store: the import records no bytes for it
      files.push({
        storage_path: storagePath,
        sha256: sha256Hex(got.data),
        size_bytes: got.data.byteLength,
        mime_type: String(f.mime_type),
        data: Buffer.from(got.data).toString('base64'),
      });
    }
  }
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: new Date().toISOString(),
    workspace: ws,
    counts,
    tables: row.tables,
    files,
  };
}

/** A dollar-quoted SQL literal whose tag cannot occur in the text. */
function dollarQuoted(text: string): string {
  let tag: string;
  do tag = `bp${randomBytes(6).toString('hex')}`;
  while (text.includes(tag));
  return `$${tag}$${text}$${tag}$`;
}

type ForeignKey = { child: string; parent: string; childCols: string[]; parentCols: string[]; name: string };

async function foreignKeys(db: Pick<Db, 'query'>, tables: string[]): Promise<ForeignKey[]> {
  return db.query<ForeignKey>(
    `select con.conname as name,
            cn.nspname || '.' || cc.relname as child, pn.nspname || '.' || pc.relname as parent,
            array(select a.attname from unnest(con.conkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.n order by k.o)::text[] as "childCols",
            array(select a.attname from unnest(con.confkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.n order by k.o)::text[] as "parentCols"
       from pg_constraint con
       join pg_class cc on cc.oid = con.conrelid join pg_namespace cn on cn.oid = cc.relnamespace
       join pg_class pc on pc.oid = con.confrelid join pg_namespace pn on pn.oid = pc.relnamespace
      where con.contype = 'f' and cn.nspname || '.' || cc.relname = any($1::text[])
      order by 1`,
    [tables],
  );
}

/** Parents before children (self-references aside), so rows go in in an order the keys allow. */
function dependencyOrder(tables: TableInfo[], fks: ForeignKey[]): TableInfo[] {
  const names = new Set(tables.map((t) => t.table));
  const done = new Set<string>();
  const out: TableInfo[] = [];
  const visit = (t: TableInfo, stack: Set<string>) => {
    if (done.has(t.table) || stack.has(t.table)) return;
    stack.add(t.table);
    for (const fk of fks) {
      if (fk.child === t.table && fk.parent !== t.table && names.has(fk.parent)) visit(tables.find((x) => x.table === fk.parent)!, stack);
    }
    done.add(t.table);
    out.push(t);
  };
  for (const t of tables) visit(t, new Set());
  return out;
}

export type ImportResult = {
  workspace: { id: string; slug: string; name: string };
  created_workspace: boolean;
  /** The export format version the file was written in. */
  version: number;
  counts: Record<string, number>;
  /** Stored files whose bytes came with the file (or were still on this server), and those whose did not. */
  files: { stored: number; missing: number };
};

function invalid(message: string, field: string, hint?: string): DataError {
  return new DataError(toolError('VALIDATION_ERROR', message, hint ?? 'import a file written by `bullpen export`', { fields: [field] }));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The table an (object_type, object_id) pair names. */
const OBJECT_TABLES: Record<string, string> = {
  project: 'public.projects',
  task: 'public.tasks',
  decision: 'public.decisions',
  note: 'public.knowledge_notes',
  comment: 'public.comments',
  handoff: 'public.handoffs',
};
/** The table each end of a link names, by its type. */
const LINK_TABLES: Record<string, string> = {
  ...OBJECT_TABLES,
  skill: 'public.skills',
  run: 'public.runs',
  code_ref: 'public.code_refs',
  attachment: 'public.attachments',
};
/** Tables that point at another row by (object_type, object_id), with no foreign key to hold it. */
const POLYMORPHIC = ['public.comments', 'public.code_refs', 'public.attachments'];

/** A DO block that refuses the import, naming the field, when `query` finds a row. */
function refuseIf(query: string, field: string, message: string, hint: string): string {
  return `do $chk$ begin
     if exists (${query}) then
       raise exception using errcode = 'BPVAL', message = ${dollarQuoted(`${field}: ${message}`)}, hint = ${dollarQuoted(hint)},
         detail = ${dollarQuoted(JSON.stringify({ fields: [field] }))};
     end if;
   end $chk$`;
}

/** The choices of an import: the workspace's slug and name (default: the exported ones). */
export const importOptions = z.strictObject({
  workspace: z.string().min(1).max(63).optional(),
  name: z.string().min(1).max(200).optional(),
});

/**
 * One piece of an export as the reader meets it: a top-level field, one row of a table, or one
 * stored file. `at` says whether it sat at the top of the file or inside `export` (the shape
 * earlier CLIs sent: {export, workspace, name}).
 */
type Piece =
  | { at: 'top' | 'export'; kind: 'field'; key: string; value: unknown }
  | { at: 'top' | 'export'; kind: 'row'; section: string | number | undefined; index: string | number | undefined; value: unknown }
  | { at: 'top' | 'export'; kind: 'file'; index: string | number | undefined; value: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const HEAD_FIELDS = ['format', 'version', 'exported_at', 'workspace', 'counts', 'name'];

/** The pieces of an export already parsed in memory. */
async function* piecesOfDoc(doc: unknown): AsyncGenerator<Piece> {
  if (!isObject(doc)) throw invalid('(file): expected a JSON object', '(file)', `import a file written by \`bullpen export\` (format ${EXPORT_FORMAT})`);
  const wrapped = !('format' in doc) && isObject(doc.export);
  const parts: ['top' | 'export', Record<string, unknown>][] = wrapped ? [['top', doc], ['export', doc.export as Record<string, unknown>]] : [['top', doc]];
  for (const [at, obj] of parts) {
    for (const [key, value] of Object.entries(obj)) {
      if (at === 'top' && wrapped && key === 'export') continue;
      if (key === 'tables' && isObject(value)) {
        for (const [section, rows] of Object.entries(value)) {
          if (!Array.isArray(rows)) throw invalid(`tables.${section}: expected an array of rows`, `tables.${section}`);
          for (let i = 0; i < rows.length; i++) yield { at, kind: 'row', section, index: i, value: rows[i] };
        }
      } else if (key === 'files' && Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) yield { at, kind: 'file', index: i, value: value[i] };
      } else yield { at, kind: 'field', key, value };
    }
  }
}

/**
 * The pieces of an export as its bytes stream by: each row and each file is handed on as soon as
 * it is read and then dropped, so memory holds one chunk and one row (or one file), whatever the
 * size of the export.
 */
async function* piecesOfJson(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<Piece> {
  const paths = ['', '.export'].flatMap((p) => [...HEAD_FIELDS.map((f) => `$${p}.${f}`), `$${p}.tables.*.*`, `$${p}.files.*`]);
  const parser = new JSONParser({ paths, keepStack: false });
  let out: Piece[] = [];
  parser.onValue = ({ value, key, stack }) => {
    // the keys from the root down to the value's parent
    const keys = stack.slice(1).map((s) => s.key);
    const at = keys[0] === 'export' ? 'export' : 'top';
    const rel = at === 'export' ? keys.slice(1) : keys;
    if (rel[0] === 'tables' && rel.length === 2) out.push({ at, kind: 'row', section: rel[1], index: key, value });
    else if (rel[0] === 'files' && rel.length === 1) out.push({ at, kind: 'file', index: key, value });
    else if (rel.length === 0) out.push({ at, kind: 'field', key: String(key), value });
  };
  const notJson = (err: unknown) =>
    invalid(`(file): not JSON: ${(err as Error).message}`, '(file)', `import a file written by \`bullpen export\` (format ${EXPORT_FORMAT})`);
  let failed: unknown = null;
  parser.onError = (err) => {
    failed ??= err;
  };
  for await (const chunk of chunks) {
    if (parser.isEnded) {
      // only whitespace may follow the document
      if (String(typeof chunk === 'string' ? chunk : Buffer.from(chunk)).trim()) throw notJson(new Error('more data after the end of the document'));
      continue;
    }
    try {
      parser.write(chunk);
    } catch (err) {
      failed ??= err;
    }
    if (failed) throw notJson(failed);
    const ready = out;
    out = [];
    yield* ready;
  }
  if (!parser.isEnded) {
    try {
      parser.end();
    } catch (err) {
      failed ??= err;
    }
    throw notJson(failed ?? new Error('the document ends early'));
  }
  yield* out;
}

/** A stored file read from an export: its bytes wait on disk, not in memory, until the rows are in. */
type Spooled = { file: string; sha256: string; mime_type: string; size_bytes: number };

const STAGE = 'pg_temp.bullpen_import';
/** Rows are staged in batches of about this many bytes of JSON. */
const STAGE_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Loads an export of any version this release reads into a workspace that is new or empty (`slug`,
 * default the exported one). Everything happens in one transaction, the workspace check included:
 * it all lands or none of it. Ids are kept: the workspace keeps its exported id too when this
 * server has no workspace with it (a move to a fresh server), else it gets a new one and the
 * storage paths of its files move with it. Activity rows get new sequence numbers in their
 * original order. Row triggers stay quiet (the rows are history, not new events: no
 * notifications, no change feed), so what the database's own rules would refuse is checked here
 * before commit: every foreign key and every (object_type, object_id) among the loaded rows
 * resolves inside the file, only people own the workspace, and no human was registered by an agent.
 * File bytes are checked against their sha256 and written to the store before the rows commit; a
 * refused import removes what it wrote.
 *
 * The file is read piece by piece (importWorkspaceStream for its bytes): rows go to a staging table
 * in batches and file bytes to a private temporary folder, so memory does not grow with the file.
 */
export async function importWorkspace(db: Db, input: unknown, opts: ImportOptions = {}): Promise<ImportResult> {
  return runImport(db, piecesOfDoc(input), opts);
}

/** importWorkspace for an export's bytes (a file, a request body), read as they stream by. */
export async function importWorkspaceStream(db: Db, chunks: AsyncIterable<Uint8Array | string>, opts: ImportOptions = {}): Promise<ImportResult> {
  return runImport(db, piecesOfJson(chunks), opts);
}

export type ImportOptions = { slug?: string; name?: string; store?: FileStore };

async function runImport(db: Db, pieces: AsyncIterable<Piece>, opts: ImportOptions): Promise<ImportResult> {
  const tables = await presentTables(db);
  const bySection = new Map(tables.map((t) => [t.section, t]));
  const store = opts.store ?? fileStore();
  const spool = await mkdtemp(path.join(tmpdir(), 'bullpen-import-'));
  const written: string[] = [];
  try {
    return await db.transaction((tx) => importInTransaction(tx, tables, bySection, pieces, opts, store, spool, written));
  } catch (err) {
    for (const p of written) await store.remove(p).catch(() => {});
    if (err instanceof DataError) throw err;
    throw new DataError(mapDbError(err));
  } finally {
    await rm(spool, { recursive: true, force: true }).catch(() => {});
  }
}

/** The columns a row carries that an insert writes (generated and always-identity columns are the server's). */
function insertableOf(t: TableInfo): Set<string> {
  return new Set(t.columns.filter((c) => !c.generated && !c.identityAlways && c.name !== t.tenant).map((c) => c.name));
}

async function importInTransaction(
  tx: Session,
  tables: TableInfo[],
  bySection: Map<string, TableInfo>,
  pieces: AsyncIterable<Piece>,
  opts: ImportOptions,
  store: FileStore,
  spool: string,
  written: string[],
): Promise<ImportResult> {
  await tx.exec(`create temp table bullpen_import (section text not null, sig text not null, seq bigint not null, row jsonb not null) on commit drop`);
  const insertable = new Map(tables.map((t) => [t.section, insertableOf(t)]));
  const sigOf = (section: string, row: Record<string, unknown>) => Object.keys(row).filter((k) => insertable.get(section)!.has(k)).sort().join(',');

  // 1. read the file: fields kept, rows staged in batches, file bytes checked and spooled to disk
  const fields = { top: new Map<string, unknown>(), export: new Map<string, unknown>() };
  let rowsAt: 'top' | 'export' | null = null;
  let batch: string[] = [];
  let batchBytes = 0;
  let seq = 0;
  const flush = async () => {
    if (!batch.length) return;
    const text = `[${batch.join(',')}]`;
    batch = [];
    batchBytes = 0;
    await tx.query(
      `insert into ${STAGE} (section, sig, seq, row)
       select e.value ->> 0, e.value ->> 1, (e.value ->> 2)::bigint, e.value -> 3 from jsonb_array_elements($1::jsonb) e`,
      [text],
    );
  };
  const stage = async (section: string, row: Record<string, unknown>) => {
    const item = JSON.stringify([section, sigOf(section, row), ++seq, row]);
    batch.push(item);
    batchBytes += item.length;
    if (batchBytes >= STAGE_BATCH_BYTES) await flush();
  };
  const spooled = new Map<string, Spooled>();
  const fileEntries: { path: string; spooled: Spooled }[] = [];
  let headChecked = false;
  for await (const piece of pieces) {
    if (piece.kind === 'field') {
      fields[piece.at].set(piece.key, piece.value);
      continue;
    }
    if (rowsAt && rowsAt !== piece.at) throw invalid('tables: the file holds rows both inside and outside `export`', 'tables');
    rowsAt = piece.at;
    if (!headChecked) {
      // a file that is not an export is refused before its rows are read
      const head = piece.at === 'export' ? fields.export : fields.top;
      const early = exportDoc.pick({ format: true, version: true }).partial().safeParse({ format: head.get('format'), version: head.get('version') });
      if (!early.success || !head.has('format')) refuseHead(early.success ? { path: ['format'], message: 'Required' } : early.error.issues[0]);
      headChecked = true;
    }
    if (piece.kind === 'row') {
      const { section, index, value } = piece;
      if (typeof section !== 'string') throw invalid('tables: expected an object of tables by name', 'tables');
      if (typeof index !== 'number') throw invalid(`tables.${section}: expected an array of rows`, `tables.${section}`);
      const t = bySection.get(section);
      if (!t) {
        if (EXPORT_TABLES.some((x) => sectionOf(x) === section && x.derived)) continue;
        throw invalid(`tables.${section}: this server has no such table; upgrade it before importing`, `tables.${section}`);
      }
      if (!isObject(value)) throw invalid(`tables.${section}.${index}: expected an object (one row)`, `tables.${section}`);
      const known = new Set(t.columns.map((c) => c.name));
      for (const k of Object.keys(value)) {
        if (!known.has(k) || k === t.tenant) throw invalid(`tables.${section}.${k}: not a column this server has`, `tables.${section}.${k}`);
      }
      await stage(section, value);
    } else {
      const i = piece.index;
      const f = exportFile.safeParse(piece.value);
      if (!f.success) {
        const at = `files[${i}]${f.error.issues[0].path.length ? `.${f.error.issues[0].path.join('.')}` : ''}`;
        throw invalid(`${at}: ${f.error.issues[0].message}`, at);
      }
      const data = Buffer.from(f.data.data, 'base64');
      if (data.byteLength !== f.data.size_bytes || sha256Hex(data) !== f.data.sha256) {
        throw invalid(`files[${i}].data: the bytes do not match their size_bytes and sha256`, `files[${i}].data`);
      }
      const file = path.join(spool, String(fileEntries.length));
      await writeFile(file, data, { mode: 0o600 });
      fileEntries.push({ path: f.data.storage_path, spooled: { file, sha256: f.data.sha256, mime_type: f.data.mime_type, size_bytes: f.data.size_bytes } });
    }
  }
  await flush();

  // 2. the file's head, and where it goes
  const wrapped = rowsAt ? rowsAt === 'export' : !fields.top.has('format') && fields.export.size > 0;
  const head = Object.fromEntries(wrapped ? fields.export : fields.top);
  const parsed = exportDoc.omit({ tables: true, files: true }).safeParse(head);
  if (!parsed.success) refuseHead(parsed.error.issues[0]);
  const chosen = importOptions.safeParse({
    workspace: opts.slug ?? (wrapped ? fields.top.get('workspace') : undefined),
    name: opts.name ?? (wrapped ? fields.top.get('name') : undefined),
  });
  if (!chosen.success) {
    const field = chosen.error.issues[0].path.map(String).join('.') || 'workspace';
    throw invalid(`${field}: ${chosen.error.issues[0].message}`, field, 'workspace is a slug of up to 63 characters, name up to 200');
  }
  const writtenIn = parsed.data.version;
  const doc = parsed.data;
  const slug = slugify(chosen.data.workspace ?? doc.workspace.slug);
  const name = chosen.data.name ?? doc.workspace.name;
  const [existing] = await tx.query<{ id: string }>(`select id from public.tenants where slug = $1`, [slug]);
  let wsId: string;
  if (existing) wsId = existing.id;
  else {
    const free = UUID.test(doc.workspace.id) && !(await tx.query(`select 1 from public.tenants where id = $1::uuid`, [doc.workspace.id])).length;
    wsId = free ? doc.workspace.id.toLowerCase() : randomUUID();
  }
  const created = !existing;
  const oldPrefix = `${doc.workspace.id}/`;
  const newPrefix = `${wsId}/`;
  const moved = (p: string) => (p.startsWith(oldPrefix) ? newPrefix + p.slice(oldPrefix.length) : p);
  if (oldPrefix !== newPrefix) {
    await tx.query(
      `update ${STAGE} set row = jsonb_set(row, '{storage_path}', to_jsonb($2 || substr(row ->> 'storage_path', length($1) + 1)))
        where section in ('attachments', 'stored_files') and starts_with(row ->> 'storage_path', $1)`,
      [oldPrefix, newPrefix],
    );
  }
  for (const e of fileEntries) spooled.set(moved(e.path), e.spooled);
  // a file written before migration 0038 holds a decision's consequences as one text: a one-item list now
  await tx.query(
    `update ${STAGE} set row = jsonb_set(row, '{consequences}',
            case when coalesce(row ->> 'consequences', '') = '' then '[]'::jsonb else jsonb_build_array(row -> 'consequences') end)
      where section = 'decisions' and jsonb_typeof(row -> 'consequences') in ('string', 'null')`,
  );

  // 3. the bytes: those in the file; for a stored file without bytes in the file (a version 1
  // export), the bytes this server may still hold under the exported path (an import beside its source)
  const kept: { row: Record<string, unknown>; bytes: Spooled }[] = [];
  let missing = 0;
  const hasStored = bySection.has('stored_files');
  let candidates: { seq: number | null; row: Record<string, unknown> }[] = [];
  if (hasStored && writtenIn === 1) {
    // version 1 had no stored_files: the files the old server's upload route wrote are its candidates
    const seen = new Set<string>();
    const shape = new RegExp(`^${newPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[0-9a-f-]{36}/[^/\\\\]{1,200}$`);
    const atts = await tx.query<{ row: Record<string, unknown> }>(`select row from ${STAGE} where section = 'attachments' and row ->> 'kind' = 'file' order by seq`);
    candidates = atts
      .map((x) => x.row)
      .filter((a) => typeof a.storage_path === 'string' && shape.test(a.storage_path) && !seen.has(a.storage_path) && seen.add(a.storage_path))
      .map((a) => ({
        seq: null,
        row: { storage_path: a.storage_path, size_bytes: a.size_bytes ?? 0, sha256: null, mime_type: a.mime_type ?? 'application/octet-stream', created_by_actor_id: a.created_by_actor_id, created_at: a.created_at },
      }));
  } else if (hasStored) {
    candidates = (await tx.query<{ seq: string; row: Record<string, unknown> }>(`select seq, row from ${STAGE} where section = 'stored_files' order by seq`)).map((x) => ({ seq: Number(x.seq), row: x.row }));
  }
  const dropped: number[] = [];
  for (const { seq: at, row: r } of candidates) {
    const p = String(r.storage_path);
    if (!p.startsWith(newPrefix)) {
      throw invalid('tables.stored_files.storage_path: a stored file outside the exported workspace', 'tables.stored_files.storage_path');
    }
    let b = spooled.get(p);
    if (!b) {
      const here = await store.get(oldPrefix + p.slice(newPrefix.length)).catch(() => null);
      if (here) {
        const file = path.join(spool, `here-${spooled.size}`);
        await writeFile(file, here.data, { mode: 0o600 });
        b = { file, sha256: sha256Hex(here.data), mime_type: String(r.mime_type ?? here.contentType), size_bytes: here.data.byteLength };
        spooled.set(p, b);
      }
    }
    if (!b || (r.sha256 != null && r.sha256 !== b.sha256)) {
      missing++; // no bytes, no record: its attachment imports but neither downloads nor meets a gate
      if (at !== null) dropped.push(at);
      continue;
    }
    kept.push({ row: writtenIn === 1 ? { ...r, size_bytes: b.size_bytes } : r, bytes: b });
  }
  if (dropped.length) await tx.query(`delete from ${STAGE} where section = 'stored_files' and seq = any($1::bigint[])`, [dropped]);
  if (hasStored && writtenIn === 1) {
    for (const k of kept) await stage('stored_files', k.row);
    await flush();
  }

  // 4. the statements: the workspace, every row from the staging table, then every check
  const fks = await foreignKeys(
    tx,
    tables.map((t) => t.table),
  );
  const ordered = dependencyOrder(tables, fks);
  const tenantLit = `'${wsId}'::uuid`;
  const statements: string[] = [];
  if (created) {
    statements.push(
      `insert into public.tenants (id, slug, name, created_at)
       values (${tenantLit}, ${dollarQuoted(slug)}, ${dollarQuoted(name)}, coalesce(${dollarQuoted(doc.workspace.created_at)}::timestamptz, now()))`,
    );
  } else {
    // checked in the importing transaction, with the workspace row locked: two imports cannot both find it empty
    const used = tables.map((t) => `exists (select 1 from ${qualified(t.table)} where ${ident(t.tenant)} = ${tenantLit})`).join(' or ');
    statements.push(
      `do $ws$ begin
         perform 1 from public.tenants where id = ${tenantLit} for update;
         if ${used} then
           raise exception using errcode = 'BPDUP',
             message = ${dollarQuoted(`workspace: ${slug} already holds data; an import needs a new or empty workspace`)},
             hint = 'import under another slug: bullpen import FILE --workspace NEW_SLUG',
             detail = '{"fields": ["workspace"]}';
         end if;
       end $ws$`,
    );
  }
  statements.push(`set local session_replication_role = replica`, `set local bullpen.notify = 'off'`);
  const counts: Record<string, number> = {};
  const groups = await tx.query<{ section: string; sig: string; n: number }>(`select section, sig, count(*)::int as n from ${STAGE} group by section, sig order by section, sig`);
  for (const t of ordered) {
    const mine = groups.filter((g) => g.section === t.section);
    counts[t.section] = mine.reduce((n, g) => n + g.n, 0);
    const identityOrder = t.columns.find((c) => c.identityAlways);
    const order = identityOrder ? `order by (e.row ->> ${dollarQuoted(identityOrder.name)})::bigint` : 'order by e.seq';
    // a column the file does not have (an older release's export) takes its default, not null:
    // rows are inserted per set of columns they carry (one set, for a file bullpen export wrote)
    for (const { sig } of mine) {
      const cols = sig ? sig.split(',') : [];
      statements.push(
        `insert into ${qualified(t.table)} (${[t.tenant, ...cols].map(ident).join(', ')})
         select ${tenantLit}${cols.map((c) => `, r.${ident(c)}`).join('')}
           from ${STAGE} e
           cross join lateral jsonb_populate_record(null::${qualified(t.table)}, e.row) r
          where e.section = ${dollarQuoted(t.section)} and e.sig = ${dollarQuoted(sig)}
          ${order}`,
      );
    }
  }
  // every reference among the loaded rows must resolve (triggers, foreign keys included, were off)
  for (const fk of fks) {
    const child = tables.find((t) => t.table === fk.child);
    if (!child || !counts[child.section]) continue;
    const notNull = fk.childCols.map((c) => `c.${ident(c)} is not null`).join(' and ');
    const match = fk.childCols.map((c, i) => `p.${ident(fk.parentCols[i])} = c.${ident(c)}`).join(' and ');
    const refCols = fk.childCols.filter((c) => c !== child.tenant).join(', ');
    statements.push(
      refuseIf(
        `select 1 from ${qualified(fk.child)} c where c.${ident(child.tenant)} = ${tenantLit} and ${notNull}
            and not exists (select 1 from ${qualified(fk.parent)} p where ${match})`,
        `tables.${child.section}.${refCols}`,
        `a row refers to a ${fk.parent.split('.')[1]} row the file does not have (${fk.name})`,
        'import the file bullpen export wrote, unedited',
      ),
    );
  }
  // references without a foreign key: (object_type, object_id) names a row inside the file
  const present = new Set(tables.map((t) => t.table));
  for (const table of POLYMORPHIC) {
    const t = tables.find((x) => x.table === table);
    if (!t || !counts[t.section]) continue;
    const arms = Object.entries(OBJECT_TABLES)
      .filter(([, target]) => present.has(target))
      .map(([type, target]) => `when '${type}' then exists (select 1 from ${qualified(target)} o where o.tenant_id = ${tenantLit} and o.id = c.object_id)`)
      .join(' ');
    statements.push(
      refuseIf(
        `select 1 from ${qualified(table)} c where c.tenant_id = ${tenantLit} and not (case c.object_type ${arms} else false end)`,
        `tables.${t.section}.object_id`,
        'a row is attached to an object the file does not have',
        'import the file bullpen export wrote, unedited',
      ),
    );
  }
  // a link names two objects by (type, id): both ends must be rows of the file
  const links = tables.find((x) => x.table === 'public.links');
  if (links && counts[links.section]) {
    for (const end of ['from', 'to']) {
      const arms = Object.entries(LINK_TABLES)
        .filter(([, target]) => present.has(target))
        .map(([type, target]) => `when '${type}' then exists (select 1 from ${qualified(target)} o where o.tenant_id = ${tenantLit} and o.id = c.${end}_id)`)
        .join(' ');
      statements.push(
        refuseIf(
          `select 1 from public.links c where c.tenant_id = ${tenantLit} and not (case c.${end}_type ${arms} else false end)`,
          `tables.links.${end}_id`,
          'a link names an object the file does not have',
          'import the file bullpen export wrote, unedited',
        ),
      );
    }
  }
  // the rules the database keeps between actors, which the quiet triggers did not check
  statements.push(
    refuseIf(
      `select 1 from public.actors a where a.tenant_id = ${tenantLit} and a.is_owner and a.kind <> 'human'`,
      'tables.actors.is_owner',
      'only people own a workspace; the file makes an agent or service an owner',
      'set is_owner false for agents and services; a human owner mints their keys after the import',
    ),
    refuseIf(
      `select 1 from public.actors h
         join public.activity x on x.tenant_id = h.tenant_id and x.verb = 'actor.registered' and x.object_id = h.id
         join public.actors m on m.tenant_id = x.tenant_id and m.id = x.actor_id
        where h.tenant_id = ${tenantLit} and h.kind = 'human' and m.kind <> 'human'`,
      'tables.actors.kind',
      'only people create people; the file has a human registered by an agent',
      'leave that person out of the file; an owner invites them after the import (bullpen human invite)',
    ),
  );

  // 5. bytes first (a refused import removes what it wrote: see runImport), then every row
  for (const { row, bytes } of kept) {
    const p = String(row.storage_path);
    const have = await store.get(p);
    if (have) {
      if (sha256Hex(have.data) !== bytes.sha256) {
        throw new DataError(toolError('ALREADY_EXISTS', `files: ${p} already holds other bytes on this server`, 'import under another slug: bullpen import FILE --workspace NEW_SLUG', { fields: ['files'] }));
      }
      continue;
    }
    await store.put(p, new Uint8Array(await readFile(bytes.file)), bytes.mime_type);
    written.push(p);
  }
  try {
    await tx.exec(statements.join(';\n'));
  } catch (err) {
    const e = mapDbError(err);
    if (e.code === 'ALREADY_EXISTS' && created) {
      throw new DataError(toolError('ALREADY_EXISTS', `workspace: ${slug} was created while importing; an import needs a new or empty workspace`, 'import under another slug: bullpen import FILE --workspace NEW_SLUG', { fields: ['workspace'] }));
    }
    throw new DataError(e);
  }
  return { workspace: { id: wsId, slug, name }, created_workspace: created, version: writtenIn, counts, files: { stored: kept.length, missing } };
}

/** Refuses a file whose head is not an export's, naming the field. */
function refuseHead(issue: { path: PropertyKey[]; message: string }): never {
  const at = issue.path.map(String).join('.') || '(file)';
  throw invalid(`${at}: ${issue.message}`, at, `import a file written by \`bullpen export\` (format ${EXPORT_FORMAT}, versions ${EXPORT_VERSIONS.join(', ')})`);
}
