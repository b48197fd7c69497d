-- Jobs: work that happens after the writing transaction commits (embedding a note, delivering a
-- notification, purging expired rows). A write enqueues its job in its own transaction, so the
-- job exists exactly when the write does; workers in every app process claim due jobs with
-- FOR UPDATE SKIP LOCKED under a lease, retry failures with backoff and keep the ones that ran
-- out of attempts as 'failed'. Finished jobs are deleted.
--
-- The table lives in the private bullpen schema: the API roles neither read nor write it. RPCs
-- (running as bullpen_writer) enqueue through bullpen.job_enqueue() inside their own workspace; the
-- server's own connection claims and finishes jobs. Functions are in supabase/definitions/.

create table bullpen.jobs (
  -- null for work that belongs to no workspace (the sweeps)
  tenant_id uuid references public.tenants (id) on delete cascade,
  id bigint generated always as identity primary key,
  kind text not null check (kind ~ '^[a-z][a-z0-9_.:-]{0,99}$'),
  payload jsonb not null default '{}' check (jsonb_typeof(payload) = 'object'),
  -- at most one pending job per key and workspace (see bullpen.job_enqueue)
  key text check (char_length(key) between 1 and 200),
  status text not null default 'pending' check (status in ('pending', 'running', 'failed')),
  run_at timestamptz not null default now(),
  attempts int not null default 0 check (attempts >= 0),
  max_attempts int not null default 8 check (max_attempts between 1 and 100),
  -- the lease: who runs it and until when; a lease that ran out is taken over by the next claim
  locked_by text,
  locked_until timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((status = 'running') = (locked_until is not null))
);

-- ---------------------------------------------------------------------------------------------
-- Indexes: the idle poll is one statement over the first two, both partial and small.
-- ---------------------------------------------------------------------------------------------

create index jobs_due_idx on bullpen.jobs (run_at) where status = 'pending';
create index jobs_lease_idx on bullpen.jobs (locked_until) where status = 'running';
create index jobs_failed_idx on bullpen.jobs (updated_at) where status = 'failed';
create index jobs_tenant_idx on bullpen.jobs (tenant_id) where tenant_id is not null;
create unique index jobs_pending_key_idx on bullpen.jobs (tenant_id, key) nulls not distinct
  where status = 'pending' and key is not null;

-- The used-token sweep ends the record of a sign-in in signin_tokens; the activity log keeps it.
create index if not exists activity_signed_in_idx on public.activity (tenant_id, actor_id) where verb = 'actor.signed_in';

-- ---------------------------------------------------------------------------------------------
-- Row-level security
-- ---------------------------------------------------------------------------------------------

alter table bullpen.jobs enable row level security;
alter table bullpen.jobs force row level security;

-- An RPC enqueues into, and sees, its caller's workspace only; never workspace-less work.
create policy jobs_writer_insert on bullpen.jobs for insert to bullpen_writer
  with check (tenant_id = (select bullpen.tenant_id()));
create policy jobs_writer_select on bullpen.jobs for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));

-- ---------------------------------------------------------------------------------------------
-- Grants
-- ---------------------------------------------------------------------------------------------

revoke all on bullpen.jobs from public, anon, authenticated;
grant select, insert on bullpen.jobs to bullpen_writer;
grant all on bullpen.jobs to service_role;

comment on table bullpen.jobs is 'Work outside the writing transaction: enqueued with the write, claimed under a lease, retried with backoff; failed jobs are kept for inspection.';
