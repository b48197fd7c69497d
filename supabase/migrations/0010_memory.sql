-- Memory: decisions (append-only, superseded, linked to tasks), knowledge notes (expiring, embedded
-- in the background), skills (versioned playbooks by slug) and the indexes global search reads.
-- Vectors live in 0010_memory_vector.sql, which only a database with pgvector applies; everything
-- here works without it (search falls back to full text and trigrams).

-- ---------------------------------------------------------------------------------------------
-- Tables
-- ---------------------------------------------------------------------------------------------

create table public.decisions (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  project_id uuid,
  title text not null check (char_length(title) between 1 and 500),
  choice text not null check (char_length(choice) between 1 and 10000),
  context text check (char_length(context) <= 20000),
  rationale text check (char_length(rationale) <= 20000),
  consequences text check (char_length(consequences) <= 20000),
  options jsonb not null default '[]' check (jsonb_typeof(options) = 'array'),
  status text not null default 'accepted' check (status in ('proposed', 'accepted', 'rejected', 'superseded')),
  supersedes_decision_id uuid,
  superseded_by uuid,
  author_actor_id uuid not null,
  run_id text,
  created_at timestamptz not null default now(),
  status_changed_at timestamptz not null default now(),
  -- background embedding (see bullpen.memory_embed_text and lib/memory)
  content_hash text not null,
  embedding_status text not null default 'pending' check (embedding_status in ('pending', 'ready', 'failed', 'unavailable')),
  embedding_model text,
  embedding_dims int,
  embedding_attempts int not null default 0,
  embedding_retry_at timestamptz,
  embedding_error text,
  embedded_at timestamptz,
  search tsvector generated always as (
    setweight(to_tsvector('english'::regconfig, title), 'A') ||
    setweight(to_tsvector('english'::regconfig, choice), 'A') ||
    setweight(to_tsvector('english'::regconfig, coalesce(context, '') || ' ' || coalesce(rationale, '') || ' ' ||
                                                coalesce(consequences, '')), 'B')) stored,
  primary key (tenant_id, id),
  foreign key (tenant_id, project_id) references public.projects (tenant_id, id),
  foreign key (tenant_id, author_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, supersedes_decision_id) references public.decisions (tenant_id, id),
  foreign key (tenant_id, superseded_by) references public.decisions (tenant_id, id),
  check ((status = 'superseded') = (superseded_by is not null)),
  check (supersedes_decision_id is null or supersedes_decision_id <> id)
);

create table public.decision_tasks (
  tenant_id uuid not null,
  decision_id uuid not null,
  task_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, decision_id, task_id),
  foreign key (tenant_id, decision_id) references public.decisions (tenant_id, id) on delete cascade,
  foreign key (tenant_id, task_id) references public.tasks (tenant_id, id) on delete cascade
);

create table public.knowledge_notes (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  project_id uuid,
  kind text not null default 'note' check (kind in ('note', 'runbook', 'finding', 'snippet')),
  title text not null check (char_length(title) between 1 and 500),
  body text not null check (char_length(body) between 1 and 100000),
  tags text[] not null default '{}',
  -- TTL memory: past this moment the note leaves search and listings, and a sweep deletes it
  expires_at timestamptz,
  version int not null default 1,
  author_actor_id uuid not null,
  updated_by_actor_id uuid,
  run_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  content_hash text not null,
  embedding_status text not null default 'pending' check (embedding_status in ('pending', 'ready', 'failed', 'unavailable')),
  embedding_model text,
  embedding_dims int,
  embedding_attempts int not null default 0,
  embedding_retry_at timestamptz,
  embedding_error text,
  embedded_at timestamptz,
  search tsvector generated always as (
    setweight(to_tsvector('english'::regconfig, title), 'A') ||
    setweight(to_tsvector('english'::regconfig, body), 'B')) stored,
  primary key (tenant_id, id),
  foreign key (tenant_id, project_id) references public.projects (tenant_id, id),
  foreign key (tenant_id, author_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, updated_by_actor_id) references public.actors (tenant_id, id)
);

