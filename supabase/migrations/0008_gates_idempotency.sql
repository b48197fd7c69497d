-- The composed done gate and the idempotency rule that never swallows a deliberate change.
--
-- bullpen.done_gates: the checks in front of done, one row per room (criteria, evidence, review).
-- Each names its check function and the tool that satisfies it; definitions register them.
--
-- idempotency_keys gains the object a write touched first and the activity seq it wrote: a key the
-- server derived replays only while that object has no newer activity, so A → B → A applies all
-- three while a retry after a lost response still makes one effect.

create table bullpen.done_gates (
  name text primary key check (name ~ '^[a-z][a-z0-9_]{0,62}$'),
  position int not null,
  check_fn text not null check (check_fn ~ '^bullpen\.[a-z_][a-z0-9_]*$'),
  satisfied_by text not null,
  description text not null
);

alter table public.idempotency_keys add column object_id uuid;
alter table public.idempotency_keys add column seq bigint;

alter table bullpen.done_gates enable row level security;
alter table bullpen.done_gates force row level security;

-- a catalog of checks, the same for every workspace: readable by the RPCs, written by migrations
create policy done_gates_writer_read on bullpen.done_gates for select to bullpen_writer using (true);

revoke all on bullpen.done_gates from anon, authenticated;
grant select on bullpen.done_gates to bullpen_writer;
grant all on bullpen.done_gates to service_role;

comment on table bullpen.done_gates is 'Checks in front of done, run in position order; the first unmet one refuses the move.';
comment on column public.idempotency_keys.seq is 'Activity seq of the write; a derived key replays only while its object has no newer activity.';
