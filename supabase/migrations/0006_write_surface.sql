-- The write surface is the RPCs, nothing else.
--
-- Until now the RPCs ran as their caller, so `authenticated` held INSERT and UPDATE on the tables
-- under tenant-only policies: any member of a workspace holding a JWT could set its own owner flag,
-- rewrite leases or write activity under another actor's name. From here on:
-- - `anon` has no rights on any table; `authenticated` may only read, under RLS;
-- - the RPCs are `security definer`, owned by `bullpen_writer`: a role without BYPASSRLS, so the
--   tenant policies below still bind every row it touches, and the tenant wall stays inside them;
-- - helpers are executable by bullpen_writer only (definitions grant them one by one).
-- Function bodies and their execute grants live in supabase/definitions/.

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'bullpen_writer') then
    create role bullpen_writer nologin noinherit nobypassrls;
  end if;
end
$$;

-- The migrating role hands its RPCs to bullpen_writer, so it must be a member (superusers are).
do $$
begin
  execute format('grant bullpen_writer to %I', current_user);
exception when others then
  null;
end
$$;

grant usage on schema public, bullpen, auth, realtime to bullpen_writer;
-- ALTER FUNCTION … OWNER needs the new owner to hold CREATE on the function's schema. The role
-- cannot log in; only the bodies of our own RPCs run as it.
grant create on schema public, bullpen to bullpen_writer;
grant execute on function realtime.send(jsonb, text, text, boolean) to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- The API roles lose every write right, including Supabase's default grants on public.
-- ---------------------------------------------------------------------------------------------

revoke insert, update, delete, truncate, references, trigger on
  public.tenants, public.actors, public.api_keys, public.activity, public.idempotency_keys, public.comments,
  public.projects, public.tasks, public.task_dependencies, bullpen.signin_tokens, bullpen.migrations
  from anon, authenticated;
revoke all on
  public.tenants, public.actors, public.api_keys, public.activity, public.idempotency_keys, public.comments,
  public.projects, public.tasks, public.task_dependencies, bullpen.signin_tokens, bullpen.migrations
  from anon;
revoke all on bullpen.migrations from authenticated;
-- key hashes stay unreadable: re-grant the readable columns only (Supabase grants the whole table)
revoke select on public.api_keys from authenticated;
grant select (tenant_id, id, actor_id, prefix, label, created_at, last_used_at, revoked_at) on public.api_keys to authenticated;
revoke all on all sequences in schema public from anon, authenticated;

-- Objects created later by the migrating role start with no rights for the API roles.
alter default privileges in schema public revoke all on tables from anon, authenticated;
alter default privileges in schema public revoke all on sequences from anon, authenticated;
alter default privileges in schema public revoke execute on functions from public, anon, authenticated;
alter default privileges in schema bullpen revoke all on tables from anon, authenticated;
alter default privileges in schema bullpen revoke execute on functions from public, anon, authenticated;

drop policy if exists actors_insert_tenant on public.actors;
drop policy if exists actors_update_tenant on public.actors;
drop policy if exists activity_insert_tenant on public.activity;
drop policy if exists idempotency_keys_insert_own on public.idempotency_keys;
drop policy if exists idempotency_keys_update_own on public.idempotency_keys;
drop policy if exists comments_insert_tenant on public.comments;
drop policy if exists projects_insert_tenant on public.projects;
drop policy if exists projects_update_tenant on public.projects;
drop policy if exists tasks_insert_tenant on public.tasks;
drop policy if exists tasks_update_tenant on public.tasks;
drop policy if exists task_dependencies_insert_tenant on public.task_dependencies;
drop policy if exists task_dependencies_delete_tenant on public.task_dependencies;

-- ---------------------------------------------------------------------------------------------
-- bullpen_writer: what the RPCs may touch, always inside the caller's workspace.
-- ---------------------------------------------------------------------------------------------

grant select on public.tenants to bullpen_writer;
grant select, insert, update on public.actors to bullpen_writer;
grant select on public.api_keys to bullpen_writer;
grant select, insert on public.activity to bullpen_writer;
grant select, insert, update, delete on public.idempotency_keys to bullpen_writer;
grant select, insert on public.comments to bullpen_writer;
grant select, insert, update on public.projects to bullpen_writer;
grant select, insert, update on public.tasks to bullpen_writer;
grant select, insert, delete on public.task_dependencies to bullpen_writer;
grant select on bullpen.signin_tokens to bullpen_writer;

create policy tenants_writer_own on public.tenants for select to bullpen_writer
  using (id = (select bullpen.tenant_id()));

create policy actors_writer_select on public.actors for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));
create policy actors_writer_insert on public.actors for insert to bullpen_writer
  with check (tenant_id = (select bullpen.tenant_id()) and not is_owner);
-- Whether the calling actor owns its workspace. security definer: a policy on actors cannot read
-- actors through itself. (Its body is kept in supabase/definitions/0006_write_surface.sql.)
create or replace function bullpen.caller_is_owner() returns boolean
language sql stable
security definer
set search_path = ''
as $$
  select coalesce((select a.is_owner from public.actors a
                    where a.tenant_id = bullpen.tenant_id() and a.id = bullpen.actor_id()), false)
$$;
revoke all on function bullpen.caller_is_owner() from public, anon, authenticated;
grant execute on function bullpen.caller_is_owner() to bullpen_writer, service_role;

-- an actor changes its own row; only an owner changes another's
create policy actors_writer_update on public.actors for update to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id())
         and (id = (select bullpen.actor_id()) or (select bullpen.caller_is_owner())))
  with check (tenant_id = (select bullpen.tenant_id()));

create policy api_keys_writer_select on public.api_keys for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));

create policy activity_writer_select on public.activity for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));
-- the actor and run of a row come from the claims, never from the caller's input
create policy activity_writer_insert on public.activity for insert to bullpen_writer
  with check (tenant_id = (select bullpen.tenant_id())
              and actor_id is not distinct from (select bullpen.actor_id())
              and run_id is not distinct from (select bullpen.run_id()));

create policy idempotency_keys_writer_own on public.idempotency_keys for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()) and actor_id = (select bullpen.actor_id()))
  with check (tenant_id = (select bullpen.tenant_id()) and actor_id = (select bullpen.actor_id()));

create policy comments_writer_select on public.comments for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));
create policy comments_writer_insert on public.comments for insert to bullpen_writer
  with check (tenant_id = (select bullpen.tenant_id()) and author_actor_id = (select bullpen.actor_id()));

create policy projects_writer_all on public.projects for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

create policy tasks_writer_all on public.tasks for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

create policy task_dependencies_writer_all on public.task_dependencies for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

create policy signin_tokens_writer_select on bullpen.signin_tokens for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));

comment on role bullpen_writer is 'Owns the RPCs (security definer). No login, no BYPASSRLS: the tenant policies bind it.';