create table public.note_tasks (
  tenant_id uuid not null,
  note_id uuid not null,
  task_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, note_id, task_id),
  foreign key (tenant_id, note_id) references public.knowledge_notes (tenant_id, id) on delete cascade,
  foreign key (tenant_id, task_id) references public.tasks (tenant_id, id) on delete cascade
);

create table public.skills (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  -- null: workspace-wide; else the project's own, which shadows a workspace skill of the same slug
  project_id uuid,
  slug text not null check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and char_length(slug) <= 64),
  name text not null check (char_length(name) between 1 and 200),
  description text not null check (char_length(description) between 1 and 1024),
  body text not null check (octet_length(body) between 1 and 65536),
  tags text[] not null default '{}',
  status text not null default 'active' check (status in ('active', 'archived')),
  version int not null default 1 check (version >= 1),
  content_hash text not null check (content_hash ~ '^[0-9a-f]{64}$'),
  created_by_actor_id uuid not null,
  updated_by_actor_id uuid not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  search tsvector generated always as (
    setweight(to_tsvector('english'::regconfig, replace(slug, '-', ' ') || ' ' || name), 'A') ||
    setweight(to_tsvector('english'::regconfig, description), 'B') ||
    setweight(to_tsvector('english'::regconfig, body), 'C')) stored,
  primary key (tenant_id, id),
  foreign key (tenant_id, project_id) references public.projects (tenant_id, id),
  foreign key (tenant_id, created_by_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, updated_by_actor_id) references public.actors (tenant_id, id)
);

-- ---------------------------------------------------------------------------------------------
-- Indexes
-- ---------------------------------------------------------------------------------------------

create index decisions_listing_idx on public.decisions (tenant_id, created_at desc, id desc);
create index decisions_project_idx on public.decisions (tenant_id, project_id, created_at desc);
create index decisions_search_idx on public.decisions using gin (search);
create index decisions_title_trgm_idx on public.decisions using gin (title gin_trgm_ops);
create index decisions_embedding_due_idx on public.decisions (tenant_id, embedding_retry_at)
  where embedding_status in ('pending', 'unavailable');
create index decision_tasks_task_idx on public.decision_tasks (tenant_id, task_id);

create index knowledge_notes_listing_idx on public.knowledge_notes (tenant_id, updated_at desc, id desc);
create index knowledge_notes_project_idx on public.knowledge_notes (tenant_id, project_id, updated_at desc);
create index knowledge_notes_search_idx on public.knowledge_notes using gin (search);
create index knowledge_notes_title_trgm_idx on public.knowledge_notes using gin (title gin_trgm_ops);
create index knowledge_notes_tags_idx on public.knowledge_notes using gin (tags);
create index knowledge_notes_expiry_idx on public.knowledge_notes (expires_at) where expires_at is not null;
create index knowledge_notes_embedding_due_idx on public.knowledge_notes (tenant_id, embedding_retry_at)
  where embedding_status in ('pending', 'unavailable');
create index note_tasks_task_idx on public.note_tasks (tenant_id, task_id);

create unique index skills_slug_idx on public.skills (tenant_id, coalesce(project_id, '00000000-0000-0000-0000-000000000000'::uuid), slug);
create index skills_slug_lookup_idx on public.skills (tenant_id, slug);
create index skills_search_idx on public.skills using gin (search);
create index skills_tags_idx on public.skills using gin (tags);

-- Global search reads other rooms' text through these expressions (the same ones bullpen.search uses).
create index projects_search_idx on public.projects using gin (
  to_tsvector('english'::regconfig, title || ' ' || coalesce(summary, '') || ' ' || coalesce(description, '')));
create index tasks_search_idx on public.tasks using gin (to_tsvector('english'::regconfig, title || ' ' || body));
create index comments_search_idx on public.comments using gin (to_tsvector('english'::regconfig, body));

