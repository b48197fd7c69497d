-- Provenance: runs, repositories and code refs, attachments, activity, feedback (tables in
-- migrations/0011_provenance.sql), the evidence gate and this room's hooks.
-- Re-applied on every upgrade that changes any definition file: every statement here must be
-- safe to run again (create or replace).

-- The console's own activity reader is gone: activity_query is the one way to read the log.
drop function if exists bullpen.activity_feed(jsonb);

-- ---------------------------------------------------------------------------------------------
-- Small helpers
-- ---------------------------------------------------------------------------------------------

/**
 * A git remote, normalised: {host, owner, name, key, url} or null when it is not a remote (a local
 * path, a file:// URL, a bare word). git@host:o/n.git, ssh://git@host:22/o/n, https://user:token@host/o/n
 * and https://host/o/n/ are one repository: credentials, ports, .git, query and fragment are dropped;
 * key is host/owner/name in lower case; url is the canonical https URL. Nested groups
 * (gitlab.com/group/sub/name) keep everything before the last segment as the owner.
 * lib/core/remote.ts implements the same rule for the CLI, which strips credentials before sending.
 */
create or replace function bullpen.normalize_remote(p_remote text) returns jsonb
language plpgsql immutable
as $$
declare
  v text := btrim(coalesce(p_remote, ''));
  m text[];
  v_host text;
  v_path text;
  v_parts text[];
  v_owner text;
  v_name text;
begin
  if v = '' or char_length(v) > 2000 then
    return null;
  end if;
  if v ~ '^[A-Za-z][A-Za-z0-9+.-]*://' then
    m := regexp_match(v, '^([A-Za-z][A-Za-z0-9+.-]*)://(?:[^/?#]*@)?(\[[^\]]*\]|[^/:?#]+)(?::[0-9]*)?(/[^?#]*)?');
    if m is null or lower(m[1]) not in ('https', 'http', 'ssh', 'git', 'git+ssh', 'ssh+git') then
      return null;
    end if;
    v_host := lower(m[2]);
    v_path := coalesce(m[3], '');
  elsif v ~ '^(?:[^@/:\s]+@)?[^/:\s]+:[^/\\]' then
    -- scp-like syntax: [user@]host:owner/name
    m := regexp_match(v, '^(?:[^@/:\s]+@)?([^/:\s]+):([^?#]*)');
    v_host := lower(m[1]);
    v_path := m[2];
  else
    return null;
  end if;
  if v_host !~ '^[a-z0-9][a-z0-9.-]*$' or char_length(v_host) > 253 then
    return null;
  end if;
  v_path := regexp_replace(v_path, '/+$', '');
  v_path := regexp_replace(v_path, '\.git$', '', 'i');
  v_parts := array(select s from unnest(string_to_array(v_path, '/')) s where s <> '');
  if coalesce(array_length(v_parts, 1), 0) < 2 then
    return null;
  end if;
  v_name := v_parts[array_length(v_parts, 1)];
  v_owner := array_to_string(v_parts[1:array_length(v_parts, 1) - 1], '/');
  if v_name ~ '[\s\\]' or v_owner ~ '[\s\\]' or v_name in ('.', '..') then
    return null;
  end if;
  return jsonb_build_object('host', v_host, 'owner', v_owner, 'name', v_name,
    'key', lower(v_host || '/' || v_owner || '/' || v_name),
    'url', 'https://' || v_host || '/' || v_owner || '/' || v_name);
end
$$;

/** Redacts what looks like a credential: API keys, tokens, bearer headers, URL passwords. */
create or replace function bullpen.redact_secrets(p text) returns text
language sql immutable
as $$
  select regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(coalesce(p, ''),
    '(bp_live_|bp_test_)[A-Za-z0-9_-]{8,}', '[redacted]', 'g'),
    '\m(sk|pk|rk)-[A-Za-z0-9_-]{16,}', '[redacted]', 'g'),
    '\m(ghp|gho|ghu|ghs|ghr|glpat|xox[abpr])[-_][A-Za-z0-9_-]{16,}|\mgithub_pat_[A-Za-z0-9_]{20,}', '[redacted]', 'g'),
    '\mAKIA[0-9A-Z]{16}\M', '[redacted]', 'g'),
    '([Bb]earer|[Tt]oken|[Pp]assword|[Ss]ecret|[Aa]pi[_-]?[Kk]ey)(["'']?\s*[:=]\s*["'']?|\s+)[^\s"'',;]{6,}', '\1\2[redacted]', 'g'),
    '(://)[^/@\s:]+:[^/@\s]+@', '\1[redacted]@', 'g')
$$;

/** Base64 cursor for a newest-first listing keyed by (timestamp, id). */
create or replace function bullpen.ts_cursor(p_at timestamptz, p_id text) returns text
language sql immutable
as $$ select translate(encode(convert_to(jsonb_build_object('t', p_at, 'i', p_id)::text, 'utf8'), 'base64'), E'\n', '') $$;

/** Decodes a ts_cursor: {t, i} or null; anything else is a validation error naming cursor. */
create or replace function bullpen.ts_cursor_arg(p jsonb) returns jsonb
language plpgsql immutable
as $$
declare
  v text := bullpen.cursor_arg(p);
  r jsonb;
begin
  if v is null then
    return null;
  end if;
  begin
    r := v::jsonb;
    perform (r ->> 't')::timestamptz;
    if r ->> 'i' is null then
      raise exception 'no id';
    end if;
  exception when others then
    perform bullpen.fail('VALIDATION_ERROR', 'cursor: not a next_cursor from this listing',
      'pass next_cursor back verbatim, or omit cursor for the first page');
  end;
  return r;
end
$$;

create or replace function bullpen.repository_json(r public.repositories) returns jsonb
language sql stable
as $$
  select jsonb_build_object('id', r.id, 'host', r.host, 'owner', r.owner, 'name', r.name,
    'slug', r.owner || '/' || r.name, 'remote_url', r.remote_url, 'default_branch', r.default_branch,
    'created_by_actor_id', r.created_by_actor_id, 'created_at', r.created_at)
$$;

/** A run as tools return it: the row plus its actor, repository and how long it has been silent. */
create or replace function bullpen.run_json(r public.runs) returns jsonb
language sql stable
as $$
  select (to_jsonb(r) - 'tenant_id') || jsonb_build_object(
    'actor', (select a.display_name from public.actors a where a.tenant_id = r.tenant_id and a.id = r.actor_id),
    'repository', (select x.owner || '/' || x.name from public.repositories x where x.tenant_id = r.tenant_id and x.id = r.repository_id),
    'silent_seconds', floor(extract(epoch from (coalesce(r.ended_at, now()) - r.last_active_at)))::bigint,
    -- silent past the warning mark; the reaper abandons it later (see bullpen.reap_runs)
    'stale', r.status = 'running' and r.last_active_at < now() - interval '10 minutes')
$$;

/** Web link for a code ref on the well-known hosts; null elsewhere. */
create or replace function bullpen.code_ref_href(c public.code_refs, p_repo public.repositories) returns text
language sql stable
as $$
  select coalesce(c.url, c.pr_url, case
    when p_repo.id is null then null
    when p_repo.host = 'github.com' then p_repo.remote_url || case c.ref_type
      when 'commit' then '/commit/' || c.sha
      when 'branch' then '/tree/' || c.branch
      when 'tag' then '/releases/tag/' || c.tag
      when 'pr' then '/pull/' || c.pr_number
    end
    when p_repo.host = 'gitlab.com' then p_repo.remote_url || case c.ref_type
      when 'commit' then '/-/commit/' || c.sha
      when 'branch' then '/-/tree/' || c.branch
      when 'tag' then '/-/tags/' || c.tag
      when 'pr' then '/-/merge_requests/' || c.pr_number
    end
  end)
$$;

create or replace function bullpen.code_ref_json(c public.code_refs) returns jsonb
language sql stable
as $$
  select (to_jsonb(c) - 'tenant_id' - 'ref_key') || jsonb_build_object(
    'repository', case when x.id is not null then x.owner || '/' || x.name end,
    'href', bullpen.code_ref_href(c, x),
    'label', case c.ref_type
      when 'pr' then coalesce('PR #' || c.pr_number, 'PR')
      when 'commit' then 'commit ' || left(c.sha, 7)
      when 'branch' then 'branch ' || c.branch
      when 'tag' then 'tag ' || c.tag
      else 'compare' end,
    'live', not (c.ref_type = 'pr' and c.pr_state = 'closed'),
    'run_key', (select r.run_key from public.runs r where r.tenant_id = c.tenant_id and r.id = c.run_id),
    'created_by', (select a.display_name from public.actors a where a.tenant_id = c.tenant_id and a.id = c.created_by_actor_id))
  from (select 1) one
  left join public.repositories x on x.tenant_id = c.tenant_id and x.id = c.repository_id
$$;

create or replace function bullpen.attachment_json(a public.attachments) returns jsonb
language sql stable
as $$
  select (to_jsonb(a) - 'tenant_id') || jsonb_build_object(
    'download_url', case when a.kind = 'file' and a.removed_at is null then '/api/files/' || a.id end,
    'created_by', (select x.display_name from public.actors x where x.tenant_id = a.tenant_id and x.id = a.created_by_actor_id))
$$;

create or replace function bullpen.feature_request_json(f public.feature_requests) returns jsonb
language sql stable
as $$
  select (to_jsonb(f) - 'tenant_id') || jsonb_build_object(
    'filed_by', (select x.display_name from public.actors x where x.tenant_id = f.tenant_id and x.id = f.filed_by_actor_id))
$$;

/**
 * The object a code ref, attachment or milestone points at: {object_type, object_id, project_id,
 * task_id, label}, or NOT_FOUND naming the field. Tasks take uuid or KEY-N, projects uuid or key,
 * runs uuid or run key; decisions, notes, handoffs and comments by uuid.
 */
create or replace function bullpen.resolve_object(p_type text, p_ref text, p_field text default 'object_id') returns jsonb
language plpgsql stable
as $$
declare
  v_task public.tasks;
  v_project public.projects;
  v_row jsonb;
  v_id uuid;
begin
  if p_ref is null then
    perform bullpen.fail('VALIDATION_ERROR', format('%s is required', p_field));
  end if;
  if p_type = 'task' then
    v_task := bullpen.resolve_task(p_ref, p_field);
    return jsonb_build_object('object_type', 'task', 'object_id', v_task.id, 'project_id', v_task.project_id,
      'task_id', v_task.id,
      'label', (select pr.key from public.projects pr where pr.tenant_id = v_task.tenant_id and pr.id = v_task.project_id) || '-' || v_task.seq);
  elsif p_type = 'project' then
    v_project := bullpen.resolve_project(p_ref, p_field);
    return jsonb_build_object('object_type', 'project', 'object_id', v_project.id, 'project_id', v_project.id,
      'task_id', null, 'label', v_project.key);
  end if;
  if p_ref !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    if p_type = 'run' then
      select jsonb_build_object('object_type', 'run', 'object_id', r.id, 'project_id', null, 'task_id', null, 'label', r.run_key)
        into v_row from public.runs r where r.tenant_id = (select bullpen.tenant_id()) and r.run_key = p_ref;
      if v_row is not null then
        return v_row;
      end if;
      perform bullpen.fail('NOT_FOUND', format('%s: no run %s in this workspace', p_field, p_ref), 'list runs with run_query');
    end if;
    perform bullpen.fail('VALIDATION_ERROR', format('%s: a %s is named by its uuid', p_field, coalesce(p_type, 'object')));
  end if;
  v_id := p_ref::uuid;
  if p_type = 'comment' then
    select jsonb_build_object('object_type', 'comment', 'object_id', c.id,
             'project_id', coalesce(t.project_id, case when c.object_type = 'project' then c.object_id end),
             'task_id', null, 'label', 'comment')
      into v_row
      from public.comments c
      left join public.tasks t on c.object_type = 'task' and t.tenant_id = c.tenant_id and t.id = c.object_id
     where c.tenant_id = (select bullpen.tenant_id()) and c.id = v_id;
  elsif p_type = 'run' then
    select jsonb_build_object('object_type', 'run', 'object_id', r.id, 'project_id', null, 'task_id', null, 'label', r.run_key)
      into v_row from public.runs r where r.tenant_id = (select bullpen.tenant_id()) and (r.id = v_id or r.run_key = p_ref);
  elsif p_type = 'handoff' then
    select jsonb_build_object('object_type', 'handoff', 'object_id', h.id,
             'project_id', coalesce(h.related_project_id, t.project_id), 'task_id', null, 'label', h.title)
      into v_row
      from public.handoffs h
      left join public.tasks t on t.tenant_id = h.tenant_id and t.id = h.related_task_id
     where h.tenant_id = (select bullpen.tenant_id()) and h.id = v_id;
  elsif p_type = 'decision' then
    select jsonb_build_object('object_type', 'decision', 'object_id', d.id, 'project_id', d.project_id, 'task_id', null,
             'label', d.title)
      into v_row from public.decisions d where d.tenant_id = (select bullpen.tenant_id()) and d.id = v_id;
  elsif p_type = 'note' then
    select jsonb_build_object('object_type', 'note', 'object_id', n.id, 'project_id', n.project_id, 'task_id', null,
             'label', n.title)
      into v_row from public.knowledge_notes n where n.tenant_id = (select bullpen.tenant_id()) and n.id = v_id;
  else
    perform bullpen.fail('VALIDATION_ERROR', format('object_type: unknown object type %s', coalesce(p_type, 'null')));
  end if;
  if v_row is null then
    perform bullpen.fail('NOT_FOUND', format('%s: no %s %s in this workspace', p_field, p_type, p_ref),
      format('look the %s up with its query tool', p_type));
  end if;
  return v_row;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Repositories
-- ---------------------------------------------------------------------------------------------

/** Resolves or registers the repository of a remote (deduplicated by its normalised key). */
create or replace function bullpen.repository_for_remote(p_remote text, p_field text, p_default_branch text default null)
returns public.repositories
language plpgsql
as $$
declare
  v_n jsonb := bullpen.normalize_remote(p_remote);
  v public.repositories;
  v_created boolean;
begin
  if v_n is null then
    perform bullpen.fail('VALIDATION_ERROR',
      format('%s: not a git remote URL (expected https://host/owner/name or git@host:owner/name.git)', p_field),
      'pass the output of `git remote get-url origin`; local paths are never stored');
  end if;
  insert into public.repositories as r (tenant_id, host, owner, name, remote_key, remote_url, default_branch, created_by_actor_id)
  values (bullpen.tenant_id(), v_n ->> 'host', v_n ->> 'owner', v_n ->> 'name', v_n ->> 'key', v_n ->> 'url',
          p_default_branch, bullpen.actor_id())
  on conflict (tenant_id, remote_key) do update
    set default_branch = coalesce(excluded.default_branch, r.default_branch),
        updated_at = case when excluded.default_branch is distinct from r.default_branch and excluded.default_branch is not null
                          then now() else r.updated_at end
  returning r.id, (r.xmax = 0) into v.id, v_created;
  select * into v from public.repositories r where r.tenant_id = (select bullpen.tenant_id()) and r.id = v.id;
  if v_created then
    perform bullpen.log('repo.registered', 'repository', v.id, null, v.owner || '/' || v.name,
      jsonb_build_object('remote_url', v.remote_url));
  end if;
  return v;
