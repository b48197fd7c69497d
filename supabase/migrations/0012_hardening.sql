-- Hardening: keys narrowed by scope and expiry (and rotated with a grace period), sign-in links
-- that a newer link revokes, console sessions the server can revoke, and the store the shared rate
-- limits count in.

-- ---------------------------------------------------------------------------------------------
-- API keys: scopes, expiry, rotation
-- ---------------------------------------------------------------------------------------------

-- null scopes: every room, reads and writes (every key minted before this release)
alter table public.api_keys add column scopes text[];
alter table public.api_keys add column expires_at timestamptz;
-- the key that took this one's place in a rotation (this one then expires after the grace period)
alter table public.api_keys add column replaced_by uuid;
alter table public.api_keys add constraint api_keys_scopes_shape
  check (scopes is null or (cardinality(scopes) between 1 and 32
         and array_to_string(scopes, ',') ~ '^[a-z][a-z_]{0,30}(:(read|write))?(,[a-z][a-z_]{0,30}(:(read|write))?)*$'));
alter table public.api_keys add constraint api_keys_replaced_by_fk
  foreign key (tenant_id, replaced_by) references public.api_keys (tenant_id, id) on delete set null (replaced_by);

-- ---------------------------------------------------------------------------------------------
-- Sign-in links: a newer link for the same person revokes the older ones
-- ---------------------------------------------------------------------------------------------

alter table bullpen.signin_tokens add column revoked_at timestamptz;

-- ---------------------------------------------------------------------------------------------
-- Console sessions. The cookie is a signed JWT naming one row here; signing out (or out
-- everywhere) revokes rows, and every request and open live stream checks its row.
-- ---------------------------------------------------------------------------------------------

create table bullpen.sessions (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  actor_id uuid not null,
  user_agent text check (char_length(user_agent) <= 300),
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, actor_id) references public.actors (tenant_id, id) on delete cascade,
  check (expires_at > created_at)
);

-- ---------------------------------------------------------------------------------------------
-- Rate limits: rate-limiter-flexible's Postgres store (its own column layout), so every instance
-- on one database counts against the same buckets. Keys name a key id or a workspace id; no API
-- role ever sees them.
-- ---------------------------------------------------------------------------------------------

create table bullpen.rate_limits (
  key varchar(255) primary key,
  points integer not null default 0,
  expire bigint
);

-- ---------------------------------------------------------------------------------------------
-- Indexes
-- ---------------------------------------------------------------------------------------------

create index sessions_actor_idx on bullpen.sessions (tenant_id, actor_id) where revoked_at is null;
create index sessions_expiry_idx on bullpen.sessions (expires_at);
create index rate_limits_expire_idx on bullpen.rate_limits (expire);
create index api_keys_expiry_idx on public.api_keys (expires_at) where expires_at is not null;

-- ---------------------------------------------------------------------------------------------
-- Row-level security
-- ---------------------------------------------------------------------------------------------

alter table bullpen.sessions enable row level security;
alter table bullpen.sessions force row level security;
alter table bullpen.rate_limits enable row level security;
alter table bullpen.rate_limits force row level security;

-- a person sees their own sessions (to sign them out), nobody else's
create policy sessions_select_own on bullpen.sessions for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()) and actor_id = (select bullpen.actor_id()));

-- ---------------------------------------------------------------------------------------------
-- Grants: sessions and rate limits are written by the server alone.
-- ---------------------------------------------------------------------------------------------

revoke all on bullpen.sessions, bullpen.rate_limits from anon, authenticated;
grant select (tenant_id, id, actor_id, user_agent, created_at, last_seen_at, expires_at, revoked_at) on bullpen.sessions to authenticated;
grant all on bullpen.sessions, bullpen.rate_limits to service_role;
-- the key columns the console may read now include the new ones (hashes stay unreadable)
grant select (scopes, expires_at, replaced_by) on public.api_keys to authenticated;
grant select (revoked_at) on bullpen.signin_tokens to authenticated;

comment on column public.api_keys.scopes is 'Rooms the key may call (room, room:read, room:write, or read for every room read-only); null: everything.';
comment on column public.api_keys.expires_at is 'After this the key authenticates nothing; a rotation sets it to the end of the grace period.';
comment on table bullpen.sessions is 'Console sessions: the cookie names a row; revoked or expired rows end the session on every instance.';
comment on table bullpen.rate_limits is 'rate-limiter-flexible buckets per key and per workspace, shared by every instance on this database.';
