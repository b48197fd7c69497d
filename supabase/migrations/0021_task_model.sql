-- The richer task model: metadata on tasks, a skipped status, a manual order within a status
-- column, and kinds, tags and metadata on comments (notes recorded with moves, log lines).
-- The rules that read them (merge_meta, the skipped transitions, claim-next order, paused and
-- archived projects offering no work) live in supabase/definitions/0003_tasks.sql and 0005_comments.sql.

-- Metadata: a JSON object of at most 16 KB serialised, filtered by containment through a GIN index.
alter table public.tasks add column meta jsonb not null default '{}'
  check (jsonb_typeof(meta) = 'object' and octet_length(meta::text) <= 16384);

-- Manual order within a status column: a float, so a card dropped between two others takes the
-- midpoint and no neighbour is renumbered. New tasks take their creation time in epoch seconds, so
-- the manual order of untouched tasks is their age.
alter table public.tasks add column order_index double precision;
update public.tasks set order_index = extract(epoch from created_at);
alter table public.tasks alter column order_index set default extract(epoch from clock_timestamp());
alter table public.tasks alter column order_index set not null;

-- skipped: terminal, work deliberately not done; dependents treat it as resolved.
alter table public.tasks drop constraint tasks_status_check;
alter table public.tasks add constraint tasks_status_check
  check (status in ('backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done', 'failed', 'cancelled', 'skipped'));

-- jsonb_path_ops: containment (@>) is the only operator task_query uses, and this opclass is smaller.
create index tasks_meta_idx on public.tasks using gin (meta jsonb_path_ops);
-- Claim-next reads open work by priority, then manual order, then age.
create index tasks_ready_order_idx on public.tasks (tenant_id, priority, order_index, created_at, id) where status = 'todo';
-- The board's columns: one status of a project in manual order (task_query order:"manual").
create index tasks_project_order_idx on public.tasks (tenant_id, project_id, status, order_index, priority, created_at, id);

-- Comments: a kind (message, a note recorded with a move, a log line), tags and metadata.
alter table public.comments add column kind text not null default 'message'
  check (kind in ('message', 'note', 'log'));
alter table public.comments add column tags text[] not null default '{}'
  check (cardinality(tags) <= 32);
alter table public.comments add column meta jsonb not null default '{}'
  check (jsonb_typeof(meta) = 'object' and octet_length(meta::text) <= 16384);
