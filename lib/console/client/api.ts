import type { Envelope } from '@/lib/core/execute';
import type { ToolError } from '@/lib/core/errors';
import { sessionEnded } from './signing-out';

/** A tool that answered {ok:false}: carries the envelope's error (message + hint) for toasts. */
export class ToolFailure extends Error {
  constructor(readonly error: ToolError) {
    super(error.message);
    this.name = 'ToolFailure';
  }
}

function unwrap<T>(env: Envelope): T {
  if (!env.ok) throw new ToolFailure(env.error);
  return env as unknown as T;
}

async function json(res: Response): Promise<Envelope> {
  if (res.status === 401) {
    sessionEnded();
    throw new ToolFailure({ code: 'UNAUTHENTICATED', message: 'your session has ended', hint: 'sign in again', retryable: false });
  }
  return (await res.json()) as Envelope;
}

/** Runs a read tool as the signed-in human (parallel-safe: a route handler, not a server action). */
export async function readTool<T>(tool: string, input: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch('/api/console/tool', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tool, input }),
  });
  return unwrap<T>(await json(res));
}

/** The workspace feed page: the activity_query tool, like any other read. */
export async function readActivity<T>(params: Record<string, string | number | undefined>): Promise<T> {
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') input[k] = v;
  return readTool<T>('activity_query', input);
}

export async function readActors<T>(): Promise<T> {
  return unwrap<T>(await json(await fetch('/api/console/actors')));
}

/** Unwraps a server action's envelope. */
export async function viaAction<T>(p: Promise<Envelope>): Promise<T> {
  return unwrap<T>(await p);
}

/** A random id for idempotency keys (works outside secure contexts, unlike randomUUID). */
export function uid(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
