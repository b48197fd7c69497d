-- Deliberation: debates and the council.
-- A debate is a proposed decision with participants: each gets a collab handoff asking for its
-- position among the decision's options, answers with debate_reply (an argument in the decision's
-- thread), and decision_set_status closes it naming the winning option. The council asks several
-- language models the same question in a background job: each answers, each ranks the others
-- anonymously, a chairman writes the final answer; tokens and cost land on the caller's run.
-- Function bodies live in supabase/definitions/0024_deliberation.sql and 0010_memory.sql.

-- ---------------------------------------------------------------------------------------------
-- Tables
-- ---------------------------------------------------------------------------------------------

-- One row per participant of a debate: its handoff and its current position (a reply replaces
-- the position; the arguments stay in the decision's thread).
create table public.decision_participants (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  decision_id uuid not null,
  actor_id uuid not null,
  handoff_id uuid,
  position text check (char_length(position) between 1 and 200),
  argument_comment_id uuid,
  replies int not null default 0 check (replies >= 0),
  answered_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (tenant_id, decision_id, actor_id),
  foreign key (tenant_id, decision_id) references public.decisions (tenant_id, id) on delete cascade,
  foreign key (tenant_id, actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, handoff_id) references public.handoffs (tenant_id, id) on delete set null (handoff_id),
  foreign key (tenant_id, argument_comment_id) references public.comments (tenant_id, id) on delete set null (argument_comment_id)
);

-- the option a closed debate settled on (status moves and this are the only things that change)
alter table public.decisions add column winning_option text check (char_length(winning_option) between 1 and 200);

-- an argument is a comment of its own kind (0021 gave comments their kinds) that carries a position
alter table public.comments drop constraint comments_kind_check;
alter table public.comments add constraint comments_kind_check check (kind in ('message', 'note', 'log', 'argument'));
alter table public.comments add column position text check (char_length(position) between 1 and 200);

create table public.councils (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  id uuid not null default gen_random_uuid(),
  project_id uuid,
  question text not null check (char_length(question) between 1 and 20000),
  -- the context block put into every prompt, frozen when the question was asked
  context text not null default '' check (char_length(context) <= 200000),
  context_refs jsonb not null default '[]' check (jsonb_typeof(context_refs) = 'array'),
  -- provider:model ids; keys and base URLs stay in the server's environment
  models text[] not null check (cardinality(models) between 1 and 10),
  chairman text not null check (char_length(chairman) between 1 and 200),
  record_decision boolean not null default false,
  status text not null default 'running' check (status in ('running', 'done', 'partial', 'failed')),
  -- [{label, model, answer, error, tokens_in, tokens_out, cost_usd, ms}]
  answers jsonb not null default '[]' check (jsonb_typeof(answers) = 'array'),
  -- [{model, ranking: [label…], reason, error, …usage}]
  rankings jsonb not null default '[]' check (jsonb_typeof(rankings) = 'array'),
  -- [{label, model, average_rank, votes}] best first
  aggregate jsonb not null default '[]' check (jsonb_typeof(aggregate) = 'array'),
  final_answer text check (char_length(final_answer) <= 200000),
  chairman_result jsonb,
  errors jsonb not null default '[]' check (jsonb_typeof(errors) = 'array'),
  -- {model: {tokens_in, tokens_out, cost_usd}} over the three stages
  usage jsonb not null default '{}' check (jsonb_typeof(usage) = 'object'),
  tokens_in bigint not null default 0 check (tokens_in >= 0),
  tokens_out bigint not null default 0 check (tokens_out >= 0),
  cost_usd numeric(16, 6) not null default 0 check (cost_usd >= 0),
  decision_id uuid,
  asked_by_actor_id uuid not null,
  run_id text,
  created_at timestamptz not null default now(),
  finished_at timestamptz,
  primary key (tenant_id, id),
  foreign key (tenant_id, project_id) references public.projects (tenant_id, id) on delete set null (project_id),
  foreign key (tenant_id, asked_by_actor_id) references public.actors (tenant_id, id),
  foreign key (tenant_id, decision_id) references public.decisions (tenant_id, id),
  check ((status = 'running') = (finished_at is null))
);

-- ---------------------------------------------------------------------------------------------
-- Indexes
-- ---------------------------------------------------------------------------------------------

create index decision_participants_actor_idx on public.decision_participants (tenant_id, actor_id);
create index decision_participants_handoff_idx on public.decision_participants (tenant_id, handoff_id);
create index councils_listing_idx on public.councils (tenant_id, created_at desc, id desc);
create index councils_decision_idx on public.councils (tenant_id, decision_id) where decision_id is not null;

-- ---------------------------------------------------------------------------------------------
-- Row-level security
-- ---------------------------------------------------------------------------------------------

alter table public.decision_participants enable row level security;
alter table public.decision_participants force row level security;
alter table public.councils enable row level security;
alter table public.councils force row level security;

create policy decision_participants_select_tenant on public.decision_participants for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy councils_select_tenant on public.councils for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));

create policy decision_participants_writer_all on public.decision_participants for all to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()))
  with check (tenant_id = (select bullpen.tenant_id()));
create policy councils_writer_select on public.councils for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));
create policy councils_writer_insert on public.councils for insert to bullpen_writer
  with check (tenant_id = (select bullpen.tenant_id()) and asked_by_actor_id = (select bullpen.actor_id()));

-- ---------------------------------------------------------------------------------------------
-- Grants: the API roles read under RLS; only the RPCs (and the council job) write.
-- ---------------------------------------------------------------------------------------------

revoke all on public.decision_participants, public.councils from public, anon, authenticated;
grant select on public.decision_participants, public.councils to authenticated;
grant select, insert, update on public.decision_participants to bullpen_writer;
grant select, insert on public.councils to bullpen_writer;
grant all on public.decision_participants, public.councils to service_role;

comment on table public.decision_participants is 'The participants of a debate (a proposed decision with participants): their collab handoff and current position.';
comment on table public.councils is 'A question put to several language models: their answers, anonymous rankings, the chairman''s synthesis, and tokens and cost.';
comment on column public.decisions.winning_option is 'The option a debate was closed on (decision_set_status to accepted).';
