-- Jobs: the enqueue an RPC calls in its own transaction (tables in migrations/0007_jobs.sql).
-- Re-applied on every upgrade that changes any definition file: every statement here must be
-- safe to run again (create or replace).

-- Enqueues a job in the caller's transaction: it commits or rolls back with the write that needs
-- it. The workspace comes from the claims (null without claims: the server's own work). With
-- p_key, at most one job per key and workspace is pending: a second enqueue while one waits is a
-- no-op that returns the waiting job's id — the first run_at and payload stand. Handlers read
-- current state when they run, so the waiting job covers the later write too; once a job has
-- started, the same key enqueues afresh (the change may have come after the handler read).
-- Security invoker: from an RPC it runs as bullpen_writer, whose policies confine it to the
-- caller's workspace.
create or replace function bullpen.job_enqueue(
  p_kind text,
  p_payload jsonb default '{}',
  p_run_at timestamptz default now(),
  p_key text default null,
  p_max_attempts int default 8
) returns bigint
language plpgsql
set search_path = ''
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  v_id bigint;
begin
  insert into bullpen.jobs (tenant_id, kind, payload, run_at, key, max_attempts)
  values (v_tenant, p_kind, coalesce(p_payload, '{}'), coalesce(p_run_at, now()), p_key, coalesce(p_max_attempts, 8))
  on conflict (tenant_id, key) where status = 'pending' and key is not null do nothing
  returning id into v_id;
  if v_id is null then
    select j.id into v_id from bullpen.jobs j
     where j.tenant_id is not distinct from v_tenant and j.key = p_key and j.status = 'pending';
  end if;
  return v_id;
end
$$;

revoke all on function bullpen.job_enqueue(text, jsonb, timestamptz, text, int) from public, anon, authenticated;
grant execute on function bullpen.job_enqueue(text, jsonb, timestamptz, text, int) to bullpen_writer, service_role;
