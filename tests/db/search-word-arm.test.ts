import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Claims } from '../../lib/core/ports';
import { execute } from '../../lib/core/execute';
import { freshDb, ok, seedTenant, target, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * The word arm of memory search reads its candidates through bullpen.memory_word_candidates: the
 * one read that row level security does not filter (security definer, owned by the migrating role,
 * which RLS does not bind), so the full-text GIN index answers it. It applies the policies' rules by
 * hand; these are the proofs that it applies all of them: another workspace's notes, decisions and
 * chunks never come back, sensitive notes and chunks only for claims that say `sensitive`,
 * retracted, superseded and expired notes stay out, the filters hold, the API roles cannot call it,
 * and (the point of it) its plan reads the GIN index.
 */

let db: TestDb;
let T: Tenant;
let O: Tenant;
let seer: Actor;
let plain: Actor;
const WORD = 'Wombat';
const ids: Record<string, string> = {};

function withClaims(base: Actor, extra: Partial<Claims>): Actor {
  const claims = { ...base.claims, ...extra };
  const ctx = { db, claims };
  return { ...base, claims, ctx, call: (tool, input = {}) => execute(ctx, tool, input) };
}

/** The function as the RPCs reach it: role bullpen_writer, the caller's claims. Ids, best first. */
async function wordArm(claims: Claims, type: string, q: string, filter: Record<string, unknown> = {}): Promise<string[]> {
  return db.transaction(async (s) => {
    await s.exec(`set local role bullpen_writer`);
    await s.query(`select set_config('request.jwt.claims', $1, true)`, [JSON.stringify(claims)]);
    const [row] = await s.query<{ r: { id: string }[] }>(`select bullpen.memory_word_candidates($1, $2, 50, 10, $3::jsonb) as r`, [
      type,
      q,
      JSON.stringify(filter),
    ]);
    return row.r.map((x) => x.id);
  });
}

async function sync(who: Actor, source: string, docs: Record<string, string>, extra: Record<string, unknown> = {}) {
  const begin = ok(await who.call('source_sync', { action: 'begin', source, ...extra }));
  ok(await who.call('source_sync', { action: 'put', source, sync_id: begin.sync_id, documents: docs }));
  ok(await who.call('source_sync', { action: 'finish', source, sync_id: begin.sync_id, paths: Object.keys(docs) }));
}

const chunkIds = async (tenant: string, path: string) =>
  (
    await db.query<{ id: string }>(
      `select c.id from public.source_chunks c join public.source_documents d on d.tenant_id = c.tenant_id and d.id = c.document_id
        where c.tenant_id = $1 and d.path = $2`,
      [tenant, path],
    )
  ).map((r) => r.id);

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'words-t');
  O = await seedTenant(db, 'words-o');
  seer = withClaims(T.agent, { sensitive: true });
  plain = withClaims(T.agent, {});
  ok(await seer.call('project_create', { title: 'Zoo', key: 'ZOO' }));
  ok(await seer.call('project_create', { title: 'Farm', key: 'FRM' }));
  const note = async (who: Actor, title: string, extra: Record<string, unknown> = {}) =>
    ok(await who.call('knowledge_write', { title, body: `${WORD} burrow notes: ${title}`, ...extra })).note_id as string;
  ids.open = await note(seer, `${WORD} feeding schedule`, { project_id: 'ZOO', tags: ['care'] });
  ids.farm = await note(seer, `${WORD} fencing at the farm`, { project_id: 'FRM' });
  ids.sensitive = await note(seer, `${WORD} vet records`, { project_id: 'ZOO', sensitivity: 'sensitive' });
  ids.retracted = await note(seer, `${WORD} retracted rumour`, { project_id: 'ZOO' });
  ok(await seer.call('knowledge_retract', { note_id: ids.retracted, reason: 'wrong' }));
  ids.old = await note(seer, `${WORD} old enclosure plan`, { project_id: 'ZOO' });
  ids.newer = await note(seer, `${WORD} new enclosure plan`, { project_id: 'ZOO' });
  ok(await seer.call('knowledge_update', { note_id: ids.newer, supersedes: ids.old }));
  ids.expired = await note(seer, `${WORD} expired notice`, { project_id: 'ZOO' });
  await db.query(`update public.knowledge_notes set expires_at = now() - interval '1 minute' where id = $1`, [ids.expired]);
  ids.otherNote = (await ok(await O.agent.call('knowledge_write', { title: `${WORD} feeding schedule`, body: `${WORD} burrow notes` }))).note_id;

  ids.decision = ok(await seer.call('decision_log', { title: `${WORD} diet`, choice: `${WORD} eats grass`, project_id: 'ZOO' })).decision_id;
  ids.replaced = ok(await seer.call('decision_log', { title: `${WORD} old diet`, choice: `${WORD} ate hay` })).decision_id;
  ok(await seer.call('decision_log', { title: `${WORD} newer diet`, choice: `${WORD} eats roots`, supersedes_decision_id: ids.replaced }));
  ids.otherDecision = ok(await O.agent.call('decision_log', { title: `${WORD} diet`, choice: `${WORD} eats grass` })).decision_id;

  await sync(seer, 'open-docs', { 'open.md': `# ${WORD} handbook\n\n${WORD} sleeps by day` }, { project_id: 'ZOO' });
  await sync(seer, 'vet-docs', { 'vet.md': `# ${WORD} vet file\n\n${WORD} weighs 30 kg` }, { sensitivity: 'sensitive' });
  await sync(O.agent, 'other-docs', { 'other.md': `# ${WORD} handbook\n\n${WORD} sleeps by day` });
});
afterAll(() => db.drop());

