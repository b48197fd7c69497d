-- Vectors of source chunks beside those of notes and decisions (pgvector only; skipped without it).

alter table public.memory_embeddings drop constraint memory_embeddings_object_type_check;
alter table public.memory_embeddings add constraint memory_embeddings_object_type_check
  check (object_type in ('decision', 'note', 'chunk'));
alter table public.memory_embeddings
  add column chunk_id uuid generated always as (case when object_type = 'chunk' then object_id end) stored,
  add foreign key (tenant_id, chunk_id) references public.source_chunks (tenant_id, id) on delete cascade;
create index memory_embeddings_chunk_idx on public.memory_embeddings (tenant_id, chunk_id) where chunk_id is not null;
