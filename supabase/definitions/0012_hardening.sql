-- Hardening: sign-in links read before they are spent, sessions checked on every request.
-- Server-side functions only (the server calls them before any claims exist); re-runnable.

-- What a sign-in link would sign in as, without spending it: the confirm page shows it, and only
-- the POST from that page spends the link. Null row when unknown, used, revoked or expired.
create or replace function bullpen.peek_signin_token(p_token_hash text)
returns table (display_name text, tenant_name text, expires_at timestamptz)
language sql stable
security definer
set search_path = ''
as $$
  select a.display_name, t.name, s.expires_at
    from bullpen.signin_tokens s
    join public.actors a on a.tenant_id = s.tenant_id and a.id = s.actor_id and a.kind = 'human'
    join public.tenants t on t.id = s.tenant_id
   where s.token_hash = p_token_hash and s.used_at is null and s.revoked_at is null and s.expires_at > now()
$$;

-- Issues a sign-in link for a human and revokes that person's older unspent links, in one
-- statement so two invitations racing leave exactly one live link (the later one).
create or replace function bullpen.issue_signin_token(p_tenant uuid, p_actor uuid, p_token_hash text, p_purpose text, p_ttl_seconds int)
returns timestamptz
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_expires timestamptz;
begin
  -- serialise issuers for one person: the older link is revoked by whichever comes second
  perform 1 from public.actors a where a.tenant_id = p_tenant and a.id = p_actor and a.kind = 'human' for update;
  if not found then
    return null;
  end if;
  update bullpen.signin_tokens s set revoked_at = now()
   where s.tenant_id = p_tenant and s.actor_id = p_actor and s.used_at is null and s.revoked_at is null;
  insert into bullpen.signin_tokens (tenant_id, actor_id, token_hash, purpose, expires_at)
  values (p_tenant, p_actor, p_token_hash, p_purpose, now() + make_interval(secs => p_ttl_seconds))
  returning expires_at into v_expires;
  return v_expires;
end
$$;

-- Whether a console session is live: not revoked, not expired, its human still there. Touches
-- last_seen_at at most once a minute.
create or replace function bullpen.session_live(p_tenant uuid, p_session uuid, p_actor uuid)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_live boolean;
begin
  select s.revoked_at is null and s.expires_at > now() into v_live
    from bullpen.sessions s
   where s.tenant_id = p_tenant and s.id = p_session and s.actor_id = p_actor;
  if coalesce(v_live, false) then
    update bullpen.sessions s set last_seen_at = now()
     where s.tenant_id = p_tenant and s.id = p_session and s.last_seen_at < now() - interval '1 minute';
  end if;
  return coalesce(v_live, false);
end
$$;

revoke all on function bullpen.peek_signin_token(text) from public, anon, authenticated;
grant execute on function bullpen.peek_signin_token(text) to service_role;
revoke all on function bullpen.issue_signin_token(uuid, uuid, text, text, int) from public, anon, authenticated;
grant execute on function bullpen.issue_signin_token(uuid, uuid, text, text, int) to service_role;
revoke all on function bullpen.session_live(uuid, uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.session_live(uuid, uuid, uuid) to service_role;

comment on function bullpen.peek_signin_token(text) is 'Who a sign-in link signs in as, without spending it (the confirm page).';
comment on function bullpen.issue_signin_token(uuid, uuid, text, text, int) is 'New sign-in link for a human; revokes that person''s older unspent links.';
