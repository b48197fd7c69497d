import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/types';
import { ensureActor, registeredIn, resolveWorkspace, slugify } from '../server/workspace';
import { envNumber } from '../shared/env';

/**
 * One-time sign-in links for humans. The token travels in the link once; only its sha256 is stored,
 * it works once and expires (BULLPEN_SIGNIN_TTL_SECONDS, default 24 h), and a newer link for the
 * same person revokes the older ones. The token sits in the link's fragment (`#token=`), which a
 * browser never sends: a chat or mail preview fetching the link sees only the confirm page, proxies
 * never log the token, and only the confirm page's POST spends it. Runs as the server role: the
 * first start, `bullpen human invite`, and an owner inviting from the console.
 */

export function signInTtlSeconds(): number {
  const v = envNumber('BULLPEN_SIGNIN_TTL_SECONDS');
  return Number.isFinite(v) && v >= 30 ? Math.floor(v) : 24 * 3600;
}

export function hashSignInToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The console URL of a link: the confirm page, the token in the fragment (never sent to a server). */
export function signInUrl(base: string, token: string): string {
  return `${base.replace(/\/$/, '')}/auth/link#token=${encodeURIComponent(token)}`;
}

const TOKEN_SHAPE = /^bpsi_[A-Za-z0-9_-]{20,100}$/;

/**
 * Mints a sign-in token for a human actor of the workspace and revokes that person's older unspent
 * links; the plaintext is returned once.
 */
/**
 * Who minted a sign-in link, for the activity log: an owner in the console (their actor id), or an
 * operator on the server machine (the CLI, the start banner), who has no actor.
 */
export type MintedBy = { via: 'console' | 'cli' | 'start'; actorId?: string | null };

export async function createSignInToken(
  db: Db,
  opts: { tenantId: string; actorId: string; purpose?: 'first_start' | 'invite'; ttlSeconds?: number; mintedBy?: MintedBy },
): Promise<{ token: string; expires_at: string }> {
  const token = `bpsi_${randomBytes(32).toString('base64url')}`;
  const ttl = opts.ttlSeconds ?? signInTtlSeconds();
  const [row] = await db.query<{ expires_at: Date | string | null }>(`select bullpen.issue_signin_token($1, $2, $3, $4, $5) as expires_at`, [
    opts.tenantId,
    opts.actorId,
    hashSignInToken(token),
    opts.purpose ?? 'invite',
    ttl,
  ]);
  if (!row?.expires_at) throw new Error('sign-in links are for human actors of this workspace');
  // the log says who minted which link (by the link's id: the token itself is never stored)
  const by = opts.mintedBy ?? { via: 'cli' };
  await db.query(
    `insert into public.activity (tenant_id, actor_id, verb, object_type, object_id, summary, metadata)
     select s.tenant_id, $3::uuid, 'actor.signin_link_issued', 'actor', s.actor_id,
            format('sign-in link for %s minted %s', a.display_name,
                   case $4 when 'console' then 'in the console' when 'start' then 'at server start' else 'with the CLI on the server machine' end),
            jsonb_build_object('link_id', s.id, 'via', $4::text, 'minted_by_actor_id', $3::uuid, 'purpose', s.purpose,
                               'expires_at', s.expires_at)
       from bullpen.signin_tokens s join public.actors a on a.tenant_id = s.tenant_id and a.id = s.actor_id
      where s.tenant_id = $1 and s.token_hash = $2`,
    [opts.tenantId, hashSignInToken(token), by.actorId ?? null, by.via],
  );
  return { token, expires_at: new Date(row.expires_at).toISOString() };
}

/** Who a live token would sign in as, without spending it (the confirm page); null otherwise. */
export async function peekSignInToken(
  db: Db,
  token: string | null | undefined,
): Promise<{ display_name: string; tenant_name: string; expires_at: string } | null> {
  if (!token || !TOKEN_SHAPE.test(token)) return null;
  const [row] = await db.query<{ display_name: string; tenant_name: string; expires_at: Date | string }>(
    `select * from bullpen.peek_signin_token($1)`,
    [hashSignInToken(token)],
  );
  return row ? { display_name: row.display_name, tenant_name: row.tenant_name, expires_at: new Date(row.expires_at).toISOString() } : null;
}

export type SignedIn = { tenant_id: string; actor_id: string; display_name: string; tenant_slug: string; tenant_name: string };

