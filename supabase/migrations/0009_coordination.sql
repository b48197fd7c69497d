-- Coordination: handoffs between actors (handoff, question, review, collab, approval), who they
-- are addressed to, what each reader has acknowledged in its inbox, and notifications.
--
-- Handoffs are readable by the whole workspace (the console's "all" view); only their recipients
-- claim and answer them, which the RPCs enforce. Notifications and inbox acknowledgements belong to
-- one actor: their policies carry a per-actor predicate, so another actor of the same workspace
-- reads none of them, through the RPCs or through the API roles.
-- Functions, triggers and the review gate live in supabase/definitions/0009_coordination.sql.

create table public.handoffs (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  kind text not null check (kind in ('handoff', 'question', 'review', 'collab', 'approval')),
  title text not null check (char_length(title) between 1 and 500),
  body text not null default '' check (char_length(body) <= 100000),
  options text[] not null default '{}' check (cardinality(options) <= 20),
  allow_free_text boolean not null default true,
  due_at timestamptz,
  related_task_id uuid,
  related_project_id uuid,
  from_actor_id uuid not null,
  status text not null default 'open' check (status in ('open', 'claimed', 'responded', 'resolved')),
  claimed_by_actor_id uuid,
  claimed_at timestamptz,
  response jsonb check (response is null or jsonb_typeof(response) = 'object'),
  responded_by_actor_id uuid,
  responded_at timestamptz,
  resolution text check (resolution in ('processed', 'cancelled')),
  resolution_note text check (char_length(resolution_note) <= 20000),
  resolved_by_actor_id uuid,
  resolved_at timestamptz,
  fingerprint text not null check (char_length(fingerprint) between 1 and 200),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, from_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, claimed_by_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, responded_by_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, resolved_by_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, related_task_id) references public.tasks (tenant_id, id) on delete set null (related_task_id),
  foreign key (tenant_id, related_project_id) references public.projects (tenant_id, id) on delete set null (related_project_id),
  check ((status = 'resolved') = (resolution is not null)),
  check ((claimed_by_actor_id is null) = (claimed_at is null)),
  check (status in ('open', 'resolved') or claimed_by_actor_id is not null),
  check ((responded_at is null) = (response is null))
);

create table public.handoff_recipients (
  tenant_id uuid not null,
  handoff_id uuid not null,
  actor_id uuid not null,
  primary key (tenant_id, handoff_id, actor_id),
  foreign key (tenant_id, handoff_id) references public.handoffs (tenant_id, id) on delete cascade,
  foreign key (tenant_id, actor_id) references public.actors (tenant_id, id)
);

-- One row per (reader, handoff, item) the reader has acted on: 'handoff' for one addressed to it,
-- 'response' for the answer to one it sent. Notifications are acknowledged by being read.
create table public.handoff_acks (
  tenant_id uuid not null,
  actor_id uuid not null,
  handoff_id uuid not null,
  item text not null check (item in ('handoff', 'response')),
  acked_at timestamptz not null default now(),
  primary key (tenant_id, actor_id, handoff_id, item),
  foreign key (tenant_id, actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, handoff_id) references public.handoffs (tenant_id, id) on delete cascade
);

create table public.notifications (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  recipient_actor_id uuid not null,
  kind text not null check (kind ~ '^[a-z][a-z_]*\.[a-z][a-z_]*$'),
  title text not null check (char_length(title) between 1 and 1000),
  body text not null default '' check (char_length(body) <= 2000),
  actor_id uuid,
  project_id uuid,
  task_id uuid,
  handoff_id uuid,
  comment_id uuid,
  created_at timestamptz not null default clock_timestamp(),
  read_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, recipient_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, project_id) references public.projects (tenant_id, id) on delete cascade,
  foreign key (tenant_id, task_id) references public.tasks (tenant_id, id) on delete cascade,
  foreign key (tenant_id, handoff_id) references public.handoffs (tenant_id, id) on delete cascade,
  foreign key (tenant_id, comment_id) references public.comments (tenant_id, id) on delete cascade
);

-- ---------------------------------------------------------------------------------------------
-- Indexes
-- ---------------------------------------------------------------------------------------------

