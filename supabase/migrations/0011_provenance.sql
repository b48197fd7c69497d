-- Provenance: what makes "done" point at real work.
--
-- - runs: every call belongs to a run (a burst of work by one actor), registered lazily before its
--   first write; runs form a tree (parent_run_id) and series (run_series_key, one loop_tick run per
--   wake-up); heartbeats keep them alive, the reaper abandons silent ones and releases their leases;
--   usage (tokens, cost) is reported per model.
-- - repositories, deduplicated by their normalised remote (credentials never stored), linked to
--   projects with a role; code_refs tie a task, decision, note or project to a commit, branch, PR,
--   tag or compare view.
-- - attachments: files (stored by the server or Supabase Storage) and links on any object,
--   removed softly.
-- - feature_requests: reports about Bullpen itself, deduplicated by fingerprint while live.
-- - activity gains status and a content hash, so a retried milestone (activity_log) is one row.
-- - tasks remember which run holds their lease, so the reaper releases only that run's work.
--
-- Function bodies are in supabase/definitions/0011_provenance.sql.

-- ---------------------------------------------------------------------------------------------
-- Tables
-- ---------------------------------------------------------------------------------------------

create table public.repositories (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  host text not null check (host ~ '^[a-z0-9][a-z0-9.-]{0,252}$'),
  owner text not null check (char_length(owner) between 1 and 200),
  name text not null check (char_length(name) between 1 and 200),
  -- host/owner/name in lower case: two spellings of one remote are one repository
  remote_key text not null check (remote_key = lower(remote_key)),
  -- the canonical, credential-free https URL
  remote_url text not null check (remote_url ~ '^https://' and remote_url !~ '@'),
  default_branch text check (char_length(default_branch) between 1 and 200),
  created_by_actor_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, remote_key),
  foreign key (tenant_id, created_by_actor_id) references public.actors (tenant_id, id)
);

create table public.project_repositories (
  tenant_id uuid not null,
  project_id uuid not null,
  repository_id uuid not null,
  role text not null default 'primary' check (role in ('primary', 'dependency', 'docs')),
  linked_by_actor_id uuid,
  created_at timestamptz not null default now(),
  primary key (tenant_id, project_id, repository_id),
  foreign key (tenant_id, project_id) references public.projects (tenant_id, id) on delete cascade,
  foreign key (tenant_id, repository_id) references public.repositories (tenant_id, id) on delete cascade,
  foreign key (tenant_id, linked_by_actor_id) references public.actors (tenant_id, id)
);

create table public.runs (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  -- what the caller names the run by: X-Bullpen-Run, BULLPEN_RUN_ID, or derived per connection
  run_key text not null check (run_key ~ '^[A-Za-z0-9._:@-]{1,128}$'),
  actor_id uuid not null,
  kind text not null default 'session' check (kind in ('session', 'loop_tick', 'subagent')),
  status text not null default 'running' check (status in ('running', 'succeeded', 'failed', 'cancelled', 'abandoned')),
  -- a child may register before its parent does; the key links them once the parent appears
  parent_run_key text check (parent_run_key ~ '^[A-Za-z0-9._:@-]{1,128}$'),
  parent_run_id uuid,
  run_series_key text check (run_series_key ~ '^[A-Za-z0-9._:@-]{1,128}$'),
  label text check (char_length(label) <= 200),
  goal text check (char_length(goal) <= 2000),
  agent_role text check (char_length(agent_role) <= 100),
  repository_id uuid,
  head_sha text check (head_sha ~ '^[0-9a-f]{4,64}$'),
  branch text check (char_length(branch) between 1 and 250),
  dirty boolean,
  counts jsonb not null default '{}' check (jsonb_typeof(counts) = 'object'),
  -- {model: {tokens_in, tokens_out, cost_usd}}: the latest running totals reported per model
  usage jsonb not null default '{}' check (jsonb_typeof(usage) = 'object'),
  tokens_in bigint not null default 0 check (tokens_in >= 0),
  tokens_out bigint not null default 0 check (tokens_out >= 0),
  cost_usd numeric(16, 6) not null default 0 check (cost_usd >= 0),
  -- whoami's delta cursor; a series' next tick starts from the previous tick's
  seen_through timestamptz,
  summary text check (char_length(summary) <= 4000),
  end_reason text,
  started_at timestamptz not null default now(),
  last_heartbeat_at timestamptz,
  -- the last heartbeat or write: what the reaper measures silence by
  last_active_at timestamptz not null default now(),
  ended_at timestamptz,
  primary key (tenant_id, id),
  unique (tenant_id, run_key),
  foreign key (tenant_id, actor_id) references public.actors (tenant_id, id) on delete cascade,
  foreign key (tenant_id, parent_run_id) references public.runs (tenant_id, id),
  foreign key (tenant_id, repository_id) references public.repositories (tenant_id, id),
  check (parent_run_id is null or parent_run_id <> id),
  check ((status = 'running') = (ended_at is null))
);

