/**
 * A process-wide value made once, on first use, and shared through globalThis under a registered
 * symbol, since bundlers may load a module more than once. A failed attempt is forgotten, so the
 * next caller tries again.
 */
export function processOnce<T>(name: string, make: () => Promise<T>): Promise<T> {
  const key = Symbol.for(name);
  const g = globalThis as Record<symbol, Promise<T> | undefined>;
  let value = g[key];
  if (!value) {
    value = make().catch((err) => {
      if (g[key] === value) delete g[key];
      throw err;
    });
    g[key] = value;
  }
  return value;
}

/** Replaces the process-wide value (tests, the server entry); undefined forgets it. */
export function setProcessOnce<T>(name: string, value: Promise<T> | undefined): void {
  const g = globalThis as Record<symbol, Promise<T> | undefined>;
  if (value) g[Symbol.for(name)] = value;
  else delete g[Symbol.for(name)];
}