/** Spends a token: the identity it signs in, or null when unknown, used, expired or not a human. */
export async function consumeSignInToken(db: Db, token: string | null | undefined): Promise<SignedIn | null> {
  if (!token || !TOKEN_SHAPE.test(token)) return null;
  const rows = await db.query<SignedIn>(`select * from bullpen.consume_signin_token($1)`, [hashSignInToken(token)]);
  return rows[0] ?? null;
}

export type Invite = {
  workspace: { id: string; slug: string; name: string };
  actor_id: string;
  display_name: string;
  is_owner: boolean;
  token: string;
  expires_at: string;
  created_workspace: boolean;
  created_actor: boolean;
};

/**
 * A refusal shaped like the RPCs' own (an error with a Bullpen SQLSTATE and a hint), so every
 * surface maps it to its code in the one place database errors are mapped.
 */
function refusal(sqlstate: 'BPNTF' | 'BPDUP' | 'BPFRB', message: string, hint?: string): Error {
  return Object.assign(new Error(message), { code: sqlstate, hint });
}

/**
 * Invites a human: the workspace (by slug, created when new; by id from the console; else the first
 * one), the human actor (idempotent by external_ref: `email:<address>` when an email is given, else
 * `human:<name>`, so inviting the same person again just issues a fresh link), and a sign-in token.
 * The first human of a workspace becomes its owner.
 */
export async function inviteHuman(
  db: Db,
  opts: { name: string; workspace?: string; tenantId?: string; email?: string; ttlSeconds?: number; mintedBy?: MintedBy },
): Promise<Invite> {
  let ws: { id: string; slug: string; name: string; created: boolean };
  if (opts.tenantId) {
    const [row] = await db.query<{ id: string; slug: string; name: string }>(`select id, slug, name from public.tenants where id = $1`, [opts.tenantId]);
    if (!row) throw refusal('BPNTF', 'no such workspace');
    ws = { ...row, created: false };
  } else {
    ws = await resolveWorkspace(db, opts.workspace);
  }
  const [{ has_owner }] = await db.query<{ has_owner: boolean }>(
    `select exists(select 1 from public.actors where tenant_id = $1 and is_owner) as has_owner`,
    [ws.id],
  );
  const externalRef = opts.email ? `email:${opts.email.trim().toLowerCase()}` : `human:${slugify(opts.name)}`;
  const via = opts.mintedBy?.via ?? 'cli';
  if (via === 'console') {
    // An invitation mints a link that signs in as that person: from the console, never for
    // someone who already signs in themselves. Operators on the server machine still can (the CLI).
    const [known] = await db.query<{ id: string; kind: string; display_name: string }>(
      `select id, kind, display_name from public.actors where tenant_id = $1 and external_ref = $2`,
      [ws.id, externalRef],
    );
    if (known?.kind === 'human' && (await hasSignedIn(db, ws.id, known.id))) {
      throw refusal(
        'BPFRB',
        `${opts.email ? 'email' : 'name'}: ${known.display_name} already signs in; an invitation would mint a link that signs in as them`,
        'they sign in themselves; an operator on the server machine can mint a link with `bullpen human invite`',
      );
    }
  }
  const actor = await ensureActor(db, ws.id, { kind: 'human', external_ref: externalRef, display_name: opts.name, is_owner: !has_owner });
  if (actor.kind !== 'human') throw refusal('BPDUP', `${externalRef} already names an ${actor.kind}`, 'invite the person under another name, or with their email address');
  const link = await createSignInToken(db, {
    tenantId: ws.id,
    actorId: actor.id,
    purpose: 'invite',
    ttlSeconds: opts.ttlSeconds,
    mintedBy: opts.mintedBy ?? { via: 'cli' },
  });
  // the result carries the link's token (shown once) and its expiry
  return { ...registeredIn(ws, actor.id), display_name: actor.display_name, is_owner: actor.is_owner, ...link, created_actor: actor.created };
}

/**
 * Whether the human ever signed in: a sign-in on the activity log (spent links themselves are swept
 * away, see lib/jobs/sweeps.ts), or a linked Supabase user.
 */
export async function hasSignedIn(db: Db, tenantId: string, actorId: string): Promise<boolean> {
  const [row] = await db.query<{ yes: boolean }>(
    `select exists(select 1 from public.activity where tenant_id = $1 and actor_id = $2 and verb = 'actor.signed_in')
         or exists(select 1 from public.actors where tenant_id = $1 and id = $2 and auth_user_id is not null) as yes`,
    [tenantId, actorId],
  );
  return row.yes;
}
