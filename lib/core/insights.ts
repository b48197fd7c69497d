import { z } from 'zod';
import { defineTool } from './tool';
import { docs, projectRef, taskStatus } from './fields';
import { id, timestamp } from './rows';

/**
 * Insights: a project at a glance, from the ledger's own rows (tasks, dependencies, review handoffs,
 * the activity log). One read-only RPC, project_insights; the console's Insights view draws it, and
 * an agent may call it too. A room of its own, outside `core`.
 */

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe('YYYY-MM-DD, UTC');
const hours = z.number().nonnegative();
const count = z.number().int().nonnegative();

export const projectInsightsInput = z.strictObject({
  project_id: projectRef,
  days: z.number().int().min(1).max(365).optional().meta(docs('default 30; the window ends today (UTC)')),
});
export type ProjectInsightsInput = z.infer<typeof projectInsightsInput>;

export const projectInsightsOutput = z.strictObject({
  project: z.strictObject({ id, key: z.string(), title: z.string() }),
  window: z.strictObject({ days: z.number().int().positive(), since: day, until: day, as_of: timestamp }),
  totals: z.strictObject({
    tasks: count,
    open: count,
    in_progress: count,
    in_review: count,
    done: count,
    blocked: count.describe('open tasks waiting on a dependency that is not done'),
  }),
  throughput: z.array(z.strictObject({ day, done: count })).describe('tasks that reached done, every day of the window'),
  cycle_time: z
    .strictObject({
      count,
      p50_hours: hours.nullable(),
      p90_hours: hours.nullable(),
      mean_hours: hours.nullable(),
      buckets: z.array(z.strictObject({ label: z.string(), min_hours: hours, max_hours: hours.nullable(), count })),
    })
    .describe('claim (started_at) to done, for tasks done in the window'),
  wip: z
    .strictObject({
      actors: z.array(z.strictObject({ actor_id: id.nullable(), name: z.string() })),
      days: z.array(z.strictObject({ day, total: count, counts: z.array(count).describe('one per actor, in actors order') })),
    })
    .describe('tasks started and not finished at the end of each day, by assignee'),
  blocked_chain: z
    .strictObject({
      length: count,
      tasks: z.array(
        z.strictObject({ id, ref: z.string(), title: z.string(), status: taskStatus, assignee: z.string().nullable() }),
      ),
    })
    .describe('the longest path of open dependencies: first the task holding it up, last the one waiting longest in line'),
  review_turnaround: z.strictObject({
    count,
    p50_hours: hours.nullable(),
    p90_hours: hours.nullable(),
    waiting: count.describe('reviews asked for (task in_review) and not answered'),
    oldest_waiting_hours: hours.nullable(),
    days: z.array(z.strictObject({ day, count, p50_hours: hours.nullable() })),
  }),
});
export type ProjectInsightsOutput = z.infer<typeof projectInsightsOutput>;

export const insightTools = [
  defineTool({
    name: 'project_insights',
    room: 'insights',
    title: 'Project insights',
    description:
      "Returns a project's throughput, cycle time, WIP per agent, longest blocked chain, review turnaround. Use when you judge pace or seek the bottleneck.",
    input: projectInsightsInput,
    output: projectInsightsOutput,
    kind: 'read',
    idempotent: true,
  }),
];