create table public.code_refs (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  object_type text not null check (object_type in ('task', 'decision', 'note', 'project')),
  object_id uuid not null,
  -- set for task refs, so a deleted task takes its refs along and the gate finds them by index
  task_id uuid,
  project_id uuid,
  repository_id uuid,
  ref_type text not null check (ref_type in ('commit', 'branch', 'pr', 'tag', 'compare')),
  sha text check (sha ~ '^[0-9a-f]{4,64}$'),
  branch text check (char_length(branch) between 1 and 250),
  tag text check (char_length(tag) between 1 and 250),
  pr_number integer check (pr_number > 0),
  pr_url text check (pr_url ~ '^https?://' and pr_url !~ '^https?://[^/]*@'),
  pr_state text check (pr_state in ('open', 'draft', 'merged', 'closed')),
  title text check (char_length(title) <= 500),
  url text check (url ~ '^https?://' and url !~ '^https?://[^/]*@'),
  run_id uuid,
  created_by_actor_id uuid not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- one row per thing referenced on an object: adding the same PR again updates it
  ref_key text generated always as (
    coalesce(repository_id::text, '-') || ':' || ref_type || ':' ||
    case ref_type
      when 'commit' then coalesce(sha, '')
      when 'branch' then coalesce(branch, '')
      when 'tag' then coalesce(tag, '')
      when 'pr' then coalesce(pr_number::text, pr_url, '')
      else coalesce(url, sha, '')
    end) stored,
  primary key (tenant_id, id),
  unique (tenant_id, object_type, object_id, ref_key),
  foreign key (tenant_id, task_id) references public.tasks (tenant_id, id) on delete cascade,
  foreign key (tenant_id, project_id) references public.projects (tenant_id, id) on delete cascade,
  foreign key (tenant_id, repository_id) references public.repositories (tenant_id, id),
  foreign key (tenant_id, run_id) references public.runs (tenant_id, id),
  foreign key (tenant_id, created_by_actor_id) references public.actors (tenant_id, id),
  check (object_type <> 'task' or task_id = object_id),
  constraint code_refs_commit_requires_sha check (ref_type <> 'commit' or sha is not null),
  constraint code_refs_branch_requires_branch check (ref_type <> 'branch' or branch is not null),
  constraint code_refs_tag_requires_tag check (ref_type <> 'tag' or tag is not null),
  constraint code_refs_pr_requires_pr_number_or_pr_url check (ref_type <> 'pr' or pr_number is not null or pr_url is not null),
  constraint code_refs_compare_requires_url check (ref_type <> 'compare' or url is not null),
  constraint code_refs_pr_state_only_on_pr check (pr_state is null or ref_type = 'pr')
);

