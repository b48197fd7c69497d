-- A decision's consequences become a list: each consequence its own item, so a reader (an agent, the
-- console, an export) can count and show them one by one. An existing value becomes a one-item list;
-- null or empty becomes the empty list. The embedded text joins the items with newlines, which for a
-- one-item list is the old text exactly: existing content hashes stay valid and nothing re-embeds.

-- the lines of a text list as one text, immutable so the generated column can read it (kept in
-- definitions/0001_foundation.sql too, which every later upgrade re-applies)
create or replace function bullpen.text_lines(p text[]) returns text
language sql immutable parallel safe
as $$ select coalesce(array_to_string(p, E'\n'), '') $$;

revoke all on function bullpen.text_lines(text[]) from public, anon, authenticated;
grant execute on function bullpen.text_lines(text[]) to bullpen_writer, service_role;

-- the full-text column reads consequences: rebuilt over the list
alter table public.decisions drop column search;
alter table public.decisions drop constraint decisions_consequences_check;
alter table public.decisions
  alter column consequences type text[]
    using case when coalesce(consequences, '') = '' then '{}'::text[] else array[consequences] end,
  alter column consequences set default '{}',
  alter column consequences set not null;
-- the old single value (up to 20,000 characters) fits as one item
alter table public.decisions add constraint decisions_consequences_check
  check (cardinality(consequences) <= 20 and char_length(bullpen.text_lines(consequences)) <= 20 * 20001);
alter table public.decisions add column search tsvector generated always as (
  setweight(to_tsvector('english'::regconfig, title), 'A') ||
  setweight(to_tsvector('english'::regconfig, choice), 'A') ||
  setweight(to_tsvector('english'::regconfig, coalesce(context, '') || ' ' || coalesce(rationale, '') || ' ' ||
                                              bullpen.text_lines(consequences)), 'B')) stored;
create index decisions_search_idx on public.decisions using gin (search);

-- the embedded text took consequences as one text; definitions/0010_memory.sql now takes the list
drop function if exists bullpen.decision_embed_text(text, text, text, text, text);

comment on column public.decisions.consequences is 'What follows from the decision, one item each (up to 20).';
