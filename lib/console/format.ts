/** Relative times for people ("just now", "3 min ago", "2 h ago", "3 days ago"). */

export function timeAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const s = Math.round((now - new Date(iso).getTime()) / 1000);
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  if (s < 2 * 86_400) return 'yesterday';
  if (s < 30 * 86_400) return `${Math.round(s / 86_400)} days ago`;
  return new Date(iso).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

/** The exact time, for the hover title of a relative one: "Nov 26, 2026, 14:03:12". */
export function exactTime(iso: string | null | undefined): string {
  if (!iso) return '';
  return new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** Dollars for a cost figure: $0.0042, $1.23, $1,204. */
export function usd(n: number | null | undefined): string {
  const v = Number(n ?? 0);
  if (v === 0) return '$0';
  if (v < 0.01) return `$${v.toFixed(4)}`;
  if (v < 1000) return `$${v.toFixed(2)}`;
  return `$${Math.round(v).toLocaleString('en-US')}`;
}

/** Compact token counts: 980, 12.4k, 3.1M. */
export function tokens(n: number | null | undefined): string {
  const v = Number(n ?? 0);
  if (v < 1000) return String(v);
  if (v < 1_000_000) return `${+(v / 1000).toFixed(1)}k`;
  return `${+(v / 1_000_000).toFixed(1)}M`;
}

/** A byte size for people: 812 B, 14 KB, 3.2 MB. */
export function bytes(n: number | null | undefined): string {
  const v = Number(n ?? 0);
  if (v < 1024) return `${v} B`;
  if (v < 1024 * 1024) return `${Math.round(v / 1024)} KB`;
  return `${+(v / 1024 / 1024).toFixed(1)} MB`;
}

/** Seconds as a short duration: 45s, 12m, 3h 5m, 2d. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${s % 3600 >= 60 ? ` ${Math.floor((s % 3600) / 60)}m` : ''}`;
  return `${Math.floor(s / 86_400)}d`;
}

export function timeLeft(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const s = Math.round((new Date(iso).getTime() - now) / 1000);
  if (s <= 0) return 'expired';
  if (s < 60) return `${s}s left`;
  if (s < 3600) return `${Math.ceil(s / 60)}m left`;
  const h = Math.floor(s / 3600);
  const m = Math.round((s % 3600) / 60);
  return m ? `${h}h ${m}m left` : `${h}h left`;
}

export function initials(name: string): string {
  const parts = name.trim().split(/[\s_-]+/).filter(Boolean);
  if (parts.length === 0) return '?';
  if (parts.length === 1) return parts[0].slice(0, 2).toUpperCase();
  return (parts[0][0] + parts[1][0]).toUpperCase();
}

export function shortDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso.length === 10 ? `${iso}T00:00:00` : iso);
  return d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

/** Human words for an activity verb ("task.status_changed" → "moved"). */
export function verbText(verb: string): string {
  const map: Record<string, string> = {
    'task.created': 'created',
    'task.updated': 'updated',
    'task.status_changed': 'moved',
    'task.assigned': 'assigned',
    'task.claimed': 'claimed',
    'task.lease_extended': 'extended the lease on',
    'task.released': 'released',
    'task.linked': 'linked',
    'task.lease_broken': 'broke the lease on',
    'task.lease_lapsed': 'saw the lease lapse on',
    'task.criteria_changed': 'changed unmet criteria',
    'task.recovered': 'recovered',
    'actor.deactivated': 'deactivated',
    'actor.activated': 'reactivated',
    'actor.paused': 'paused',
    'project.created': 'created project',
    'project.updated': 'updated project',
    'project.status_changed': 'changed the status of project',
    'actor.registered': 'joined',
    'actor.signed_in': 'signed in',
    'comment.added': 'commented',
    'handoff.created': 'sent a handoff',
    'handoff.claimed': 'claimed a handoff',
    'handoff.responded': 'answered a handoff',
    'handoff.resolved': 'resolved a handoff',
    'inbox.acked': 'acknowledged inbox items',
    'notification.read': 'read notifications',
    'code_ref.added': 'linked code to',
    'code_ref.updated': 'updated code on',
    'pr.merged': 'merged a PR of',
    'pr.closed': 'closed a PR of',
    'attachment.added': 'attached to',
    'attachment.removed': 'removed an attachment from',
    'repo.registered': 'registered repository',
    'repo.linked': 'linked a repository to',
    'repo.unlinked': 'unlinked a repository from',
    'run.forked': 'forked run',
    'run.ended': 'ended run',
    'run.abandoned': 'abandoned run',
    'run.idle': 'ended idle run',
    'actor.signin_link_issued': 'minted a sign-in link',
    'actor.renamed': 'renamed',
    'run.resumed': 'resumed run',
    'feature_request.filed': 'filed feedback',
    'feature_request.recurred': 'hit again',
    'feature_request.status_changed': 'moved feedback',
  };
  return map[verb] ?? verb.replace(/[._]/g, ' ');
}
