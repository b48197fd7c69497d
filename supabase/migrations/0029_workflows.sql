-- Workflows (issue 18, item 3): a reusable template of steps, each a task template with its
-- dependencies on other steps, required capabilities, acceptance criteria and an optional
-- estimated cost. workflow_start turns the steps into tasks of one instance (task_dependencies
-- carry the step graph); an instance is paused, resumed or cancelled as a whole, and its status
-- (running, paused, done, failed, cancelled) is derived from its tasks.
-- A definition may carry a trigger: an activity verb (an event is a row of the activity ledger,
-- its event_type the verb) or a 5-field cron schedule run by the job runner.
-- Function bodies live in supabase/definitions/0029_workflows.sql.

-- ---------------------------------------------------------------------------------------------
-- Tables
-- ---------------------------------------------------------------------------------------------

create table public.workflows (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  name text not null check (char_length(name) between 1 and 200),
  description text not null default '' check (char_length(description) <= 4000),
  -- {inputs: [{name, description?, default?}], steps: [{key, title, body?, depends_on?, …}], trigger?}
  -- validated by bullpen.workflow_validate before it is stored
  definition jsonb not null check (jsonb_typeof(definition) = 'object' and octet_length(definition::text) <= 262144),
  tags text[] not null default '{}' check (cardinality(tags) <= 32),
  -- the trigger, copied out of the definition so the activity trigger and the scheduler find it by index
  trigger_on text check (trigger_on in ('event', 'schedule')),
  trigger_event text check (char_length(trigger_event) between 1 and 100),
  trigger_cron text check (char_length(trigger_cron) between 1 and 200),
  created_by_actor_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  unique (tenant_id, name),
  foreign key (tenant_id, created_by_actor_id) references public.actors (tenant_id, id),
  check ((trigger_on = 'event') = (trigger_event is not null)),
  check ((trigger_on = 'schedule') = (trigger_cron is not null))
);

create table public.workflow_instances (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  workflow_id uuid not null,
  project_id uuid not null,
  inputs jsonb not null default '{}' check (jsonb_typeof(inputs) = 'object'),
  -- what people asked of the instance; done and failed are derived from its tasks
  control text not null default 'running' check (control in ('running', 'paused', 'cancelled')),
  started_by text not null default 'manual' check (started_by in ('manual', 'event', 'schedule')),
  -- the activity row (event) or the cron slot (schedule) that started it
  trigger_activity_id bigint,
  scheduled_for timestamptz,
  started_by_actor_id uuid,
  estimated_cost_usd numeric(16, 6) not null default 0 check (estimated_cost_usd >= 0),
  created_at timestamptz not null default now(),
  control_changed_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, workflow_id) references public.workflows (tenant_id, id) on delete cascade,
  foreign key (tenant_id, project_id) references public.projects (tenant_id, id) on delete cascade,
  foreign key (tenant_id, started_by_actor_id) references public.actors (tenant_id, id),
  check ((started_by = 'schedule') = (scheduled_for is not null))
);

-- The task an instance's step became. The column (not the task's meta, which task_update merges)
-- is what the claim reads, so a paused instance's tasks stay unclaimable whatever its meta says.
alter table public.tasks
  add column workflow_instance_id uuid,
  add column workflow_step text,
  add constraint tasks_workflow_instance_fk foreign key (tenant_id, workflow_instance_id)
    references public.workflow_instances (tenant_id, id) on delete set null (workflow_instance_id),
  add constraint tasks_workflow_step_check
    check (workflow_step is null or char_length(workflow_step) between 1 and 64);

-- ---------------------------------------------------------------------------------------------
-- Indexes
-- ---------------------------------------------------------------------------------------------

create index workflows_listing_idx on public.workflows (tenant_id, created_at desc, id desc);
-- the activity trigger's probe: does any workflow of this workspace start on this verb?
create index workflows_event_idx on public.workflows (tenant_id, trigger_event) where trigger_on = 'event';
create index workflows_schedule_idx on public.workflows (trigger_on) where trigger_on = 'schedule';
create index workflow_instances_listing_idx on public.workflow_instances (tenant_id, created_at desc, id desc);
create index workflow_instances_workflow_idx on public.workflow_instances (tenant_id, workflow_id, created_at desc);
-- the claim reads the paused instances of a workspace once per call
create index workflow_instances_paused_idx on public.workflow_instances (tenant_id) where control = 'paused';
-- one scheduled instance per workflow and cron slot, however many servers run the scheduler
create unique index workflow_instances_slot_idx on public.workflow_instances (tenant_id, workflow_id, scheduled_for)
  where scheduled_for is not null;
create index tasks_workflow_instance_idx on public.tasks (tenant_id, workflow_instance_id) where workflow_instance_id is not null;

-- ---------------------------------------------------------------------------------------------
-- Row-level security
-- ---------------------------------------------------------------------------------------------

alter table public.workflows enable row level security;
alter table public.workflows force row level security;
alter table public.workflow_instances enable row level security;
alter table public.workflow_instances force row level security;

create policy workflows_select_tenant on public.workflows for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy workflow_instances_select_tenant on public.workflow_instances for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));

create policy workflows_writer_all on public.workflows for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy workflow_instances_writer_all on public.workflow_instances for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

-- ---------------------------------------------------------------------------------------------
-- Grants: the API roles read under RLS; only the RPCs (and the scheduler) write.
-- ---------------------------------------------------------------------------------------------

revoke all on public.workflows, public.workflow_instances from public, anon, authenticated;
grant select on public.workflows, public.workflow_instances to authenticated;
grant select, insert on public.workflows to bullpen_writer;
grant select, insert, update on public.workflow_instances to bullpen_writer;
grant all on public.workflows, public.workflow_instances to service_role;

comment on table public.workflows is 'A reusable template of steps (task templates with dependencies), with an optional event or schedule trigger.';
comment on table public.workflow_instances is 'One run of a workflow: its steps became tasks of a project; paused, resumed or cancelled as a whole.';
comment on column public.tasks.workflow_instance_id is 'The workflow instance this task is a step of (a paused instance''s tasks are not claimable).';
