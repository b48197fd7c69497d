/**
 * Claim-storm accounting in the manner of Jepsen's queue checker: tasks are the queue, a
 * task_create_many that answered ok enqueues, a task_claim that answered {claimed: true} dequeues.
 * Every task ends up in exactly one class: dequeued once (good), lost (enqueued, never dequeued),
 * duplicated (dequeued more than once), unexpected (dequeued, never enqueued).
 */

export type Answer = { ok: boolean; claimed?: boolean; task?: { id: string }; error?: { code: string; retryable: boolean; message: string }; [k: string]: unknown };

export type QueueCheck = { enqueued: number; dequeued: number; lost: string[]; duplicated: string[]; unexpected: string[] };

export function checkQueue(enqueued: Iterable<string>, dequeued: readonly string[]): QueueCheck {
  const queued = new Set(enqueued);
  const seen = new Map<string, number>();
  for (const id of dequeued) seen.set(id, (seen.get(id) ?? 0) + 1);
  return {
    enqueued: queued.size,
    dequeued: dequeued.length,
    lost: [...queued].filter((id) => !seen.has(id)),
    duplicated: [...seen].filter(([, n]) => n > 1).map(([id]) => id),
    unexpected: [...seen.keys()].filter((id) => !queued.has(id)),
  };
}

export type ClaimLoopResult = { claims: string[]; errors: Record<string, number>; nonRetryable: string[]; retries: number };

/**
 * One agent claiming until nothing is ready. Each claim carries its own idempotency key; a
 * retryable failure (or no answer at all: `call` resolves null) retries with the same key, so a
 * claim whose commit landed but whose answer was lost replays instead of claiming a second task.
 */
export async function claimLoop(
  call: (args: Record<string, unknown>) => Promise<Answer | null>,
  opts: { name: string; label: string; deadline: number; backoffMs?: number; leaseSeconds?: number },
): Promise<ClaimLoopResult> {
  const out: ClaimLoopResult = { claims: [], errors: {}, nonRetryable: [], retries: 0 };
  for (let n = 0; Date.now() < opts.deadline; n++) {
    const key = `${opts.name}-claim-${n}`;
    for (;;) {
      if (Date.now() > opts.deadline) return out;
      const env = await call({ label: opts.label, lease_seconds: opts.leaseSeconds ?? 3600, idempotency_key: key });
      if (env?.ok) {
        if (!env.claimed) return out;
        out.claims.push(env.task!.id);
        break;
      }
      const code = env?.error?.code ?? 'NO_ANSWER';
      out.errors[code] = (out.errors[code] ?? 0) + 1;
      if (env && !env.error?.retryable) {
        out.nonRetryable.push(`${code}: ${env.error?.message}`);
        return out;
      }
      out.retries++;
      await new Promise((r) => setTimeout(r, opts.backoffMs ?? 50));
    }
  }
  return out;
}

/** Sums the errors of several loops. */
export function mergeErrors(results: ClaimLoopResult[]): Record<string, number> {
  const all: Record<string, number> = {};
  for (const r of results) for (const [k, n] of Object.entries(r.errors)) all[k] = (all[k] ?? 0) + n;
  return all;
}
