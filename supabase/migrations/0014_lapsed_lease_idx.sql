-- Lapsed leases, found by their bound under row security. tasks_lease_idx indexed
-- coalesce(lease_expires_at, '-infinity'): the planner does not treat a coalesce as leakproof, so
-- under forced RLS the bound on it ran after the tenant policy, as a filter, and every probe for a
-- lapsed lease (task_claim, task_query's ready pool, project_brief's ready count) read each live
-- claim of the workspace. A plain column bound is an index condition.
create index tasks_lapsed_idx on public.tasks (tenant_id, lease_expires_at) where status = 'in_progress';
drop index public.tasks_lease_idx;
