-- Memory as a graph: typed links between any two objects of a workspace, notes of more kinds
-- (guidelines and patterns with a language and a category), and a note's lifecycle (superseded,
-- retracted). Decisions gain tags and a deprecated status. Function bodies live in
-- supabase/definitions/0023_graph.sql; the trigger function that forgets a deleted object's links
-- is here too, because the triggers below need it before the definitions are applied.

-- ---------------------------------------------------------------------------------------------
-- Tables
-- ---------------------------------------------------------------------------------------------

create table public.links (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  from_type text not null check (from_type in ('task', 'project', 'decision', 'note', 'handoff', 'skill', 'run', 'code_ref', 'attachment')),
  from_id uuid not null,
  to_type text not null check (to_type in ('task', 'project', 'decision', 'note', 'handoff', 'skill', 'run', 'code_ref', 'attachment')),
  to_id uuid not null,
  relation text not null check (relation in ('relates_to', 'depends_on', 'implements', 'extends', 'supersedes', 'explains',
                                             'duplicates', 'contradicts')),
  strength real not null default 1 check (strength >= 0 and strength <= 1),
  note text check (char_length(note) <= 2000),
  created_by_actor_id uuid not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, created_by_actor_id) references public.actors (tenant_id, id),
  check (not (from_type = to_type and from_id = to_id)),
  -- task dependencies have their own table and rules (task_link)
  check (not (relation = 'depends_on' and from_type = 'task' and to_type = 'task'))
);

alter table public.knowledge_notes drop constraint knowledge_notes_kind_check;
alter table public.knowledge_notes add constraint knowledge_notes_kind_check
  check (kind in ('note', 'runbook', 'finding', 'snippet', 'guideline', 'pattern', 'journal'));
alter table public.knowledge_notes
  add column language text check (char_length(language) between 1 and 64),
  add column category text check (char_length(category) between 1 and 64),
  add column superseded_by uuid,
  add column retracted_at timestamptz,
  add column retracted_reason text check (char_length(retracted_reason) <= 2000),
  add column retracted_by_actor_id uuid,
  add foreign key (tenant_id, superseded_by) references public.knowledge_notes (tenant_id, id) on delete set null (superseded_by),
  add foreign key (tenant_id, retracted_by_actor_id) references public.actors (tenant_id, id),
  add check (superseded_by is null or superseded_by <> id),
  add check ((retracted_at is null) = (retracted_reason is null));

alter table public.decisions add column tags text[] not null default '{}';
alter table public.decisions drop constraint decisions_status_check;
alter table public.decisions add constraint decisions_status_check
  check (status in ('proposed', 'accepted', 'rejected', 'superseded', 'deprecated'));

-- ---------------------------------------------------------------------------------------------
-- Indexes
-- ---------------------------------------------------------------------------------------------

-- one link per pair and relation: linking again updates the strength
create unique index links_pair_idx on public.links (tenant_id, from_type, from_id, to_type, to_id, relation);
create index links_from_idx on public.links (tenant_id, from_id);
create index links_to_idx on public.links (tenant_id, to_id);
create index knowledge_notes_guidelines_idx on public.knowledge_notes (tenant_id, project_id, language, category)
  where kind = 'guideline';
create index decisions_tags_idx on public.decisions using gin (tags);

-- ---------------------------------------------------------------------------------------------
-- Row-level security
-- ---------------------------------------------------------------------------------------------

alter table public.links enable row level security;
alter table public.links force row level security;

create policy links_select_tenant on public.links for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy links_writer_select on public.links for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));
create policy links_writer_insert on public.links for insert to bullpen_writer
  with check (tenant_id = (select bullpen.tenant_id()) and created_by_actor_id = (select bullpen.actor_id()));
create policy links_writer_update on public.links for update to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy links_writer_delete on public.links for delete to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));

-- ---------------------------------------------------------------------------------------------
-- Grants
-- ---------------------------------------------------------------------------------------------

revoke all on public.links from public, anon, authenticated;
grant select on public.links to authenticated;
grant select, insert, update, delete on public.links to bullpen_writer;
grant all on public.links to service_role;

-- ---------------------------------------------------------------------------------------------
-- Deleting or purging an object forgets its links (there is no foreign key to a typed pair).
-- ---------------------------------------------------------------------------------------------

create or replace function bullpen.links_forget() returns trigger
language plpgsql
as $$
begin
  delete from public.links l
   where l.tenant_id = old.tenant_id
     and ((l.from_id = old.id and l.from_type = tg_argv[0]) or (l.to_id = old.id and l.to_type = tg_argv[0]));
  return old;
end
$$;
revoke all on function bullpen.links_forget() from public, anon, authenticated;

create trigger links_forget_task after delete on public.tasks for each row execute function bullpen.links_forget('task');
create trigger links_forget_project after delete on public.projects for each row execute function bullpen.links_forget('project');
create trigger links_forget_decision after delete on public.decisions for each row execute function bullpen.links_forget('decision');
create trigger links_forget_note after delete on public.knowledge_notes for each row execute function bullpen.links_forget('note');
create trigger links_forget_handoff after delete on public.handoffs for each row execute function bullpen.links_forget('handoff');
create trigger links_forget_skill after delete on public.skills for each row execute function bullpen.links_forget('skill');
create trigger links_forget_run after delete on public.runs for each row execute function bullpen.links_forget('run');
create trigger links_forget_code_ref after delete on public.code_refs for each row execute function bullpen.links_forget('code_ref');
create trigger links_forget_attachment after delete on public.attachments for each row execute function bullpen.links_forget('attachment');

comment on table public.links is 'Typed links between any two objects of a workspace (relates_to, implements, supersedes, contradicts, …) with a strength 0–1; find_related walks them.';
comment on column public.knowledge_notes.superseded_by is 'The note that replaced this one (knowledge_update supersedes); hidden from search by default.';
comment on column public.knowledge_notes.retracted_at is 'Set by knowledge_retract: readable by id, gone from search.';