describe('bullpen.memory_word_candidates: the word arm outside RLS applies its rules by hand', () => {
  it('notes: the caller’s workspace only; sensitive only for a sensitive caller; retracted, superseded and expired out', async () => {
    const forSeer = await wordArm(seer.claims, 'note', `${WORD} burrow`);
    expect(new Set(forSeer)).toEqual(new Set([ids.open, ids.farm, ids.sensitive, ids.newer]));
    const forPlain = await wordArm(plain.claims, 'note', `${WORD} burrow`);
    expect(new Set(forPlain)).toEqual(new Set([ids.open, ids.farm, ids.newer]));
    const forOther = await wordArm(O.agent.claims, 'note', `${WORD} burrow`);
    expect(forOther).toEqual([ids.otherNote]);
  });

  it('notes: the project, kind and tag filters hold, and the trigram fallback obeys the same rules', async () => {
    const zoo = (await db.query<{ id: string }>(`select id from public.projects where tenant_id = $1 and key = 'ZOO'`, [T.id]))[0].id;
    expect(new Set(await wordArm(seer.claims, 'note', WORD, { project_id: zoo }))).toEqual(new Set([ids.open, ids.sensitive, ids.newer]));
    expect(await wordArm(seer.claims, 'note', WORD, { tags: ['care'] })).toEqual([ids.open]);
    expect(await wordArm(seer.claims, 'note', WORD, { kind: 'guideline' })).toEqual([]);
    // a typo no word matches: titles by trigram similarity, still inside the same rules
    const typo = await wordArm(plain.claims, 'note', 'Wombatt vet recordz');
    expect(typo).not.toContain(ids.sensitive);
    expect(typo).not.toContain(ids.otherNote);
    expect(await wordArm(seer.claims, 'note', 'Wombatt vet recordz')).toContain(ids.sensitive);
  });

  it('decisions: the caller’s workspace and the statuses asked for', async () => {
    const live = await wordArm(seer.claims, 'decision', `${WORD} diet`, { statuses: ['proposed', 'accepted'] });
    expect(live).toContain(ids.decision);
    expect(live).not.toContain(ids.replaced);
    expect(live).not.toContain(ids.otherDecision);
    expect(await wordArm(O.agent.claims, 'decision', `${WORD} diet`, { statuses: ['proposed', 'accepted'] })).toEqual([ids.otherDecision]);
  });

  it('chunks: the caller’s workspace; a sensitive document’s chunks only for a sensitive caller', async () => {
    const open = await chunkIds(T.id, 'open.md');
    const vet = await chunkIds(T.id, 'vet.md');
    const other = await chunkIds(O.id, 'other.md');
    expect(open.length * vet.length * other.length).toBeGreaterThan(0);
    expect(new Set(await wordArm(seer.claims, 'chunk', WORD))).toEqual(new Set([...open, ...vet]));
    expect(new Set(await wordArm(plain.claims, 'chunk', WORD))).toEqual(new Set(open));
    expect(new Set(await wordArm(O.agent.claims, 'chunk', WORD))).toEqual(new Set(other));
  });

  it('without claims it names nothing', async () => {
    const none = await db.transaction(async (s) => {
      await s.exec(`set local role bullpen_writer`);
      const [row] = await s.query<{ r: unknown[] }>(`select bullpen.memory_word_candidates('note', 'Wombat', 50, 10, '{}'::jsonb) as r`);
      return row.r;
    });
    expect(none).toEqual([]);
  });

  it('through knowledge_search {types}: the same rules, every hit read again under RLS', async () => {
    const hits = (who: Actor) =>
      who.call('knowledge_search', { q: `${WORD} burrow handbook diet`, types: ['note', 'decision', 'chunk'], top_k: 50 }).then((e) =>
        (ok(e).results as { id: string }[]).map((r) => r.id),
      );
    const plainHits = await hits(plain);
    expect(plainHits).toContain(ids.open);
    for (const hidden of [ids.sensitive, ids.retracted, ids.old, ids.expired, ids.otherNote, ids.otherDecision, ...(await chunkIds(T.id, 'vet.md')), ...(await chunkIds(O.id, 'other.md'))]) {
      expect(plainHits).not.toContain(hidden);
    }
    expect(await hits(seer)).toContain(ids.sensitive);
  });

  it('the API roles cannot call it; only bullpen_writer can; its owner is a role RLS does not bind', async () => {
    const [r] = await db.query<{ authenticated: boolean; anon: boolean; service: boolean; writer: boolean; definer: boolean; path: boolean; bypass: boolean }>(
      `select has_function_privilege('authenticated', p.oid, 'execute') as authenticated, has_function_privilege('anon', p.oid, 'execute') as anon,
              has_function_privilege('service_role', p.oid, 'execute') as service, has_function_privilege('bullpen_writer', p.oid, 'execute') as writer,
              p.prosecdef as definer, coalesce('search_path=""' = any (p.proconfig), false) as path, (o.rolsuper or o.rolbypassrls) as bypass
         from pg_proc p join pg_roles o on o.oid = p.proowner
        where p.oid = 'bullpen.memory_word_candidates(text, text, int, int, jsonb)'::regprocedure`,
    );
    expect(r).toEqual({ authenticated: false, anon: false, service: false, writer: true, definer: true, path: true, bypass: true });
    const refused = await db
      .withClaims(plain.claims, `select bullpen.memory_word_candidates('note', 'Wombat', 50, 10, '{}'::jsonb)`)
      .then(() => 'ok', (e: { code?: string }) => e.code);
    expect(refused).toBe('42501');
  });
  it('is the only function outside RLS that reads memory: every other definer on notes, decisions or chunks is owned by bullpen_writer', async () => {
    const rows = await db.query<{ name: string }>(
      `select n.nspname || '.' || p.proname as name
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where p.prosecdef and n.nspname in ('public', 'bullpen') and pg_get_userbyid(p.proowner) <> 'bullpen_writer'
          and p.prosrc ~ 'public\\.(knowledge_notes|decisions|source_chunks|source_documents|memory_embeddings)\\M'
        order by 1`,
    );
    expect(rows.map((r) => r.name)).toEqual(['bullpen.memory_word_candidates']);
  });
});

