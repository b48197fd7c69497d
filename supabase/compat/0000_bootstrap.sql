-- Supabase's roles, auth helpers and realtime entry point, for plain Postgres and PGlite.
-- On Supabase these already exist and the migration runner skips this file.
-- Every statement is guarded so the file can run again safely.

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
end
$$;

-- The connecting role must be able to switch into the API roles, as Supabase's authenticator can.
do $$
begin
  execute format('grant anon, authenticated, service_role to %I', current_user);
exception when others then
  -- superusers (PGlite, local clusters) need no grant; a role without admin option keeps working
  null;
end
$$;

create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

create or replace function auth.jwt() returns jsonb
language sql stable
as $$
  select coalesce(nullif(current_setting('request.jwt.claims', true), ''), '{}')::jsonb
$$;

create or replace function auth.uid() returns uuid
language sql stable
as $$
  select nullif(auth.jwt() ->> 'sub', '')::uuid
$$;

create or replace function auth.role() returns text
language sql stable
as $$
  select coalesce(auth.jwt() ->> 'role', current_user)
$$;

create schema if not exists realtime;
grant usage on schema realtime to anon, authenticated, service_role;

-- Supabase broadcasts through realtime.send(payload, event, topic, private). Here the change feed
-- travels over LISTEN/NOTIFY instead, so the stand-in accepts the call and does nothing.
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
language sql
as $$ select $$;

grant execute on function realtime.send(jsonb, text, text, boolean) to authenticated, service_role;
