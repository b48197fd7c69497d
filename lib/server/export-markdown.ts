import type { ExportDoc } from './export';

/**
 * The export as one Markdown document for people: the workspace's projects with their tasks
 * (status, owner, criteria, dependencies, body and comment thread), then every other room's records
 * (decisions, notes, handoffs, …) under their own headings. The JSON is the file to import; this
 * one is to read, print or hand over.
 */

type Row = Record<string, unknown>;

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** Text placed on one Markdown line: line breaks folded, no accidental heading. */
function inline(v: unknown): string {
  return str(v).replace(/\s*\n\s*/g, ' ').trim();
}

/** A block of user text, kept as written but unable to close our structure. */
function block(v: unknown): string {
  return str(v).replace(/\r\n/g, '\n').trim();
}

function quote(v: unknown): string {
  return block(v)
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

function day(v: unknown): string {
  const s = str(v);
  return s ? s.slice(0, 10) : '';
}

function minute(v: unknown): string {
  const s = str(v);
  return s ? s.slice(0, 16).replace('T', ' ') : '';
}

const PRIORITY = ['P0 (most urgent)', 'P1', 'P2', 'P3', 'P4 (least)'];

/** The title-ish field of a record of a room this renderer does not know by name. */
function titleOf(r: Row): string {
  for (const k of ['title', 'name', 'slug', 'kind']) if (typeof r[k] === 'string' && r[k]) return inline(r[k]);
  return str(r.id);
}

const BODY_FIELDS = ['choice', 'context', 'rationale', 'consequences', 'body', 'description', 'response', 'resolution_note'];

export function exportMarkdown(doc: ExportDoc): string {
  const t = doc.tables;
  const actors = new Map((t.actors ?? []).map((a) => [str(a.id), a]));
  const who = (id: unknown) => {
    const a = actors.get(str(id));
    return a ? inline(a.display_name) : id ? `unknown actor ${str(id).slice(0, 8)}` : '';
  };
  const projects = t.projects ?? [];
  const projectKey = new Map(projects.map((p) => [str(p.id), str(p.key)]));
  const tasks = t.tasks ?? [];
  const ref = (task: Row | undefined) => (task ? `${projectKey.get(str(task.project_id)) ?? '?'}-${str(task.seq)}` : '?');
  const taskById = new Map(tasks.map((x) => [str(x.id), x]));
  const deps = new Map<string, string[]>();
  for (const d of t.task_dependencies ?? []) {
    const list = deps.get(str(d.task_id)) ?? [];
    list.push(ref(taskById.get(str(d.depends_on_task_id))));
    deps.set(str(d.task_id), list);
  }
  const comments = new Map<string, Row[]>();
  for (const c of t.comments ?? []) {
    const list = comments.get(str(c.object_id)) ?? [];
    list.push(c);
    comments.set(str(c.object_id), list);
  }
  const thread = (objectId: unknown): string[] =>
    (comments.get(str(objectId)) ?? []).map((c) => `**${who(c.author_actor_id)}**, ${minute(c.created_at)}${c.parent_comment_id ? ' (reply)' : ''}:\n\n${quote(c.body)}\n`);

  const out: string[] = [];
  out.push(`# ${inline(doc.workspace.name)} (${doc.workspace.slug})`, '');
  out.push(`Exported from Bullpen on ${minute(doc.exported_at)} UTC.`, '');
  out.push(
    Object.entries(doc.counts)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k.replace(/_/g, ' ')}`)
      .join(' · ') || 'The workspace is empty.',
    '',
  );

  if (actors.size) {
    out.push('## People and agents', '');
    for (const a of actors.values()) {
      const extra = [a.kind, a.is_owner ? 'owner' : '', a.role, a.group].filter(Boolean).map(inline).join(', ');
      out.push(`- **${inline(a.display_name)}** (${extra})`);
    }
    out.push('');
  }

  for (const p of projects) {
    out.push(`## ${str(p.key)} — ${inline(p.title)}`, '');
    const facts = [`status ${str(p.status)}`, p.owner_actor_id ? `owner ${who(p.owner_actor_id)}` : '', p.target_on ? `target ${day(p.target_on)}` : '']
      .filter(Boolean)
      .join(' · ');
    out.push(facts, '');
    if (p.summary) out.push(block(p.summary), '');
    if (p.description) out.push(block(p.description), '');
    const talk = thread(p.id);
    if (talk.length) out.push('### Discussion', '', ...talk);
    const own = tasks.filter((x) => x.project_id === p.id).sort((a, b) => Number(a.seq) - Number(b.seq));
    if (!own.length) {
      out.push('_No tasks._', '');
      continue;
    }
    out.push('### Tasks', '');
    for (const task of own) {
      out.push(`#### ${ref(task)} · ${inline(task.title)}`, '');
      const facts = [
        `**${str(task.status)}**`,
        PRIORITY[Number(task.priority)] ?? `P${str(task.priority)}`,
        task.assignee_actor_id ? `assignee ${who(task.assignee_actor_id)}` : 'unassigned',
        task.due_on ? `due ${day(task.due_on)}` : '',
        Array.isArray(task.labels) && task.labels.length ? `labels ${task.labels.map(inline).join(', ')}` : '',
        task.parent_task_id ? `subtask of ${ref(taskById.get(str(task.parent_task_id)))}` : '',
        deps.get(str(task.id))?.length ? `depends on ${deps.get(str(task.id))!.join(', ')}` : '',
        task.completed_at ? `finished ${minute(task.completed_at)}` : '',
      ].filter(Boolean);
      out.push(facts.join(' · '), '');
      const criteria = Array.isArray(task.acceptance_criteria) ? (task.acceptance_criteria as Row[]) : [];
      if (criteria.length) {
        for (const c of criteria) out.push(`- [${c.met ? 'x' : ' '}] ${inline(c.text)}`);
        out.push('');
      }
      if (task.body) out.push(block(task.body), '');
      const talk = thread(task.id);
      if (talk.length) out.push('Comments:', '', ...talk);
    }
  }

  const shown = new Set(['actors', 'projects', 'tasks', 'task_dependencies', 'comments', 'activity']);
  for (const [section, rows] of Object.entries(t)) {
    if (shown.has(section) || !rows.length || !rows.some((r) => titleOf(r) !== str(r.id))) continue;
    out.push(`## ${section.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase())}`, '');
    for (const r of rows) {
      const by = r.author_actor_id ?? r.from_actor_id ?? r.created_by_actor_id;
      const facts = [r.status ? str(r.status) : '', r.project_id ? projectKey.get(str(r.project_id)) : '', by ? `by ${who(by)}` : '', minute(r.created_at)]
        .filter(Boolean)
        .join(' · ');
      out.push(`### ${titleOf(r)}`, '', ...(facts ? [facts, ''] : []));
      for (const f of BODY_FIELDS) {
        const v = r[f];
        if (v === null || v === undefined || v === '' || (Array.isArray(v) && !v.length)) continue;
        // a list of texts (a decision's consequences) reads as bullets
        const texts = Array.isArray(v) && v.every((x) => typeof x === 'string');
        out.push(`**${f.replace(/_/g, ' ')}**`, '', typeof v === 'string' ? block(v) : texts ? v.map((x) => `- ${inline(x)}`).join('\n') : '```json\n' + JSON.stringify(v, null, 2) + '\n```', '');
      }
    }
  }

  const activity = t.activity ?? [];
  if (activity.length) {
    out.push('## Activity', '', `${activity.length} entries; the latest ${Math.min(200, activity.length)}, oldest first (the JSON file has them all).`, '');
    for (const a of activity.slice(-200)) out.push(`- ${minute(a.at)} · ${who(a.actor_id) || 'system'} · ${inline(a.verb)}${a.summary ? ` — ${inline(a.summary)}` : ''}`);
    out.push('');
  }
  return out.join('\n');
}
