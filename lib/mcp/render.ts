type Row = Record<string, unknown>;

/** A project brief as markdown, for hosts that show resources to a model or a person. */
export function renderBrief(b: {
  project: Row;
  tasks: { by_status: Record<string, number>; total: number; ready: number };
  top_open_tasks: Row[];
  recent_activity: Row[];
  subprojects?: Row[];
}): string {
  const p = b.project;
  const lines = [
    `# ${p.key} — ${p.title}`,
    '',
    `Status: ${p.status}${p.target_on ? ` · target ${p.target_on}` : ''}${p.owner ? ` · owner ${p.owner}` : ''}`,
    p.summary ? `\n${p.summary}` : '',
    '',
    `## Tasks (${b.tasks.total} total, ${b.tasks.ready} ready)`,
    Object.entries(b.tasks.by_status)
      .map(([s, n]) => `${s}: ${n}`)
      .join(' · ') || 'no tasks yet',
    '',
    '## Top open tasks',
    ...(b.top_open_tasks.length
      ? b.top_open_tasks.map((t) => `- ${t.ref} [P${t.priority}] ${t.title} — ${t.status}${t.ready ? ' (ready)' : ''}`)
      : ['- none open']),
    '',
    '## Recent activity',
    ...(b.recent_activity.length
      ? b.recent_activity.map((a) => `- ${a.at} ${a.actor ?? 'system'}: ${a.verb} ${a.summary ?? ''}`.trimEnd())
      : ['- nothing yet']),
  ];
  if (b.subprojects?.length) {
    lines.push('', '## Subprojects', ...b.subprojects.map((s) => `- ${s.key} ${s.title} (${s.status})`));
  }
  return lines.filter((l, i, a) => !(l === '' && a[i - 1] === '')).join('\n') + '\n';
}

