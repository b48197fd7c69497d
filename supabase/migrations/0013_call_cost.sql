-- Per-call cost: indexes that let the hot reads stop after the rows they return.

-- whoami's open tasks: mine, not finished, in progress first, then by priority and number. The
-- expression is the one whoami sorts by, so the first 25 come off the index instead of a sort of
-- every open task assigned to the caller. It serves every lookup the index it replaces served.
create index tasks_assignee_open_idx on public.tasks
  (tenant_id, assignee_actor_id, (case status when 'in_progress' then 0 when 'in_review' then 1 else 2 end), priority, seq)
  where status not in ('done', 'cancelled', 'failed');
drop index public.tasks_assignee_idx;

-- project_brief's top open tasks: by priority, then number, within one project.
create index tasks_project_open_idx on public.tasks (tenant_id, project_id, priority, seq)
  where status not in ('done', 'cancelled', 'failed');
