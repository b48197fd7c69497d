import type { ExportDoc } from './export';

/**
 * `bullpen export --types`: the kinds of object a person chooses to take along, for every format.
 * People and projects always travel (they are the frame every other record hangs on, and an import
 * needs them); each other section keeps only the rows of a chosen type, and rows that join two
 * objects (links, comments, task lists of notes and decisions) only when both ends travel.
 */
export const EXPORT_TYPES = ['task', 'decision', 'note', 'skill', 'handoff', 'run', 'code_ref', 'attachment', 'feature_request', 'activity'] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];

type Row = Record<string, unknown>;

/** Parses `task,note` into types; throws naming the unknown one. */
export function parseExportTypes(list: string): ExportType[] {
  const out: ExportType[] = [];
  for (const raw of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const t = raw.replace(/s$/, '') as ExportType;
    if (!(EXPORT_TYPES as readonly string[]).includes(t)) throw new Error(`--types: no type ${raw}; choose from ${EXPORT_TYPES.join(', ')}`);
    if (!out.includes(t)) out.push(t);
  }
  if (!out.length) throw new Error(`--types: name at least one of ${EXPORT_TYPES.join(', ')}`);
  return out;
}

/** The section a type's own rows live in, and the sections that belong to them alone. */
const OWN: Record<Exclude<ExportType, 'activity'>, string[]> = {
  task: ['tasks', 'task_dependencies'],
  decision: ['decisions', 'decision_participants', 'councils'],
  note: ['notes'],
  skill: ['skills'],
  handoff: ['handoffs', 'handoff_recipients', 'handoff_acks', 'notifications'],
  run: ['runs'],
  code_ref: ['code_refs'],
  attachment: ['attachments', 'stored_files'],
  feature_request: ['feature_requests'],
};
const ALWAYS = new Set(['actors', 'projects', 'repositories', 'project_repositories']);
/** Columns that tie a row to another object it cannot travel without. */
const BELONGS: Record<string, string> = {
  task_id: 'tasks',
  related_task_id: 'tasks',
  depends_on_task_id: 'tasks',
  handoff_id: 'handoffs',
  decision_id: 'decisions',
  note_id: 'notes',
  parent_comment_id: 'comments',
};
/** Columns that only mention another object: cleared when it stays behind. */
const LOOSE: [string, string][] = [
  ['run_id', 'runs'],
  ['parent_run_id', 'runs'],
  ['lease_run_id', 'runs'],
  ['comment_id', 'comments'],
  ['council_id', 'councils'],
];

/**
 * The export cut down to the chosen types (a new document; counts recomputed; `files` kept only for
 * stored files that still travel). The cut is recorded in `types` so a reader knows it is partial.
 */
export function filterExportTypes(doc: ExportDoc, types: readonly ExportType[]): ExportDoc & { types: ExportType[] } {
  const chosen = new Set<string>(types);
  const objectType = (t: string) => (t === 'project' ? true : chosen.has(t));
  const t = doc.tables;
  const ids = (section: string) => new Set((t[section] ?? []).map((r) => String(r.id)));
  const taskIds = chosen.has('task') ? ids('tasks') : new Set<string>();
  const tables: Record<string, Row[]> = {};
  for (const [section, rows] of Object.entries(t)) {
    let keep: (r: Row) => boolean;
    if (ALWAYS.has(section)) keep = () => true;
    else if (section === 'activity') keep = (r) => chosen.has('activity') && (r.object_type === 'project' || objectType(String(r.object_type)));
    else if (section === 'links') keep = (r) => objectType(String(r.from_type)) && objectType(String(r.to_type));
    else if (section === 'comments') keep = (r) => objectType(String(r.object_type));
    else if (section === 'memory_embeddings') keep = (r) => chosen.has(String(r.object_type));
    else if (section === 'decision_tasks') keep = (r) => chosen.has('decision') && taskIds.has(String(r.task_id));
    else if (section === 'note_tasks') keep = (r) => chosen.has('note') && taskIds.has(String(r.task_id));
    else {
      const owner = (Object.keys(OWN) as (keyof typeof OWN)[]).find((k) => OWN[k].includes(section));
      keep = () => (owner ? chosen.has(owner) : false);
    }
    tables[section] = rows.filter(keep);
  }
  // a row that points at one left behind: a loose reference (the run that wrote it, a council) is
  // cleared; a row that belongs to the other (a handoff about a task, a code ref on a note) stays
  // behind too, so that what travels is whole and imports
  const sectionOf = (type: string) => (type === 'note' ? 'notes' : `${type}s`);
  const has = new Map<string, Set<string>>();
  const present = (section: string, id: unknown) => {
    if (id === null || id === undefined || section === 'projects' || section === 'actors') return true;
    if (!has.has(section)) has.set(section, new Set((tables[section] ?? []).map((r) => String(r.id))));
    return has.get(section)!.has(String(id));
  };
  for (let pass = 0; pass < 3; pass++) {
    has.clear();
    for (const [section, rows] of Object.entries(tables)) {
      if (ALWAYS.has(section)) continue;
      tables[section] = rows
        .filter((r) => {
          for (const [col, target] of Object.entries(BELONGS)) if (col in r && target !== section && !present(target, r[col])) return false;
          if ('object_type' in r && 'object_id' in r && section !== 'activity' && !present(sectionOf(String(r.object_type)), r.object_id)) return false;
          if (section === 'links') return present(sectionOf(String(r.from_type)), r.from_id) && present(sectionOf(String(r.to_type)), r.to_id);
          return true;
        })
        .map((r) => {
          const loose = LOOSE.filter(([col, target]) => col in r && target !== section && !present(target, r[col]));
          return loose.length ? { ...r, ...Object.fromEntries(loose.map(([c]) => [c, null])) } : r;
        });
    }
  }
  const paths = new Set((tables.attachments ?? []).map((r) => String(r.storage_path ?? '')));
  if (tables.stored_files) tables.stored_files = tables.stored_files.filter((r) => paths.has(String(r.storage_path)));
  const counts: Record<string, number> = {};
  for (const [k, v] of Object.entries(tables)) counts[k] = v.length;
  const files = doc.files?.filter((f) => (tables.stored_files ?? []).some((s) => s.storage_path === f.storage_path));
  return { ...doc, counts, tables, ...(files ? { files } : {}), types: [...types] };
}
