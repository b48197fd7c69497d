import { Worker } from 'node:worker_threads';
import { embedPlanned, LOCAL_MODEL_SOURCE, modelPaths, type ModelPaths } from './local-model';

/**
 * The bundled model in N worker threads: each runs LOCAL_MODEL_SOURCE (the same runner as the
 * in-process path, so the same vectors), one batch of up to LOCAL_BATCH texts at a time. A request
 * is cut into such batches (planBatches: by length) and spread over the workers.
 * - A worker that dies fails the batch it held with an error (the caller retries later); the next
 *   batch starts a fresh worker. Nothing waits forever.
 * - Idle workers never keep the process alive (unref); a worker is ref'd only while it holds a batch.
 * - A request of one or two texts (a search's query) goes before the queued batches.
 * - close() ends every worker; the process-wide pool is closed by closeEmbedPools().
 */

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
${LOCAL_MODEL_SOURCE}
const model = createLocalModel(createRequire(workerData.paths.core), workerData.paths);
parentPort.on('message', async (msg) => {
  if (msg.crash) process.exit(msg.crash);
  try {
    const data = await model.run(msg.texts);
    const copy = new Float32Array(data);
    parentPort.postMessage({ id: msg.id, data: copy }, [copy.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: msg.id, error: String((err && err.message) || err) });
  }
});
`;

type Job = { texts: string[]; resolve: (v: Float32Array) => void; reject: (e: Error) => void; crash?: number };
type Slot = { worker: Worker; job: Job | null; id: number };

export class EmbedPool {
  readonly size: number;
  private readonly paths: ModelPaths;
  private slots: (Slot | null)[];
  private queue: Job[] = [];
  private closed = false;
  private seq = 0;

  constructor(size: number, paths: ModelPaths = modelPaths()) {
    this.size = Math.max(1, Math.floor(size));
    this.paths = paths;
    this.slots = Array.from({ length: this.size }, () => null);
  }

  /** One normalized vector per text, in order; batches run on as many workers as are free. */
  embed(texts: string[]): Promise<number[][]> {
    return embedPlanned(texts, (batch) => this.submit({ texts: batch }), true);
  }

  /** Test hook: the next worker to take a batch exits with this code instead of answering. */
  crashNext(code = 70): Promise<Float32Array> {
    return this.submit({ texts: ['crash'], crash: code });
  }

  /** Live worker threads (started lazily, at most `size`). */
  get threads(): number {
    return this.slots.filter(Boolean).length;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = this.queue.splice(0);
    for (const job of pending) job.reject(new Error('the embedding pool was closed'));
    const slots = this.slots.filter((s): s is Slot => !!s);
    this.slots = this.slots.map(() => null);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private submit(job: Omit<Job, 'resolve' | 'reject'>): Promise<Float32Array> {
    if (this.closed) return Promise.reject(new Error('the embedding pool was closed'));
    return new Promise((resolve, reject) => {
      // a query's one or two texts go before queued backfill batches: someone is waiting on a search
      if (job.texts.length <= 2) this.queue.unshift({ ...job, resolve, reject });
      else this.queue.push({ ...job, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    for (let i = 0; i < this.slots.length && this.queue.length > 0; i++) {
      let slot = this.slots[i];
      if (slot?.job) continue;
      if (!slot) slot = this.slots[i] = this.spawn(i);
      const job = this.queue.shift()!;
      slot.job = job;
      slot.id = ++this.seq;
      slot.worker.ref();
      slot.worker.postMessage(job.crash ? { id: slot.id, crash: job.crash } : { id: slot.id, texts: job.texts });
    }
  }

  private spawn(i: number): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { paths: this.paths } });
    const slot: Slot = { worker, job: null, id: 0 };
    worker.unref();
    worker.on('message', (msg: { id: number; data?: Float32Array; error?: string }) => {
      const job = slot.job;
      if (!job || msg.id !== slot.id) return;
      slot.job = null;
      worker.unref();
      if (msg.error !== undefined) job.reject(new Error(msg.error));
      else job.resolve(msg.data!);
      this.pump();
    });
    const lost = (why: string) => {
      if (this.slots[i] === slot) this.slots[i] = null;
      const job = slot.job;
      slot.job = null;
      if (job) job.reject(new Error(`the embedding worker ${why}`));
      if (!this.closed) this.pump();
    };
    worker.on('error', (err) => lost(`failed: ${err.message}`));
    worker.on('exit', (code) => lost(`exited with code ${code}`));
    return slot;
  }
}

const POOLS = Symbol.for('bullpen.embedPools');
type Holder = { [POOLS]?: Set<EmbedPool> };

/** Every pool this process made (shared through globalThis, since bundlers may load this module twice). */
export function trackPool(pool: EmbedPool): EmbedPool {
  const g = globalThis as Holder;
  (g[POOLS] ??= new Set()).add(pool);
  return pool;
}

/** Ends every embedding worker of this process (shutdown; idle workers never hold the process anyway). */
export async function closeEmbedPools(): Promise<void> {
  const g = globalThis as Holder;
  const pools = [...(g[POOLS] ?? [])];
  g[POOLS]?.clear();
  await Promise.all(pools.map((p) => p.close()));
}
