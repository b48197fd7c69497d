/**
 * Work outside the writing transaction. Every module that registers a job kind is imported here,
 * so a process knows all kinds before its worker starts (see registerJob in ./registry).
 */
import './sweeps';
import './memory';
import './reaper';
import './leases';
import './council';
import './workflows';
import './webhooks';
import type { Db } from '../db/types';
import { JobWorker, type WorkerOptions } from './worker';
import { env } from '../shared/env';

export { enqueue, jobStats, type EnqueueOptions, type JobStats } from './queue';
export { jobs, registerJob, JobRegistry, type Job, type JobContext, type JobHandler, type JobOptions } from './registry';
export { JobWorker, type WorkerOptions } from './worker';

/**
 * The worker `bullpen start` runs in every app process, unless BULLPEN_JOBS=off (an instance that
 * should only serve requests). Returns null when disabled.
 */
export async function startJobs(db: Db, opts: WorkerOptions = {}): Promise<JobWorker | null> {
  if (env('BULLPEN_JOBS') === 'off') return null;
  return new JobWorker(db, opts).start();
}
