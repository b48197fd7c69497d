-- Document sources: a folder of Markdown and text files (a repo's docs/, a notes vault) indexed
-- into source documents, each cut into chunks along its headings with character offsets. The CLI
-- reads the files where they are and sends them through source_sync; the chunks are embedded by
-- the same background job as notes and take part in knowledge_search. Function bodies live in
-- supabase/definitions/0031_sources.sql; vectors of chunks in 0031_sources_vector.sql.

-- ---------------------------------------------------------------------------------------------
-- Tables
-- ---------------------------------------------------------------------------------------------

create table public.sources (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  name text not null check (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
  project_id uuid,
  created_by_actor_id uuid not null,
  created_at timestamptz not null default now(),
  -- the sync lock: two syncs of one source never run at once; a lapsed lock is taken over
  sync_id uuid,
  sync_actor_id uuid,
  sync_started_at timestamptz,
  sync_expires_at timestamptz,
  last_sync_at timestamptz,
  last_sync_stats jsonb not null default '{}',
  last_errors jsonb not null default '[]' check (jsonb_typeof(last_errors) = 'array'),
  primary key (tenant_id, id),
  unique (tenant_id, name),
  foreign key (tenant_id, project_id) references public.projects (tenant_id, id),
  foreign key (tenant_id, created_by_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, sync_actor_id) references public.actors (tenant_id, id),
  check ((sync_id is null) = (sync_expires_at is null))
);

create table public.source_documents (
  tenant_id uuid not null,
  id uuid not null default gen_random_uuid(),
  source_id uuid not null,
  path text not null check (char_length(path) between 1 and 1000),
  title text not null check (char_length(title) between 1 and 500),
  body text not null check (char_length(body) <= 1000000),
  bytes int not null,
  content_hash text not null check (content_hash ~ '^[0-9a-f]{64}$'),
  -- a file that vanished from the folder is tombstoned: its chunks leave search, the row stays
  tombstoned_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, source_id, path),
  foreign key (tenant_id, source_id) references public.sources (tenant_id, id) on delete cascade
);

create table public.source_chunks (
  tenant_id uuid not null,
  id uuid not null default gen_random_uuid(),
  document_id uuid not null,
  -- the source's project, kept here so search filters chunks without a join
  project_id uuid,
  ord int not null check (ord >= 0),
  heading text,
  start_offset int not null check (start_offset >= 0),
  end_offset int not null,
  body text not null check (char_length(body) between 1 and 20000),
  -- the document's title, kept beside the text so words in it find the chunk
  doc_title text not null,
  content_hash text not null,
  embedding_status text not null default 'pending' check (embedding_status in ('pending', 'ready', 'failed', 'unavailable')),
  embedding_model text,
  embedding_dims int,
  embedding_attempts int not null default 0,
  embedding_retry_at timestamptz,
  embedding_error text,
  embedded_at timestamptz,
  search tsvector generated always as (
    setweight(to_tsvector('english'::regconfig, doc_title || ' ' || coalesce(heading, '')), 'A') ||
    setweight(to_tsvector('english'::regconfig, body), 'B')) stored,
  primary key (tenant_id, id),
  unique (tenant_id, document_id, ord),
  foreign key (tenant_id, document_id) references public.source_documents (tenant_id, id) on delete cascade,
  check (end_offset > start_offset)
);

-- source documents are linkable (link_add, find_related)
alter table public.links drop constraint links_from_type_check;
alter table public.links add constraint links_from_type_check
  check (from_type in ('task', 'project', 'decision', 'note', 'handoff', 'skill', 'run', 'code_ref', 'attachment', 'source'));
alter table public.links drop constraint links_to_type_check;
alter table public.links add constraint links_to_type_check
  check (to_type in ('task', 'project', 'decision', 'note', 'handoff', 'skill', 'run', 'code_ref', 'attachment', 'source'));

-- ---------------------------------------------------------------------------------------------
-- Indexes
-- ---------------------------------------------------------------------------------------------

create index source_chunks_search_idx on public.source_chunks using gin (search);
create index source_chunks_project_idx on public.source_chunks (tenant_id, project_id);
create index source_chunks_pending_idx on public.source_chunks (tenant_id, embedding_retry_at)
  where embedding_status in ('pending', 'unavailable');
create index source_documents_source_idx on public.source_documents (tenant_id, source_id, path);

-- ---------------------------------------------------------------------------------------------
-- Row-level security
-- ---------------------------------------------------------------------------------------------

alter table public.sources enable row level security;
alter table public.sources force row level security;
alter table public.source_documents enable row level security;
alter table public.source_documents force row level security;
alter table public.source_chunks enable row level security;
alter table public.source_chunks force row level security;

create policy sources_select_tenant on public.sources for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy sources_writer_all on public.sources for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy source_documents_select_tenant on public.source_documents for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy source_documents_writer_all on public.source_documents for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy source_chunks_select_tenant on public.source_chunks for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy source_chunks_writer_all on public.source_chunks for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

-- ---------------------------------------------------------------------------------------------
-- Grants
-- ---------------------------------------------------------------------------------------------

revoke all on public.sources, public.source_documents, public.source_chunks from public, anon, authenticated;
grant select on public.sources, public.source_documents, public.source_chunks to authenticated;
grant select, insert, update, delete on public.sources, public.source_documents, public.source_chunks to bullpen_writer;
grant all on public.sources, public.source_documents, public.source_chunks to service_role;

-- deleting a source document forgets its links (bullpen.links_forget, 0023_graph)
create trigger links_forget_source after delete on public.source_documents for each row execute function bullpen.links_forget('source');

comment on table public.sources is 'A named folder of Markdown and text files synced by `bullpen knowledge sync`; holds the sync lock and the last sync''s stats and errors.';
comment on table public.source_documents is 'One file of a source: its text, content hash and path; tombstoned when the file vanished.';
comment on table public.source_chunks is 'A document cut along its headings, with character offsets; embedded in the background and found by knowledge_search.';
