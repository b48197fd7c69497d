import { STATUS_LABEL, type TaskStatus } from './types';
import { verbText } from './format';

/**
 * An activity entry in words for a person: "moved to Done", "updated: criteria 2/3 met and the
 * title". The log's summary is written for agents and scripts ("todo → done", "acceptance_criteria,
 * title", "lease until 2026-…"); here it is shown only where it is prose someone wrote (a release
 * note, a handoff's title). A sentence reads: actor, lead, [the object], tail.
 */
export type ChangeWords = { lead: string; tail: string; detail: string | null };

type Entry = { verb: string; summary: string; metadata?: Record<string, unknown> | null };

const FIELD_WORDS: Record<string, string> = {
  title: 'the title',
  body: 'the description',
  priority: 'the priority',
  labels: 'the labels',
  due_on: 'the due date',
  assignee_actor_id: 'the assignee',
  reviewer_actor_id: 'the reviewer',
  requires_evidence: 'the evidence rule',
  acceptance_criteria: 'the criteria',
  status: 'the status',
  parent_task_id: 'the parent task',
};

/** Summaries that are machine text (field lists, arrows, timestamps): never shown to people. */
const MACHINE_SUMMARY = new Set(['task.created', 'task.updated', 'task.status_changed', 'task.assigned', 'task.claimed', 'task.lease_extended', 'task.linked', 'project.created', 'project.updated', 'project.status_changed']);

export function statusWord(s: unknown): string {
  return typeof s === 'string' && s in STATUS_LABEL ? STATUS_LABEL[s as TaskStatus] : String(s ?? '').replace(/_/g, ' ');
}

/** "a", "a and b", "a, b and c". */
export function listWords(parts: string[]): string {
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

function tally(m: Record<string, unknown>): string | null {
  const met = Number(m.criteria_met);
  const total = Number(m.criteria_total);
  return Number.isFinite(met) && Number.isFinite(total) && m.criteria_total !== undefined ? `criteria ${met}/${total} met` : null;
}

function fieldWords(m: Record<string, unknown>, skip: string[] = []): string[] {
  const fields = Array.isArray(m.fields) ? (m.fields as string[]).filter((f) => !skip.includes(f)) : [];
  const t = tally(m);
  const out = t && fields.includes('acceptance_criteria') ? [t] : [];
  for (const f of fields) if (f !== 'acceptance_criteria' || !t) out.push(FIELD_WORDS[f] ?? f.replace(/_/g, ' '));
  return out;
}

/** Reads what a summary says where an entry comes without metadata (project_brief's recent activity). */
function fromSummary(e: Entry): Record<string, unknown> {
  if (e.verb === 'task.status_changed') {
    const m = /^(\w+) → (\w+)(?: \((\w+)\))?/.exec(e.summary);
    return m ? { from: m[1], to: m[2], ...(m[3] ? { reason: m[3].replace(/ /g, '_') } : {}) } : {};
  }
  if (e.verb === 'task.updated') return { fields: e.summary.split(',').map((f) => f.trim()).filter(Boolean) };
  return {};
}

export function changeWords(e: Entry): ChangeWords {
  const m = e.metadata ?? fromSummary(e);
  const detail = MACHINE_SUMMARY.has(e.verb) || !e.summary.trim() ? null : e.summary;
  switch (e.verb) {
    case 'task.created':
      return { lead: 'created', tail: '', detail: null };
    case 'task.status_changed': {
      const extra = fieldWords(m, ['status']);
      const why = m.reason === 'changes_requested' ? ' (changes requested)' : '';
      return { lead: 'moved', tail: `to ${statusWord(m.to)}${why}${extra.length ? `; ${listWords(extra)}` : ''}`, detail: null };
    }
    case 'task.updated': {
      const parts = fieldWords(m);
      if (parts.length === 1 && parts[0].startsWith('criteria ')) return { lead: 'ticked the criteria of', tail: `: ${parts[0]}`, detail: null };
      return { lead: 'changed', tail: parts.length ? `: ${listWords(parts)}` : '', detail: null };
    }
    case 'task.assigned':
      return m.to ? { lead: 'assigned', tail: `to ${e.summary}`, detail: null } : { lead: 'unassigned', tail: '', detail: null };
    case 'task.claimed':
      return { lead: 'claimed', tail: '', detail: null };
    case 'task.lease_extended':
      return { lead: 'extended the claim on', tail: '', detail: null };
    case 'task.linked': {
      const added = Array.isArray(m.added) ? m.added.length : 0;
      const removed = Array.isArray(m.removed) ? m.removed.length : 0;
      const parts = [added && `${added} dependenc${added === 1 ? 'y' : 'ies'} added`, removed && `${removed} removed`].filter(Boolean) as string[];
      return { lead: 'linked', tail: parts.length ? `: ${listWords(parts)}` : '', detail: null };
    }
    case 'task.released':
      return { lead: m.reason === 'run_ended' ? 'released (its run ended)' : m.reason === 'actor_deactivated' ? 'released (its agent was deactivated)' : 'released', tail: '', detail };
    case 'task.recovered':
      return { lead: 'recovered', tail: typeof m.to === 'string' ? `to ${m.to.replace(/_/g, ' ')}` : '', detail: typeof m.note === 'string' ? m.note : null };
    case 'project.created':
      // the summary is "KEY Title": the key is the link beside it, the title the words
      return { lead: 'created project', tail: e.summary.replace(/^\S+\s*/, ''), detail: null };
    case 'project.status_changed':
      return { lead: 'changed the status of project', tail: typeof m.to === 'string' ? `to ${m.to.replace(/_/g, ' ')}` : '', detail: null };
    default:
      return { lead: verbText(e.verb), tail: '', detail };
  }
}

/** The whole phrase without the object, as the drawer's timeline reads it: "moved to Done". */
export function changePhrase(e: Entry): string {
  const w = changeWords(e);
  const lead = w.lead.replace(/ (of|on|to|from)$/, '');
  return `${lead}${w.tail ? (w.tail.startsWith(':') ? w.tail : ` ${w.tail}`) : ''}`;
}