end
$$;

/** A repository by uuid, or by slug (owner/name or host/owner/name); NOT_FOUND naming the field. */
create or replace function bullpen.resolve_repository(p_id text, p_slug text, p_field text default 'repository_id')
returns public.repositories
language plpgsql stable
as $$
declare
  v public.repositories;
  v_n int;
  v_slug text := lower(btrim(coalesce(p_slug, ''), '/'));
begin
  if p_id is not null then
    select * into v from public.repositories
     where tenant_id = (select bullpen.tenant_id()) and id = bullpen.uuid_arg(jsonb_build_object(p_field, p_id), p_field);
    if v.id is null then
      perform bullpen.fail('NOT_FOUND', format('%s: no repository %s in this workspace', p_field, p_id),
        'list repositories with repo_query, or register one with repo_register');
    end if;
    return v;
  end if;
  if v_slug = '' then
    perform bullpen.fail('VALIDATION_ERROR', 'repository_id or repo_slug is required', 'name the repository by id or by owner/name');
  end if;
  select count(*) into v_n from public.repositories r
   where r.tenant_id = (select bullpen.tenant_id())
     and (lower(r.owner || '/' || r.name) = v_slug or r.remote_key = v_slug);
  if v_n > 1 then
    perform bullpen.fail('VALIDATION_ERROR', format('repo_slug: %s names %s repositories on different hosts', p_slug, v_n),
      'use host/owner/name or the repository_id from repo_query');
  end if;
  select * into v from public.repositories r
   where r.tenant_id = (select bullpen.tenant_id())
     and (lower(r.owner || '/' || r.name) = v_slug or r.remote_key = v_slug);
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('repo_slug: no repository %s in this workspace', p_slug),
      'register it first with repo_register');
  end if;
  return v;
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Runs: registration, liveness, the series cursor, leases by run
-- ---------------------------------------------------------------------------------------------

/**
 * The caller's run key when it is one (what X-Bullpen-Run allows); null otherwise. Claims from
 * elsewhere (a Supabase JWT, a test) may carry any string: such a run is a label on the activity
 * rows, never a registered run.
 */
-- one expression with no FROM, so the planner inlines it (the lease trigger calls it on every claim)
create or replace function bullpen.run_key() returns text
language sql stable
as $$ select case when bullpen.run_id() ~ '^[A-Za-z0-9._:@-]{1,128}$' then bullpen.run_id() end $$;

/**
 * A run belongs to the actor that started it: another actor naming it (a run header, a session id,
 * BULLPEN_RUN_ID) is refused FORBIDDEN rather than writing into, or reviving, that actor's run.
 */
create or replace function bullpen.assert_own_run(v public.runs) returns public.runs
language plpgsql stable
as $$
begin
  if v.id is not null and bullpen.actor_id() is not null and v.actor_id <> bullpen.actor_id() then
    perform bullpen.fail('FORBIDDEN',
      format('run: %s belongs to another actor; a run belongs to the actor that started it', v.run_key),
      'send a run key of your own in X-Bullpen-Run (BULLPEN_RUN_ID), or none: each connection gets a run of its own',
      jsonb_build_object('run_key', v.run_key, 'fields', jsonb_build_array('run')));
  end if;
  return v;
end
$$;

/**
 * Registers a run under the caller. For the caller's current run the claims say how: a parent run
 * (X-Bullpen-Parent-Run / BULLPEN_PARENT_RUN_ID) makes it a subagent run, a series
 * (X-Bullpen-Run-Group / BULLPEN_RUN_GROUP) a loop_tick whose whoami cursor starts where the
 * series' previous tick left off, and X-Bullpen-Repo the repository it stands in. Concurrent
 * registrations of one key converge on one row.
 */
create or replace function bullpen.register_run(p_key text) returns public.runs
language plpgsql
as $$
declare
  c jsonb := bullpen.claims();
  v public.runs;
  v_parent_key text;
  v_series text;
  v_repo uuid;
  v_seen timestamptz;
  v_kind text;
  v_remote text;
begin
  if p_key = bullpen.run_key() then
    v_parent_key := nullif(c ->> 'parent_run_id', '');
    v_series := nullif(c ->> 'run_group', '');
    v_remote := nullif(c ->> 'repo', '');
  end if;
  -- claims from a foreign JWT may carry anything: keep only well-formed values
  if v_parent_key !~ '^[A-Za-z0-9._:@-]{1,128}$' or v_parent_key = p_key then
    v_parent_key := null;
  end if;
  if v_series !~ '^[A-Za-z0-9._:@-]{1,128}$' then
    v_series := null;
  end if;
  if v_remote is not null and bullpen.normalize_remote(v_remote) is not null then
    v_repo := (bullpen.repository_for_remote(v_remote, 'X-Bullpen-Repo')).id;
  end if;
  v_kind := case when v_series is not null then 'loop_tick' when v_parent_key is not null then 'subagent' else 'session' end;
  if v_series is not null then
    select r.seen_through into v_seen from public.runs r
     where r.tenant_id = (select bullpen.tenant_id()) and r.run_series_key = v_series and r.seen_through is not null
     order by r.started_at desc limit 1;
  end if;
  insert into public.runs (tenant_id, run_key, actor_id, kind, parent_run_key, parent_run_id, run_series_key,
                           repository_id, seen_through)
  values (bullpen.tenant_id(), p_key, bullpen.actor_id(), v_kind, v_parent_key,
          (select r.id from public.runs r where r.tenant_id = (select bullpen.tenant_id()) and r.run_key = v_parent_key),
          v_series, v_repo, v_seen)
  on conflict (tenant_id, run_key) do nothing
  returning * into v;
  if v.id is null then
    select * into v from public.runs r where r.tenant_id = (select bullpen.tenant_id()) and r.run_key = p_key;
    return bullpen.assert_own_run(v);
  end if;
  -- children that registered before this run did hang under it from now on
  update public.runs r set parent_run_id = v.id
   where r.tenant_id = v.tenant_id and r.parent_run_key = p_key and r.parent_run_id is null and r.id <> v.id;
  return v;
end
$$;

/** The run for a key, registering it when it is the caller's and new, reviving it when abandoned. */
create or replace function bullpen.ensure_run(p_key text) returns public.runs
language plpgsql
as $$
declare
  v public.runs;
begin
  select * into v from public.runs r where r.tenant_id = (select bullpen.tenant_id()) and r.run_key = p_key;
  if v.id is null then
    return bullpen.register_run(p_key);
  end if;
  perform bullpen.assert_own_run(v);
  if v.status in ('abandoned', 'idle') then
    update public.runs r set status = 'running', ended_at = null, end_reason = null, last_active_at = now()
     where r.tenant_id = v.tenant_id and r.id = v.id returning * into v;
  end if;
  return v;
end
$$;

/**
 * Lazy registration and liveness, on every activity row that names a run: the run is registered
 * before its first write, and a write counts as a sign of life (at most one update per run every
 * 30 s). A session-level mark remembers the last run seen on this connection for the current 30 s,
 * so a run's steady stream of writes costs one lookup per half minute, not one per call.
 */
create or replace function bullpen.activity_touch_run() returns trigger
language plpgsql
as $$
declare
  v_mark text := new.tenant_id::text || '/' || coalesce(new.actor_id::text, '-') || '/' || new.run_id || '/'
                 || floor(extract(epoch from now()) / 30)::bigint::text;
  v_status text;
  v_last timestamptz;
  v_owner uuid;
begin
  if current_setting('bullpen.run_touched', true) is not distinct from v_mark then
    return new;
  end if;
  select r.status, r.last_active_at, r.actor_id into v_status, v_last, v_owner
    from public.runs r where r.tenant_id = new.tenant_id and r.run_key = new.run_id;
  if v_owner is not null and new.actor_id is not null and v_owner <> new.actor_id then
    perform bullpen.fail('FORBIDDEN',
      format('run: %s belongs to another actor; a run belongs to the actor that started it', new.run_id),
      'send a run key of your own in X-Bullpen-Run (BULLPEN_RUN_ID), or none: each connection gets a run of its own',
      jsonb_build_object('run_key', new.run_id, 'fields', jsonb_build_array('run')));
  end if;
  if v_status is null then
    if new.run_id = bullpen.run_key() and bullpen.actor_id() is not null and new.tenant_id = bullpen.tenant_id() then
      perform bullpen.register_run(new.run_id);
    end if;
  elsif v_status in ('abandoned', 'idle') then
    update public.runs r set status = 'running', ended_at = null, end_reason = null, last_active_at = now()
     where r.tenant_id = new.tenant_id and r.run_key = new.run_id;
  elsif v_status = 'running' and v_last < now() - interval '30 seconds' then
    update public.runs r set last_active_at = now()
     where r.tenant_id = new.tenant_id and r.run_key = new.run_id;
  end if;
  perform set_config('bullpen.run_touched', v_mark, false);
  return new;
end
$$;

create or replace trigger activity_touch_run before insert on public.activity
  for each row when (new.run_id is not null) execute function bullpen.activity_touch_run();

/**
 * whoami's delta start (a hook of supabase/definitions/0003_tasks.sql). Registers the current run;
 * a tick of a series starts from where the series' previous tick saw through, so the delta stays
 * continuous across ticks however the actor's last_seen_at moved meanwhile; other runs keep the
 * actor's last_seen_at. Marks the run as seen through now.
 */
create or replace function bullpen.run_delta_since(p_last_seen timestamptz) returns timestamptz
language plpgsql
as $$
declare
  v_key text := bullpen.run_key();
  v public.runs;
  v_since timestamptz := p_last_seen;
begin
  if v_key is null then
    return p_last_seen;
  end if;
  v := bullpen.ensure_run(v_key);
  if v.run_series_key is not null and v.seen_through is not null then
    v_since := v.seen_through;
  end if;
  update public.runs r set seen_through = now(),
         last_active_at = case when r.status = 'running' then now() else r.last_active_at end
   where r.tenant_id = v.tenant_id and r.id = v.id;
  return v_since;
end
$$;

/** A task's lease remembers the run that took it, so an abandoned run's leases can be released. */
create or replace function bullpen.tasks_lease_run() returns trigger
language plpgsql
as $$
begin
  if new.lease_actor_id is null then
    new.lease_run_key := null;
  elsif tg_op = 'INSERT' then
    new.lease_run_key := coalesce(bullpen.run_key(), new.lease_run_key);
  elsif (new.lease_actor_id is distinct from old.lease_actor_id or new.lease_expires_at is distinct from old.lease_expires_at)
        and new.lease_run_key is not distinct from old.lease_run_key then
    -- a statement that names the run itself (the server's own tools) keeps it
    new.lease_run_key := bullpen.run_key();
  end if;
  return new;
end
$$;

create or replace trigger tasks_lease_run before insert or update on public.tasks
  for each row execute function bullpen.tasks_lease_run();

/** A run by uuid or run key in the caller's workspace; NOT_FOUND naming the field. */
create or replace function bullpen.resolve_run(p_ref text, p_field text) returns public.runs
language plpgsql stable
as $$
declare
  v public.runs;
begin
  if p_ref ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    select * into v from public.runs r where r.tenant_id = (select bullpen.tenant_id()) and r.id = p_ref::uuid;
  end if;
  if v.id is null then
    select * into v from public.runs r where r.tenant_id = (select bullpen.tenant_id()) and r.run_key = p_ref;
  end if;
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('%s: no run %s in this workspace', p_field, p_ref),
      'list runs with run_query; a run is named by its uuid or its run key');
  end if;
  return v;
end
$$;

/**
 * The caller's current run, registered on demand (an abandoned one is returned as it is, for the
 * caller to revive); VALIDATION_ERROR naming p_field when there is none.
 */
create or replace function bullpen.current_run(p_field text) returns public.runs
language plpgsql
as $$
declare
  v public.runs;
begin
  if bullpen.run_key() is null then
    perform bullpen.fail('VALIDATION_ERROR', format('%s: you have no current run', p_field),
      'send X-Bullpen-Run (or set BULLPEN_RUN_ID), or name the run');
  end if;
  select * into v from public.runs r where r.tenant_id = (select bullpen.tenant_id()) and r.run_key = bullpen.run_key();
  if v.id is null then
    v := bullpen.register_run(bullpen.run_key());
  end if;
  return bullpen.assert_own_run(v);
end
$$;

/**
 * Folds a usage report into a run's per-model totals. A report carries the run's running totals
 * for one model ({model, tokens_in, tokens_out, cost_usd}, or an array of them): the latest report
 * per model wins, so a retried heartbeat never counts twice.
 */
create or replace function bullpen.merge_usage(p_old jsonb, p_new jsonb) returns jsonb
language plpgsql immutable
as $$
declare
  v jsonb := coalesce(p_old, '{}');
  u jsonb;
begin
  for u in select x from jsonb_array_elements(case jsonb_typeof(p_new) when 'array' then p_new
                                                   when 'object' then jsonb_build_array(p_new) else '[]'::jsonb end) x loop
    v := v || jsonb_build_object(coalesce(nullif(u ->> 'model', ''), 'unknown'), jsonb_strip_nulls(jsonb_build_object(
      'tokens_in', coalesce((u ->> 'tokens_in')::bigint, 0),
      'tokens_out', coalesce((u ->> 'tokens_out')::bigint, 0),
      'cost_usd', (u ->> 'cost_usd')::numeric)));
  end loop;
  return v;
end
$$;

/**
 * A usage report's entries that name no model take the reporting actor's default model
 * (register_actor default_model), so a cost lands on a model rather than on "unknown".
 */
create or replace function bullpen.usage_with_default_model(p_usage jsonb, p_model text) returns jsonb
language sql immutable
as $$
  select case
    when nullif(p_model, '') is null then p_usage
    when jsonb_typeof(p_usage) = 'object' then
      case when nullif(p_usage ->> 'model', '') is null then p_usage || jsonb_build_object('model', p_model) else p_usage end
    when jsonb_typeof(p_usage) = 'array' then (
      select coalesce(jsonb_agg(case when jsonb_typeof(e) = 'object' and nullif(e ->> 'model', '') is null
                                     then e || jsonb_build_object('model', p_model) else e end order by i), '[]'::jsonb)
        from jsonb_array_elements(p_usage) with ordinality x(e, i))
    else p_usage
  end
