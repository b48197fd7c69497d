-- People and what agents say about themselves.
--
-- Display names are unique per kind within a workspace, compared without case and without spaces
-- (and the invisible joiners U+200B-U+200D, U+2060, U+FEFF), so an agent cannot name itself to read
-- as another actor. The key is written out in the index (an index must not depend on a function a
-- definitions file can change); bullpen.name_key() in supabase/definitions/0001_foundation.sql
-- computes the same key and tests/db/people.test.ts holds the two to it.
--
-- A database made by an earlier release may hold duplicates already. They are kept, renamed: the
-- oldest actor of each group keeps its name, each later one gets " (2)", " (3)", … (the first
-- suffix whose key is free), and the activity log says so. Nothing is deleted.

do $$
declare
  r record;
  n int;
  v_name text;
begin
  for r in
    select a.tenant_id, a.id, a.kind, a.display_name
      from (select x.*, row_number() over (
                     partition by x.tenant_id, x.kind,
                       lower(regexp_replace(x.display_name, '[[:space:]\u200b\u200c\u200d\u2060\ufeff]+', '', 'g'))
                     order by x.created_at, x.id) as rn
              from public.actors x) a
     where a.rn > 1
     order by a.tenant_id, a.created_at, a.id
  loop
    n := 2;
    loop
      v_name := left(r.display_name, 190) || ' (' || n || ')';
      exit when not exists (
        select 1 from public.actors b
         where b.tenant_id = r.tenant_id and b.kind = r.kind
           and lower(regexp_replace(b.display_name, '[[:space:]\u200b\u200c\u200d\u2060\ufeff]+', '', 'g'))
             = lower(regexp_replace(v_name, '[[:space:]\u200b\u200c\u200d\u2060\ufeff]+', '', 'g')));
      n := n + 1;
    end loop;
    update public.actors set display_name = v_name where tenant_id = r.tenant_id and id = r.id;
    insert into public.activity (tenant_id, verb, object_type, object_id, summary, severity, metadata)
    values (r.tenant_id, 'actor.renamed', 'actor', r.id,
            format('%s %s renamed %s: display names are unique per kind', r.kind, r.display_name, v_name), 'warn',
            jsonb_build_object('from', r.display_name, 'to', v_name, 'reason', 'duplicate_display_name'));
  end loop;
end
$$;

create unique index actors_display_name_key on public.actors
  (tenant_id, kind, lower(regexp_replace(display_name, '[[:space:]\u200b\u200c\u200d\u2060\ufeff]+', '', 'g')));

-- A run that went quiet with nothing in hand ends as idle (the reaper; see bullpen.reap_runs):
-- the connection went away and took nothing with it. A silent run that held leases is abandoned.
alter table public.runs drop constraint runs_status_check;
alter table public.runs add constraint runs_status_check
  check (status in ('running', 'succeeded', 'failed', 'cancelled', 'abandoned', 'idle'));

comment on index public.actors_display_name_key is 'Display names are unique per kind, ignoring case and spaces (bullpen.name_key).';