create table public.attachments (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  object_type text not null check (object_type in ('project', 'task', 'decision', 'note', 'comment', 'handoff')),
  object_id uuid not null,
  task_id uuid,
  project_id uuid,
  kind text not null check (kind in ('file', 'link')),
  url text check (url ~ '^https?://' and url !~ '^https?://[^/]*@'),
  storage_path text check (char_length(storage_path) between 1 and 1000),
  title text check (char_length(title) <= 500),
  filename text check (char_length(filename) between 1 and 255),
  mime_type text check (char_length(mime_type) between 1 and 255),
  size_bytes bigint check (size_bytes >= 0),
  created_by_actor_id uuid not null,
  run_id uuid,
  created_at timestamptz not null default now(),
  removed_at timestamptz,
  removed_by_actor_id uuid,
  primary key (tenant_id, id),
  foreign key (tenant_id, task_id) references public.tasks (tenant_id, id) on delete cascade,
  foreign key (tenant_id, project_id) references public.projects (tenant_id, id) on delete cascade,
  foreign key (tenant_id, created_by_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, removed_by_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, run_id) references public.runs (tenant_id, id),
  check (object_type <> 'task' or task_id = object_id),
  -- the same rule the input schema states; the constraint names carry the missing field
  constraint attachments_link_requires_url check (kind <> 'link' or url is not null),
  constraint attachments_file_requires_storage_path check (kind <> 'file' or storage_path is not null),
  check ((removed_at is null) = (removed_by_actor_id is null))
);

create table public.feature_requests (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  title text not null check (char_length(title) between 1 and 200),
  body text not null check (char_length(body) between 1 and 20000),
  kind text not null check (kind in ('bug', 'friction', 'capability', 'docs')),
  severity text not null default 'medium' check (severity in ('low', 'medium', 'high')),
  tool_name text check (char_length(tool_name) between 1 and 100),
  error_code text check (char_length(error_code) between 1 and 100),
  context jsonb not null default '{}',
  fingerprint text not null check (char_length(fingerprint) between 1 and 200),
  status text not null default 'open' check (status in ('open', 'accepted', 'in_progress', 'shipped', 'declined')),
  resolution text check (char_length(resolution) <= 4000),
  filed_by_actor_id uuid not null,
  run_key text,
  -- how often it was filed while live: a retry or a second agent hitting the same wall
  occurrences integer not null default 1 check (occurrences >= 1),
  last_filed_at timestamptz not null default now(),
  status_changed_at timestamptz,
  status_changed_by_actor_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, filed_by_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, status_changed_by_actor_id) references public.actors (tenant_id, id)
);

alter table public.activity add column status text check (char_length(status) between 1 and 50);
-- set by activity_log only: the same milestone retried is one row (unique below)
alter table public.activity add column content_hash text;

alter table public.tasks add column lease_run_key text;

-- ---------------------------------------------------------------------------------------------
-- Indexes
-- ---------------------------------------------------------------------------------------------

create index repositories_slug_idx on public.repositories (tenant_id, lower(owner), lower(name));
create index project_repositories_repo_idx on public.project_repositories (tenant_id, repository_id);
-- the reaper's sweep: live runs by silence
create index runs_active_idx on public.runs (last_active_at) where status = 'running';
create index runs_actor_idx on public.runs (tenant_id, actor_id, started_at desc);
create index runs_parent_idx on public.runs (tenant_id, parent_run_id) where parent_run_id is not null;
create index runs_parent_key_idx on public.runs (tenant_id, parent_run_key) where parent_run_id is null and parent_run_key is not null;
create index runs_series_idx on public.runs (tenant_id, run_series_key, started_at desc) where run_series_key is not null;
create index runs_started_idx on public.runs (tenant_id, started_at desc, id desc);
create index code_refs_object_idx on public.code_refs (tenant_id, object_id, created_at desc);
create index code_refs_task_idx on public.code_refs (tenant_id, task_id) where task_id is not null;
create index code_refs_repo_idx on public.code_refs (tenant_id, repository_id, created_at desc) where repository_id is not null;
create index code_refs_run_idx on public.code_refs (tenant_id, run_id) where run_id is not null;
create index attachments_object_idx on public.attachments (tenant_id, object_id, created_at desc);
create index attachments_task_idx on public.attachments (tenant_id, task_id) where task_id is not null and removed_at is null;
create index attachments_storage_idx on public.attachments (tenant_id, storage_path) where storage_path is not null;
create unique index feature_requests_live_fingerprint_idx on public.feature_requests (tenant_id, fingerprint)
  where status in ('open', 'accepted', 'in_progress');
create index feature_requests_created_idx on public.feature_requests (tenant_id, created_at desc, id desc);
create unique index activity_content_hash_idx on public.activity (tenant_id, content_hash) where content_hash is not null;
create index activity_run_idx on public.activity (tenant_id, run_id, id desc) where run_id is not null;
create index activity_verb_idx on public.activity (tenant_id, verb, id desc);
create index tasks_lease_run_idx on public.tasks (tenant_id, lease_run_key) where lease_run_key is not null;