$$;

create or replace function bullpen.usage_total(p_usage jsonb, p_field text) returns numeric
language sql immutable
as $$ select coalesce(sum((value ->> p_field)::numeric), 0) from jsonb_each(coalesce(p_usage, '{}')) $$;

/** Releases the leases a run holds on unfinished tasks, logging why; returns the tasks. */
create or replace function bullpen.release_run_leases(r public.runs, p_reason text) returns jsonb
language plpgsql
as $$
declare
  v_out jsonb := '[]';
  t public.tasks;
begin
  for t in
    update public.tasks k
       set status = case when k.status = 'in_progress' then 'todo' else k.status end,
           assignee_actor_id = case when k.assignee_actor_id = k.lease_actor_id then null else k.assignee_actor_id end,
           lease_actor_id = null, lease_expires_at = null
     where k.tenant_id = r.tenant_id and k.lease_run_key = r.run_key and k.lease_actor_id = r.actor_id
       and k.status = 'in_progress'
    returning k.*
  loop
    perform bullpen.log('task.released', 'task', t.id, t.project_id, p_reason,
      jsonb_build_object('reason', 'run_ended', 'run_key', r.run_key, 'run_id', r.id));
    v_out := v_out || jsonb_build_array(jsonb_build_object('task_id', t.id, 'status', t.status));
  end loop;
  return v_out;
end
$$;

/** Counts of what a set of runs produced, from the activity log and the code refs. */
create or replace function bullpen.run_counts(p_tenant uuid, p_run_ids uuid[]) returns jsonb
language sql stable
as $$
  with keys as (
    select r.run_key from public.runs r where r.tenant_id = p_tenant and r.id = any (p_run_ids)
  ), acts as (
    select a.verb, a.metadata from public.activity a
     where a.tenant_id = p_tenant and a.run_id in (select run_key from keys)
       -- "someone's inbox changed" rows wake waiting agents; they are not something a run produced
       and a.object_type <> 'inbox'
  ), by_verb as (
    select verb, count(*) as n from acts group by verb
  )
  select jsonb_build_object(
    'tasks_created', (select count(*) from acts where verb = 'task.created'),
    'tasks_completed', (select count(*) from acts where verb = 'task.status_changed' and metadata ->> 'to' = 'done'),
    'decisions', (select count(*) from acts where verb in ('decision.logged', 'decision.created')),
    'notes', (select count(*) from acts where verb in ('knowledge.written', 'knowledge.created', 'note.written', 'note.created')),
    'handoffs', (select count(*) from acts where verb = 'handoff.created'),
    'comments', (select count(*) from acts where verb = 'comment.added'),
    'code_refs', (select count(*) from public.code_refs c where c.tenant_id = p_tenant and c.run_id = any (p_run_ids)),
    'attachments', (select count(*) from public.attachments x where x.tenant_id = p_tenant and x.run_id = any (p_run_ids)),
    'activity', (select count(*) from acts),
    'by_verb', coalesce((select jsonb_object_agg(verb, n order by verb) from by_verb), '{}'))
$$;

/** The run and its descendants (a child registered under it, at any depth). */
create or replace function bullpen.run_subtree(p_tenant uuid, p_root uuid) returns table (id uuid, depth int)
language sql stable
as $$
  with recursive tree(id, depth) as (
    select p_root, 0
    union
    select r.id, t.depth + 1 from public.runs r join tree t on r.tenant_id = p_tenant and r.parent_run_id = t.id
     where t.depth < 50
  )
  select tree.id, min(tree.depth)::int from tree group by tree.id
$$;

