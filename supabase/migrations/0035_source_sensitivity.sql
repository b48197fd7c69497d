-- Source documents carry sensitivity, as notes do (0032): a source synced as sensitive marks every
-- document it holds, and only callers whose claims say `sensitive` (a key with the sensitive
-- scope, a person's console session) see those documents and their chunks, by any path: source_get,
-- chunk_get, knowledge_search, find_related, resources. The source's name and counts stay listed.

alter table public.sources
  add column sensitivity text not null default 'normal' check (sensitivity in ('normal', 'sensitive'));
alter table public.source_documents
  add column sensitivity text not null default 'normal' check (sensitivity in ('normal', 'sensitive'));

comment on column public.sources.sensitivity is 'normal, or sensitive: every document of the source is sensitive (set by source_sync begin)';
comment on column public.source_documents.sensitivity is 'the source''s sensitivity when the document was written; sensitive: only callers with the sensitive claim see it';

-- Restrictive, so they narrow every permissive policy of both roles (as knowledge_notes_sensitivity does)
create policy source_documents_sensitivity on public.source_documents as restrictive for all
  to authenticated, bullpen_writer
  using (sensitivity = 'normal' or (select bullpen.can_see_sensitive()))
  with check (sensitivity = 'normal' or (select bullpen.can_see_sensitive()));

-- A chunk is seen with its document: the document's own policy decides.
create policy source_chunks_sensitivity on public.source_chunks as restrictive for all
  to authenticated, bullpen_writer
  using (exists (select 1 from public.source_documents d where d.tenant_id = source_chunks.tenant_id and d.id = source_chunks.document_id))
  with check (exists (select 1 from public.source_documents d where d.tenant_id = source_chunks.tenant_id and d.id = source_chunks.document_id));