/** A small YAML front matter: one `key: value` a line, values JSON-quoted when they need it. */
function frontMatter(fields: Record<string, unknown>): string {
  const lines = Object.entries(fields)
    .filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${k}: ${typeof v === 'string' && /^[\w.:/@-]+$/.test(v) ? v : JSON.stringify(v)}`);
  return `---\n${lines.join('\n')}\n---\n\n`;
}

/** One note as Markdown: front matter, title, body, and what contradicts it. */
export function renderNote(n: Row): string {
  const conflicts = (n.conflicts as Row[]) ?? [];
  return (
    frontMatter({
      type: n.kind === 'guideline' ? 'guideline' : 'note',
      id: n.id,
      kind: n.kind,
      project: n.project_key,
      tags: n.tags,
      language: n.language,
      category: n.category,
      sensitivity: n.sensitivity,
      version: n.version,
      author: n.author,
      updated_at: n.updated_at,
      superseded_by: n.superseded_by,
      retracted: n.retracted_reason,
    }) +
    `# ${n.title}\n\n${n.body ?? ''}\n` +
    (conflicts.length ? `\n## Contradicted by\n${conflicts.map((c) => `- ${c.title} (bullpen://note/${c.id})`).join('\n')}\n` : '')
  );
}

/** One decision as Markdown. */
export function renderDecision(d: Row): string {
  const options = (d.options as Row[]) ?? [];
  const consequences = (d.consequences as string[]) ?? [];
  return (
    frontMatter({ type: 'decision', id: d.id, status: d.status, project: d.project_key, tags: d.tags, author: d.author, created_at: d.created_at, superseded_by: d.superseded_by }) +
    `# ${d.title}\n\n**Choice:** ${d.choice}\n` +
    (d.context ? `\n## Context\n${d.context}\n` : '') +
    (d.rationale ? `\n## Rationale\n${d.rationale}\n` : '') +
    (consequences.length ? `\n## Consequences\n${consequences.map((c) => `- ${c}`).join('\n')}\n` : '') +
    (options.length ? `\n## Options\n${options.map((o) => `- **${o.label}**${o.summary ? `: ${o.summary}` : ''}`).join('\n')}\n` : '')
  );
}

const sensitiveMark = (n: Row) => (n.sensitivity === 'sensitive' ? ' (sensitive)' : '');

export function renderNoteList(key: string, notes: Row[]): string {
  return (
    frontMatter({ type: 'notes', project: key, count: notes.length }) +
    `# ${key}: notes\n\n` +
    (notes.length ? notes.map((n) => `- [${n.kind}] ${n.title}${sensitiveMark(n)} — bullpen://note/${n.id}`).join('\n') : '- none yet') +
    '\n'
  );
}

export function renderDecisionList(key: string, decisions: Row[]): string {
  return (
    frontMatter({ type: 'decisions', project: key, count: decisions.length }) +
    `# ${key}: decisions\n\n` +
    (decisions.length ? decisions.map((d) => `- [${d.status}] ${d.title}: ${d.choice} — bullpen://decision/${d.id}`).join('\n') : '- none yet') +
    '\n'
  );
}

export function renderGuidelineList(key: string, guidelines: Row[]): string {
  return (
    frontMatter({ type: 'guidelines', project: key, count: guidelines.length }) +
    `# ${key}: guidelines in force\n\n` +
    (guidelines.length
      ? guidelines
          .map((g) => `- ${g.title}${sensitiveMark(g)} (${[g.language, g.category].filter(Boolean).join('/') || 'any'}, ${g.scope}${g.shadows ? ', shadows a shared one' : ''}) — bullpen://guideline/${g.id}`)
          .join('\n')
      : '- none') +
    '\n'
  );
}

type Summary = {
  project: Row;
  counts: { tasks?: Record<string, number>; decisions?: Record<string, number>; notes?: Record<string, number> };
  top_tags: { tag: string; count: number }[];
  recent: Row[];
  key_decisions?: Row[];
  patterns?: Row[];
  risks: { blocked_tasks?: Row[]; proposed_decisions?: Row[]; risk_notes?: Row[]; contradictions?: Row[] };
};

const counts = (c: Record<string, number> | undefined) =>
  c ? Object.entries(c).map(([k, n]) => `${k} ${n}`).join(', ') || 'none' : 'not readable with this key';

/** summarize_project: the ledger's facts, then the ask. */
export function renderSummary(s: Summary): string {
  const list = (rows: Row[] | undefined, f: (r: Row) => string) => (rows === undefined ? ['- not readable with this key'] : rows.length ? rows.map(f) : ['- none']);
  const r = s.risks;
  return [
    `Summarize project ${s.project.key} (${s.project.title}, ${s.project.status}) for a teammate, from these facts of the Bullpen ledger.`,
    '',
    '## Counts by type',
    `- tasks: ${counts(s.counts.tasks)}`,
    `- decisions: ${counts(s.counts.decisions)}`,
    `- notes: ${counts(s.counts.notes)}`,
    '',
    '## Recent additions',
    ...list(s.recent, (x) => `- ${String(x.at).slice(0, 10)} ${x.type} ${x.ref ?? ''} ${x.title}`.replace(/\s+/g, ' ')),
    '',
    '## Top tags',
    s.top_tags.length ? s.top_tags.map((t) => `${t.tag} (${t.count})`).join(', ') : '- none',
    '',
    '## Key decisions',
    ...list(s.key_decisions, (d) => `- ${d.title}: ${d.choice} (bullpen://decision/${d.id})`),
    '',
    '## Active patterns',
    ...list(s.patterns, (n) => `- ${n.title} (bullpen://note/${n.id})`),
    '',
    '## Open risks',
    ...list(r.blocked_tasks, (t) => `- blocked task ${t.ref}: ${t.title}`),
    ...list(r.proposed_decisions, (d) => `- undecided: ${d.title}`),
    ...list(r.risk_notes, (n) => `- risk note: ${n.title}`),
    ...list(r.contradictions, (c) => `- contradiction: "${c.a}" vs "${c.b}"`),
    '',
    'Write: what the project is doing now, what was settled, what is at risk, and what to do next. Cite the items by their bullpen:// links.',
  ]
    .filter((l, i, a) => !(l === '- none' && a[i - 1]?.startsWith('- ')))
    .join('\n');
}

type Related = { root: Row; nodes: Row[]; total: number; depth: number };

function relatedLines(nodes: Row[]): string[] {
  return nodes.map((n) => {
    const path = ((n.path as Row[]) ?? []).map((p) => p.relation).join(' → ');
    const tags = (n.shared_tags as string[])?.length ? ` · shared tags: ${(n.shared_tags as string[]).join(', ')}` : '';
    return `- [d${n.distance}] ${n.type} ${n.label} (${n.status ?? '-'}) via ${path || '-'} · strength ${n.strength}${tags}`;
  });
}

/** find_related: the neighbourhood, ranked, and the ask. */
export function renderRelated(r: Related): string {
  return [
    `What relates to ${r.root.type} "${r.root.label}" in the Bullpen ledger, to depth ${r.depth} (${r.total} found, nearest and strongest first):`,
    '',
    ...(r.nodes.length ? relatedLines(r.nodes) : ['- nothing is linked to it yet']),
    '',
    'Explain how these relate to it and which matter for the work at hand.',
  ].join('\n');
}

/** start_task: the task, its criteria, and the memory that bears on it. */
export function renderStartTask(
  got: { task: Row; project: Row; blockers: Row[] },
  memory: { decisions: Row[] | null; guidelines: Row[] | null; related: Row[] | null },
): string {
  const t = got.task;
  const criteria = (t.acceptance_criteria as Row[]) ?? [];
  const notes = (memory.related ?? []).filter((n) => n.type === 'note');
  const section = (title: string, rows: Row[] | null, f: (r: Row) => string) =>
    ['', `## ${title}`, ...(rows === null ? ['- not readable with this key'] : rows.length ? rows.map(f) : ['- none'])];
  return [
    `You are starting task ${t.ref}: ${t.title} (${t.status}, P${t.priority}) in project ${got.project?.key ?? ''}.`,
    'Claim it with task_claim before you work on it.',
    '',
    '## The task',
    String(t.body || '(no description)'),
    '',
    '## Acceptance criteria',
    ...(criteria.length ? criteria.map((c) => `- [${c.met ? 'x' : ' '}] ${c.text}`) : ['- none: agree them with task_update before you start']),
    ...(got.blockers?.length ? ['', '## Depends on', ...got.blockers.map((b) => `- ${b.ref} ${b.title} (${b.status})`)] : []),
    ...section('Related decisions', memory.decisions, (d) =>
      [`- [${d.status}] ${d.title}: ${d.choice} (bullpen://decision/${d.id})`, ...((d.consequences as string[]) ?? []).map((c) => `  - consequence: ${c}`)].join('\n'),
    ),
    ...section('Guidelines in force', memory.guidelines, (g) => `- ${g.title} (${[g.language, g.category].filter(Boolean).join('/') || 'any'}, ${g.scope}) (bullpen://guideline/${g.id})`),
    ...section('Related notes', memory.related === null ? null : notes, (n) => `- ${n.label} (bullpen://note/${n.id})`),
  ].join('\n');
}

/** handoff_brief: what is asked, of whom, and the task it is about. */
export function renderHandoffBrief(h: Row, task: Row | null): string {
  const to = ((h.to as Row[]) ?? []).map((a) => a.display_name ?? a.id).join(', ');
  const options = (h.options as string[]) ?? [];
  return [
    `Handoff (${h.kind}, ${h.priority}, ${h.status}): ${h.title}`,
    `From ${(h.from as Row)?.display_name ?? h.from_actor_id} to ${to || (h.to_capabilities as string[])?.join(', ') || 'anyone'}${h.due_at ? `, due ${h.due_at}` : ''}.`,
    '',
    '## What is asked',
    String(h.body || '(no details)'),
    ...(options.length ? ['', '## Options', ...options.map((o) => `- ${o}`), h.allow_free_text ? '- or a free-text answer' : ''] : []),
    ...(task ? ['', '## The task', `${task.ref} ${task.title} (${task.status})`, String(task.body ?? '').slice(0, 4000)] : []),
    ...(h.response ? ['', '## Response so far', JSON.stringify(h.response)] : []),
    '',
    h.status === 'open'
      ? `To act: handoff_claim {handoff_id: "${h.id}"}, then handoff_respond.`
      : `It is ${h.status}: ${h.status === 'responded' ? 'the sender resolves it with handoff_resolve.' : 'read the response above.'}`,
  ]
    .filter((l, i, a) => !(l === '' && a[i - 1] === ''))
    .join('\n');
}
