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
