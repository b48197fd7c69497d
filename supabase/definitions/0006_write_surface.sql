-- The write surface: helpers the policies of 0006_write_surface.sql use.

-- Whether the calling actor owns its workspace. security definer: a policy on actors cannot read
-- actors through itself.
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
