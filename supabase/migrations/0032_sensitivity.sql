-- Sensitivity: a knowledge note is normal (the default) or sensitive. Only callers whose claims say
-- `sensitive` (a key with the `sensitive` scope, or a person in the console) see a sensitive note,
-- on every read path: a restrictive row-level policy on the table binds the API role and the RPC
-- role alike, so search, reads by id, the graph walk, briefs and resources all leave it out without
-- each of them remembering to. bullpen.can_see_sensitive() is the one predicate; other tables that
-- carry a sensitivity (source documents) add the same restrictive policy with it.
-- Function bodies live in supabase/definitions/0032_sensitivity.sql; the predicate is created here
-- too, because the policy below needs it before the definitions are applied.

-- ---------------------------------------------------------------------------------------------
-- Tables
-- ---------------------------------------------------------------------------------------------

alter table public.knowledge_notes
  add column sensitivity text not null default 'normal' check (sensitivity in ('normal', 'sensitive'));

-- ---------------------------------------------------------------------------------------------
-- Functions the policies need
-- ---------------------------------------------------------------------------------------------

create or replace function bullpen.can_see_sensitive() returns boolean
language sql stable
as $$ select coalesce((bullpen.claims() ->> 'sensitive')::boolean, false) $$;

-- The activity log is readable by every key of the workspace: a line about a sensitive note names
-- no title or tags (the body is never logged). Redefined in the definitions file.
create or replace function bullpen.activity_sensitive_scrub() returns trigger
language plpgsql
as $$
begin
  if new.object_type = 'note' and new.object_id is not null and exists (
       select 1 from public.knowledge_notes n
        where n.tenant_id = new.tenant_id and n.id = new.object_id and n.sensitivity = 'sensitive') then
    new.summary := 'a sensitive note';
    new.metadata := new.metadata - 'tags';
  elsif new.verb like 'link.%' and new.metadata -> 'to' ->> 'type' = 'note' and exists (
       select 1 from public.knowledge_notes n
        where n.tenant_id = new.tenant_id and n.id = (new.metadata -> 'to' ->> 'id')::uuid and n.sensitivity = 'sensitive') then
    new.summary := format('%s a sensitive note', coalesce(new.metadata ->> 'relation', 'linked to'));
  end if;
  return new;
end
$$;

create trigger activity_sensitive_scrub before insert on public.activity
  for each row when (new.object_type = 'note' or new.verb like 'link.%')
  execute function bullpen.activity_sensitive_scrub();

-- ---------------------------------------------------------------------------------------------
-- Row-level security: restrictive, so it narrows every permissive policy of both roles
-- ---------------------------------------------------------------------------------------------

create policy knowledge_notes_sensitivity on public.knowledge_notes as restrictive for all
  to authenticated, bullpen_writer
  using (sensitivity = 'normal' or (select bullpen.can_see_sensitive()))
  with check (sensitivity = 'normal' or (select bullpen.can_see_sensitive()));

-- A comment on a note is seen with its note: a hidden (sensitive) note hides its thread too, in
-- comment_query, global search and wherever else comments are read.
create policy comments_note_sensitivity on public.comments as restrictive for all
  to authenticated, bullpen_writer
  using (object_type <> 'note' or exists (
    select 1 from public.knowledge_notes n where n.tenant_id = comments.tenant_id and n.id = comments.object_id))
  with check (object_type <> 'note' or exists (
    select 1 from public.knowledge_notes n where n.tenant_id = comments.tenant_id and n.id = comments.object_id));

-- ---------------------------------------------------------------------------------------------
-- Grants
-- ---------------------------------------------------------------------------------------------

revoke all on function bullpen.can_see_sensitive() from public, anon;
grant execute on function bullpen.can_see_sensitive() to authenticated, bullpen_writer, service_role;

revoke all on function bullpen.activity_sensitive_scrub() from public, anon, authenticated;

comment on column public.knowledge_notes.sensitivity is 'normal or sensitive: a sensitive note is seen only by keys with the sensitive scope and by people in the console.';
comment on function bullpen.can_see_sensitive() is 'Whether the caller''s claims may see sensitive items (claims.sensitive): the predicate of every sensitivity policy.';
