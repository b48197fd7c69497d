-- The code graph: a repository's file dependency graph, built where the code is (`bullpen repo
-- index`) and uploaded in batches, so agents ask what depends on a file before changing it, which
-- files are in cycles and which are critical, and see other agents' tasks in the way.
-- - code_graphs: one graph per upload, marked with the commit it was built from; a repository has
--   at most one current graph. An upload builds a new graph beside the current one and the last
--   batch swaps them in one transaction, so a re-index replaces the graph atomically.
-- - code_graph_files: the graph's files, numbered in upload order, with the number of files that
--   depend on each (directly or not); code_graph_imports: file → file edges.
-- - code_graph_cycles: each cycle as its loop of file numbers.
-- - code_refs gain files: the repository paths a task's work touches, which the collision warning
--   of task_claim and task_get compares against the graph.
-- Function bodies live in supabase/definitions/0030_code_graph.sql.

-- ---------------------------------------------------------------------------------------------
-- Tables
-- ---------------------------------------------------------------------------------------------

create table public.code_graphs (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  repository_id uuid not null,
  commit_sha text check (commit_sha ~ '^[0-9a-f]{4,64}$'),
  status text not null default 'building' check (status in ('building', 'current')),
  file_count int not null default 0 check (file_count >= 0),
  import_count int not null default 0 check (import_count >= 0),
  cycle_count int not null default 0 check (cycle_count >= 0),
  -- {"typescript": 812, "python": 40}: files per language, as the indexer counted them
  languages jsonb not null default '{}' check (jsonb_typeof(languages) = 'object'),
  created_by_actor_id uuid not null,
  created_at timestamptz not null default now(),
  indexed_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, repository_id) references public.repositories (tenant_id, id) on delete cascade,
  foreign key (tenant_id, created_by_actor_id) references public.actors (tenant_id, id),
  check ((status = 'current') = (indexed_at is not null))
);

create table public.code_graph_files (
  tenant_id uuid not null,
  graph_id uuid not null,
  n int not null check (n >= 0),
  path text not null check (char_length(path) between 1 and 1000),
  -- files that depend on this one, directly or not (the indexer counts them; direct ones are the
  -- imports keyed by to_n)
  dependents int not null default 0 check (dependents >= 0),
  primary key (tenant_id, graph_id, n),
  foreign key (tenant_id, graph_id) references public.code_graphs (tenant_id, id) on delete cascade
);

create table public.code_graph_imports (
  tenant_id uuid not null,
  graph_id uuid not null,
  from_n int not null check (from_n >= 0),
  to_n int not null check (to_n >= 0),
  -- keyed by the imported file: "who depends on X" is the walk every question takes
  primary key (tenant_id, graph_id, to_n, from_n),
  foreign key (tenant_id, graph_id) references public.code_graphs (tenant_id, id) on delete cascade,
  check (from_n <> to_n)
);

create table public.code_graph_cycles (
  tenant_id uuid not null,
  graph_id uuid not null,
  n int not null check (n >= 0),
  files int[] not null check (cardinality(files) between 2 and 10000),
  primary key (tenant_id, graph_id, n),
  foreign key (tenant_id, graph_id) references public.code_graphs (tenant_id, id) on delete cascade
);

alter table public.code_refs add column files text[] not null default '{}'
  check (cardinality(files) <= 200);

-- ---------------------------------------------------------------------------------------------
-- Indexes
-- ---------------------------------------------------------------------------------------------

create unique index code_graphs_current_idx on public.code_graphs (tenant_id, repository_id) where status = 'current';
create index code_graphs_repository_idx on public.code_graphs (tenant_id, repository_id, created_at desc);
-- what a file imports: the other direction of the collision warning's walk
create index code_graph_imports_from_idx on public.code_graph_imports (tenant_id, graph_id, from_n);
create unique index code_graph_files_path_idx on public.code_graph_files (tenant_id, graph_id, path);
create index code_graph_files_rank_idx on public.code_graph_files (tenant_id, graph_id, dependents desc, n);
-- the refs that name files, for the collision warning
create index code_refs_files_idx on public.code_refs (tenant_id, repository_id) where cardinality(files) > 0;

-- ---------------------------------------------------------------------------------------------
-- Row-level security
-- ---------------------------------------------------------------------------------------------

alter table public.code_graphs enable row level security;
alter table public.code_graphs force row level security;
alter table public.code_graph_files enable row level security;
alter table public.code_graph_files force row level security;
alter table public.code_graph_imports enable row level security;
alter table public.code_graph_imports force row level security;
alter table public.code_graph_cycles enable row level security;
alter table public.code_graph_cycles force row level security;

create policy code_graphs_select_tenant on public.code_graphs for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy code_graph_files_select_tenant on public.code_graph_files for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy code_graph_imports_select_tenant on public.code_graph_imports for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy code_graph_cycles_select_tenant on public.code_graph_cycles for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));

create policy code_graphs_writer_all on public.code_graphs for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy code_graph_files_writer_all on public.code_graph_files for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy code_graph_imports_writer_all on public.code_graph_imports for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy code_graph_cycles_writer_all on public.code_graph_cycles for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

-- ---------------------------------------------------------------------------------------------
-- Grants: the API roles read under RLS; only the RPCs write.
-- ---------------------------------------------------------------------------------------------

revoke all on public.code_graphs, public.code_graph_files, public.code_graph_imports, public.code_graph_cycles
  from public, anon, authenticated;
grant select on public.code_graphs, public.code_graph_files, public.code_graph_imports, public.code_graph_cycles to authenticated;
grant select, insert, update, delete on public.code_graphs, public.code_graph_files, public.code_graph_imports,
  public.code_graph_cycles to bullpen_writer;
grant all on public.code_graphs, public.code_graph_files, public.code_graph_imports, public.code_graph_cycles to service_role;

comment on table public.code_graphs is 'A repository''s file dependency graph, one per upload; the current one per repository is what the code graph tools read.';
comment on table public.code_graph_files is 'The files of a code graph, numbered in upload order, with their transitive dependent counts.';
comment on table public.code_graph_imports is 'File → file imports of a code graph (from_n imports to_n).';
comment on table public.code_graph_cycles is 'The dependency cycles of a code graph, each as its loop of file numbers.';
comment on column public.code_refs.files is 'Repository paths the referenced work touches (for the code graph''s collision warning).';
