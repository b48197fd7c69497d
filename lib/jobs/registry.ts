import type { Db } from '../db/types';
import { DEFAULT_BACKOFF, type Backoff } from './backoff';

/** A claimed job as its handler sees it. */
export type Job<P = Record<string, unknown>> = {
  id: number;
  /** The workspace the job belongs to (null: the server's own work, e.g. a sweep). */
  tenant_id: string | null;
  kind: string;
  payload: P;
  key: string | null;
  /** 1 on the first run, 2 on the first retry, … */
  attempts: number;
  max_attempts: number;
};

export type JobContext = {
  /** The server's own connection (no claims, no RLS): scope every statement by job.tenant_id. */
  db: Db;
  /** Aborted when the lease runs out or the worker stops: stop early, the job will run again. */
  signal: AbortSignal;
  workerId: string;
};

/** Runs one job. Throwing retries it (with backoff) until max_attempts, then keeps it as failed. */
export type JobHandler<P = Record<string, unknown>> = (job: Job<P>, ctx: JobContext) => Promise<void>;

export type JobOptions = {
  /** How long one run may take before another worker may take the job over (default 300). */
  leaseSeconds?: number;
  /** Retry spacing (default 2 s doubling up to 1 h, jittered). */
  backoff?: Partial<Backoff>;
  /**
   * Recurring: every worker makes sure one job of this kind is scheduled (key = kind, no
   * workspace), and each run schedules the next one this many seconds later.
   */
  everySeconds?: number;
};

export type JobKind = { kind: string; run: JobHandler; leaseSeconds: number; backoff: Backoff; everySeconds?: number };

const KIND = /^[a-z][a-z0-9_.:-]{0,99}$/;

/** Job kinds and their handlers. Workers claim only kinds their registry knows. */
export class JobRegistry {
  private readonly byKind = new Map<string, JobKind>();

  register<P = Record<string, unknown>>(kind: string, run: JobHandler<P>, opts: JobOptions = {}): this {
    if (!KIND.test(kind)) throw new Error(`job kind must match ${KIND}: ${kind}`);
    if (this.byKind.has(kind)) throw new Error(`job kind ${kind} is registered twice`);
    const leaseSeconds = opts.leaseSeconds ?? 300;
    if (!(leaseSeconds >= 1)) throw new Error(`${kind}: leaseSeconds must be at least 1`);
    if (opts.everySeconds !== undefined && !(opts.everySeconds >= 1)) throw new Error(`${kind}: everySeconds must be at least 1`);
    this.byKind.set(kind, {
      kind,
      run: run as JobHandler,
      leaseSeconds,
      backoff: { ...DEFAULT_BACKOFF, ...opts.backoff },
      everySeconds: opts.everySeconds,
    });
    return this;
  }

  get(kind: string): JobKind | undefined {
    return this.byKind.get(kind);
  }

  kinds(): string[] {
    return [...this.byKind.keys()];
  }

  all(): JobKind[] {
    return [...this.byKind.values()];
  }
}

/** The process's job kinds: what `bullpen start`'s worker runs. */
export const jobs = new JobRegistry();

/**
 * Registers a job kind on the process's registry — one line per kind:
 *
 *   registerJob('note.embed', async (job, { db }) => embedNote(db, job.tenant_id!, job.payload.note_id as string));
 *
 * Put it in a module under lib/jobs/ and import that module from lib/jobs/index.ts, so every app
 * process knows the kind before its worker starts. Enqueue with bullpen.job_enqueue('note.embed',
 * …) inside the RPC whose write needs the work, or enqueue(db, …) from server code. A handler
 * must be safe to run twice (a worker that dies mid-job leaves it to be taken over when its lease
 * runs out) and should read current state rather than trust a stale payload.
 */
export function registerJob<P = Record<string, unknown>>(kind: string, run: JobHandler<P>, opts?: JobOptions): void {
  jobs.register(kind, run, opts);
}
