-- Todo work held under a start:false claim (a lease on a task still todo), by project. The ready
-- counts (project_brief, project_query) subtract the held ones, found by `status = 'todo' and
-- lease_expires_at > now()`: with only tasks_project_status_idx that read every todo task of the
-- project and filtered on the lease (1,000 rows for none held at 100,000 tasks in 50 projects,
-- bench/scale.ts). This index holds only leased todo tasks, so the probe reads what is held.
create index tasks_todo_held_idx on public.tasks (tenant_id, project_id, lease_expires_at)
  where status = 'todo' and lease_expires_at is not null;
