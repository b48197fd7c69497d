import { envNumber } from '../shared/env';
import { verifySupabaseJwt, type SupabaseConfig } from './supabase';

/** How often an open live stream asks Supabase Auth whether its session still stands (BULLPEN_SUPABASE_RECHECK_MS, default 30 s). */
export function supabaseRecheckMs(): number {
  const v = envNumber('BULLPEN_SUPABASE_RECHECK_MS');
  return Number.isFinite(v) && v >= 0 ? v : 30_000;
}

/**
 * Whether a Supabase session behind an open live stream still stands, as local sessions are
 * re-checked (lib/console/live-stream.ts). On every check the access token must still verify (an
 * expired token ends the stream; the browser reconnects with its refreshed cookie); every
 * `recheckMs` the auth server is asked too (`askServer`: getUser with that token), so a sign-out
 * elsewhere, a revoked session or a deleted user ends the stream within that time.
 */
export function supabaseSessionCheck(opts: {
  token: string;
  sub: string;
  cfg: Pick<SupabaseConfig, 'url' | 'jwtSecret'>;
  askServer: (token: string) => Promise<string | null>;
  recheckMs?: number;
  now?: () => number;
}): () => Promise<boolean> {
  const now = opts.now ?? Date.now;
  const every = opts.recheckMs ?? supabaseRecheckMs();
  let askedAt = now();
  return async () => {
    const user = await verifySupabaseJwt(opts.token, opts.cfg, { now: now() });
    if (!user || user.sub !== opts.sub) return false;
    if (now() - askedAt < every) return true;
    askedAt = now();
    try {
      return (await opts.askServer(opts.token)) === opts.sub;
    } catch {
      // the auth server unreachable is no sign-out: the token's own expiry still bounds the stream
      return true;
    }
  };
}