-- ---------------------------------------------------------------------------------------------
-- Row-level security
-- ---------------------------------------------------------------------------------------------

alter table public.repositories enable row level security;
alter table public.repositories force row level security;
alter table public.project_repositories enable row level security;
alter table public.project_repositories force row level security;
alter table public.runs enable row level security;
alter table public.runs force row level security;
alter table public.code_refs enable row level security;
alter table public.code_refs force row level security;
alter table public.attachments enable row level security;
alter table public.attachments force row level security;
alter table public.feature_requests enable row level security;
alter table public.feature_requests force row level security;

-- ---------------------------------------------------------------------------------------------
-- Policies: the workspace reads all of it; bullpen_writer (the RPCs) writes inside the caller's
-- workspace only. Rules between actors (who ends a run, who removes an attachment, who triages a
-- request) are checked in the RPCs.
-- ---------------------------------------------------------------------------------------------

create policy repositories_select_tenant on public.repositories for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy repositories_writer_all on public.repositories for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

create policy project_repositories_select_tenant on public.project_repositories for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy project_repositories_writer_all on public.project_repositories for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

create policy runs_select_tenant on public.runs for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy runs_writer_all on public.runs for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

create policy code_refs_select_tenant on public.code_refs for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy code_refs_writer_all on public.code_refs for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

create policy attachments_select_tenant on public.attachments for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy attachments_writer_all on public.attachments for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

create policy feature_requests_select_tenant on public.feature_requests for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy feature_requests_writer_all on public.feature_requests for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

-- An activity row's run is the caller's current run, or (activity_log's run_id) another run the
-- caller itself registered, such as a child it forked. Never a run of someone else.
drop policy if exists activity_writer_insert on public.activity;
create policy activity_writer_insert on public.activity for insert to bullpen_writer
  with check (tenant_id = (select bullpen.tenant_id())
              and actor_id is not distinct from (select bullpen.actor_id())
              and (run_id is not distinct from (select bullpen.run_id())
                   or exists (select 1 from public.runs r
                               where r.tenant_id = activity.tenant_id and r.run_key = activity.run_id
                                 and r.actor_id = (select bullpen.actor_id()))));

-- ---------------------------------------------------------------------------------------------
-- Grants
-- ---------------------------------------------------------------------------------------------

revoke all on public.repositories, public.project_repositories, public.runs, public.code_refs,
  public.attachments, public.feature_requests from anon, authenticated;
grant select on public.repositories, public.project_repositories, public.runs, public.code_refs,
  public.attachments, public.feature_requests to authenticated;
grant select, insert, update on public.repositories to bullpen_writer;
grant select, insert, update, delete on public.project_repositories to bullpen_writer;
grant select, insert, update on public.runs to bullpen_writer;
grant select, insert, update on public.code_refs to bullpen_writer;
grant select, insert, update on public.attachments to bullpen_writer;
grant select, insert, update on public.feature_requests to bullpen_writer;
grant all on public.repositories, public.project_repositories, public.runs, public.code_refs,
  public.attachments, public.feature_requests to service_role;

comment on table public.repositories is 'Git repositories, one per normalised remote (host/owner/name); credentials are never stored.';
comment on table public.project_repositories is 'Which repositories a project works in, with a role: primary, dependency or docs.';
comment on table public.runs is 'Bursts of work: one row per run key, registered before its first write; a tree by parent_run_id, series by run_series_key.';
comment on table public.code_refs is 'Commits, branches, PRs, tags and compare views that delivered a task, decision, note or project.';
comment on table public.attachments is 'Files and links on an object; removal is soft (removed_at).';
comment on table public.feature_requests is 'Reports about Bullpen itself, deduplicated by fingerprint while open; owners move the status.';
comment on column public.activity.content_hash is 'activity_log''s dedup key: the same milestone by the same actor in the same run is one row.';
comment on column public.tasks.lease_run_key is 'The run that holds the lease; the reaper releases the leases of abandoned runs.';