-- ---------------------------------------------------------------------------------------------
-- Row-level security: forced everywhere; the workspace comes from the claims.
-- ---------------------------------------------------------------------------------------------

alter table public.decisions enable row level security;
alter table public.decisions force row level security;
alter table public.decision_tasks enable row level security;
alter table public.decision_tasks force row level security;
alter table public.knowledge_notes enable row level security;
alter table public.knowledge_notes force row level security;
alter table public.note_tasks enable row level security;
alter table public.note_tasks force row level security;
alter table public.skills enable row level security;
alter table public.skills force row level security;

create policy decisions_select_tenant on public.decisions for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy decision_tasks_select_tenant on public.decision_tasks for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
-- expired notes are gone for readers even before the sweep deletes them
create policy knowledge_notes_select_tenant on public.knowledge_notes for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()) and (expires_at is null or expires_at > now()));
create policy note_tasks_select_tenant on public.note_tasks for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy skills_select_tenant on public.skills for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));

-- The RPC role: inside the caller's workspace only; authorship comes from the claims.
create policy decisions_writer_select on public.decisions for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));
create policy decisions_writer_insert on public.decisions for insert to bullpen_writer
  with check (tenant_id = (select bullpen.tenant_id()) and author_actor_id = (select bullpen.actor_id()));
create policy decisions_writer_update on public.decisions for update to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy decision_tasks_writer_all on public.decision_tasks for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy knowledge_notes_writer_select on public.knowledge_notes for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));
create policy knowledge_notes_writer_insert on public.knowledge_notes for insert to bullpen_writer
  with check (tenant_id = (select bullpen.tenant_id()) and author_actor_id = (select bullpen.actor_id()));
create policy knowledge_notes_writer_update on public.knowledge_notes for update to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()) and updated_by_actor_id = (select bullpen.actor_id()));
create policy note_tasks_writer_all on public.note_tasks for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy skills_writer_select on public.skills for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));
create policy skills_writer_insert on public.skills for insert to bullpen_writer
  with check (tenant_id = (select bullpen.tenant_id()) and created_by_actor_id = (select bullpen.actor_id()));
create policy skills_writer_update on public.skills for update to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()) and updated_by_actor_id = (select bullpen.actor_id()));

-- ---------------------------------------------------------------------------------------------
-- Grants: the API roles read under RLS; only the RPCs write.
-- ---------------------------------------------------------------------------------------------

revoke all on public.decisions, public.decision_tasks, public.knowledge_notes, public.note_tasks, public.skills
  from public, anon, authenticated;
grant select on public.decisions, public.decision_tasks, public.knowledge_notes, public.note_tasks, public.skills
  to authenticated;
grant select, insert, update on public.decisions to bullpen_writer;
grant select, insert, delete on public.decision_tasks to bullpen_writer;
grant select, insert, update on public.knowledge_notes to bullpen_writer;
grant select, insert, delete on public.note_tasks to bullpen_writer;
grant select, insert, update on public.skills to bullpen_writer;
grant all on public.decisions, public.decision_tasks, public.knowledge_notes, public.note_tasks, public.skills
  to service_role;

comment on table public.decisions is 'Append-only decision log: content never changes; status moves through decision_set_status, and a new decision supersedes an old one.';
comment on table public.knowledge_notes is 'Team knowledge: notes, runbooks, findings and snippets, embedded in the background and searchable by meaning; expires_at makes a note temporary.';
comment on table public.skills is 'Versioned markdown playbooks by slug, workspace-wide or per project (a project skill shadows the workspace one).';
comment on column public.decisions.content_hash is 'sha256 of the text that is embedded; the embedding job compares it with the stored vector.';
comment on column public.knowledge_notes.embedding_status is 'pending until the background job embeds the note; ready, failed after its retries, or unavailable without pgvector.';