-- A live handoff's fingerprint is unique in its workspace: creating a duplicate finds this row.
-- Resolved handoffs leave the index, so a resolved request no longer dedups.
create unique index handoffs_live_fingerprint_idx on public.handoffs (tenant_id, fingerprint) where status <> 'resolved';
create index handoffs_created_idx on public.handoffs (tenant_id, created_at desc, id desc);
create index handoffs_from_idx on public.handoffs (tenant_id, from_actor_id, created_at desc);
-- answers waiting for their sender (inbox "response" items)
create index handoffs_answered_idx on public.handoffs (tenant_id, from_actor_id, responded_at) where responded_at is not null;
create index handoffs_task_idx on public.handoffs (tenant_id, related_task_id, created_at desc) where related_task_id is not null;
create index handoffs_project_idx on public.handoffs (tenant_id, related_project_id, created_at desc)
  where related_project_id is not null and status <> 'resolved';
create index handoff_recipients_actor_idx on public.handoff_recipients (tenant_id, actor_id, handoff_id);
create index notifications_recipient_idx on public.notifications (tenant_id, recipient_actor_id, created_at desc, id desc);
create index notifications_unread_idx on public.notifications (tenant_id, recipient_actor_id, created_at)
  where read_at is null;
create index notifications_handoff_idx on public.notifications (tenant_id, handoff_id) where handoff_id is not null;

-- ---------------------------------------------------------------------------------------------
-- Row-level security
-- ---------------------------------------------------------------------------------------------

alter table public.handoffs enable row level security;
alter table public.handoffs force row level security;
alter table public.handoff_recipients enable row level security;
alter table public.handoff_recipients force row level security;
alter table public.handoff_acks enable row level security;
alter table public.handoff_acks force row level security;
alter table public.notifications enable row level security;
alter table public.notifications force row level security;

-- ---------------------------------------------------------------------------------------------
-- Policies. The API role reads; bullpen_writer (the RPCs) writes, inside the caller's workspace.
-- ---------------------------------------------------------------------------------------------

create policy handoffs_select_tenant on public.handoffs for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy handoffs_writer_all on public.handoffs for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

create policy handoff_recipients_select_tenant on public.handoff_recipients for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy handoff_recipients_writer_all on public.handoff_recipients for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

-- an actor's acknowledgements are its own
create policy handoff_acks_select_own on public.handoff_acks for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()) and actor_id = (select bullpen.actor_id()));
create policy handoff_acks_writer_own on public.handoff_acks for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()) and actor_id = (select bullpen.actor_id()))
  with check (tenant_id = (select bullpen.tenant_id()) and actor_id = (select bullpen.actor_id()));

-- Notifications are private to their recipient. Any write of the workspace may notify someone
-- (insert), but only the recipient reads or marks its notifications, even inside the RPCs.
create policy notifications_select_own on public.notifications for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()) and recipient_actor_id = (select bullpen.actor_id()));
create policy notifications_writer_insert on public.notifications for insert to bullpen_writer
  with check (tenant_id = (select bullpen.tenant_id()) and actor_id is not distinct from (select bullpen.actor_id()));
create policy notifications_writer_select_own on public.notifications for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()) and recipient_actor_id = (select bullpen.actor_id()));
create policy notifications_writer_update_own on public.notifications for update to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()) and recipient_actor_id = (select bullpen.actor_id()))
  with check (tenant_id = (select bullpen.tenant_id()) and recipient_actor_id = (select bullpen.actor_id()));

-- ---------------------------------------------------------------------------------------------
-- Grants
-- ---------------------------------------------------------------------------------------------

revoke all on public.handoffs, public.handoff_recipients, public.handoff_acks, public.notifications from anon, authenticated;
grant select on public.handoffs, public.handoff_recipients, public.handoff_acks, public.notifications to authenticated;
grant select, insert, update on public.handoffs to bullpen_writer;
grant select, insert on public.handoff_recipients to bullpen_writer;
grant select, insert on public.handoff_acks to bullpen_writer;
grant select, insert, update on public.notifications to bullpen_writer;
grant all on public.handoffs, public.handoff_recipients, public.handoff_acks, public.notifications to service_role;

comment on table public.handoffs is 'Typed work requests between actors: open → claimed → responded → resolved.';
comment on column public.handoffs.fingerprint is 'Given, or derived from sender, recipients, kind, title and related object; unique while live.';
comment on table public.handoff_acks is 'What each actor has acknowledged in its inbox (ack after act).';
comment on table public.notifications is 'Per-recipient notices; readable by the recipient alone.';