describe('the word arm’s plan', () => {
  // a workspace of 3,000 notes of which a handful carry the words: the full-text GIN index is the
  // cheap way in, and only a read outside RLS may take it (under RLS `@@` is not leakproof, so
  // PostgreSQL reads every note of the workspace through the tenant index and tests each). On a
  // table this small a sequential scan may still win, so it is switched off: the question is which
  // index the arm can use, not whether an index beats reading 40 pages.
  beforeAll(async () => {
    await db.query(
      `insert into public.knowledge_notes (tenant_id, kind, title, body, author_actor_id, updated_by_actor_id, content_hash, embedding_status)
       select $1, 'note', 'Ledger page ' || g, 'Invoices and receipts of day ' || g, $2, $2, md5(g::text), 'pending'
         from generate_series(1, 3000) g`,
      [T.id, T.agent.id],
    );
    await db.exec(`analyze public.knowledge_notes`);
  });

  it(target === 'pg' ? 'reads the full-text GIN index (auto_explain of the nested statements of a real search)' : 'is the only word arm of the fusion (the plan itself is asserted on Postgres)', async () => {
    if (target === 'pg') {
      const [{ name }] = await db.query<{ name: string }>(`select current_database() as name`);
      const url = new URL(process.env.DATABASE_URL as string);
      url.pathname = `/${name}`;
      const c = new pg.Client({ connectionString: url.toString() });
      await c.connect();
      const notices: string[] = [];
      c.on('notice', (m) => notices.push(m.message ?? ''));
      try {
        await c.query(`load 'auto_explain'`);
        await c.query(`set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; set enable_seqscan = off; set client_min_messages = log`);
        await c.query(`begin`);
        await c.query(`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`, [JSON.stringify(plain.claims)]);
        await c.query(`select public.knowledge_search($1::jsonb)`, [JSON.stringify({ q: `${WORD} burrow`, lexical_only: true })]);
        await c.query(`rollback`);
      } finally {
        await c.end();
      }
      expect(notices.join('\n')).toMatch(/Bitmap Index Scan on knowledge_notes_search_idx\s+(\([^)]*\)\s+)?Index Cond: \(search @@/);
    } else {
      // PGlite's planner prefers the tenant index to a GIN bitmap even with RLS out of the way, so the
      // plan is asserted on Postgres; here, that the fusion reads no words under RLS itself any more:
      // all three arms go through the one path
      const [f] = await db.query<{ src: string }>(`select prosrc as src from pg_proc where oid = 'bullpen.memory_fuse(text, jsonb, jsonb)'::regprocedure`);
      expect(f.src).toContain('bullpen.memory_word_candidates(p_type');
      expect(f.src).not.toMatch(/@@|public\.(knowledge_notes|decisions|source_chunks)\b/);
    }
  });
});
