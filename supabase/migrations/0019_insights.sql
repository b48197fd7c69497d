-- Insights: a project's throughput, cycle time, work in progress, blocked chain and review
-- turnaround, read from the ledger's own rows by one read-only RPC (project_insights, in
-- supabase/definitions/0019_insights.sql). No new table: what the charts show is what the tasks,
-- their dependencies, the review handoffs and the activity log already hold.

-- Finished work by when it finished: throughput and cycle time read a window of completions
-- instead of every task the project ever had, and work in progress reads the started ones.
create index tasks_project_completed_idx on public.tasks (tenant_id, project_id, completed_at)
  where completed_at is not null;
create index tasks_project_started_idx on public.tasks (tenant_id, project_id, started_at)
  where started_at is not null;
