-- Console: sign-in and Supabase Auth mapping (server only), live-feed reads, the actors page.
-- (The activity page reads the log with the activity_query tool.)
-- Re-applied on every upgrade that changes any definition file: every statement here must be
-- safe to run again (create or replace).

-- Spends a sign-in token: single use, unexpired, for a human. security definer because it runs
-- before any claims exist; it touches one row found by an unguessable hash, records the sign-in in
-- the activity log (which also announces it on the live feed) and marks the human as seen.
create or replace function bullpen.consume_signin_token(p_token_hash text)
returns table (tenant_id uuid, actor_id uuid, display_name text, tenant_slug text, tenant_name text)
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_tenant uuid;
  v_actor uuid;
begin
  update bullpen.signin_tokens s set used_at = now()
   where s.token_hash = p_token_hash and s.used_at is null and s.revoked_at is null and s.expires_at > now()
     and exists (select 1 from public.actors a where a.tenant_id = s.tenant_id and a.id = s.actor_id and a.kind = 'human')
  returning s.tenant_id, s.actor_id into v_tenant, v_actor;
  if v_actor is null then
    return;
  end if;
  update public.actors a set last_seen_at = now() where a.tenant_id = v_tenant and a.id = v_actor;
  insert into public.activity (tenant_id, actor_id, verb, object_type, object_id, summary)
  select v_tenant, v_actor, 'actor.signed_in', 'actor', v_actor, a.display_name || ' signed in to the console'
    from public.actors a where a.tenant_id = v_tenant and a.id = v_actor;
  return query
    select a.tenant_id, a.id, a.display_name, t.slug, t.name
      from public.actors a join public.tenants t on t.id = a.tenant_id
     where a.tenant_id = v_tenant and a.id = v_actor;
end
$$;

-- Supabase Auth: maps an auth user to the human actors it may act as. The first sign-in of an
-- invited email links the invitation (external_ref 'email:<address>') to the auth user.
-- security definer because a Supabase JWT carries no tenant yet, so RLS would show nothing.
create or replace function bullpen.humans_for_auth_user(p_auth_user_id uuid, p_email text)
returns table (tenant_id uuid, actor_id uuid, display_name text, tenant_slug text, tenant_name text)
language sql
security definer
set search_path = ''
as $$
  update public.actors a set auth_user_id = p_auth_user_id
   where a.kind = 'human' and a.auth_user_id is null and p_email is not null
     and a.external_ref = 'email:' || lower(p_email)
     and not exists (select 1 from public.actors b
                      where b.tenant_id = a.tenant_id and b.auth_user_id = p_auth_user_id)
  returning null::uuid, null::uuid, null::text, null::text, null::text;
  select a.tenant_id, a.id, a.display_name, t.slug, t.name
    from public.actors a join public.tenants t on t.id = a.tenant_id
   where a.auth_user_id = p_auth_user_id and a.kind = 'human'
   order by a.created_at, a.tenant_id;
$$;

-- The tenants a Supabase auth user belongs to; the Realtime policy below needs it.
create or replace function bullpen.auth_user_tenant_ids() returns setof uuid
language sql stable
security definer
set search_path = ''
as $$
  select a.tenant_id from public.actors a where a.auth_user_id = auth.uid() and a.kind = 'human'
$$;

/** The newest change seq the caller's workspace has; 0 when it has none. */
create or replace function bullpen.change_head() returns bigint
language sql stable
security definer
set search_path = ''
as $$
  select coalesce(max(id), 0) from public.activity where tenant_id = (select bullpen.tenant_id())
$$;
alter function bullpen.change_head() owner to bullpen_writer;

/**
 * The change events a client missed after seeing p_after. Activity ids are drawn when a row is
 * inserted, but transactions commit in any order, so an event with a smaller id can commit after
 * the client saw p_after. Such a straggler started no more than one statement_timeout (30 s)
 * before p_after's transaction did, so the replay also returns events from the 60 s before
 * p_after's own time; the client drops the seqs it already has. Ordered by seq, at most p_limit
 * rows (one more than the limit tells the caller to reload instead).
 */
create or replace function bullpen.change_replay(p_after bigint, p_limit int default 5000)
returns table (seq bigint, tenant_id uuid, project_id uuid, object_type text, object_id uuid, verb text,
               actor_id uuid, at timestamptz)
