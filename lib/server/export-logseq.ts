import type { ExportDoc } from './export';

/**
 * The export as a Logseq graph folder: one page per project, task, decision, note, skill and
 * handoff (`pages/*.md`), each opening with its properties (`type::`, `status::`, `tags::`, …) and
 * the typed links as properties named by their relation (`explains:: [[Restart the consumer]]`),
 * then its text as blocks. Every `[[link]]` the renderer writes names a page it also writes; text
 * written by people cannot open one (its brackets are broken up), so the graph has no dangling pages.
 */

type Row = Record<string, unknown>;

/** The graph's files by relative path (`pages/…md`, `logseq/config.edn`). */
export type LogseqGraph = Map<string, string>;

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** A page name: one line, none of the characters Logseq reads as structure. */
export function pageName(v: string): string {
  const s = v
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[[\]#/\\|{}]/g, ' ')
    .replace(/::/g, ':')
    .replace(/\s+/g, ' ')
    .trim();
  return (s || 'untitled').slice(0, 120).trim();
}

/** Text people wrote, made unable to open a link, a property or a macro. */
function safe(v: unknown): string {
  return str(v)
    .replace(/\r\n/g, '\n')
    .replace(/\[\[/g, '[\u200b[')
    .replace(/\]\]/g, ']\u200b]')
    .replace(/\(\(/g, '(\u200b(')
    .replace(/\{\{/g, '{\u200b{')
    .replace(/::/g, ':\u200b:');
}

const inline = (v: unknown) => safe(v).replace(/\s*\n\s*/g, ' ').trim();

/** A block (and its continuation lines) at an indentation level. */
function blockOf(text: string, level = 0): string {
  const pad = '\t'.repeat(level);
  const lines = safe(text).trim().split('\n');
  return [`${pad}- ${lines[0]}`, ...lines.slice(1).map((l) => `${pad}  ${l}`)].join('\n');
}

/** A file name for a page: readable, and unique even where two names fold to one. */
function fileName(name: string, used: Set<string>): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'page';
  let f = base;
  for (let i = 2; used.has(f); i++) f = `${base}-${i}`;
  used.add(f);
  return `pages/${f}.md`;
}

const PAGE_TYPES: Record<string, string> = { projects: 'project', tasks: 'task', decisions: 'decision', notes: 'note', skills: 'skill', handoffs: 'handoff' };

const prop = (k: string) => k.replace(/_/g, '-');

export function exportLogseq(doc: ExportDoc): LogseqGraph {
  const t = doc.tables;
  const actors = new Map((t.actors ?? []).map((a) => [str(a.id), pageName(str(a.display_name))]));
  const projectKey = new Map((t.projects ?? []).map((p) => [str(p.id), str(p.key)]));
  // every object that gets a page, with its unique name (Logseq folds case, so do we)
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const claim = (id: string, want: string) => {
    let n = pageName(want);
    if (taken.has(n.toLowerCase())) n = `${n} (${id.slice(0, 8)})`;
    taken.add(n.toLowerCase());
    names.set(id, n);
  };
  claim(`workspace:${doc.workspace.id}`, doc.workspace.name);
  for (const a of t.actors ?? []) claim(str(a.id), str(a.display_name));
  for (const p of t.projects ?? []) claim(str(p.id), `${str(p.key)} ${str(p.title)}`);
  for (const x of t.tasks ?? []) claim(str(x.id), `${projectKey.get(str(x.project_id)) ?? '?'}-${str(x.seq)} ${str(x.title)}`);
  for (const section of ['decisions', 'notes', 'skills', 'handoffs']) for (const r of t[section] ?? []) claim(str(r.id), str(r.title ?? r.slug ?? r.id));
  const link = (id: unknown) => {
    const n = names.get(str(id));
    return n ? `[[${n}]]` : '';
  };

  // typed links and task dependencies, both ways, by object
  const out = new Map<string, { key: string; target: string; strength?: number }[]>();
  const add = (from: unknown, key: string, to: unknown, strength?: number) => {
    if (!names.has(str(from)) || !names.has(str(to))) return;
    const list = out.get(str(from)) ?? [];
    list.push({ key, target: link(to), strength });
    out.set(str(from), list);
  };
  for (const l of t.links ?? []) {
    add(l.from_id, prop(str(l.relation)), l.to_id, Number(l.strength));
    add(l.to_id, `${prop(str(l.relation))}-by`, l.from_id, Number(l.strength));
  }
  for (const d of t.task_dependencies ?? []) {
    add(d.task_id, 'depends-on', d.depends_on_task_id);
    add(d.depends_on_task_id, 'blocks', d.task_id);
  }
  for (const section of ['decision_tasks', 'note_tasks']) for (const r of t[section] ?? []) add(r.decision_id ?? r.note_id, 'tasks', r.task_id);
  const comments = new Map<string, Row[]>();
  for (const c of t.comments ?? []) comments.set(str(c.object_id), [...(comments.get(str(c.object_id)) ?? []), c]);

  const files: LogseqGraph = new Map();
  const used = new Set<string>();
  const page = (id: string, props: [string, unknown][], body: string[]) => {
    const name = names.get(id)!;
    const lines = [`title:: ${name}`];
    for (const [k, v] of props) {
      const s = Array.isArray(v) ? v.map(str).filter(Boolean).join(', ') : str(v);
      if (s) lines.push(`${k}:: ${s}`);
    }
    const grouped = new Map<string, string[]>();
    for (const e of out.get(id) ?? []) grouped.set(e.key, [...(grouped.get(e.key) ?? []), e.target]);
    for (const [k, v] of grouped) lines.push(`${k}:: ${[...new Set(v)].join(', ')}`);
    const strengths = (out.get(id) ?? []).filter((e) => e.strength !== undefined && e.strength !== 1 && !e.key.endsWith('-by'));
    const blocks = [...body];
    if (strengths.length) blocks.push('- Link strengths', ...strengths.map((e) => `\t- ${e.key} ${e.target} ${e.strength}`));
    for (const c of comments.get(id) ?? []) blocks.push(`- ${actors.has(str(c.author_actor_id)) ? link(c.author_actor_id) : 'someone'} ${str(c.created_at).slice(0, 16).replace('T', ' ')}`, blockOf(str(c.body), 1));
    files.set(fileName(name, used), `${lines.join('\n')}\n\n${blocks.join('\n')}\n`);
  };
  const text = (v: unknown) => (str(v).trim() ? [blockOf(str(v))] : []);
  const tags = (v: unknown) => (Array.isArray(v) ? v.map((x) => pageName(str(x))).filter(Boolean) : []);

  page(`workspace:${doc.workspace.id}`, [['type', 'workspace'], ['slug', doc.workspace.slug], ['exported', doc.exported_at]], [
    `- Exported from Bullpen on ${doc.exported_at.slice(0, 16).replace('T', ' ')} UTC.`,
    ...(t.projects ?? []).map((p) => `- ${link(p.id)}`),
  ]);
  for (const a of t.actors ?? []) page(str(a.id), [['type', 'actor'], ['kind', a.kind], ['bullpen-id', a.id]], []);
  for (const [section, type] of Object.entries(PAGE_TYPES)) {
    for (const r of t[section] ?? []) {
      const id = str(r.id);
      const common: [string, unknown][] = [
        ['type', type],
        ['bullpen-id', id],
        ['status', r.status],
        ['kind', section === 'notes' || section === 'handoffs' ? r.kind : ''],
        ['project', type !== 'project' && r.project_id ? link(r.project_id) : ''],
        ['tags', tags(r.tags ?? r.labels)],
        ['created', str(r.created_at).slice(0, 10)],
      ];
      if (type === 'project') {
        const own = (t.tasks ?? []).filter((x) => x.project_id === r.id).sort((a, b) => Number(a.seq) - Number(b.seq));
        page(id, [...common, ['key', r.key], ['owner', link(r.owner_actor_id)]], [...text(r.summary), ...text(r.description), ...own.map((x) => `- ${str(x.status) === 'done' ? 'DONE' : 'TODO'} ${link(x.id)}`)]);
      } else if (type === 'task') {
        const criteria = Array.isArray(r.acceptance_criteria) ? (r.acceptance_criteria as Row[]) : [];
        page(id, [...common, ['priority', `P${str(r.priority)}`], ['assignee', link(r.assignee_actor_id)], ['parent', link(r.parent_task_id)], ['due', str(r.due_on).slice(0, 10)]], [
          ...text(r.body),
          ...criteria.map((c) => `- ${c.met ? 'DONE' : 'TODO'} ${inline(c.text)}`),
        ]);
      } else if (type === 'decision') {
        page(id, [...common, ['author', link(r.author_actor_id)], ['supersedes', link(r.supersedes_decision_id)]], [
          ...text(r.choice),
          ...['context', 'rationale', 'consequences'].flatMap((f) => {
            // consequences is a list: one block each
            const items = [r[f]].flat().filter((x): x is string => typeof x === 'string' && !!x.trim());
            return items.length ? [`- **${f}**`, ...items.map((x) => blockOf(x, 1))] : [];
          }),
        ]);
      } else if (type === 'note') {
        page(id, [...common, ['language', r.language], ['category', r.category], ['author', link(r.author_actor_id)]], text(r.body));
      } else if (type === 'skill') {
        page(id, [...common, ['slug', r.slug]], [...text(r.description), ...text(r.body)]);
      } else {
        page(id, [...common, ['from', link(r.from_actor_id)], ['task', link(r.related_task_id)]], [...text(r.body)]);
      }
    }
  }
  files.set('logseq/config.edn', '{:preferred-format :markdown\n :property-pages/enabled? false}\n');
  return files;
}
