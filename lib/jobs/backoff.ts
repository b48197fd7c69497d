/** How a kind spaces its retries: base·2^(attempt−1), never more than max. */
export type Backoff = { baseMs: number; maxMs: number };

export const DEFAULT_BACKOFF: Backoff = { baseMs: 2_000, maxMs: 3_600_000 };

/**
 * The wait before the next try after `attempt` (1-based) failed. The exponential step is capped,
 * then jittered between half and all of it ("equal jitter"): retries of a burst of failures spread
 * out instead of returning together, and the wait still grows with every attempt.
 */
export function retryDelayMs(attempt: number, backoff: Backoff = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const n = Math.max(1, Math.floor(attempt));
  const step = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(n - 1, 52));
  return Math.round(step / 2 + random() * (step / 2));
}