-- ---------------------------------------------------------------------------------------------
-- Room hooks (called by the tasks room's RPCs in 0003_tasks.sql)
-- ---------------------------------------------------------------------------------------------

/** Whether a task has evidence: a live code ref (not a PR closed unmerged) or attachment. */
create or replace function bullpen.task_evidence(t public.tasks) returns jsonb
language plpgsql stable
as $$
#variable_conflict use_column
begin
  return (
    select jsonb_build_object(
        'code_refs', (select count(*) from public.code_refs c
                       where c.tenant_id = t.tenant_id and c.task_id = t.id
                         and not (c.ref_type = 'pr' and c.pr_state = 'closed')),
        -- a file counts only when the server holds its bytes (stored_files), a link always
        'attachments', (select count(*) from public.attachments a
                         where a.tenant_id = t.tenant_id and a.task_id = t.id and a.removed_at is null
                           and (a.kind = 'link' or exists (select 1 from public.stored_files f
                                                            where f.tenant_id = a.tenant_id and f.storage_path = a.storage_path))))
  );
end
$$;

/** The evidence gate: a task with requires_evidence closes only with a live code ref or attachment. */
create or replace function bullpen.done_gate_evidence(t public.tasks) returns jsonb
language plpgsql stable
as $$
declare
  v jsonb;
  v_refs int;
  v_atts int;
begin
  if not t.requires_evidence then
    return null;
  end if;
  v := bullpen.task_evidence(t);
  v_refs := (v ->> 'code_refs')::int;
  v_atts := (v ->> 'attachments')::int;
  if v_refs + v_atts > 0 then
    return jsonb_build_object('met', true, 'summary', 'evidence linked', 'code_refs', v_refs, 'attachments', v_atts);
  end if;
  return jsonb_build_object('met', false, 'summary', 'no evidence',
    'message', 'this task requires evidence: nothing links the work that delivered it',
    'hint', 'record the commit or PR with task_code_ref (repository, branch and sha default from your run), '
            || 'or attach a file or link with attach_add; then set status done again',
    'code_refs', 0, 'attachments', 0);
end
$$;

insert into bullpen.done_gates (name, position, check_fn, satisfied_by, description)
values ('evidence', 20, 'bullpen.done_gate_evidence', 'task_code_ref or attach_add',
        'a task with requires_evidence has a live code ref or attachment')
on conflict (name) do update
  set position = excluded.position, check_fn = excluded.check_fn, satisfied_by = excluded.satisfied_by,
      description = excluded.description;

/** task_get's provenance sections: code refs, live attachments and the evidence state. */
create or replace function bullpen.task_related_provenance(t public.tasks) returns jsonb
language plpgsql stable
as $$
#variable_conflict use_column
begin
  return (
    select jsonb_build_object(
        'code_refs', (select coalesce(jsonb_agg(bullpen.code_ref_json(c) order by c.created_at desc, c.id desc), '[]')
                        from public.code_refs c where c.tenant_id = t.tenant_id and c.task_id = t.id),
        'attachments', (select coalesce(jsonb_agg(bullpen.attachment_json(a) order by a.created_at desc, a.id desc), '[]')
                          from public.attachments a
                         where a.tenant_id = t.tenant_id and a.task_id = t.id and a.removed_at is null),
        'evidence', bullpen.task_evidence(t) || jsonb_build_object('required', t.requires_evidence,
          'met', (select (e ->> 'code_refs')::int + (e ->> 'attachments')::int > 0 from bullpen.task_evidence(t) e)))
  );
end
$$;

/** The repository the caller stands in: its current run's, else the one X-Bullpen-Repo names. */
create or replace function bullpen.caller_repository() returns public.repositories
language plpgsql stable
as $$
declare
  v public.repositories;
begin
  select x.* into v from public.repositories x
   where x.tenant_id = (select bullpen.tenant_id())
     and x.id = coalesce(
       (select r.repository_id from public.runs r where r.tenant_id = (select bullpen.tenant_id()) and r.run_key = bullpen.run_key()),
       (select y.id from public.repositories y
         where y.tenant_id = (select bullpen.tenant_id())
           and y.remote_key = bullpen.normalize_remote(nullif(bullpen.claims() ->> 'repo', '')) ->> 'key'));
  return v;
end
$$;

/** project_brief's provenance sections: linked repositories and whether the caller's run is in one. */
create or replace function bullpen.brief_provenance(pr public.projects, p jsonb) returns jsonb
language plpgsql stable
as $$
declare
  v_here public.repositories := bullpen.caller_repository();
  v_repos jsonb;
  v_match jsonb;
begin
  select coalesce(jsonb_agg(bullpen.repository_json(x) || jsonb_build_object('role', l.role, 'linked_at', l.created_at)
           order by case l.role when 'primary' then 0 when 'dependency' then 1 else 2 end, x.remote_key), '[]')
    into v_repos
    from public.project_repositories l
    join public.repositories x on x.tenant_id = l.tenant_id and x.id = l.repository_id
   where l.tenant_id = pr.tenant_id and l.project_id = pr.id;
  if v_here.id is not null then
    select jsonb_build_object('repository_id', l.repository_id, 'slug', v_here.owner || '/' || v_here.name, 'role', l.role)
      into v_match
      from public.project_repositories l
     where l.tenant_id = pr.tenant_id and l.project_id = pr.id and l.repository_id = v_here.id;
  end if;
  return jsonb_build_object(
    'repositories', v_repos,
    'current_repository', case when v_here.id is not null then bullpen.repository_json(v_here) end,
    'in_repository', case when v_here.id is null then null else v_match is not null end,
    'repo_match', v_match);
end
$$;

/** The projects linked to any of these repositories, in the caller's workspace. */
create or replace function bullpen.projects_in_repositories(p_repository_ids uuid[]) returns uuid[]
language sql stable
as $$
  select coalesce(array_agg(distinct l.project_id), '{}'::uuid[])
    from public.project_repositories l
   where l.tenant_id = (select bullpen.tenant_id()) and l.repository_id = any (p_repository_ids)
$$;

-- ---------------------------------------------------------------------------------------------
-- Runs: run_fork, run_heartbeat, run_end, run_query, run_get, run_summary
-- ---------------------------------------------------------------------------------------------

create or replace function public.run_fork(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_me uuid := bullpen.require_actor();
  v_parent public.runs;
  v_key text;
  v_child public.runs;
begin
  v_replay := bullpen.idem_begin('run_fork', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_parent := bullpen.current_run('run_fork');
  v_key := coalesce(p ->> 'run_key', left(v_parent.run_key, 110) || '.f-' || substr(md5(gen_random_uuid()::text), 1, 8));
  insert into public.runs (tenant_id, run_key, actor_id, kind, parent_run_key, parent_run_id, label, goal, agent_role,
                           repository_id, branch, head_sha)
  values (v_parent.tenant_id, v_key, v_me, 'subagent', v_parent.run_key, v_parent.id, p ->> 'label', p ->> 'goal',
          p ->> 'agent_role', v_parent.repository_id, v_parent.branch, v_parent.head_sha)
  on conflict (tenant_id, run_key) do nothing
  returning * into v_child;
  if v_child.id is null then
    perform bullpen.fail('ALREADY_EXISTS', format('run_key: a run %s already exists', v_key),
      'omit run_key to get a fresh one, or choose another');
  end if;
  perform bullpen.log('run.forked', 'run', v_child.id, null,
    format('%s forked from %s', coalesce(v_child.label, v_child.run_key), v_parent.run_key),
    jsonb_build_object('parent_run_id', v_parent.id, 'parent_run_key', v_parent.run_key));
  return bullpen.idem_finish(p, jsonb_build_object(
    'run', bullpen.run_json(v_child), 'run_key', v_child.run_key, 'parent_run_id', v_parent.id,
    'env', jsonb_build_object('BULLPEN_RUN_ID', v_child.run_key, 'BULLPEN_PARENT_RUN_ID', v_parent.run_key),
    'headers', jsonb_build_object('X-Bullpen-Run', v_child.run_key, 'X-Bullpen-Parent-Run', v_parent.run_key)));
end
$$;
alter function public.run_fork(jsonb) owner to bullpen_writer;

/** The run a heartbeat or end names: run_key, or the caller's current run. Only its actor moves it. */
create or replace function bullpen.own_run_for_update(p jsonb, p_tool text) returns public.runs
language plpgsql
as $$
declare
  v public.runs;
begin
  if p ->> 'run_key' is null or p ->> 'run_key' = bullpen.run_key() then
    v := bullpen.current_run('run_key');
  else
    v := bullpen.resolve_run(p ->> 'run_key', 'run_key');
  end if;
  select * into v from public.runs r where r.tenant_id = v.tenant_id and r.id = v.id for update;
  if v.actor_id <> bullpen.actor_id() then
    perform bullpen.fail('FORBIDDEN', format('run %s belongs to another actor', v.run_key),
      format('only the actor that runs it may call %s on it', p_tool), jsonb_build_object('actor_id', v.actor_id));
  end if;
  return v;
end
$$;

create or replace function public.run_heartbeat(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_run public.runs;
  v_repo uuid;
  v_usage jsonb;
  v_revived boolean;
  v_stop jsonb;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('run_heartbeat', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_run := bullpen.own_run_for_update(p, 'run_heartbeat');
  if v_run.status in ('succeeded', 'failed', 'cancelled') then
    perform bullpen.fail('CONFLICT', format('run %s has ended (%s)', v_run.run_key, v_run.status),
      'a finished run takes no heartbeats: start a new run (a new X-Bullpen-Run)', jsonb_build_object('status', v_run.status));
  end if;
  v_revived := v_run.status in ('abandoned', 'idle');
  if p ->> 'remote_url' is not null then
    v_repo := (bullpen.repository_for_remote(p ->> 'remote_url', 'remote_url')).id;
  end if;
  v_usage := v_run.usage;
  if p ? 'usage' then
    v_usage := bullpen.merge_usage(v_run.usage, bullpen.usage_with_default_model(p -> 'usage', (select a.default_model from public.actors a where a.tenant_id = v_run.tenant_id and a.id = v_run.actor_id)));
    select coalesce(sum((u.value ->> 'tokens_in')::bigint), 0), coalesce(sum((u.value ->> 'tokens_out')::bigint), 0),
           coalesce(sum((u.value ->> 'cost_usd')::numeric), 0)
      into v_run.tokens_in, v_run.tokens_out, v_run.cost_usd from jsonb_each(v_usage) u;
  end if;
  update public.runs r set
    status = 'running', ended_at = null, end_reason = null,
    head_sha = coalesce(lower(p ->> 'head_sha'), r.head_sha),
    branch = coalesce(p ->> 'branch', r.branch),
    dirty = case when p ? 'dirty' then (p ->> 'dirty')::boolean else r.dirty end,
    counts = case when p ? 'counts' then p -> 'counts' else r.counts end,
    repository_id = coalesce(v_repo, r.repository_id),
    usage = v_usage, tokens_in = v_run.tokens_in, tokens_out = v_run.tokens_out, cost_usd = v_run.cost_usd,
    last_heartbeat_at = now(), last_active_at = now()
  where r.tenant_id = v_run.tenant_id and r.id = v_run.id
  returning * into v_run;
  -- liveness is state, not news: only a return from the dead is written to the log
  if v_revived then
    perform bullpen.log('run.resumed', 'run', v_run.id, null, format('%s is alive again', v_run.run_key));
  end if;
  -- costs (0027): the report goes into the usage ledger; a spent budget answers stop
  v_stop := bullpen.usage_after_report(v_run, p);
  return bullpen.idem_finish(p, jsonb_build_object('run', bullpen.run_json(v_run), 'revived', v_revived,
    'heartbeat_within_seconds', 600) || v_stop);
end
$$;
alter function public.run_heartbeat(jsonb) owner to bullpen_writer;

create or replace function public.run_end(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_run public.runs;
  v_usage jsonb;
  v_released jsonb := '[]';
  v_held jsonb;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('run_end', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_run := bullpen.own_run_for_update(p, 'run_end');
  if v_run.status in ('succeeded', 'failed', 'cancelled') then
    if v_run.status = p ->> 'status' then
      return bullpen.idem_finish(p, jsonb_build_object('run', bullpen.run_json(v_run), 'already_ended', true,
        'released', '[]'::jsonb, 'held_tasks', '[]'::jsonb));
    end if;
    perform bullpen.fail('CONFLICT', format('run %s already ended as %s', v_run.run_key, v_run.status),
      'a run ends once', jsonb_build_object('status', v_run.status));
  end if;
  v_usage := case when p ? 'usage' then bullpen.merge_usage(v_run.usage, bullpen.usage_with_default_model(p -> 'usage', (select a.default_model from public.actors a where a.tenant_id = v_run.tenant_id and a.id = v_run.actor_id))) else v_run.usage end;
  update public.runs r set
    status = p ->> 'status', ended_at = now(), end_reason = 'ended by its actor',
    counts = case when p ? 'counts' then p -> 'counts' else r.counts end,
    summary = coalesce(p ->> 'summary', r.summary),
    usage = v_usage,
    tokens_in = bullpen.usage_total(v_usage, 'tokens_in')::bigint,
    tokens_out = bullpen.usage_total(v_usage, 'tokens_out')::bigint,
    cost_usd = bullpen.usage_total(v_usage, 'cost_usd'),
    last_active_at = now()
  where r.tenant_id = v_run.tenant_id and r.id = v_run.id
  returning * into v_run;
  -- costs (0027): the report goes into the usage ledger; the run's reservations end with it
  perform bullpen.usage_after_report(v_run, p);
  perform bullpen.reservations_release(v_run);
  perform bullpen.log('run.ended', 'run', v_run.id, null,
    format('%s %s', v_run.run_key, v_run.status) || coalesce(': ' || left(v_run.summary, 200), ''),
    jsonb_build_object('status', v_run.status, 'tokens_in', v_run.tokens_in, 'tokens_out', v_run.tokens_out,
                       'cost_usd', v_run.cost_usd));
  if coalesce((p ->> 'release_leases')::boolean, false) then
    v_released := bullpen.release_run_leases(v_run, format('run %s ended (%s); lease released', v_run.run_key, v_run.status));
  end if;
  select coalesce(jsonb_agg(jsonb_build_object('task_id', t.id, 'ref', pr.key || '-' || t.seq, 'title', t.title,
           'lease_expires_at', t.lease_expires_at) order by t.seq), '[]')
    into v_held
    from public.tasks t join public.projects pr on pr.tenant_id = t.tenant_id and pr.id = t.project_id
   where t.tenant_id = v_run.tenant_id and t.lease_run_key = v_run.run_key and t.lease_actor_id = v_run.actor_id
     and t.status = 'in_progress';
  return bullpen.idem_finish(p, jsonb_build_object('run', bullpen.run_json(v_run), 'already_ended', false,
    'released', v_released, 'held_tasks', v_held));
end
$$;
alter function public.run_end(jsonb) owner to bullpen_writer;

-- Newest first, keyset-paginated by (started_at, id).
create or replace function public.run_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_cursor jsonb := bullpen.ts_cursor_arg(p);
  v_full boolean := coalesce(p ->> 'detail', 'summary') = 'full';
  v_statuses text[] := case jsonb_typeof(p -> 'status') when 'array' then bullpen.text_array(p -> 'status')
                                                        when 'string' then array[p ->> 'status'] end;
  v_root uuid[];
  v_rows jsonb;
  v_last jsonb;
  v_more boolean;
begin
  perform bullpen.require_actor();
  if p ->> 'actor_id' is not null then
    perform bullpen.require_actor_in_tenant(bullpen.uuid_arg(p, 'actor_id'), 'actor_id');
  end if;
  if p ->> 'root_run_id' is not null then
    v_root := array(select s.id from bullpen.run_subtree(v_tenant, (bullpen.resolve_run(p ->> 'root_run_id', 'root_run_id')).id) s);
  end if;
  with page as (
    select r from public.runs r
     where r.tenant_id = v_tenant
       and (p ->> 'actor_id' is null or r.actor_id = (p ->> 'actor_id')::uuid)
       and (v_statuses is null or r.status = any (v_statuses))
       and (p ->> 'kind' is null or r.kind = p ->> 'kind')
       and (p ->> 'run_series_key' is null or r.run_series_key = p ->> 'run_series_key')
       and (v_root is null or r.id = any (v_root))
       and (p ->> 'since' is null or r.started_at >= (p ->> 'since')::timestamptz)
       and (v_cursor is null or (r.started_at, r.id) < ((v_cursor ->> 't')::timestamptz, (v_cursor ->> 'i')::uuid))
     order by r.started_at desc, r.id desc
     limit v_limit + 1
  ), numbered as (
    select page.*, row_number() over (order by (page.r).started_at desc, (page.r).id desc) as rn from page
  )
  select coalesce(jsonb_agg(bullpen.run_json(r) || case when v_full
            then jsonb_build_object('produced', bullpen.run_counts(v_tenant, array[(r).id])) else '{}'::jsonb end
           order by rn) filter (where rn <= v_limit), '[]'),
         (array_agg(jsonb_build_object('t', (r).started_at, 'i', (r).id)) filter (where rn = v_limit))[1],
         count(*) > v_limit
    into v_rows, v_last, v_more
    from numbered;
  return jsonb_build_object('runs', v_rows,
    'next_cursor', case when v_more then bullpen.ts_cursor((v_last ->> 't')::timestamptz, v_last ->> 'i') end);
end
$$;
alter function public.run_query(jsonb) owner to bullpen_writer;

/** The run a read names (run_id or run_key, uuid or key), else the caller's current run. */
create or replace function bullpen.named_run(p jsonb) returns public.runs
language plpgsql stable
as $$
declare
  v public.runs;
begin
  if p ->> 'run_id' is not null then
    return bullpen.resolve_run(p ->> 'run_id', 'run_id');
  elsif p ->> 'run_key' is not null then
    return bullpen.resolve_run(p ->> 'run_key', 'run_key');
  end if;
  if bullpen.run_key() is null then
    perform bullpen.fail('VALIDATION_ERROR', 'run_id: you have no current run', 'name a run with run_id or run_key');
  end if;
  select * into v from public.runs r where r.tenant_id = (select bullpen.tenant_id()) and r.run_key = bullpen.run_key();
  if v.id is null then
    perform bullpen.fail('NOT_FOUND', format('run_id: your current run %s is not registered yet', bullpen.run_key()),
      'a run registers at its first write or whoami');
  end if;
  return v;
end
$$;

create or replace function public.run_get(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_run public.runs;
  v_out jsonb;
begin
  perform bullpen.require_actor();
  if p ->> 'run_id' is not null and p ->> 'run_key' is not null then
    perform bullpen.fail('VALIDATION_ERROR', 'run_id, run_key: name the run one way', 'pass run_id or run_key, not both');
  end if;
  v_run := bullpen.named_run(p);
  v_out := jsonb_build_object('run', bullpen.run_json(v_run),
    'parent', (select jsonb_build_object('id', x.id, 'run_key', x.run_key, 'kind', x.kind, 'status', x.status)
                 from public.runs x where x.tenant_id = v_run.tenant_id and x.id = v_run.parent_run_id),
    'children_count', (select count(*) from public.runs x where x.tenant_id = v_run.tenant_id and x.parent_run_id = v_run.id));
  if coalesce((p ->> 'include_children')::boolean, false) then
    v_out := v_out || jsonb_build_object('subtree', (
      select coalesce(jsonb_agg(bullpen.run_json(r) || jsonb_build_object('depth', s.depth)
               order by s.depth, r.started_at, r.id), '[]')
        from bullpen.run_subtree(v_run.tenant_id, v_run.id) s
        join public.runs r on r.tenant_id = v_run.tenant_id and r.id = s.id
       where s.depth > 0));
  end if;
  return v_out;
end
$$;
alter function public.run_get(jsonb) owner to bullpen_writer;

create or replace function public.run_summary(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_run public.runs;
  v_ids uuid[];
  v_out jsonb;
  v_sub record;
begin
  perform bullpen.require_actor();
  v_run := bullpen.named_run(p);
  v_out := jsonb_build_object(
    'run', bullpen.run_json(v_run),
    'duration_seconds', floor(extract(epoch from (coalesce(v_run.ended_at, now()) - v_run.started_at)))::bigint,
    'counts', bullpen.run_counts(v_run.tenant_id, array[v_run.id]),
    'usage', jsonb_build_object('tokens_in', v_run.tokens_in, 'tokens_out', v_run.tokens_out, 'cost_usd', v_run.cost_usd,
      'by_model', coalesce((select jsonb_agg(jsonb_build_object('model', key) || value order by key)
                              from jsonb_each(v_run.usage)), '[]')),
    'reported_counts', v_run.counts);
  if coalesce((p ->> 'include_children')::boolean, false) then
    v_ids := array(select s.id from bullpen.run_subtree(v_run.tenant_id, v_run.id) s);
    select count(*) as runs, coalesce(sum(r.tokens_in), 0) as tokens_in, coalesce(sum(r.tokens_out), 0) as tokens_out,
           coalesce(sum(r.cost_usd), 0) as cost_usd
      into v_sub
      from public.runs r where r.tenant_id = v_run.tenant_id and r.id = any (v_ids);
    v_out := v_out || jsonb_build_object('subtree', jsonb_build_object('runs', v_sub.runs,
      'counts', bullpen.run_counts(v_run.tenant_id, v_ids),
      'usage', jsonb_build_object('tokens_in', v_sub.tokens_in, 'tokens_out', v_sub.tokens_out, 'cost_usd', v_sub.cost_usd)));
  end if;
  return v_out;
end
$$;
alter function public.run_summary(jsonb) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- Repositories: repo_register, repo_link, repo_query
-- ---------------------------------------------------------------------------------------------

/**
 * Resolve-or-register. A remote_url (or host/owner/name, or slug) names the repository; with none
 * of them (or autodetect) it is the one the caller stands in: the current run's repository, or the
 * remote the client sent in X-Bullpen-Repo (the CLI detects it with git). Registering from where
 * the caller stands also sets the current run's repository.
 */
create or replace function public.repo_register(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_remote text := p ->> 'remote_url';
  v_field text := 'remote_url';
  v_owner text := p ->> 'owner';
  v_name text := p ->> 'name';
  v_here boolean := false;
  v_repo public.repositories;
  v_before timestamptz;
  v_run public.runs;
  v_created boolean;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('repo_register', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if v_remote is null and p ->> 'slug' is not null then
    if p ->> 'slug' !~ '^[^/\s]+(/[^/\s]+)+$' then
      perform bullpen.fail('VALIDATION_ERROR', format('slug: expected owner/name, got %s', p ->> 'slug'));
    end if;
    v_owner := coalesce(v_owner, regexp_replace(p ->> 'slug', '/[^/]+$', ''));
    v_name := coalesce(v_name, regexp_replace(p ->> 'slug', '^.*/', ''));
    v_field := 'slug';
  end if;
  if v_remote is null and (v_owner is not null or v_name is not null) then
    if v_owner is null or v_name is null then
      perform bullpen.fail('VALIDATION_ERROR', format('%s is required with %s', case when v_owner is null then 'owner' else 'name' end,
        case when v_owner is null then 'name' else 'owner' end), 'pass owner and name (host defaults to github.com), or remote_url');
    end if;
    v_remote := 'https://' || lower(coalesce(p ->> 'host', 'github.com')) || '/' || v_owner || '/' || v_name;
    if v_field = 'remote_url' then
      v_field := 'owner';
    end if;
  end if;
  if v_remote is null and (p -> 'autodetect') = 'false'::jsonb then
    perform bullpen.fail('VALIDATION_ERROR', 'remote_url is required with autodetect: false',
      'pass remote_url, slug, or owner and name; or leave autodetect out to register the repository you stand in');
  end if;
  if v_remote is null then
    v_here := true;
    v_remote := nullif(bullpen.claims() ->> 'repo', '');
    v_field := 'X-Bullpen-Repo';
    if v_remote is null and bullpen.run_key() is not null then
      select x.remote_url into v_remote from public.runs r
        join public.repositories x on x.tenant_id = r.tenant_id and x.id = r.repository_id
       where r.tenant_id = (select bullpen.tenant_id()) and r.run_key = bullpen.run_key();
    end if;
    if v_remote is null then
      perform bullpen.fail('VALIDATION_ERROR', 'remote_url: cannot tell which repository you stand in',
        'Bullpen cannot see your working directory over MCP: pass remote_url (`git remote get-url origin`), send the '
        || 'X-Bullpen-Repo header, report remote_url in run_heartbeat, or run `bullpen repo register` inside the repository');
    end if;
  end if;
  select x.created_at into v_before from public.repositories x
   where x.tenant_id = (select bullpen.tenant_id()) and x.remote_key = bullpen.normalize_remote(v_remote) ->> 'key';
  v_repo := bullpen.repository_for_remote(v_remote, v_field, p ->> 'default_branch');
  v_created := v_before is null;
  if v_here and bullpen.run_key() is not null then
    v_run := bullpen.ensure_run(bullpen.run_key());
    update public.runs r set repository_id = v_repo.id where r.tenant_id = v_run.tenant_id and r.id = v_run.id
       and r.repository_id is distinct from v_repo.id;
  end if;
  return bullpen.idem_finish(p, jsonb_build_object('repository', bullpen.repository_json(v_repo), 'repository_id', v_repo.id,
    'created', v_created, 'current_run', v_here and bullpen.run_key() is not null));
end
$$;
alter function public.repo_register(jsonb) owner to bullpen_writer;

create or replace function public.repo_link(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_project public.projects;
  v_repo public.repositories;
  v_role text := coalesce(p ->> 'role', 'primary');
  v_before text;
  v_removed boolean := coalesce((p ->> 'remove')::boolean, false);
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('repo_link', p);
  if v_replay is not null then
    return v_replay;
  end if;
  v_project := bullpen.resolve_project(p ->> 'project_id');
  if p ->> 'repository_id' is not null and p ->> 'repo_slug' is not null then
    perform bullpen.fail('VALIDATION_ERROR', 'repository_id, repo_slug: name the repository one way');
  end if;
  v_repo := bullpen.resolve_repository(p ->> 'repository_id', p ->> 'repo_slug',
    case when p ->> 'repository_id' is not null then 'repository_id' else 'repo_slug' end);
  select l.role into v_before from public.project_repositories l
   where l.tenant_id = v_project.tenant_id and l.project_id = v_project.id and l.repository_id = v_repo.id for update;
  if v_removed then
    delete from public.project_repositories l
     where l.tenant_id = v_project.tenant_id and l.project_id = v_project.id and l.repository_id = v_repo.id;
    perform bullpen.log('repo.unlinked', 'project', v_project.id, v_project.id, v_repo.owner || '/' || v_repo.name,
      jsonb_build_object('repository_id', v_repo.id, 'was_linked', v_before is not null));
  else
    insert into public.project_repositories as l (tenant_id, project_id, repository_id, role, linked_by_actor_id)
    values (v_project.tenant_id, v_project.id, v_repo.id, v_role, bullpen.actor_id())
    on conflict (tenant_id, project_id, repository_id) do update set role = excluded.role;
    perform bullpen.log('repo.linked', 'project', v_project.id, v_project.id,
      format('%s (%s)', v_repo.owner || '/' || v_repo.name, v_role),
      jsonb_build_object('repository_id', v_repo.id, 'role', v_role, 'previous_role', v_before));
  end if;
  return bullpen.idem_finish(p, jsonb_build_object(
    'project_id', v_project.id, 'project_key', v_project.key, 'repository', bullpen.repository_json(v_repo),
    'linked', not v_removed, 'role', case when v_removed then null else v_role end, 'previous_role', v_before,
    'created', not v_removed and v_before is null));
end
$$;
alter function public.repo_link(jsonb) owner to bullpen_writer;

create or replace function public.repo_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_after text := bullpen.cursor_arg(p);
  v_project uuid;
  v_slug text := lower(btrim(p ->> 'slug', '/'));
  v_rows jsonb;
  v_last text;
  v_more boolean;
begin
  perform bullpen.require_actor();
  if p ->> 'project_id' is not null then
    v_project := (bullpen.resolve_project(p ->> 'project_id')).id;
  end if;
  with page as (
    select x from public.repositories x
     where x.tenant_id = v_tenant
       and (p ->> 'repository_id' is null or x.id = bullpen.uuid_arg(p, 'repository_id'))
       and (v_slug is null or lower(x.owner || '/' || x.name) = v_slug or x.remote_key = v_slug)
       and (p ->> 'host' is null or x.host = lower(p ->> 'host'))
       and (p ->> 'q' is null or x.remote_key ilike '%' || bullpen.like_escape(p ->> 'q') || '%')
       and (v_project is null or exists (select 1 from public.project_repositories l
                                          where l.tenant_id = x.tenant_id and l.project_id = v_project and l.repository_id = x.id))
       and (v_after is null or x.remote_key > v_after)
     order by x.remote_key
     limit v_limit + 1
  ), numbered as (
    select page.*, row_number() over (order by (page.x).remote_key) as rn from page
  )
  select coalesce(jsonb_agg(bullpen.repository_json(x) || jsonb_build_object(
             'projects', (select coalesce(jsonb_agg(jsonb_build_object('project_id', pr.id, 'key', pr.key, 'title', pr.title,
                            'role', l.role) order by pr.key), '[]')
                            from public.project_repositories l
                            join public.projects pr on pr.tenant_id = l.tenant_id and pr.id = l.project_id
                           where l.tenant_id = (x).tenant_id and l.repository_id = (x).id))
           order by rn) filter (where rn <= v_limit), '[]'),
         max((x).remote_key) filter (where rn = v_limit),
         count(*) > v_limit
    into v_rows, v_last, v_more
    from numbered;
  return jsonb_build_object('repositories', v_rows,
    'next_cursor', case when v_more then encode(convert_to(v_last, 'utf8'), 'base64') end);
end
$$;
alter function public.repo_query(jsonb) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- Code refs: task_code_ref, code_ref_add, code_ref_update, code_ref_query
-- ---------------------------------------------------------------------------------------------

/**
 * Adds (or refreshes) a code ref on an object. Repository, branch and sha default from the run
 * (the named run_id, else the caller's current run); the repository also from the project's only
 * primary repository. The same commit, branch, PR, tag or compare view on the same object is one
 * row: adding it again updates what was given.
 */
create or replace function bullpen.code_ref_upsert(p jsonb, p_object_type text, p_object_ref text, p_tool text)
returns jsonb
language plpgsql
as $$
declare
  v_obj jsonb := bullpen.resolve_object(p_object_type, p_object_ref, case when p_tool = 'task_code_ref' then 'task_id' else 'object_id' end);
  v_type text := p ->> 'ref_type';
  v_run public.runs;
  v_repo uuid;
  v_sha text := lower(p ->> 'sha');
  v_branch text := p ->> 'branch';
  v_pr int := (p ->> 'pr_number')::int;
  v_ref public.code_refs;
  v_created boolean;
  v_verb text;
  v_label text;
begin
  if p ->> 'run_id' is not null then
    v_run := bullpen.resolve_run(p ->> 'run_id', 'run_id');
  elsif bullpen.run_key() is not null then
    v_run := bullpen.ensure_run(bullpen.run_key());
  end if;
  if p ->> 'repository_id' is not null then
    v_repo := (bullpen.resolve_repository(p ->> 'repository_id', null)).id;
  else
    v_repo := v_run.repository_id;
    if v_repo is null and v_obj ->> 'project_id' is not null then
      select min(l.repository_id::text)::uuid into v_repo from public.project_repositories l
       where l.tenant_id = (select bullpen.tenant_id()) and l.project_id = (v_obj ->> 'project_id')::uuid and l.role = 'primary'
      having count(*) = 1;
    end if;
  end if;
  if v_branch is null and v_type in ('commit', 'branch', 'pr') then
    v_branch := v_run.branch;
  end if;
  if v_sha is null and v_type in ('commit', 'tag') then
    v_sha := v_run.head_sha;
  end if;
  if v_pr is null and v_type = 'pr' and p ->> 'pr_url' is not null then
    v_pr := (regexp_match(p ->> 'pr_url', '/(?:pull|pulls|merge_requests|pull-requests)/([0-9]{1,9})(?:[/?#]|$)'))[1]::int;
  end if;
  if v_type = 'commit' and v_sha is null then
    perform bullpen.fail('VALIDATION_ERROR', 'sha: required for a commit ref (none given, and your run reported no head_sha)',
      'pass sha, or report head_sha with run_heartbeat first');
  elsif v_type = 'branch' and v_branch is null then
    perform bullpen.fail('VALIDATION_ERROR', 'branch: required for a branch ref (none given, and your run reported no branch)',
      'pass branch, or report it with run_heartbeat first');
  elsif v_type = 'pr' and v_pr is null and p ->> 'pr_url' is null then
    perform bullpen.fail('VALIDATION_ERROR', 'pr_number: required for a pr ref (or pr_url)', 'pass pr_number or pr_url');
  elsif v_type = 'tag' and p ->> 'tag' is null then
    perform bullpen.fail('VALIDATION_ERROR', 'tag: required for a tag ref', 'pass the tag name');
  elsif v_type = 'compare' and p ->> 'url' is null then
    perform bullpen.fail('VALIDATION_ERROR', 'url: required for a compare ref', 'pass the compare view''s URL');
  end if;
  if p ->> 'pr_state' is not null and v_type <> 'pr' then
    perform bullpen.fail('VALIDATION_ERROR', format('pr_state: only pr refs have a state, this is a %s ref', v_type));
  end if;
  insert into public.code_refs as c (tenant_id, object_type, object_id, task_id, project_id, repository_id, ref_type, sha,
                                     branch, tag, pr_number, pr_url, pr_state, title, url, run_id, created_by_actor_id, files)
  values (bullpen.tenant_id(), v_obj ->> 'object_type', (v_obj ->> 'object_id')::uuid, (v_obj ->> 'task_id')::uuid,
          (v_obj ->> 'project_id')::uuid, v_repo, v_type, v_sha, v_branch, p ->> 'tag', v_pr, p ->> 'pr_url',
          case when v_type = 'pr' then coalesce(p ->> 'pr_state', 'open') end, p ->> 'title', p ->> 'url', v_run.id,
          bullpen.actor_id(),
          -- the paths the work touches (0030, the code graph's collision warning)
          array(select distinct bullpen.code_path(x) from jsonb_array_elements_text(coalesce(p -> 'files', '[]')) x
                 where bullpen.code_path(x) is not null order by 1))
  on conflict (tenant_id, object_type, object_id, ref_key) do update set
    sha = coalesce(lower(p ->> 'sha'), c.sha),
    branch = coalesce(p ->> 'branch', c.branch),
    pr_url = coalesce(excluded.pr_url, c.pr_url),
    pr_state = coalesce(p ->> 'pr_state', c.pr_state),
    title = coalesce(excluded.title, c.title),
    url = coalesce(excluded.url, c.url),
    files = case when p ? 'files' then excluded.files else c.files end,
    updated_at = now()
  returning c.id, (c.xmax = 0) into v_ref.id, v_created;
  select * into v_ref from public.code_refs c where c.tenant_id = (select bullpen.tenant_id()) and c.id = v_ref.id;
  v_label := case v_type when 'pr' then coalesce('PR #' || v_ref.pr_number, 'PR') when 'commit' then 'commit ' || left(v_ref.sha, 7)
                         when 'branch' then 'branch ' || v_ref.branch when 'tag' then 'tag ' || v_ref.tag else 'compare view' end;
  v_verb := case when v_created then 'code_ref.added' else 'code_ref.updated' end;
  perform bullpen.log(v_verb, v_obj ->> 'object_type', (v_obj ->> 'object_id')::uuid, (v_obj ->> 'project_id')::uuid,
    format('%s on %s', v_label || coalesce(' (' || v_ref.pr_state || ')', '') || coalesce(': ' || v_ref.title, ''), v_obj ->> 'label'),
    jsonb_build_object('code_ref_id', v_ref.id, 'ref_type', v_type, 'pr_state', v_ref.pr_state, 'sha', v_ref.sha));
  return jsonb_build_object('code_ref_id', v_ref.id, 'code_ref', bullpen.code_ref_json(v_ref), 'created', v_created);
end
$$;

create or replace function public.task_code_ref(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('task_code_ref', p);
  if v_replay is not null then
    return v_replay;
  end if;
  return bullpen.idem_finish(p, bullpen.code_ref_upsert(p, 'task', p ->> 'task_id', 'task_code_ref'));
end
$$;
alter function public.task_code_ref(jsonb) owner to bullpen_writer;

create or replace function public.code_ref_add(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('code_ref_add', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if p ->> 'object_type' not in ('task', 'decision', 'note', 'project') then
    perform bullpen.fail('VALIDATION_ERROR', format('object_type: code refs attach to a task, decision, note or project, not %s',
      coalesce(p ->> 'object_type', 'null')));
  end if;
  return bullpen.idem_finish(p, bullpen.code_ref_upsert(p, p ->> 'object_type', p ->> 'object_id', 'code_ref_add'));
end
$$;
alter function public.code_ref_add(jsonb) owner to bullpen_writer;

create or replace function public.code_ref_update(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_patch jsonb := coalesce(p -> 'patch', '{}');
  v_before public.code_refs;
  v_ref public.code_refs;
  v_verb text;
  v_fields text[];
  v_label text;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('code_ref_update', p);
  if v_replay is not null then
    return v_replay;
  end if;
  select * into v_before from public.code_refs c
   where c.tenant_id = (select bullpen.tenant_id()) and c.id = bullpen.uuid_arg(p, 'code_ref_id') for update;
  if v_before.id is null then
    perform bullpen.fail('NOT_FOUND', format('code_ref_id: no code ref %s in this workspace', p ->> 'code_ref_id'),
      'find code refs with code_ref_query or task_get');
  end if;
  if v_patch ? 'pr_state' and v_before.ref_type <> 'pr' then
    perform bullpen.fail('VALIDATION_ERROR', format('patch.pr_state: only pr refs have a state, this is a %s ref', v_before.ref_type));
  end if;
  select array_agg(k order by k) into v_fields from jsonb_object_keys(v_patch) k;
  update public.code_refs c set
    pr_state = case when v_patch ? 'pr_state' then v_patch ->> 'pr_state' else c.pr_state end,
    sha = case when v_patch ? 'sha' then lower(v_patch ->> 'sha') else c.sha end,
    title = case when v_patch ? 'title' then v_patch ->> 'title' else c.title end,
    url = case when v_patch ? 'url' then v_patch ->> 'url' else c.url end,
    updated_at = now()
  where c.tenant_id = v_before.tenant_id and c.id = v_before.id
  returning * into v_ref;
  v_verb := case
    when v_ref.pr_state is distinct from v_before.pr_state and v_ref.pr_state = 'merged' then 'pr.merged'
    when v_ref.pr_state is distinct from v_before.pr_state and v_ref.pr_state = 'closed' then 'pr.closed'
    else 'code_ref.updated' end;
  v_label := case v_ref.ref_type when 'pr' then coalesce('PR #' || v_ref.pr_number, 'PR') when 'commit' then 'commit ' || left(v_ref.sha, 7)
                                 when 'branch' then 'branch ' || v_ref.branch when 'tag' then 'tag ' || v_ref.tag else 'compare view' end;
  perform bullpen.log(v_verb, v_ref.object_type, v_ref.object_id, v_ref.project_id,
    case v_verb when 'pr.merged' then v_label || ' merged' when 'pr.closed' then v_label || ' closed'
                else v_label || ': ' || coalesce(array_to_string(v_fields, ', '), 'no change') end,
    jsonb_build_object('code_ref_id', v_ref.id, 'fields', to_jsonb(coalesce(v_fields, '{}')),
                       'from', v_before.pr_state, 'to', v_ref.pr_state));
  return bullpen.idem_finish(p, jsonb_build_object('code_ref', bullpen.code_ref_json(v_ref),
    'changed', to_jsonb(coalesce(v_fields, '{}')), 'previous_pr_state', v_before.pr_state));
end
$$;
alter function public.code_ref_update(jsonb) owner to bullpen_writer;

create or replace function public.code_ref_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_tenant uuid := bullpen.tenant_id();
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_cursor jsonb := bullpen.ts_cursor_arg(p);
  v_object uuid;
  v_repo uuid;
  v_run uuid;
  v_rows jsonb;
  v_last jsonb;
  v_more boolean;
begin
  perform bullpen.require_actor();
  if p ->> 'object_id' is not null then
    v_object := (bullpen.resolve_object(coalesce(p ->> 'object_type', 'task'), p ->> 'object_id') ->> 'object_id')::uuid;
  end if;
  if p ->> 'repository_id' is not null then
    v_repo := (bullpen.resolve_repository(p ->> 'repository_id', null)).id;
  end if;
  if p ->> 'run_id' is not null then
    v_run := (bullpen.resolve_run(p ->> 'run_id', 'run_id')).id;
  end if;
  with page as (
    select c from public.code_refs c
     where c.tenant_id = v_tenant
       and (v_object is null or c.object_id = v_object)
       and (p ->> 'object_type' is null or c.object_type = p ->> 'object_type')
       and (v_repo is null or c.repository_id = v_repo)
       and (v_run is null or c.run_id = v_run)
       and (p ->> 'ref_type' is null or c.ref_type = p ->> 'ref_type')
       and (p ->> 'pr_state' is null or c.pr_state = p ->> 'pr_state')
       and (v_cursor is null or (c.created_at, c.id) < ((v_cursor ->> 't')::timestamptz, (v_cursor ->> 'i')::uuid))
     order by c.created_at desc, c.id desc
     limit v_limit + 1
  ), numbered as (
    select page.*, row_number() over (order by (page.c).created_at desc, (page.c).id desc) as rn from page
  )
  select coalesce(jsonb_agg(bullpen.code_ref_json(c) order by rn) filter (where rn <= v_limit), '[]'),
         (array_agg(jsonb_build_object('t', (c).created_at, 'i', (c).id)) filter (where rn = v_limit))[1],
         count(*) > v_limit
    into v_rows, v_last, v_more
    from numbered;
  return jsonb_build_object('code_refs', v_rows,
    'next_cursor', case when v_more then bullpen.ts_cursor((v_last ->> 't')::timestamptz, v_last ->> 'i') end);
end
$$;
alter function public.code_ref_query(jsonb) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- Attachments: attach_add, attach_remove, attachment_query
-- ---------------------------------------------------------------------------------------------

/**
 * Whether a text is a media type: type "/" subtype (RFC 6838 restricted names) with optional
 * ";" name "=" value parameters (a token or a quoted string of printable ASCII). No line breaks,
 * so it is safe in a Content-Type header.
 */
create or replace function bullpen.is_media_type(p text) returns boolean
language sql immutable
as $$
  select p ~ ('^[A-Za-z0-9][-A-Za-z0-9!#$&^_.+]{0,126}/[A-Za-z0-9][-A-Za-z0-9!#$&^_.+]{0,126}'
              || '( *; *[A-Za-z0-9][-A-Za-z0-9!#$&^_.+]{0,126}=([-A-Za-z0-9!#$%&''*+.^_`|~]+|"([] !#-[^-~]|\\[ -~])*"))*$')
$$;

/** A name with its control and bidirectional-formatting characters removed, trimmed. */
create or replace function bullpen.printable_name(p text) returns text
language sql immutable
as $$
  select btrim(regexp_replace(p, '[\u0001-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]', '', 'g'))
$$;

create or replace function public.attach_add(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_obj jsonb;
  v_att public.attachments;
  v_run uuid;
  v_file public.stored_files;
  v_filename text;
  v_title text;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('attach_add', p);
  if v_replay is not null then
    return v_replay;
  end if;
  -- the same rule as the input schema and the table's constraints, checked first for a clear message
  if p ->> 'kind' = 'link' and p ->> 'url' is null then
    perform bullpen.fail('VALIDATION_ERROR', 'url: required when kind is "link"', 'pass the link''s url');
  elsif p ->> 'kind' = 'file' and p ->> 'storage_path' is null then
    perform bullpen.fail('VALIDATION_ERROR', 'storage_path: required when kind is "file"',
      'upload the file with POST /api/files (it stores and attaches it in one request)');
  end if;
  if p ->> 'mime_type' is not null and not bullpen.is_media_type(p ->> 'mime_type') then
    perform bullpen.fail('VALIDATION_ERROR', 'mime_type: not a media type (type/subtype with optional ;name=value parameters, RFC 6838)',
      'e.g. "text/plain", "image/png" or "text/plain; charset=utf-8"');
  end if;
  -- names are shown to people: control and bidirectional-override characters are dropped
  v_filename := nullif(bullpen.printable_name(p ->> 'filename'), '');
  v_title := nullif(bullpen.printable_name(p ->> 'title'), '');
  if p ->> 'filename' is not null and v_filename is null then
    perform bullpen.fail('VALIDATION_ERROR', 'filename: nothing printable is left once control and bidirectional characters are removed',
      'name the file with letters, digits or punctuation');
  elsif p ->> 'title' is not null and v_title is null then
    perform bullpen.fail('VALIDATION_ERROR', 'title: nothing printable is left once control and bidirectional characters are removed',
      'give the attachment a title people can read');
  end if;
  if p ->> 'kind' = 'file' then
    -- only the server issues storage paths: bytes it stored for this workspace (upload or import)
    select * into v_file from public.stored_files f
     where f.tenant_id = (select bullpen.tenant_id()) and f.storage_path = p ->> 'storage_path';
    if v_file.storage_path is null then
      perform bullpen.fail('VALIDATION_ERROR',
        'storage_path: not a file this server stored in this workspace; storage paths are issued by the server',
        'upload the file with POST /api/files?object_type=…&object_id=… (it stores and attaches it in one request), '
          || 'or pass the storage_path of a file attachment of this workspace');
    end if;
  end if;
  v_obj := bullpen.resolve_object(p ->> 'object_type', p ->> 'object_id');
  if bullpen.run_key() is not null then
    v_run := (bullpen.ensure_run(bullpen.run_key())).id;
  end if;
  insert into public.attachments (tenant_id, object_type, object_id, task_id, project_id, kind, url, storage_path, title,
                                  filename, mime_type, size_bytes, created_by_actor_id, run_id)
  values (bullpen.tenant_id(), v_obj ->> 'object_type', (v_obj ->> 'object_id')::uuid, (v_obj ->> 'task_id')::uuid,
          (v_obj ->> 'project_id')::uuid, p ->> 'kind', p ->> 'url', p ->> 'storage_path', v_title, v_filename,
          coalesce(p ->> 'mime_type', v_file.mime_type),
          -- a stored file's size is what the server wrote, whatever the caller says
          coalesce(v_file.size_bytes, (p ->> 'size_bytes')::bigint), bullpen.actor_id(), v_run)
  returning * into v_att;
  perform bullpen.log('attachment.added', v_obj ->> 'object_type', v_att.object_id, v_att.project_id,
    format('%s on %s', coalesce(v_att.title, v_att.filename, v_att.url, v_att.kind), v_obj ->> 'label'),
    jsonb_build_object('attachment_id', v_att.id, 'kind', v_att.kind));
  return bullpen.idem_finish(p, jsonb_build_object('attachment_id', v_att.id, 'attachment', bullpen.attachment_json(v_att)));
end
$$;
alter function public.attach_add(jsonb) owner to bullpen_writer;

create or replace function public.attach_remove(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_att public.attachments;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('attach_remove', p);
  if v_replay is not null then
    return v_replay;
  end if;
  select * into v_att from public.attachments a
   where a.tenant_id = (select bullpen.tenant_id()) and a.id = bullpen.uuid_arg(p, 'attachment_id') for update;
  if v_att.id is null then
    perform bullpen.fail('NOT_FOUND', format('attachment_id: no attachment %s in this workspace', p ->> 'attachment_id'),
      'list attachments with attachment_query');
  end if;
  if v_att.created_by_actor_id <> bullpen.actor_id() and not bullpen.caller_is_owner() then
    perform bullpen.fail('FORBIDDEN', 'only whoever attached it, or a workspace owner, removes an attachment',
      'ask its author or an owner', jsonb_build_object('created_by_actor_id', v_att.created_by_actor_id));
  end if;
  if v_att.removed_at is not null then
    return bullpen.idem_finish(p, jsonb_build_object('removed', true, 'already_removed', true,
      'attachment', bullpen.attachment_json(v_att)));
  end if;
  update public.attachments a set removed_at = now(), removed_by_actor_id = bullpen.actor_id()
   where a.tenant_id = v_att.tenant_id and a.id = v_att.id
  returning * into v_att;
  perform bullpen.log('attachment.removed', v_att.object_type, v_att.object_id, v_att.project_id,
    coalesce(v_att.title, v_att.filename, v_att.url, v_att.kind), jsonb_build_object('attachment_id', v_att.id));
  return bullpen.idem_finish(p, jsonb_build_object('removed', true, 'already_removed', false,
    'attachment', bullpen.attachment_json(v_att)));
end
$$;
alter function public.attach_remove(jsonb) owner to bullpen_writer;

create or replace function public.attachment_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_cursor jsonb := bullpen.ts_cursor_arg(p);
  v_obj jsonb;
  v_rows jsonb;
  v_last jsonb;
  v_more boolean;
  v_removed boolean := coalesce((p ->> 'include_removed')::boolean, false);
begin
  perform bullpen.require_actor();
  v_obj := bullpen.resolve_object(p ->> 'object_type', p ->> 'object_id');
  with page as (
    select a from public.attachments a
     where a.tenant_id = (select bullpen.tenant_id()) and a.object_id = (v_obj ->> 'object_id')::uuid
       and a.object_type = v_obj ->> 'object_type'
       and (v_removed or a.removed_at is null)
       and (v_cursor is null or (a.created_at, a.id) < ((v_cursor ->> 't')::timestamptz, (v_cursor ->> 'i')::uuid))
     order by a.created_at desc, a.id desc
     limit v_limit + 1
  ), numbered as (
    select page.*, row_number() over (order by (page.a).created_at desc, (page.a).id desc) as rn from page
  )
  select coalesce(jsonb_agg(bullpen.attachment_json(a) order by rn) filter (where rn <= v_limit), '[]'),
         (array_agg(jsonb_build_object('t', (a).created_at, 'i', (a).id)) filter (where rn = v_limit))[1],
         count(*) > v_limit
    into v_rows, v_last, v_more
    from numbered;
  return jsonb_build_object('object_type', v_obj ->> 'object_type', 'object_id', v_obj ->> 'object_id', 'attachments', v_rows,
    'next_cursor', case when v_more then bullpen.ts_cursor((v_last ->> 't')::timestamptz, v_last ->> 'i') end);
end
$$;
alter function public.attachment_query(jsonb) owner to bullpen_writer;

/** The server's file routes: one live attachment of the caller's workspace by id (RLS applies). */
create or replace function bullpen.attachment_file(p_id uuid) returns jsonb
language sql stable
security definer
set search_path = ''
as $$
  select bullpen.attachment_json(a) || jsonb_build_object('tenant_id', a.tenant_id)
    from public.attachments a
   where a.tenant_id = (select bullpen.tenant_id()) and a.id = p_id and a.kind = 'file' and a.removed_at is null
$$;
alter function bullpen.attachment_file(uuid) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- Activity: activity_log, activity_query
-- ---------------------------------------------------------------------------------------------

/**
 * The verb families Bullpen writes itself; a milestone may not pose as one of them, so the log
 * cannot be forged. tests/db/people.test.ts reads every verb the SQL and the server write (and
 * every notification kind) out of the sources and fails when one of them is missing here.
 */
create or replace function bullpen.reserved_verb_families() returns text[]
language sql immutable
as $$
  select array['actor', 'attachment', 'backup', 'budget', 'code_graph', 'code_ref', 'comment', 'council', 'decision', 'export',
    'feature_request', 'handoff', 'import', 'inbox', 'job', 'key', 'knowledge', 'lease', 'link', 'memory', 'note', 'notification',
    'pr', 'project', 'repo', 'review', 'run', 'session', 'signin', 'skill', 'source', 'sweep', 'task', 'webhook', 'workflow',
    'workspace']
$$;

/** Whether a verb belongs to a family Bullpen writes itself (bullpen.reserved_verb_families). */
create or replace function bullpen.reserved_verb(p_verb text) returns boolean
language sql immutable
as $$
  select lower(split_part(p_verb, '.', 1)) = any (bullpen.reserved_verb_families())
$$;

create or replace function public.activity_log(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_me uuid := bullpen.require_actor();
  v_obj jsonb;
  v_run public.runs;
  v_run_key text := bullpen.run_id();
  v_hash text;
  v_row public.activity;
  v_dedup boolean := false;
begin
  v_replay := bullpen.idem_begin('activity_log', p);
  if v_replay is not null then
    return v_replay;
  end if;
  if bullpen.reserved_verb(p ->> 'verb') then
    perform bullpen.fail('VALIDATION_ERROR',
      format('verb: %s.* is written by Bullpen itself, so the log cannot be forged (reserved: %s)',
             split_part(p ->> 'verb', '.', 1), array_to_string(bullpen.reserved_verb_families(), ', ')),
      'use a verb of your own for a milestone, e.g. "deploy.finished" or "tests.passed"');
  end if;
  if p ->> 'run_id' is not null then
    v_run := bullpen.resolve_run(p ->> 'run_id', 'run_id');
    if v_run.run_key is distinct from bullpen.run_id() and v_run.actor_id <> v_me then
      perform bullpen.fail('FORBIDDEN', format('run_id: run %s belongs to another actor', v_run.run_key),
        'log milestones of your own runs (your current run, or one you forked)');
    end if;
    v_run_key := v_run.run_key;
  elsif bullpen.run_key() is not null then
    v_run := bullpen.ensure_run(bullpen.run_key());
  end if;
  if p ->> 'object_id' is not null then
    v_obj := bullpen.resolve_object(coalesce(p ->> 'object_type', 'task'), p ->> 'object_id');
  elsif p ->> 'object_type' is not null and p ->> 'object_type' <> 'run' then
    perform bullpen.fail('VALIDATION_ERROR', 'object_id is required with object_type');
  elsif v_run.id is not null then
    v_obj := jsonb_build_object('object_type', 'run', 'object_id', v_run.id, 'project_id', null);
  else
    v_obj := jsonb_build_object('object_type', 'actor', 'object_id', v_me, 'project_id', null);
  end if;
  v_hash := md5(jsonb_build_array(v_me, v_run_key, p ->> 'verb', p ->> 'summary', v_obj ->> 'object_type',
    v_obj ->> 'object_id', coalesce(p ->> 'severity', 'info'), p ->> 'status', coalesce(p -> 'metadata', '{}'))::text);
  insert into public.activity (tenant_id, project_id, actor_id, run_id, verb, object_type, object_id, summary, severity,
                               status, metadata, content_hash)
  values (bullpen.tenant_id(), (v_obj ->> 'project_id')::uuid, v_me, v_run_key, p ->> 'verb', v_obj ->> 'object_type',
          (v_obj ->> 'object_id')::uuid, p ->> 'summary', coalesce(p ->> 'severity', 'info'), p ->> 'status',
          coalesce(p -> 'metadata', '{}'), v_hash)
  on conflict (tenant_id, content_hash) where content_hash is not null do nothing
  returning * into v_row;
  if v_row.id is null then
    v_dedup := true;
    select * into v_row from public.activity a where a.tenant_id = (select bullpen.tenant_id()) and a.content_hash = v_hash;
  elsif coalesce(current_setting('bullpen.idem_seq', true), '') = '' then
    perform set_config('bullpen.idem_seq', v_row.id::text, true);
    perform set_config('bullpen.idem_object', coalesce(v_row.object_id::text, ''), true);
  end if;
  return bullpen.idem_finish(p, jsonb_build_object('seq', v_row.id, 'deduplicated', v_dedup,
    'activity', jsonb_build_object('seq', v_row.id, 'verb', v_row.verb, 'summary', v_row.summary, 'severity', v_row.severity,
      'status', v_row.status, 'object_type', v_row.object_type, 'object_id', v_row.object_id, 'project_id', v_row.project_id,
      'actor_id', v_row.actor_id, 'run_id', v_row.run_id, 'at', v_row.at, 'metadata', v_row.metadata)));
end
$$;
alter function public.activity_log(jsonb) owner to bullpen_writer;

/**
 * The activity log, newest first: {activity, next_cursor}. Filters: project, actor, object, verb
 * (exact, or "task.*" for a family), run, severity, time window. Only the filters given become
 * predicates, so each combination is planned on its own index.
 */
create or replace function public.activity_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_before bigint;
  v_project uuid;
  v_object uuid;
  v_where text[] := array['ac.tenant_id = $1'];
  v_rows jsonb;
  v_cursor text := bullpen.cursor_arg(p);
begin
  perform bullpen.require_actor();
  if v_cursor is not null then
    if v_cursor !~ '^[0-9]{1,18}$' then
      perform bullpen.fail('VALIDATION_ERROR', 'cursor: not a next_cursor from this listing',
        'pass next_cursor back verbatim, or omit cursor for the first page');
    end if;
    v_before := v_cursor::bigint;
    v_where := v_where || 'ac.id < $4'::text;
  end if;
  if p ->> 'project_id' is not null then
    v_project := (bullpen.resolve_project(p ->> 'project_id')).id;
    v_where := v_where || 'ac.project_id = $2'::text;
  end if;
  if p ->> 'object_id' is not null then
    if p ->> 'object_type' is null and p ->> 'object_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
      -- any object by uuid: a filter (an id from elsewhere simply matches nothing)
      v_object := (p ->> 'object_id')::uuid;
    else
      v_object := (bullpen.resolve_object(coalesce(p ->> 'object_type', 'task'), p ->> 'object_id') ->> 'object_id')::uuid;
    end if;
    v_where := v_where || 'ac.object_id = $3'::text;
  end if;
  if p ->> 'object_type' is not null then
    v_where := v_where || 'ac.object_type = ($5->>''object_type'')'::text;
  elsif coalesce(p ->> 'verb', '') not like 'inbox.%' then
    -- "an inbox changed" rows only wake waiting agents: not news, unless asked for
    v_where := v_where || 'ac.object_type <> ''inbox'''::text;
  end if;
  if p ->> 'actor_id' is not null then
    perform bullpen.require_actor_in_tenant(bullpen.uuid_arg(p, 'actor_id'), 'actor_id');
    v_where := v_where || 'ac.actor_id = ($5->>''actor_id'')::uuid'::text;
  end if;
  if p ->> 'verb' like '%.*' then
    v_where := v_where || 'ac.verb like (bullpen.like_escape(left($5->>''verb'', -1)) || ''%'')'::text;
  elsif p ->> 'verb' is not null then
    v_where := v_where || 'ac.verb = ($5->>''verb'')'::text;
  end if;
  if p ->> 'run_id' is not null then
    v_where := v_where || 'ac.run_id = ($5->>''run_key'')'::text;
    p := p || jsonb_build_object('run_key', (bullpen.resolve_run(p ->> 'run_id', 'run_id')).run_key);
  end if;
  if p ->> 'severity' is not null then
    v_where := v_where || 'ac.severity = any (case $5->>''severity'' when ''info'' then array[''info'', ''warn'', ''critical'']
      when ''warn'' then array[''warn'', ''critical''] else array[''critical''] end)'::text;
  end if;
  if p ->> 'since' is not null then
    v_where := v_where || 'ac.at >= ($5->>''since'')::timestamptz'::text;
  end if;
  if p ->> 'until' is not null then
    v_where := v_where || 'ac.at < ($5->>''until'')::timestamptz'::text;
  end if;
  execute format($q$
    select coalesce(jsonb_agg(x.j order by x.id desc), '[]') from (
      select ac.id, jsonb_build_object(
          'seq', ac.id, 'verb', ac.verb, 'summary', ac.summary, 'severity', ac.severity, 'status', ac.status,
          'object_type', ac.object_type, 'object_id', ac.object_id, 'project_id', ac.project_id,
          'project_key', pr.key, 'actor_id', ac.actor_id, 'actor', a.display_name, 'actor_kind', a.kind,
          'run_id', ac.run_id, 'at', ac.at, 'metadata', ac.metadata,
          'task_ref', case when t.id is not null then pt.key || '-' || t.seq end,
          'task_title', t.title) as j
        from (select * from public.activity ac where %s order by ac.id desc limit %s) ac
        left join public.actors a on a.tenant_id = ac.tenant_id and a.id = ac.actor_id
        left join public.projects pr on pr.tenant_id = ac.tenant_id and pr.id = ac.project_id
        left join public.tasks t on ac.object_type = 'task' and t.tenant_id = ac.tenant_id and t.id = ac.object_id
        left join public.projects pt on pt.tenant_id = t.tenant_id and pt.id = t.project_id) x
  $q$, array_to_string(v_where, ' and '), v_limit)
  into v_rows using bullpen.tenant_id(), v_project, v_object, v_before, p;
  return jsonb_build_object('activity', v_rows,
    'next_cursor', case when jsonb_array_length(v_rows) = v_limit
      then encode(convert_to(v_rows -> (v_limit - 1) ->> 'seq', 'utf8'), 'base64') end);
end
$$;
alter function public.activity_query(jsonb) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- Feedback: feature_request_create, feature_request_query, and the owners' triage
-- ---------------------------------------------------------------------------------------------

create or replace function public.feature_request_create(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_replay jsonb;
  v_title text := bullpen.redact_secrets(p ->> 'title');
  v_body text := bullpen.redact_secrets(p ->> 'body');
  v_context jsonb := case when p ? 'context' then bullpen.redact_secrets((p -> 'context')::text)::jsonb else '{}'::jsonb end;
  v_fp text;
  v_fr public.feature_requests;
  v_created boolean;
begin
  perform bullpen.require_actor();
  v_replay := bullpen.idem_begin('feature_request_create', p);
  if v_replay is not null then
    return v_replay;
  end if;
  -- without a fingerprint, the same kind of report about the same tool, error and title is one request
  v_fp := coalesce(p ->> 'fingerprint', 'auto:' || md5(jsonb_build_array(p ->> 'kind', p ->> 'tool_name', p ->> 'error_code',
    lower(regexp_replace(btrim(v_title), '\s+', ' ', 'g')))::text));
  insert into public.feature_requests as f (tenant_id, title, body, kind, severity, tool_name, error_code, context,
                                            fingerprint, filed_by_actor_id, run_key)
  values (bullpen.tenant_id(), v_title, v_body, p ->> 'kind', coalesce(p ->> 'severity', 'medium'), p ->> 'tool_name',
          p ->> 'error_code', v_context, v_fp, bullpen.actor_id(), bullpen.run_id())
  on conflict (tenant_id, fingerprint) where status in ('open', 'accepted', 'in_progress') do update
    set occurrences = f.occurrences + 1, last_filed_at = now(), updated_at = now()
  returning f.id, (f.xmax = 0) into v_fr.id, v_created;
  select * into v_fr from public.feature_requests f where f.tenant_id = (select bullpen.tenant_id()) and f.id = v_fr.id;
  perform bullpen.log(case when v_created then 'feature_request.filed' else 'feature_request.recurred' end,
    'feature_request', v_fr.id, null, format('%s: %s', v_fr.kind, v_fr.title),
    jsonb_build_object('kind', v_fr.kind, 'severity', v_fr.severity, 'occurrences', v_fr.occurrences));
  return bullpen.idem_finish(p, jsonb_build_object('feature_request', bullpen.feature_request_json(v_fr),
    'feature_request_id', v_fr.id, 'created', v_created, 'deduplicated', not v_created,
    'redacted', v_title is distinct from p ->> 'title' or v_body is distinct from p ->> 'body'
                or (p ? 'context' and v_context is distinct from p -> 'context')));
end
$$;
alter function public.feature_request_create(jsonb) owner to bullpen_writer;

create or replace function public.feature_request_query(p jsonb) returns jsonb
language plpgsql stable
security definer
set search_path = ''
as $$
declare
  v_limit int := greatest(1, least(coalesce((p ->> 'limit')::int, 50), 200));
  v_cursor jsonb := bullpen.ts_cursor_arg(p);
  v_statuses text[] := case jsonb_typeof(p -> 'status') when 'array' then bullpen.text_array(p -> 'status')
                                                        when 'string' then array[p ->> 'status'] end;
  v_rows jsonb;
  v_last jsonb;
  v_more boolean;
  v_counts jsonb;
begin
  perform bullpen.require_actor();
  if p ->> 'id' is not null and not exists (select 1 from public.feature_requests f
                                             where f.tenant_id = (select bullpen.tenant_id()) and f.id = bullpen.uuid_arg(p, 'id')) then
    perform bullpen.fail('NOT_FOUND', format('id: no feature request %s in this workspace', p ->> 'id'),
      'list requests with feature_request_query');
  end if;
  if p ->> 'filed_by_actor_id' is not null then
    perform bullpen.require_actor_in_tenant(bullpen.uuid_arg(p, 'filed_by_actor_id'), 'filed_by_actor_id');
  end if;
  with page as (
    select f from public.feature_requests f
     where f.tenant_id = (select bullpen.tenant_id())
       and (p ->> 'id' is null or f.id = (p ->> 'id')::uuid)
       and (v_statuses is null or f.status = any (v_statuses))
       and (p ->> 'kind' is null or f.kind = p ->> 'kind')
       and (p ->> 'filed_by_actor_id' is null or f.filed_by_actor_id = (p ->> 'filed_by_actor_id')::uuid)
       and (p ->> 'q' is null or f.title ilike '%' || bullpen.like_escape(p ->> 'q') || '%' or f.body ilike '%' || bullpen.like_escape(p ->> 'q') || '%'
            or f.tool_name ilike bullpen.like_escape(p ->> 'q') or f.error_code ilike bullpen.like_escape(p ->> 'q'))
       and (v_cursor is null or (f.created_at, f.id) < ((v_cursor ->> 't')::timestamptz, (v_cursor ->> 'i')::uuid))
     order by f.created_at desc, f.id desc
     limit v_limit + 1
  ), numbered as (
    select page.*, row_number() over (order by (page.f).created_at desc, (page.f).id desc) as rn from page
  )
  select coalesce(jsonb_agg(bullpen.feature_request_json(f) order by rn) filter (where rn <= v_limit), '[]'),
         (array_agg(jsonb_build_object('t', (f).created_at, 'i', (f).id)) filter (where rn = v_limit))[1],
         count(*) > v_limit
    into v_rows, v_last, v_more
    from numbered;
  select coalesce(jsonb_object_agg(s.status, s.n), '{}') into v_counts
    from (select f.status, count(*) as n from public.feature_requests f where f.tenant_id = (select bullpen.tenant_id()) group by f.status) s;
  return jsonb_build_object('feature_requests', v_rows, 'counts', v_counts,
    'next_cursor', case when v_more then bullpen.ts_cursor((v_last ->> 't')::timestamptz, v_last ->> 'i') end);
end
$$;
alter function public.feature_request_query(jsonb) owner to bullpen_writer;

/**
 * Tells the filer their request moved: a notification (coordination's bullpen.notify; private to
 * the filer, in their inbox and the console's bell), besides the activity row their whoami delta
 * shows. An owner moving their own request is not told. Returns whether a notification was sent.
 */
create or replace function bullpen.feature_request_notify(f public.feature_requests, p_from text) returns boolean
language plpgsql
as $$
begin
  if f.filed_by_actor_id = bullpen.actor_id() then
    return false;
  end if;
  perform bullpen.notify(f.tenant_id, f.filed_by_actor_id, 'feature_request.status_changed',
    format('Your request "%s" is %s (was %s)', f.title, replace(f.status, '_', ' '), replace(p_from, '_', ' ')),
    coalesce(f.resolution, ''));
  return true;
end
$$;

/**
 * The console's triage (owners only): moves a request's status (open → accepted → in_progress →
 * shipped | declined, or back to open) with an optional resolution note, and tells the filer.
 */
create or replace function bullpen.feature_request_triage(p jsonb) returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_before public.feature_requests;
  v_fr public.feature_requests;
  v_to text := p ->> 'status';
  v_notified boolean;
begin
  perform bullpen.require_actor();
  if not bullpen.caller_is_owner() then
    perform bullpen.fail('FORBIDDEN', 'only a workspace owner moves a feature request', 'ask an owner of this workspace');
  end if;
  if v_to is null or v_to not in ('open', 'accepted', 'in_progress', 'shipped', 'declined') then
    perform bullpen.fail('VALIDATION_ERROR', format('status: expected open, accepted, in_progress, shipped or declined, got %s',
      coalesce(v_to, 'nothing')));
  end if;
  select * into v_before from public.feature_requests f
   where f.tenant_id = (select bullpen.tenant_id()) and f.id = bullpen.uuid_arg(p, 'id') for update;
  if v_before.id is null then
    perform bullpen.fail('NOT_FOUND', format('id: no feature request %s in this workspace', p ->> 'id'));
  end if;
  if v_before.status = v_to and (not p ? 'resolution' or p ->> 'resolution' is not distinct from v_before.resolution) then
    return jsonb_build_object('feature_request', bullpen.feature_request_json(v_before), 'changed', false, 'notified', false);
  end if;
  update public.feature_requests f set status = v_to,
         resolution = case when p ? 'resolution' then nullif(p ->> 'resolution', '') else f.resolution end,
         status_changed_at = now(), status_changed_by_actor_id = bullpen.actor_id(), updated_at = now()
   where f.tenant_id = v_before.tenant_id and f.id = v_before.id
  returning * into v_fr;
  perform bullpen.log('feature_request.status_changed', 'feature_request', v_fr.id, null,
    format('%s → %s: %s', v_before.status, v_fr.status, v_fr.title),
    jsonb_build_object('from', v_before.status, 'to', v_fr.status, 'filed_by_actor_id', v_fr.filed_by_actor_id,
                       'resolution', v_fr.resolution));
  v_notified := bullpen.feature_request_notify(v_fr, v_before.status);
  return jsonb_build_object('feature_request', bullpen.feature_request_json(v_fr), 'changed', true, 'notified', v_notified);
end
$$;
alter function bullpen.feature_request_triage(jsonb) owner to bullpen_writer;

-- ---------------------------------------------------------------------------------------------
-- The reaper (a job: lib/server/reaper.ts runs it on the server's own connection)
-- ---------------------------------------------------------------------------------------------

/**
 * Ends runs that have been silent (no heartbeat, no write, no whoami) for p_after, oldest first, at
 * most p_limit per call. A silent run that holds task leases is abandoned and its leases released:
 * each task drops back to todo, unassigned, with an activity row that says which run went silent
 * and since when. A silent run that holds nothing (a connection that went away) ends as idle. Runs
 * across every workspace (the server's connection, no claims); rows locked by a concurrent sweep
 * are skipped. Either comes back to running on its actor's next write. Returns {abandoned, idle,
 * released}.
 */
create or replace function bullpen.reap_runs(p_after interval, p_limit int default 1000) returns jsonb
language plpgsql
as $$
declare
  v_abandoned int;
  v_idle int;
  v_released int;
begin
  with stale as (
    select r.tenant_id, r.id,
           exists (select 1 from public.tasks t
                    where t.tenant_id = r.tenant_id and t.lease_run_key = r.run_key and t.lease_actor_id = r.actor_id
                      and t.status = 'in_progress') as holds
      from public.runs r
     where r.status = 'running' and r.last_active_at < now() - p_after
     order by r.last_active_at
     limit greatest(1, p_limit)
     for update of r skip locked
  ), gone as (
    update public.runs r
       set status = case when s.holds then 'abandoned' else 'idle' end, ended_at = now(),
           end_reason = case when s.holds
             then format('no heartbeat or write since %s', to_char(r.last_active_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"'))
             else format('idle: no call since %s', to_char(r.last_active_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"')) end
      from stale s
     where r.tenant_id = s.tenant_id and r.id = s.id
    returning r.*
  ), freed as (
    update public.tasks t
       set status = 'todo',
           assignee_actor_id = case when t.assignee_actor_id = t.lease_actor_id then null else t.assignee_actor_id end,
           lease_actor_id = null, lease_expires_at = null
      from gone g
     where g.status = 'abandoned' and t.tenant_id = g.tenant_id and t.lease_run_key = g.run_key and t.lease_actor_id = g.actor_id
       and t.status = 'in_progress'
    returning t.tenant_id, t.id, t.project_id, t.seq, g.id as run_id, g.run_key, g.actor_id, g.last_active_at
  ), run_rows as (
    insert into public.activity (tenant_id, verb, object_type, object_id, summary, severity, metadata)
    select g.tenant_id, case when g.status = 'abandoned' then 'run.abandoned' else 'run.idle' end, 'run', g.id,
           case when g.status = 'abandoned'
             then format('%s went silent (no heartbeat or write since %s)', g.run_key,
                         to_char(g.last_active_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"'))
             else format('%s ended idle (no call since %s)', g.run_key,
                         to_char(g.last_active_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"')) end,
           case when g.status = 'abandoned' then 'warn' else 'info' end,
           jsonb_build_object('run_key', g.run_key, 'actor_id', g.actor_id, 'last_active_at', g.last_active_at,
                              'released', (select count(*) from freed f where f.run_id = g.id))
      from gone g
    returning 1
  ), task_rows as (
    insert into public.activity (tenant_id, project_id, verb, object_type, object_id, summary, severity, metadata)
    select f.tenant_id, f.project_id, 'task.released', 'task', f.id,
           format('lease released: run %s went silent (no heartbeat or write since %s)', f.run_key,
                  to_char(f.last_active_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"')),
           'warn',
           jsonb_build_object('reason', 'run_abandoned', 'run_key', f.run_key, 'run_id', f.run_id,
                              'previous_actor_id', f.actor_id)
      from freed f
    returning 1
  )
  select (select count(*) from gone where gone.status = 'abandoned'), (select count(*) from gone where gone.status = 'idle'),
         (select count(*) from freed)
    into v_abandoned, v_idle, v_released;
  return jsonb_build_object('abandoned', v_abandoned, 'idle', v_idle, 'released', v_released);
end
$$;

-- ---------------------------------------------------------------------------------------------
-- Execute rights, one function at a time: the API roles call RPCs, never helpers.
-- ---------------------------------------------------------------------------------------------

revoke all on function bullpen.normalize_remote(text) from public, anon, authenticated;
grant execute on function bullpen.normalize_remote(text) to bullpen_writer, service_role;
revoke all on function bullpen.redact_secrets(text) from public, anon, authenticated;
grant execute on function bullpen.redact_secrets(text) to bullpen_writer, service_role;
revoke all on function bullpen.ts_cursor(timestamptz, text) from public, anon, authenticated;
grant execute on function bullpen.ts_cursor(timestamptz, text) to bullpen_writer, service_role;
revoke all on function bullpen.ts_cursor_arg(jsonb) from public, anon, authenticated;
grant execute on function bullpen.ts_cursor_arg(jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.repository_json(public.repositories) from public, anon, authenticated;
grant execute on function bullpen.repository_json(public.repositories) to bullpen_writer, service_role;
revoke all on function bullpen.run_json(public.runs) from public, anon, authenticated;
grant execute on function bullpen.run_json(public.runs) to bullpen_writer, service_role;
revoke all on function bullpen.code_ref_href(public.code_refs, public.repositories) from public, anon, authenticated;
grant execute on function bullpen.code_ref_href(public.code_refs, public.repositories) to bullpen_writer, service_role;
revoke all on function bullpen.code_ref_json(public.code_refs) from public, anon, authenticated;
grant execute on function bullpen.code_ref_json(public.code_refs) to bullpen_writer, service_role;
revoke all on function bullpen.is_media_type(text) from public, anon, authenticated;
grant execute on function bullpen.is_media_type(text) to bullpen_writer, service_role;
revoke all on function bullpen.printable_name(text) from public, anon, authenticated;
grant execute on function bullpen.printable_name(text) to bullpen_writer, service_role;
revoke all on function bullpen.attachment_json(public.attachments) from public, anon, authenticated;
grant execute on function bullpen.attachment_json(public.attachments) to bullpen_writer, service_role;
revoke all on function bullpen.feature_request_json(public.feature_requests) from public, anon, authenticated;
grant execute on function bullpen.feature_request_json(public.feature_requests) to bullpen_writer, service_role;
revoke all on function bullpen.resolve_object(text, text, text) from public, anon, authenticated;
grant execute on function bullpen.resolve_object(text, text, text) to bullpen_writer, service_role;
revoke all on function bullpen.repository_for_remote(text, text, text) from public, anon, authenticated;
grant execute on function bullpen.repository_for_remote(text, text, text) to bullpen_writer, service_role;
revoke all on function bullpen.resolve_repository(text, text, text) from public, anon, authenticated;
grant execute on function bullpen.resolve_repository(text, text, text) to bullpen_writer, service_role;
revoke all on function bullpen.run_key() from public, anon, authenticated;
grant execute on function bullpen.run_key() to bullpen_writer, service_role;
revoke all on function bullpen.assert_own_run(public.runs) from public, anon, authenticated;
grant execute on function bullpen.assert_own_run(public.runs) to bullpen_writer, service_role;
revoke all on function bullpen.register_run(text) from public, anon, authenticated;
grant execute on function bullpen.register_run(text) to bullpen_writer, service_role;
revoke all on function bullpen.ensure_run(text) from public, anon, authenticated;
grant execute on function bullpen.ensure_run(text) to bullpen_writer, service_role;
revoke all on function bullpen.activity_touch_run() from public, anon, authenticated;
grant execute on function bullpen.activity_touch_run() to bullpen_writer, service_role;
revoke all on function bullpen.run_delta_since(timestamptz) from public, anon, authenticated;
grant execute on function bullpen.run_delta_since(timestamptz) to bullpen_writer, service_role;
revoke all on function bullpen.tasks_lease_run() from public, anon, authenticated;
grant execute on function bullpen.tasks_lease_run() to bullpen_writer, service_role;
revoke all on function bullpen.resolve_run(text, text) from public, anon, authenticated;
grant execute on function bullpen.resolve_run(text, text) to bullpen_writer, service_role;
revoke all on function bullpen.current_run(text) from public, anon, authenticated;
grant execute on function bullpen.current_run(text) to bullpen_writer, service_role;
revoke all on function bullpen.merge_usage(jsonb, jsonb) from public, anon, authenticated;
revoke all on function bullpen.usage_with_default_model(jsonb, text) from public, anon, authenticated;
grant execute on function bullpen.usage_with_default_model(jsonb, text) to bullpen_writer, service_role;
grant execute on function bullpen.merge_usage(jsonb, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.usage_total(jsonb, text) from public, anon, authenticated;
grant execute on function bullpen.usage_total(jsonb, text) to bullpen_writer, service_role;
revoke all on function bullpen.release_run_leases(public.runs, text) from public, anon, authenticated;
grant execute on function bullpen.release_run_leases(public.runs, text) to bullpen_writer, service_role;
revoke all on function bullpen.run_counts(uuid, uuid[]) from public, anon, authenticated;
grant execute on function bullpen.run_counts(uuid, uuid[]) to bullpen_writer, service_role;
revoke all on function bullpen.run_subtree(uuid, uuid) from public, anon, authenticated;
grant execute on function bullpen.run_subtree(uuid, uuid) to bullpen_writer, service_role;
revoke all on function bullpen.task_evidence(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.task_evidence(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.done_gate_evidence(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.done_gate_evidence(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.task_related_provenance(public.tasks) from public, anon, authenticated;
grant execute on function bullpen.task_related_provenance(public.tasks) to bullpen_writer, service_role;
revoke all on function bullpen.caller_repository() from public, anon, authenticated;
grant execute on function bullpen.caller_repository() to bullpen_writer, service_role;
revoke all on function bullpen.brief_provenance(public.projects, jsonb) from public, anon, authenticated;
grant execute on function bullpen.brief_provenance(public.projects, jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.projects_in_repositories(uuid[]) from public, anon, authenticated;
grant execute on function bullpen.projects_in_repositories(uuid[]) to bullpen_writer, service_role;
revoke all on function bullpen.own_run_for_update(jsonb, text) from public, anon, authenticated;
grant execute on function bullpen.own_run_for_update(jsonb, text) to bullpen_writer, service_role;
revoke all on function bullpen.named_run(jsonb) from public, anon, authenticated;
grant execute on function bullpen.named_run(jsonb) to bullpen_writer, service_role;
revoke all on function bullpen.code_ref_upsert(jsonb, text, text, text) from public, anon, authenticated;
grant execute on function bullpen.code_ref_upsert(jsonb, text, text, text) to bullpen_writer, service_role;
revoke all on function bullpen.reserved_verb_families() from public, anon, authenticated;
grant execute on function bullpen.reserved_verb_families() to bullpen_writer, service_role;
revoke all on function bullpen.reserved_verb(text) from public, anon, authenticated;
grant execute on function bullpen.reserved_verb(text) to bullpen_writer, service_role;
revoke all on function bullpen.feature_request_notify(public.feature_requests, text) from public, anon, authenticated;
grant execute on function bullpen.feature_request_notify(public.feature_requests, text) to bullpen_writer, service_role;
revoke all on function bullpen.reap_runs(interval, int) from public, anon, authenticated;
grant execute on function bullpen.reap_runs(interval, int) to service_role;
-- read by the server's file routes and the console under the caller's own claims
revoke all on function bullpen.attachment_file(uuid) from public, anon;
grant execute on function bullpen.attachment_file(uuid) to authenticated, service_role;
revoke all on function bullpen.feature_request_triage(jsonb) from public, anon;
grant execute on function bullpen.feature_request_triage(jsonb) to authenticated, service_role;

revoke all on function public.run_fork(jsonb) from public, anon;
grant execute on function public.run_fork(jsonb) to authenticated, service_role;
revoke all on function public.run_heartbeat(jsonb) from public, anon;
grant execute on function public.run_heartbeat(jsonb) to authenticated, service_role;
revoke all on function public.run_end(jsonb) from public, anon;
grant execute on function public.run_end(jsonb) to authenticated, service_role;
revoke all on function public.run_query(jsonb) from public, anon;
grant execute on function public.run_query(jsonb) to authenticated, service_role;
revoke all on function public.run_get(jsonb) from public, anon;
grant execute on function public.run_get(jsonb) to authenticated, service_role;
revoke all on function public.run_summary(jsonb) from public, anon;
grant execute on function public.run_summary(jsonb) to authenticated, service_role;
revoke all on function public.repo_register(jsonb) from public, anon;
grant execute on function public.repo_register(jsonb) to authenticated, service_role;
revoke all on function public.repo_link(jsonb) from public, anon;
grant execute on function public.repo_link(jsonb) to authenticated, service_role;
revoke all on function public.repo_query(jsonb) from public, anon;
grant execute on function public.repo_query(jsonb) to authenticated, service_role;
revoke all on function public.task_code_ref(jsonb) from public, anon;
grant execute on function public.task_code_ref(jsonb) to authenticated, service_role;
revoke all on function public.code_ref_add(jsonb) from public, anon;
grant execute on function public.code_ref_add(jsonb) to authenticated, service_role;
revoke all on function public.code_ref_update(jsonb) from public, anon;
grant execute on function public.code_ref_update(jsonb) to authenticated, service_role;
revoke all on function public.code_ref_query(jsonb) from public, anon;
grant execute on function public.code_ref_query(jsonb) to authenticated, service_role;
revoke all on function public.attach_add(jsonb) from public, anon;
grant execute on function public.attach_add(jsonb) to authenticated, service_role;
revoke all on function public.attach_remove(jsonb) from public, anon;
grant execute on function public.attach_remove(jsonb) to authenticated, service_role;
revoke all on function public.attachment_query(jsonb) from public, anon;
grant execute on function public.attachment_query(jsonb) to authenticated, service_role;
revoke all on function public.activity_log(jsonb) from public, anon;
grant execute on function public.activity_log(jsonb) to authenticated, service_role;
revoke all on function public.activity_query(jsonb) from public, anon;
grant execute on function public.activity_query(jsonb) to authenticated, service_role;
revoke all on function public.feature_request_create(jsonb) from public, anon;
grant execute on function public.feature_request_create(jsonb) to authenticated, service_role;
revoke all on function public.feature_request_query(jsonb) from public, anon;
grant execute on function public.feature_request_query(jsonb) to authenticated, service_role;
