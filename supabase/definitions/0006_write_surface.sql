-- The write surface: helpers the policies of 0006_write_surface.sql use.

-- Whether the calling actor owns its workspace. security definer: a policy on actors cannot read
-- actors through itself. The claims are read once into variables: written inline, the planner's
-- scan of the (small) actors table parsed the claims JSON twice for every row it passed.
create or replace function bullpen.caller_is_owner() returns boolean
language plpgsql stable
security definer
set search_path = ''
as $$
#variable_conflict use_column
declare
  v_tenant uuid := bullpen.tenant_id();
  v_actor uuid := bullpen.actor_id();
begin
  return coalesce((select a.is_owner from public.actors a where a.tenant_id = v_tenant and a.id = v_actor), false);
end
$$;

revoke all on function bullpen.caller_is_owner() from public, anon, authenticated;
grant execute on function bullpen.caller_is_owner() to bullpen_writer, service_role;

-- The owner flag moves only through an owner: inside an RPC (running as bullpen_writer) a caller
-- who is not an owner cannot set or clear it, its own included. The server's administration path
-- (bullpen agent add, first start) runs as the server role.
create or replace function bullpen.actors_owner_guard() returns trigger
language plpgsql
as $$
begin
  if new.is_owner is distinct from old.is_owner and current_user = 'bullpen_writer' and not bullpen.caller_is_owner() then
    raise exception using errcode = 'BPFRB', message = 'only a workspace owner can change who owns the workspace',
      hint = 'ask a workspace owner';
  end if;
  return new;
end
$$;

create or replace trigger actors_owner_guard before update on public.actors
  for each row execute function bullpen.actors_owner_guard();

revoke all on function bullpen.actors_owner_guard() from public, anon, authenticated;
grant execute on function bullpen.actors_owner_guard() to bullpen_writer, service_role;