language sql stable
security definer
set search_path = ''
as $$
  with anchor as (
    select coalesce((select a.at from public.activity a where a.tenant_id = (select bullpen.tenant_id()) and a.id = p_after),
                    (select max(a.at) from public.activity a where a.tenant_id = (select bullpen.tenant_id()) and a.id <= p_after),
                    '-infinity'::timestamptz) as at
  )
  select x.id, x.tenant_id, x.project_id, x.object_type, x.object_id, x.verb, x.actor_id, x.at
    from (
      select a.* from public.activity a
       where a.tenant_id = (select bullpen.tenant_id()) and a.id > p_after
      union all
      select a.* from public.activity a, anchor
       where a.tenant_id = (select bullpen.tenant_id()) and a.id <= p_after and a.at > anchor.at - interval '60 seconds'
    ) x
   order by x.id
   limit greatest(1, least(p_limit, 20000)) + 1
$$;
alter function bullpen.change_replay(bigint, int) owner to bullpen_writer;

/** actor_query include "work": when the actor was last active, its open tasks and the task it holds now. */
create or replace function bullpen.actor_work_json(a public.actors) returns jsonb
language sql stable
as $$
  select jsonb_build_object(
    'last_active_at', greatest(a.last_seen_at, (select max(k.last_used_at) from public.api_keys k
                                                 where k.tenant_id = a.tenant_id and k.actor_id = a.id)),
    'open_tasks', (select count(*) from public.tasks t
                    where t.tenant_id = a.tenant_id and t.assignee_actor_id = a.id
                      and t.status not in ('done', 'cancelled', 'failed', 'skipped')),
    'current_claim', (select jsonb_build_object('task_id', t.id, 'ref', pr.key || '-' || t.seq, 'title', t.title,
                               'project_key', pr.key, 'lease_expires_at', t.lease_expires_at)
                        from public.tasks t join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
                       where t.tenant_id = a.tenant_id and t.lease_actor_id = a.id and t.lease_expires_at > now()
                       order by t.lease_expires_at desc limit 1),
    -- routing (0022): its load against max_concurrent_tasks, and the leases it holds now (up to 20)
    'live_leases', (select count(*) from public.tasks t
                     where t.tenant_id = a.tenant_id and t.lease_actor_id = a.id and t.status = 'in_progress' and t.lease_expires_at > now()),
    'leases', (select coalesce(jsonb_agg(x.j order by x.exp), '[]') from (
                 select jsonb_build_object('task_id', t.id, 'ref', pr.key || '-' || t.seq, 'title', t.title,
                          'project_key', pr.key, 'lease_expires_at', t.lease_expires_at) as j, t.lease_expires_at as exp
                   from public.tasks t join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
                  where t.tenant_id = a.tenant_id and t.lease_actor_id = a.id and t.status = 'in_progress' and t.lease_expires_at > now()
                  order by t.lease_expires_at limit 20) x))
$$;

/** actor_query include "keys" (people only): the actor's API keys, never their hashes, and open sign-in links. */
create or replace function bullpen.actor_keys_json(a public.actors) returns jsonb
language sql stable
as $$
  select jsonb_build_object(
    'keys', (select coalesce(jsonb_agg(jsonb_build_object('id', k.id, 'prefix', k.prefix, 'label', k.label,
                      'created_at', k.created_at, 'last_used_at', k.last_used_at, 'revoked_at', k.revoked_at,
                      'scopes', k.scopes, 'expires_at', k.expires_at, 'replaced_by', k.replaced_by)
                    order by k.created_at desc), '[]')
               from public.api_keys k where k.tenant_id = a.tenant_id and k.actor_id = a.id),
    'pending_invites', (select count(*) from bullpen.signin_tokens s
                         where s.tenant_id = a.tenant_id and s.actor_id = a.id and s.used_at is null
                           and s.revoked_at is null and s.expires_at > now()))
$$;

-- Execute rights, one function at a time: the API roles call RPCs, never helpers.
revoke all on function bullpen.consume_signin_token(text) from public, anon, authenticated;
grant execute on function bullpen.consume_signin_token(text) to service_role;
revoke all on function bullpen.humans_for_auth_user(uuid, text) from public, anon, authenticated;
grant execute on function bullpen.humans_for_auth_user(uuid, text) to service_role;
revoke all on function bullpen.auth_user_tenant_ids() from public, anon;
grant execute on function bullpen.auth_user_tenant_ids() to authenticated, service_role;
revoke all on function bullpen.change_head() from public, anon;
grant execute on function bullpen.change_head() to authenticated, service_role;
revoke all on function bullpen.change_replay(bigint, int) from public, anon;
grant execute on function bullpen.change_replay(bigint, int) to authenticated, service_role;
revoke all on function bullpen.actor_work_json(public.actors) from public, anon, authenticated;
grant execute on function bullpen.actor_work_json(public.actors) to bullpen_writer, service_role;
revoke all on function bullpen.actor_keys_json(public.actors) from public, anon, authenticated;
grant execute on function bullpen.actor_keys_json(public.actors) to bullpen_writer, service_role;
