-- Events and webhooks. An event is a row of the activity ledger and its type is the row's verb:
-- agents publish their own (event_publish, outside the reserved verb families) beside the server's
-- task.*, handoff.* and decision.* rows. Function bodies in definitions/0028_events.sql.

-- ---------------------------------------------------------------------------------------------
-- The event order. Activity ids are handed out before commit, so a row can commit after a larger
-- one; a cursor over ids would skip it. Each row records its writing transaction instead, and
-- event_poll reads only rows of transactions older than every transaction still running (the
-- snapshot's xmin), in (xid, id) order: a row that appears later always sorts after every cursor
-- handed out before it. Rows written before this migration have no xid and are history, not events.
-- (Added without a default first: a volatile default would rewrite the table.)
-- ---------------------------------------------------------------------------------------------

alter table public.activity add column xid xid8;
alter table public.activity alter column xid set default pg_current_xact_id();
create index activity_event_order_idx on public.activity (tenant_id, xid, id) where xid is not null;

-- ---------------------------------------------------------------------------------------------
-- Tables
-- ---------------------------------------------------------------------------------------------

create table public.webhooks (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  url text not null check (char_length(url) between 10 and 2000 and url ~ '^https?://'),
  -- event types: exact ("task.done") or a family ("task.*"), or "*"
  events text[] not null check (cardinality(events) between 1 and 50),
  -- only events about this actor: handoffs addressed to it, tasks assigned to it
  recipient_actor_id uuid,
  -- HMAC key: the server must sign with it, so it is kept (a hash could not sign), in a column no
  -- API role may read (column grants below); shown once, at creation
  secret text not null check (char_length(secret) between 32 and 200),
  created_by_actor_id uuid not null,
  status text not null default 'active' check (status in ('active', 'disabled')),
  disabled_reason text,
  disabled_at timestamptz,
  -- the first failure since the last success; a day of failures disables the webhook
  failing_since timestamptz,
  last_success_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (tenant_id, id),
  foreign key (tenant_id, created_by_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, recipient_actor_id) references public.actors (tenant_id, id)
);

create table public.webhook_deliveries (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id bigint generated always as identity,
  webhook_id uuid not null,
  activity_id bigint not null,
  event_type text not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed', 'dropped')),
  attempts int not null default 0 check (attempts >= 0),
  response_status int,
  last_error text check (char_length(last_error) <= 1000),
  created_at timestamptz not null default now(),
  last_attempt_at timestamptz,
  delivered_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, webhook_id) references public.webhooks (tenant_id, id) on delete cascade
);

-- ---------------------------------------------------------------------------------------------
-- Indexes
-- ---------------------------------------------------------------------------------------------

create index webhooks_active_idx on public.webhooks (tenant_id) where status = 'active';
create index webhook_deliveries_listing_idx on public.webhook_deliveries (tenant_id, webhook_id, id desc);

-- ---------------------------------------------------------------------------------------------
-- Row-level security: the workspace's owners read webhooks and their deliveries
-- ---------------------------------------------------------------------------------------------

alter table public.webhooks enable row level security;
alter table public.webhooks force row level security;
alter table public.webhook_deliveries enable row level security;
alter table public.webhook_deliveries force row level security;

create policy webhooks_select_owner on public.webhooks for select to authenticated
  using (tenant_id = (select bullpen.tenant_id())
         and exists (select 1 from public.actors a where a.tenant_id = webhooks.tenant_id and a.id = (select bullpen.actor_id()) and a.is_owner));
create policy webhook_deliveries_select_owner on public.webhook_deliveries for select to authenticated
  using (tenant_id = (select bullpen.tenant_id())
         and exists (select 1 from public.actors a where a.tenant_id = webhook_deliveries.tenant_id and a.id = (select bullpen.actor_id()) and a.is_owner));

create policy webhooks_writer_all on public.webhooks for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy webhook_deliveries_writer_all on public.webhook_deliveries for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));

-- ---------------------------------------------------------------------------------------------
-- Grants: the API roles read (never the secret); only the RPCs and the delivery job write.
-- ---------------------------------------------------------------------------------------------

revoke all on public.webhooks, public.webhook_deliveries from public, anon, authenticated;
grant select (tenant_id, id, url, events, recipient_actor_id, created_by_actor_id, status, disabled_reason, disabled_at,
              failing_since, last_success_at, created_at) on public.webhooks to authenticated;
grant select on public.webhook_deliveries to authenticated;
grant select, insert, update, delete on public.webhooks, public.webhook_deliveries to bullpen_writer;
grant all on public.webhooks, public.webhook_deliveries to service_role;

comment on column public.activity.xid is 'The writing transaction: event_poll''s order (see migrations/0028_events.sql).';
comment on table public.webhooks is 'URLs an owner registered to receive events, signed with a per-webhook secret.';
comment on table public.webhook_deliveries is 'One event sent (or being sent) to one webhook: attempts, last status and error.';
