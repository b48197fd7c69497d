-- Vectors for search by meaning (pgvector). Applied only where the extension is available; without
-- it, notes and decisions report embedding_status 'unavailable' and search runs on full text and
-- trigrams alone.
--
-- One row per object and embedding model: the model and its dimensions are recorded with each
-- vector, and a new model's vectors are written beside the old ones, so search keeps working on the
-- old model's rows (through full text) while the background re-embeds. The column has no fixed
-- dimension; each model gets its own partial HNSW index over a cast to its dimension
-- (bullpen.memory_vector_index), created when the server first uses the model.

create extension if not exists vector with schema public;

create table public.memory_embeddings (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  object_type text not null check (object_type in ('decision', 'note')),
  object_id uuid not null,
  note_id uuid generated always as (case when object_type = 'note' then object_id end) stored,
  decision_id uuid generated always as (case when object_type = 'decision' then object_id end) stored,
  model text not null check (char_length(model) between 1 and 200),
  dims int not null check (dims between 1 and 16000),
  content_hash text not null,
  embedding public.vector not null,
  created_at timestamptz not null default now(),
  primary key (tenant_id, object_type, object_id, model),
  foreign key (tenant_id, note_id) references public.knowledge_notes (tenant_id, id) on delete cascade,
  foreign key (tenant_id, decision_id) references public.decisions (tenant_id, id) on delete cascade,
  check (public.vector_dims(embedding) = dims)
);

create index memory_embeddings_model_idx on public.memory_embeddings (tenant_id, model, object_type);
create index memory_embeddings_decision_idx on public.memory_embeddings (tenant_id, decision_id) where decision_id is not null;

-- The default local model (Universal Sentence Encoder lite, 512 dimensions) is indexed from the start.
create index memory_embeddings_hnsw_use_lite on public.memory_embeddings
  using hnsw ((embedding::public.vector(512)) public.vector_cosine_ops)
  where model = 'universal-sentence-encoder-lite';

alter table public.memory_embeddings enable row level security;
alter table public.memory_embeddings force row level security;

create policy memory_embeddings_select_tenant on public.memory_embeddings for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy memory_embeddings_writer_select on public.memory_embeddings for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));

revoke all on public.memory_embeddings from public, anon, authenticated;
grant select on public.memory_embeddings to authenticated;
grant select on public.memory_embeddings to bullpen_writer;
grant all on public.memory_embeddings to service_role;

comment on table public.memory_embeddings is 'Vectors of notes and decisions, one per embedding model; written by the background embedder, read by hybrid search.';
