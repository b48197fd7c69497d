import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { toolError, type ToolError } from '../core/errors';
import { mapDbError } from '../core/sql-errors';
import type { Db } from '../db/types';
import { ensureWorkspace, slugify } from './workspace';

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
  { table: 'public.tasks', tenant: 'tenant_id' },
  { table: 'public.task_dependencies', tenant: 'tenant_id' },
  { table: 'public.comments', tenant: 'tenant_id' },
  // memory
  { table: 'public.decisions', tenant: 'tenant_id' },
  { table: 'public.decision_tasks', tenant: 'tenant_id' },
  { table: 'public.knowledge_notes', tenant: 'tenant_id', as: 'notes' },
  { table: 'public.note_tasks', tenant: 'tenant_id' },
  { table: 'public.skills', tenant: 'tenant_id' },
  { table: 'public.memory_embeddings', tenant: 'tenant_id', derived: true },
  // coordination
  { table: 'public.handoffs', tenant: 'tenant_id' },
  { table: 'public.handoff_recipients', tenant: 'tenant_id' },
  { table: 'public.handoff_acks', tenant: 'tenant_id' },
  { table: 'public.notifications', tenant: 'tenant_id' },
  // provenance
  { table: 'public.repositories', tenant: 'tenant_id' },
  { table: 'public.project_repositories', tenant: 'tenant_id' },
  { table: 'public.runs', tenant: 'tenant_id' },
  { table: 'public.code_refs', tenant: 'tenant_id' },
  { table: 'public.attachments', tenant: 'tenant_id' },
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
};

export const EXPORT_FORMAT = 'bullpen.workspace-export';
export const EXPORT_VERSION = 1;

export type ExportDoc = {
  format: typeof EXPORT_FORMAT;
  version: number;
  exported_at: string;
  workspace: { id: string; slug: string; name: string; created_at: string };
  /** Row counts by section. */
  counts: Record<string, number>;
  /** Rows by section, without the workspace column; generated columns are left out too. */
  tables: Record<string, Record<string, unknown>[]>;
};

