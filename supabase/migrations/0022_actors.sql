-- Routing work (issue 20, items 7, 8, 9, 12): what an actor can take on and whether it may take
-- anything now, what a task needs of its taker, and handoffs addressed by capability.
--
-- actors.capabilities already exists (0001). An actor's load limit, its status and its model
-- arrive here; tasks gain the capabilities a taker must have; handoffs gain a priority, tags and
-- the capabilities they were addressed to (recipients are fixed at creation in handoff_recipients).

alter table public.actors
  add column max_concurrent_tasks int check (max_concurrent_tasks between 1 and 1000),
  add column status text not null default 'active' check (status in ('active', 'paused', 'deactivated')),
  add column status_changed_at timestamptz,
  add column default_model text check (char_length(default_model) between 1 and 200),
  add column model_provider text check (char_length(model_provider) between 1 and 100),
  -- a person is never paused or deactivated here (people are managed as people)
  add constraint actors_status_kind check (status = 'active' or kind <> 'human');

alter table public.tasks
  add column requires_capabilities text[] not null default '{}'
    check (cardinality(requires_capabilities) <= 20);

-- An actor's live leases, counted by every claim of an actor with a load limit.
create index tasks_lease_actor_idx on public.tasks (tenant_id, lease_actor_id) where status = 'in_progress';
-- actor_query's capability filter and handoff_create's to_capabilities.
create index actors_capabilities_idx on public.actors using gin (capabilities);

alter table public.handoffs
  add column priority text not null default 'normal' check (priority in ('urgent', 'high', 'normal', 'low')),
  add column tags text[] not null default '{}' check (cardinality(tags) <= 32),
  add column to_capabilities text[] not null default '{}' check (cardinality(to_capabilities) <= 20);

create index handoffs_tags_idx on public.handoffs using gin (tags);

-- A recipient deactivated while the handoff waited for it: the sender sees it on the handoff.
alter table public.handoff_recipients
  add column deactivated_at timestamptz;
grant update (deactivated_at) on public.handoff_recipients to bullpen_writer;
