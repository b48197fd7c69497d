import { cronPrevious, parseCron } from '../shared/cron';
import type { Queryable } from './queue';
import { registerJob } from './registry';

/**
 * Scheduled workflows: a recurring job (workflow.schedule, every SCHEDULE_EVERY_SECONDS) reads the
 * workflows with a cron trigger, and for each whose latest cron slot (UTC) is newer than the last
 * slot it started (and than the workflow itself) starts that slot's instance through
 * bullpen.workflow_start_scheduled. A unique index on (workflow, slot) makes the start happen once
 * however many servers run this at the same moment; the loser's call returns null. Missed slots
 * are not caught up: a server that was down starts only the latest one.
 */
export const SCHEDULE_EVERY_SECONDS = 30;

type ScheduleRow = { tenant_id: string; workflow_id: string; cron: string; created_at: string | Date; last_slot: string | Date | null };

/** One pass at `now`; returns the instances this caller started (another server may have started others). */
export async function runWorkflowSchedules(q: Queryable, now: Date = new Date(), signal?: AbortSignal): Promise<string[]> {
  const rows = await q.query<ScheduleRow>(`select * from bullpen.workflow_schedules()`);
  const started: string[] = [];
  for (const r of rows) {
    signal?.throwIfAborted();
    let slot: Date | null;
    try {
      slot = cronPrevious(parseCron(r.cron), now);
    } catch {
      continue; // workflow_create refused a bad expression; an older row is left alone
    }
    if (!slot) continue;
    const floor = Math.max(new Date(r.created_at).getTime(), r.last_slot ? new Date(r.last_slot).getTime() + 1 : 0);
    if (slot.getTime() < floor) continue;
    const [row] = await q.query<{ id: string | null }>(`select bullpen.workflow_start_scheduled($1::uuid, $2::uuid, $3::timestamptz) as id`, [
      r.tenant_id,
      r.workflow_id,
      slot.toISOString(),
    ]);
    if (row?.id) started.push(row.id);
  }
  return started;
}

registerJob('workflow.schedule', async (_job, { db, signal }) => { await runWorkflowSchedules(db, new Date(), signal); }, { everySeconds: SCHEDULE_EVERY_SECONDS });
