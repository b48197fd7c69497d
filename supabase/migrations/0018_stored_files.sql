-- Attachment bytes the server itself stored. An attachment of kind "file" names a storage path;
-- until now any caller could name any path, so a row could point at bytes that were never
-- uploaded (and meet a task's evidence gate with them). The upload route writes the bytes first,
-- then records them here (as the server, outside any actor's claims), then attaches them:
-- attach_add accepts only a storage path recorded for the caller's workspace, and the evidence
-- gate counts a file only when its bytes are recorded. The table travels with an export, and so
-- do the bytes it describes.

create table public.stored_files (
  tenant_id uuid not null references public.tenants (id) on delete cascade,
  storage_path text not null check (char_length(storage_path) between 1 and 1000),
  size_bytes bigint not null check (size_bytes >= 0),
  -- null only for files stored before this table existed (recorded below without reading them)
  sha256 text check (sha256 ~ '^[0-9a-f]{64}$'),
  mime_type text not null check (char_length(mime_type) between 1 and 255),
  created_by_actor_id uuid,
  created_at timestamptz not null default now(),
  primary key (tenant_id, storage_path),
  foreign key (tenant_id, created_by_actor_id) references public.actors (tenant_id, id)
);

-- Files uploaded through the server before this release: the upload route named them
-- <tenant_id>/<uuid>/<name> under their own workspace; a path of any other shape was supplied by
-- a caller and is not recorded (its attachment no longer meets an evidence gate).
insert into public.stored_files (tenant_id, storage_path, size_bytes, mime_type, created_by_actor_id, created_at)
select distinct on (a.tenant_id, a.storage_path)
       a.tenant_id, a.storage_path, coalesce(a.size_bytes, 0), coalesce(a.mime_type, 'application/octet-stream'),
       a.created_by_actor_id, a.created_at
  from public.attachments a
 where a.kind = 'file'
   and a.storage_path ~ ('^' || a.tenant_id::text || '/[0-9a-f-]{36}/[^/\\]{1,200}$')
 order by a.tenant_id, a.storage_path, a.created_at;

alter table public.stored_files enable row level security;
alter table public.stored_files force row level security;

create policy stored_files_select_tenant on public.stored_files for select to authenticated
  using (tenant_id = (select bullpen.tenant_id()));
create policy stored_files_writer_select on public.stored_files for select to bullpen_writer
  using (tenant_id = (select bullpen.tenant_id()));

revoke all on public.stored_files from anon, authenticated;
grant select on public.stored_files to authenticated;
grant select on public.stored_files to bullpen_writer;
grant all on public.stored_files to service_role;

comment on table public.stored_files is 'Attachment bytes the server stored (upload or import), by storage path; only these paths can be attached as files.';
