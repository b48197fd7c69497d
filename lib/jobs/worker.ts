import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db } from '../db/types';
import { retryDelayMs } from './backoff';
import { claim, complete, ensureRecurring, fail, jobsEnqueued } from './queue';
import { jobs as defaultRegistry, type Job, type JobRegistry } from './registry';
import { envNumber } from '../shared/env';

export type WorkerOptions = {
  /** Which kinds this worker runs (default: the process's registry). */
  registry?: JobRegistry;
  /** Wait between polls while nothing is due (default BULLPEN_JOBS_POLL_MS or 500). */
  pollMs?: number;
  /** Jobs run at once by this worker (default 1). */
  concurrency?: number;
  /** Names the lease holder in bullpen.jobs.locked_by. */
  id?: string;
  /** Where failures are reported (default console.warn). */
  log?: (line: string) => void;
};

function errorText(err: unknown): string {
  if (err instanceof Error) return (err.stack ?? `${err.name}: ${err.message}`).slice(0, 4000);
  return String(err).slice(0, 4000);
}

/**
 * Runs due jobs in this process. start() schedules the recurring kinds and begins polling (one
 * indexed statement per poll while idle; server-side enqueue() wakes it at once); stop() lets the
 * running jobs finish. runOnce() and drain() run jobs on demand (tests, scripts). Any number of
 * workers, in one process or many, can share a database: each job runs under one lease at a time.
 */
export class JobWorker {
  readonly id: string;
  private readonly registry: JobRegistry;
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly log: (line: string) => void;
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly inflight = new Map<number, AbortController>();
  private readonly sleepers = new Set<() => void>();
  private readonly onEnqueued = () => this.wakeAll();

  constructor(
    private readonly db: Db,
    opts: WorkerOptions = {},
  ) {
    this.registry = opts.registry ?? defaultRegistry;
    this.pollMs = Math.max(10, opts.pollMs ?? envNumber('BULLPEN_JOBS_POLL_MS'));
    this.concurrency = Math.max(1, Math.floor(opts.concurrency ?? 1));
    this.id = opts.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.log = opts.log ?? ((line) => console.warn(line));
  }

  /** Schedules the recurring kinds once across instances and starts the poll loops. */
  async start(): Promise<this> {
    if (this.running) return this;
    for (const kind of this.registry.all()) if (kind.everySeconds) await ensureRecurring(this.db, kind);
    this.running = true;
    jobsEnqueued.addEventListener('enqueued', this.onEnqueued);
    this.loops = Array.from({ length: this.concurrency }, () => this.loop());
    return this;
  }

  /**
   * Stops claiming and waits up to graceMs for running jobs; then aborts their signals and returns.
   * A job cut short is retried when its lease runs out.
   */
  async stop(graceMs = 5_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    jobsEnqueued.removeEventListener('enqueued', this.onEnqueued);
    this.wakeAll();
    const settled = Promise.all(this.loops);
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([settled.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs)))]);
    clearTimeout(timer);
    if (late) for (const c of this.inflight.values()) c.abort(new Error('the worker is stopping'));
    this.loops = [];
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let ran = false;
      try {
        ran = await this.runOnce();
      } catch {
        // the database is unreachable or restarting: try again after a pause
      }
      if (!ran && this.running) await this.sleep(this.pollMs);
    }
  }

  private wakeAll(): void {
    for (const wake of [...this.sleepers]) wake();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.sleepers.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      t.unref();
      this.sleepers.add(done);
    });
  }

  /** Claims one due job and runs it to completion, failure or retry. False when nothing was due. */
  async runOnce(): Promise<boolean> {
    const kinds = this.registry.all();
    const job = await claim(this.db, this.id, kinds);
    if (!job) return false;
    await this.run(job);
    return true;
  }

  /** Runs jobs until none is due (retries scheduled later are left for later); returns how many ran. */
  async drain(limit = 10_000): Promise<number> {
    let n = 0;
    while (n < limit && (await this.runOnce())) n++;
    return n;
  }

  private async run(job: Job): Promise<void> {
    const kind = this.registry.get(job.kind)!;
    const controller = new AbortController();
    this.inflight.set(job.id, controller);
    // the lease bounds the run: past it, another worker may take the job over
    const timer = setTimeout(() => controller.abort(new Error(`lease of ${kind.leaseSeconds}s ran out`)), kind.leaseSeconds * 1000);
    try {
      const aborted = new Promise<never>((_, reject) => {
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
      });
      aborted.catch(() => {});
      await Promise.race([kind.run(job, { db: this.db, signal: controller.signal, workerId: this.id }), aborted]);
      clearTimeout(timer);
      await complete(this.db, job, this.id, kind);
    } catch (err) {
      clearTimeout(timer);
      const delay = retryDelayMs(job.attempts, kind.backoff);
      const outcome = await fail(this.db, job, this.id, errorText(err), delay, kind);
      const msg = err instanceof Error ? err.message : String(err);
      if (outcome === 'failed') this.log(`bullpen jobs: ${job.kind} #${job.id} failed for good after ${job.attempts} attempts: ${msg}`);
      else if (outcome === 'retry') this.log(`bullpen jobs: ${job.kind} #${job.id} attempt ${job.attempts}/${job.max_attempts} failed, retry in ${Math.round(delay / 100) / 10}s: ${msg}`);
    } finally {
      this.inflight.delete(job.id);
    }
  }
}
