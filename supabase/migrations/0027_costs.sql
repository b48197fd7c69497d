-- Costs and budgets: a usage ledger that adds up, and budgets that stop work before it overspends.
--
-- - usage_events: the ledger. run_heartbeat and run_end report a run's running totals per model;
--   each report writes one row per model holding the increment since the run's previous report
--   (so a retried heartbeat adds nothing), priced as reported, from the price table, or unknown.
--   The increment lands on the run, its actor, a task (named, or the one task the run holds) and
--   that task's project. workflow_id is left for workflows to fill; cost_summary groups by it.
-- - budgets: a spending limit per workspace, project, agent or workflow and period, with the
--   fraction at which owners and the agent are warned (once per period).
-- - budget_reservations: what a claim declared it will spend (task_claim estimated_cost_usd). A
--   reservation is live while its task's lease by the same actor is live and it is not released
--   (run_end releases the run's); spent plus live reservations never passes a limit.
--
-- Function bodies are in supabase/definitions/0027_costs.sql.

-- ---------------------------------------------------------------------------------------------
-- Tables
-- ---------------------------------------------------------------------------------------------

create table public.usage_events (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  run_id uuid,
  actor_id uuid not null,
  task_id uuid,
  project_id uuid,
  -- set by workflows (the task's workflow); null for work outside a workflow
  workflow_id uuid,
  model text not null check (char_length(model) between 1 and 100),
  provider text check (char_length(provider) between 1 and 100),
  tokens_in bigint not null default 0 check (tokens_in >= 0),
  tokens_out bigint not null default 0 check (tokens_out >= 0),
  tokens_cache_read bigint not null default 0 check (tokens_cache_read >= 0),
  tokens_cache_write bigint not null default 0 check (tokens_cache_write >= 0),
  cost_usd numeric(16, 6) not null default 0 check (cost_usd >= 0),
  -- reported: the caller's cost; table: priced from the model price table; unknown: no price known
  priced text not null check (priced in ('reported', 'table', 'unknown')),
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, run_id) references public.runs (tenant_id, id) on delete set null (run_id),
  foreign key (tenant_id, actor_id) references public.actors (tenant_id, id) on delete cascade,
  foreign key (tenant_id, task_id) references public.tasks (tenant_id, id) on delete set null (task_id),
  foreign key (tenant_id, project_id) references public.projects (tenant_id, id) on delete set null (project_id)
);

create table public.budgets (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  scope text not null check (scope in ('workspace', 'project', 'agent', 'workflow')),
  -- the project, actor or workflow; null for the workspace
  scope_id uuid,
  period text not null check (period in ('day', 'week', 'month', 'total')),
  limit_usd numeric(16, 6) not null check (limit_usd >= 0),
  warn_at numeric(4, 3) not null default 0.8 check (warn_at > 0 and warn_at <= 1),
  -- the start of the period whose warning was sent: one warning per period
  warned_period_start timestamptz,
  created_by_actor_id uuid not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, created_by_actor_id) references public.actors (tenant_id, id),
  check ((scope = 'workspace') = (scope_id is null))
);

create table public.budget_reservations (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  task_id uuid not null,
  actor_id uuid not null,
  project_id uuid not null,
  run_key text,
  amount_usd numeric(16, 6) not null check (amount_usd > 0),
  created_at timestamptz not null default now(),
  released_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, task_id) references public.tasks (tenant_id, id) on delete cascade,
  foreign key (tenant_id, actor_id) references public.actors (tenant_id, id) on delete cascade,
  foreign key (tenant_id, project_id) references public.projects (tenant_id, id) on delete cascade
);

-- ---------------------------------------------------------------------------------------------
-- Indexes
-- ---------------------------------------------------------------------------------------------

create index usage_events_time_idx on public.usage_events (tenant_id, created_at);
create index usage_events_project_idx on public.usage_events (tenant_id, project_id, created_at);
create index usage_events_actor_idx on public.usage_events (tenant_id, actor_id, created_at);
-- what a run reported before, per model: the base of the next report's increment
create index usage_events_run_idx on public.usage_events (tenant_id, run_id, model);
create index usage_events_task_idx on public.usage_events (tenant_id, task_id) where task_id is not null;
create index usage_events_workflow_idx on public.usage_events (tenant_id, workflow_id, created_at) where workflow_id is not null;
create unique index budgets_scope_period_idx on public.budgets (tenant_id, scope, coalesce(scope_id, '00000000-0000-0000-0000-000000000000'::uuid), period);
create index budget_reservations_live_idx on public.budget_reservations (tenant_id, task_id) where released_at is null;

-- ---------------------------------------------------------------------------------------------
-- Row-level security: the workspace reads its own; only the RPCs write.
-- ---------------------------------------------------------------------------------------------

alter table public.usage_events enable row level security;
alter table public.usage_events force row level security;
alter table public.budgets enable row level security;
alter table public.budgets force row level security;
alter table public.budget_reservations enable row level security;
alter table public.budget_reservations force row level security;

create policy usage_events_select_tenant on public.usage_events for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy budgets_select_tenant on public.budgets for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy budget_reservations_select_tenant on public.budget_reservations for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));

create policy usage_events_writer_all on public.usage_events for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy budgets_writer_all on public.budgets for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy budget_reservations_writer_all on public.budget_reservations for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

-- ---------------------------------------------------------------------------------------------
-- Grants: the API roles read under RLS; only the RPCs write.
-- ---------------------------------------------------------------------------------------------

revoke all on public.usage_events, public.budgets, public.budget_reservations from public, anon, authenticated;
grant select on public.usage_events, public.budgets, public.budget_reservations to authenticated;
grant select, insert on public.usage_events to bullpen_writer;
grant select, insert, update on public.budgets, public.budget_reservations to bullpen_writer;

comment on table public.usage_events is 'The usage ledger: one row per model per usage report, the increment since the run''s previous report, priced.';
comment on table public.budgets is 'Spending limits per workspace, project, agent or workflow and period.';
comment on table public.budget_reservations is 'Costs declared by claims (task_claim estimated_cost_usd), live while their lease is.';
