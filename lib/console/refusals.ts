import type { ToolError } from '../core/errors';
import { STATUS_LABEL, type TaskStatus } from './types';

/**
 * Refusals in words for a person. An envelope's message and hint are written for an agent (they
 * name fields and tools: "mark each criterion met in patch.acceptance_criteria"); the console shows
 * a person what happened and what to do in the console instead. The envelope itself is unchanged:
 * the agent's hint stays in it, and the toast keeps the code for a bug report.
 */
export type Refusal = { title: string; advice?: string };

const status = (s: unknown): string => (typeof s === 'string' && s in STATUS_LABEL ? STATUS_LABEL[s as TaskStatus] : String(s ?? '').replace(/_/g, ' '));

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Words for a task's done gate as the refusal's details carry it (bullpen.task_done_gate). */
function gateWords(d: Record<string, unknown>, message: string): Refusal {
  switch (d.gate) {
    case 'acceptance_criteria': {
      const unmet = typeof d.criterion === 'string' ? d.criterion : null;
      const m = /\((\d+) of (\d+) unmet\)/.exec(message);
      const left = m ? Number(m[1]) : null;
      return {
        title: unmet ? `Not done yet: “${unmet}” is not checked off${left && left > 1 ? ` (${left} criteria open)` : ''}` : 'Not done yet: some acceptance criteria are open',
        advice: 'Tick the criteria in the task’s checklist once they hold, then move it to Done.',
      };
    }
    case 'evidence':
      return { title: 'Not done yet: this task needs evidence of the work', advice: 'Attach a file or link in the task’s Evidence section (or have the agent record its commit), then move it to Done.' };
    case 'review': {
      const s = typeof d.summary === 'string' ? d.summary : '';
      if (/changes requested/.test(s) || /requested changes/.test(message)) {
        return { title: `Not done yet: ${s.split(' · ').pop() ?? 'the reviewer requested changes'}`, advice: 'Make the changes and move the task to In review for a new review.' };
      }
      return { title: 'Not done yet: the review is not approved', advice: 'The reviewer approves it from their inbox; then the task can move to Done.' };
    }
    default:
      return { title: 'Not done yet: a condition for Done is not met', advice: message };
  }
}

/** The sentence a person reads for a refused call, from its code and envelope. */
export function refusalForPeople(err: Pick<ToolError, 'code' | 'message'> & { details?: unknown }): Refusal {
  const d = obj(err.details);
  switch (err.code) {
    case 'GATE_UNMET':
      return gateWords(d, err.message);
    case 'INVALID_TRANSITION': {
      if (/reopen/.test(err.message)) return { title: `This task is ${status(d.from).toLowerCase()}; reopening it was not confirmed`, advice: 'Move it again to reopen it.' };
      const allowed = Array.isArray(d.allowed) ? d.allowed.map(status) : [];
      if (d.from && d.to) {
        return { title: `A task can’t go from ${status(d.from)} straight to ${status(d.to)}`, advice: allowed.length ? `From ${status(d.from)} it can move to ${allowed.join(', ')}.` : undefined };
      }
      return { title: 'That move isn’t allowed from here', advice: 'Reload to see where it stands now.' };
    }
    case 'CONFLICT':
      if (d.current_status) return { title: `Someone moved this task to ${status(d.current_status)} a moment ago`, advice: 'The board shows where it is now; move it again if you still mean to.' };
      return { title: 'This changed while you were looking at it', advice: 'The page shows the newest version; make your change again if you still mean to.' };
    case 'LEASE_HELD':
      return { title: 'An agent is working on this task right now', advice: 'Its claim runs out by itself; as a person you can still reassign the task.' };
    case 'NOT_CLAIMABLE':
      return { title: 'This task can’t be picked up right now', advice: 'It is finished, waiting on other work, or assigned to someone else.' };
    case 'CYCLE_DETECTED':
      return { title: 'That link would make tasks wait on each other in a circle', advice: 'Link them the other way round, or pick another task.' };
    case 'VALIDATION_ERROR':
      return { title: 'Some of that input isn’t accepted', advice: sentence(err.message) };
    case 'NOT_FOUND':
      return { title: 'That no longer exists here', advice: 'It may have been removed, or it belongs to another workspace.' };
    case 'ALREADY_EXISTS':
      return { title: 'That name is already taken', advice: 'Choose another one.' };
    case 'FORBIDDEN':
      return { title: 'You can’t change that', advice: 'Some records are kept as written; a workspace owner may be able to help.' };
    case 'UNAUTHENTICATED':
      return { title: 'Your session has ended', advice: 'Sign in again.' };
    case 'IDEMPOTENCY_CONFLICT':
      return { title: 'That request clashed with an earlier one', advice: 'Try again.' };
    case 'PAYLOAD_TOO_LARGE':
      return { title: 'That is too large to send at once', advice: 'Split it into smaller pieces.' };
    case 'RATE_LIMITED':
      return { title: 'Too many changes at once', advice: 'Wait a few seconds, then try again.' };
    case 'BUSY':
    case 'UNAVAILABLE':
      return { title: 'The server is busy', advice: 'Try again in a moment.' };
    case 'INTERNAL':
      return { title: 'Something went wrong on the server', advice: sentence(err.message) };
    default:
      return { title: sentence(err.message) };
  }
}

function sentence(s: string): string {
  const t = s.trim();
  return t ? t[0].toUpperCase() + t.slice(1) : t;
}
