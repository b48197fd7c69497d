-- Two probes of the ready pool that read more than they find at scale (bench/scale.ts: 100,000
-- tasks in 50 projects; plans before and after in bench/results/scale-plans/).
--
-- Todo work held under a start:false claim (a lease on a task still todo), by project. The ready
-- counts (project_brief, project_query) subtract the held ones, found by `status = 'todo' and
-- lease_expires_at > now()`: with only tasks_project_status_idx that read every todo task of the
-- project and filtered on the lease (1,000 rows for none held). This index holds only leased todo
-- tasks, so the probe reads what is held.
create index tasks_todo_held_idx on public.tasks (tenant_id, project_id, lease_expires_at)
  where status = 'todo' and lease_expires_at is not null;

-- Work in progress with no lease at all, which the ready pool offers again (task_query state
-- ready, project_brief's ready count). The planner assumed the live claims mostly lack a lease (the
-- table's todo rows have none) and read every live claim of the workspace through
-- tasks_lease_actor_idx, filtering each: 17,658 rows and 110 ms for none found, growing with the
-- claims. This index holds only the unleased ones, normally none.
create index tasks_unleased_idx on public.tasks (tenant_id, project_id)
  where status = 'in_progress' and lease_expires_at is null;