const exportDoc = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  exported_at: z.string(),
  workspace: z.object({ id: z.string(), slug: z.string(), name: z.string().min(1).max(200), created_at: z.string() }),
  counts: z.record(z.string(), z.number()).optional(),
  tables: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))),
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
    `select n.nspname as schema, c.relname as name, a.attname as column, a.attgenerated <> '' as generated,
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
export async function exportWorkspace(db: Db, slug: string): Promise<ExportDoc> {
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
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: new Date().toISOString(),
    workspace: ws,
    counts,
    tables: row.tables,
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

async function foreignKeys(db: Db, tables: string[]): Promise<ForeignKey[]> {
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

export type ImportResult = { workspace: { id: string; slug: string; name: string }; created_workspace: boolean; counts: Record<string, number> };

function invalid(message: string, field: string, hint?: string): DataError {
  return new DataError(toolError('VALIDATION_ERROR', message, hint ?? 'import a file written by `bullpen export`', { fields: [field] }));
}

/**
 * Loads an export into a workspace that is new or empty (`slug`, default the exported one), keeping
 * every id; activity rows get new sequence numbers in their original order. One transaction: it
 * all lands or none of it. Row triggers stay quiet (the rows are history, not new events: no
 * notifications, no change feed), and every foreign key among the loaded rows is checked before
 * commit, so a hand-edited file cannot leave dangling references.
 */
export async function importWorkspace(db: Db, input: unknown, opts: { slug?: string; name?: string } = {}): Promise<ImportResult> {
  const parsed = exportDoc.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue.path.map(String).join('.') || '(file)';
    throw invalid(`${at}: ${issue.message}`, at, `import a file written by \`bullpen export\` (format ${EXPORT_FORMAT}, version ${EXPORT_VERSION})`);
  }
  const doc = parsed.data;
  const tables = await presentTables(db);
  const bySection = new Map(tables.map((t) => [t.section, t]));
  for (const [section, rows] of Object.entries(doc.tables)) {
    const t = bySection.get(section);
    if (!t) {
      if (!rows.length || EXPORT_TABLES.some((x) => sectionOf(x) === section && x.derived)) continue;
      throw invalid(`tables.${section}: this server has no such table; upgrade it before importing`, `tables.${section}`);
    }
    const known = new Set(t.columns.map((c) => c.name));
    for (const r of rows) {
      for (const k of Object.keys(r)) {
        if (!known.has(k) || k === t.tenant) throw invalid(`tables.${section}.${k}: not a column this server has`, `tables.${section}.${k}`);
      }
    }
  }
  const slug = slugify(opts.slug ?? doc.workspace.slug);
  const ws = await ensureWorkspace(db, slug, opts.name ?? doc.workspace.name);
  if (!ws.created) {
    const [{ used }] = await db.query<{ used: boolean }>(
      `select ${tables.map((t) => `exists (select 1 from ${qualified(t.table)} where ${ident(t.tenant)} = $1)`).join(' or ')} as used`,
      [ws.id],
    );
    if (used) {
      throw new DataError(
        toolError('ALREADY_EXISTS', `workspace: ${slug} already holds data; an import needs a new or empty workspace`, 'import under another slug: bullpen import FILE --workspace NEW_SLUG'),
      );
    }
  }
  const fks = await foreignKeys(
    db,
    tables.map((t) => t.table),
  );
  const ordered = dependencyOrder(tables, fks);
  const tenantLit = `'${ws.id}'::uuid`;
  const statements: string[] = [`set local session_replication_role = replica`, `set local bullpen.notify = 'off'`];
  const counts: Record<string, number> = {};
  for (const t of ordered) {
    const rows = doc.tables[t.section] ?? [];
    counts[t.section] = rows.length;
    if (!rows.length) continue;
    const cols = t.columns.filter((c) => !c.generated && !c.identityAlways && c.name !== t.tenant).map((c) => c.name);
    const identityOrder = t.columns.find((c) => c.identityAlways);
    const order = identityOrder ? `order by (e.value ->> ${dollarQuoted(identityOrder.name)})::bigint` : 'order by e.ordinality';
    statements.push(
      `insert into ${qualified(t.table)} (${[t.tenant, ...cols].map(ident).join(', ')})
       select ${tenantLit}, ${cols.map((c) => `r.${ident(c)}`).join(', ')}
         from jsonb_array_elements(${dollarQuoted(JSON.stringify(rows))}::jsonb) with ordinality e(value, ordinality)
         cross join lateral jsonb_populate_record(null::${qualified(t.table)}, e.value) r
        ${order}`,
    );
  }
  // every reference among the loaded rows must resolve (triggers, foreign keys included, were off)
  for (const fk of fks) {
    const child = tables.find((t) => t.table === fk.child);
    if (!child || !(doc.tables[child.section] ?? []).length) continue;
    const notNull = fk.childCols.map((c) => `c.${ident(c)} is not null`).join(' and ');
    const match = fk.childCols.map((c, i) => `p.${ident(fk.parentCols[i])} = c.${ident(c)}`).join(' and ');
    const refCols = fk.childCols.filter((c) => c !== child.tenant).join(', ');
    statements.push(
      `do $fk$ begin
         if exists (select 1 from ${qualified(fk.child)} c where c.${ident(child.tenant)} = ${tenantLit} and ${notNull}
                      and not exists (select 1 from ${qualified(fk.parent)} p where ${match})) then
           raise exception using errcode = 'BPVAL',
             message = ${dollarQuoted(`tables.${child.section}.${refCols}: a row refers to a ${fk.parent.split('.')[1]} row the file does not have (${fk.name})`)},
             hint = 'import the file bullpen export wrote, unedited',
             detail = ${dollarQuoted(JSON.stringify({ fields: [`tables.${child.section}.${refCols}`] }))};
         end if;
       end $fk$`,
    );
  }
  try {
    await db.exec(statements.join(';\n'));
  } catch (err) {
    // nothing landed; a workspace this import created must not stay behind half-made
    if (ws.created) await db.query(`delete from public.tenants where id = $1`, [ws.id]).catch(() => {});
    throw new DataError(mapDbError(err));
  }
  return { workspace: { id: ws.id, slug: ws.slug, name: ws.name }, created_workspace: ws.created, counts };
}
