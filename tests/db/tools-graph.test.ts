import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedDue, purgeExpired } from '../../lib/memory/backfill';
import { localEmbedder, setEmbedder } from '../../lib/memory/embedder';
import { fails, freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

/**
 * Memory as a graph: typed links (link_add, link_remove, find_related), guidelines that a project
 * shadows (guidelines_get), and a note's lifecycle (supersedes, knowledge_retract, near-duplicates,
 * contradictions shown on both notes).
 */

let db: TestDb;
let T: Tenant;
const ids: Record<string, string> = {};
const LONG = 'Retry the payment webhook with exponential backoff, starting at two seconds and doubling up to five minutes; after ten failures park the event in the dead letter table and page the on-call engineer.';

const note = (id: string) => ({ type: 'note' as const, id });

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'graph');
  setEmbedder(localEmbedder());
  ok(await T.agent.call('project_create', { title: 'Payments', key: 'PAY' }));
  ids.task1 = ok(await T.agent.call('task_create', { project_id: 'PAY', title: 'Webhook retries', labels: ['payments', 'webhooks'] })).task_id;
  ids.task2 = ok(await T.agent.call('task_create', { project_id: 'PAY', title: 'Dead letters' })).task_id;
  ids.decision = ok(await T.agent.call('decision_log', { title: 'Use exponential backoff', choice: 'Doubling from 2 s', project_id: 'PAY' })).decision_id;
  ids.n1 = ok(await T.agent.call('knowledge_write', { title: 'Webhook retry policy', body: LONG, tags: ['payments', 'webhooks'], project_id: 'PAY' })).note_id;
  ids.n2 = ok(await T.agent.call('knowledge_write', { title: 'Dead letter table', body: 'Parked events live in dead_letters with their last error.', tags: ['payments'] })).note_id;
  ids.n3 = ok(await T.agent.call('knowledge_write', { title: 'On-call paging', body: 'Pages go to the rota in the incident tool.', tags: ['ops'] })).note_id;
});
afterAll(async () => {
  setEmbedder(null);
  await db.drop();
});

describe('link_add / link_remove', () => {
  it('links two objects once per relation; linking again updates the strength', async () => {
    const first = ok(await T.agent.call('link_add', { from: { type: 'task', id: 'PAY-1' }, to: note(ids.n1), relation: 'implements', strength: 0.5 }));
    expect(first).toMatchObject({ created: true, link: { relation: 'implements', strength: 0.5, from: { type: 'task', id: ids.task1 } }, to: { label: 'Webhook retry policy' } });
    const again = ok(await T.agent.call('link_add', { from: { type: 'task', id: ids.task1 }, to: note(ids.n1), relation: 'implements', strength: 0.8 }));
    expect(again).toMatchObject({ created: false, link: { id: first.link.id, strength: 0.8 } });
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int n from public.links where tenant_id = $1 and from_id = $2`, [T.id, ids.task1]);
    expect(n).toBe(1);
    // another relation between the same pair is another link
    ok(await T.agent.call('link_add', { from: { type: 'task', id: ids.task1 }, to: note(ids.n1), relation: 'relates_to' }));
  });

  it('refuses depends_on between two tasks and names task_link', async () => {
    const err = fails(await T.agent.call('link_add', { from: { type: 'task', id: 'PAY-2' }, to: { type: 'task', id: 'PAY-1' }, relation: 'depends_on' }), 'VALIDATION_ERROR');
    expect(err.message).toContain('task_link');
    expect(err.hint).toContain('task_link');
    // between a task and a note it is an ordinary link
    ok(await T.agent.call('link_add', { from: { type: 'task', id: 'PAY-2' }, to: note(ids.n2), relation: 'depends_on' }));
  });

  it('refuses an unknown object, a self-link, and names the field', async () => {
    expect(fails(await T.agent.call('link_add', { from: note('00000000-0000-4000-8000-000000000000'), to: note(ids.n1), relation: 'explains' }), 'NOT_FOUND').message).toContain('from');
    fails(await T.agent.call('link_add', { from: note(ids.n1), to: note(ids.n1), relation: 'explains' }), 'VALIDATION_ERROR');
  });

  it('removes by id and by pair', async () => {
    const l = ok(await T.agent.call('link_add', { from: note(ids.n3), to: note(ids.n2), relation: 'explains' })).link;
    expect(ok(await T.agent.call('link_remove', { link_id: l.id })).removed.map((r: { id: string }) => r.id)).toEqual([l.id]);
    // a deliberate second call (its own key; an identical retry would replay the first answer)
    fails(await T.agent.call('link_remove', { link_id: l.id, idempotency_key: 'remove-again' }), 'NOT_FOUND');
    ok(await T.agent.call('link_add', { from: note(ids.n3), to: note(ids.n2), relation: 'explains' }));
    ok(await T.agent.call('link_add', { from: note(ids.n3), to: note(ids.n2), relation: 'extends' }));
    expect(ok(await T.agent.call('link_remove', { from: note(ids.n3), to: note(ids.n2), relation: 'extends' })).removed).toHaveLength(1);
    expect(ok(await T.agent.call('link_remove', { from: note(ids.n3), to: note(ids.n2) })).removed).toHaveLength(1);
    expect(ok(await T.agent.call('link_remove', { from: note(ids.n3), to: note(ids.n2), idempotency_key: 'pair-again' })).removed).toEqual([]);
  });
});

describe('find_related', () => {
  beforeAll(async () => {
    // task1 -implements-> n1 (0.8), task1 -relates_to-> n1 (1); n1 -explains-> decision (0.5);
    // decision -relates_to-> n3 (0.9); n2 <-depends_on- task2
    ok(await T.agent.call('link_add', { from: note(ids.n1), to: { type: 'decision', id: ids.decision }, relation: 'explains', strength: 0.5 }));
    ok(await T.agent.call('link_add', { from: { type: 'decision', id: ids.decision }, to: note(ids.n3), relation: 'relates_to', strength: 0.9 }));
  });

  it('walks both directions to the depth asked, ranked by distance then strength, with paths and shared tags', async () => {
    const one = ok(await T.agent.call('find_related', { type: 'task', id: 'PAY-1' }));
    expect(one.root).toMatchObject({ type: 'task', id: ids.task1 });
    expect(one.nodes.map((n: { id: string }) => n.id)).toEqual([ids.n1]);
    // the strongest path at that distance: relates_to (1) beats implements (0.8)
    expect(one.nodes[0]).toMatchObject({ distance: 1, strength: 1, path: [{ relation: 'relates_to', direction: 'out' }] });
    expect(one.nodes[0].shared_tags.sort()).toEqual(['payments', 'webhooks']);

    const three = ok(await T.agent.call('find_related', { type: 'task', id: ids.task1, depth: 3 }));
    expect(three.nodes.map((n: { type: string; distance: number }) => [n.type, n.distance])).toEqual([
      ['note', 1],
      ['decision', 2],
      ['note', 3],
    ]);
    const far = three.nodes[2];
    expect(far.id).toBe(ids.n3);
    expect(far.strength).toBeCloseTo(1 * 0.5 * 0.9, 4);
    expect(far.path.map((s: { relation: string; direction: string }) => `${s.relation}:${s.direction}`)).toEqual(['relates_to:out', 'explains:out', 'relates_to:out']);

    // backwards: from n3 the decision is reached over an incoming link
    const back = ok(await T.agent.call('find_related', { type: 'note', id: ids.n3, depth: 1 }));
    expect(back.nodes[0]).toMatchObject({ type: 'decision', path: [{ direction: 'in' }] });
  });

  it('filters by relation and limits', async () => {
    const only = ok(await T.agent.call('find_related', { type: 'task', id: ids.task1, depth: 3, relations: ['implements'] }));
    expect(only.nodes.map((n: { id: string }) => n.id)).toEqual([ids.n1]);
    const lim = ok(await T.agent.call('find_related', { type: 'task', id: ids.task1, depth: 3, limit: 2 }));
    expect(lim.nodes).toHaveLength(2);
    expect(lim.total).toBe(3);
  });

  it('deleting or purging an object removes its links', async () => {
    const tmp = ok(await T.agent.call('knowledge_write', { title: 'Short-lived', body: 'Gone soon.', expires_at: new Date(Date.now() + 60_000).toISOString() })).note_id;
    ok(await T.agent.call('link_add', { from: note(tmp), to: note(ids.n1), relation: 'relates_to' }));
    ok(await T.agent.call('link_add', { from: { type: 'task', id: ids.task2 }, to: note(tmp), relation: 'relates_to' }));
    await db.query(`update public.knowledge_notes set expires_at = now() - interval '1 second' where id = $1`, [tmp]);
    expect(await purgeExpired(db)).toBeGreaterThanOrEqual(1);
    const [{ n }] = await db.query<{ n: number }>(`select count(*)::int n from public.links where from_id = $1 or to_id = $1`, [tmp]);
    expect(n).toBe(0);
    // a task deleted outright (as a workspace purge does) takes its links too
    const t3 = ok(await T.agent.call('task_create', { project_id: 'PAY', title: 'Throwaway' })).task_id;
    ok(await T.agent.call('link_add', { from: { type: 'task', id: t3 }, to: note(ids.n2), relation: 'relates_to' }));
    await db.query(`delete from public.tasks where id = $1`, [t3]);
    const [{ m }] = await db.query<{ m: number }>(`select count(*)::int m from public.links where from_id = $1 or to_id = $1`, [t3]);
    expect(m).toBe(0);
  });
});

describe('guidelines', () => {
  it('takes kinds, language and category; a project guideline shadows the shared one of the same language, category and title', async () => {
    const shared = ok(await T.agent.call('knowledge_write', { title: 'Error handling', body: 'Return errors; never panic.', kind: 'guideline', language: 'go', category: 'errors' })).note;
    expect(shared).toMatchObject({ kind: 'guideline', language: 'go', category: 'errors', project_id: null });
    const other = ok(await T.agent.call('knowledge_write', { title: 'Naming', body: 'Short names in small scopes.', kind: 'guideline', language: 'go', category: 'style' })).note_id;
    const mine = ok(await T.agent.call('knowledge_write', { title: 'error handling', body: 'Wrap errors with %w.', kind: 'guideline', language: 'Go', category: 'errors', project_id: 'PAY' })).note_id;
    ok(await T.agent.call('knowledge_write', { title: 'Retry pattern', body: 'Backoff with jitter.', kind: 'pattern', language: 'go', category: 'resilience' }));
    ok(await T.agent.call('knowledge_write', { title: 'Day one', body: 'Set up the repo.', kind: 'journal' }));

    const g = ok(await T.agent.call('guidelines_get', { project_id: 'PAY' })).guidelines;
    expect(g.map((x: { id: string; scope: string; shadows: string | null }) => [x.id, x.scope, x.shadows])).toEqual([
      [mine, 'project', shared.id],
      [other, 'shared', null],
    ]);
    const sharedOnly = ok(await T.agent.call('guidelines_get', {})).guidelines;
    expect(sharedOnly.map((x: { id: string }) => x.id).sort()).toEqual([shared.id, other].sort());
    const own = ok(await T.agent.call('guidelines_get', { project_id: 'PAY', include_shared: false, category: 'errors' })).guidelines;
    expect(own.map((x: { id: string }) => x.id)).toEqual([mine]);
    fails(await T.agent.call('guidelines_get', { project_id: 'NOPE' }), 'NOT_FOUND');
  });
});

describe('memory lifecycle', () => {
  it('supersedes: the old note leaves search, stays readable, and the two are linked', async () => {
    const old = ok(await T.agent.call('knowledge_write', { title: 'Zebra deploy steps v1', body: 'Deploy zebra by hand.' })).note_id;
    const next = ok(await T.agent.call('knowledge_write', { title: 'Zebra deploy steps v2', body: 'Deploy zebra with the pipeline.' })).note_id;
    const before = ok(await T.agent.call('knowledge_search', { q: 'zebra deploy', lexical_only: true })).results.map((r: { id: string }) => r.id);
    expect(before).toContain(old);
    const up = ok(await T.agent.call('knowledge_update', { note_id: next, supersedes: old }));
    expect(up.changed).toEqual(['supersedes']);
    const after = ok(await T.agent.call('knowledge_search', { q: 'zebra deploy', lexical_only: true })).results.map((r: { id: string }) => r.id);
    expect(after).toEqual([next]);
    const rel = ok(await T.agent.call('find_related', { type: 'note', id: old }));
    expect(rel.root).toMatchObject({ id: old, status: 'superseded' });
    expect(rel.nodes[0]).toMatchObject({ id: next, path: [{ relation: 'supersedes', direction: 'in' }] });
    // a second successor is refused: the chain has one head
    const third = ok(await T.agent.call('knowledge_write', { title: 'Zebra deploy steps v3', body: 'Deploy zebra twice.' })).note_id;
    fails(await T.agent.call('knowledge_update', { note_id: third, supersedes: old }), 'CONFLICT');
    fails(await T.agent.call('knowledge_update', { note_id: third, supersedes: third }), 'VALIDATION_ERROR');
  });

  it('knowledge_retract: kept with its reason, gone from search', async () => {
    const n = ok(await T.agent.call('knowledge_write', { title: 'Quokka cache size', body: 'The quokka cache holds 10 GB.' })).note_id;
    const r = ok(await T.agent.call('knowledge_retract', { note_id: n, reason: 'measured: it holds 2 GB' }));
    expect(r.note).toMatchObject({ id: n, retracted_reason: 'measured: it holds 2 GB' });
    expect(r.note.retracted_at).toBeTruthy();
    expect(ok(await T.agent.call('knowledge_search', { q: 'quokka cache', lexical_only: true })).results).toEqual([]);
    expect(ok(await T.agent.call('find_related', { type: 'note', id: n })).root.status).toBe('retracted');
    fails(await T.agent.call('knowledge_retract', { note_id: '00000000-0000-4000-8000-000000000000', reason: 'x' }), 'NOT_FOUND');
  });

  it('a near-duplicate is written, named in similar, and listed by duplicates', async () => {
    await embedDue(db, localEmbedder());
    const dup = ok(await T.agent.call('knowledge_write', { title: 'Webhook retry policy (copy)', body: LONG }));
    expect(dup.similar.map((s: { id: string }) => s.id)).toEqual([ids.n1]);
    expect(dup.similar[0].score).toBeGreaterThanOrEqual(0.92);
    const unrelated = ok(await T.agent.call('knowledge_write', { title: 'Lunch menu', body: 'Soup on Mondays, pasta on Fridays.' }));
    expect(unrelated.similar).toEqual([]);
    const pairs = ok(await T.agent.call('knowledge_search', { duplicates: true })).pairs;
    expect(pairs).toEqual([expect.objectContaining({ a: { id: dup.note_id, title: 'Webhook retry policy (copy)' }, b: { id: ids.n1, title: 'Webhook retry policy' } })]);
  });

  it('contradicts: both notes show the conflict wherever either is returned', async () => {
    const a = ok(await T.agent.call('knowledge_write', { title: 'Walrus timeout is 30 s', body: 'The walrus service times out after 30 seconds.' })).note_id;
    const b = ok(await T.agent.call('knowledge_write', { title: 'Walrus timeout is 60 s', body: 'The walrus service times out after 60 seconds.' })).note_id;
    const l = ok(await T.agent.call('link_add', { from: note(a), to: note(b), relation: 'contradicts' })).link;
    const hits = ok(await T.agent.call('knowledge_search', { q: 'walrus timeout', lexical_only: true })).results;
    const byId = Object.fromEntries(hits.map((h: { id: string; conflicts: unknown }) => [h.id, h.conflicts]));
    expect(byId[a]).toEqual([{ id: b, title: 'Walrus timeout is 60 s', link_id: l.id }]);
    expect(byId[b]).toEqual([{ id: a, title: 'Walrus timeout is 30 s', link_id: l.id }]);
  });
});

describe('decisions: tags and deprecated', () => {
  it('logs tags, filters decision_query by them, and deprecates a decision that stays listed', async () => {
    const d1 = ok(await T.agent.call('decision_log', { title: 'Yak shaving budget', choice: 'One hour a week', tags: ['process', 'time'] })).decision;
    expect(d1.tags.sort()).toEqual(['process', 'time']);
    const d2 = ok(await T.agent.call('decision_log', { title: 'Yak grooming tools', choice: 'Clippers', tags: ['tools'] })).decision_id;
    const byTag = ok(await T.agent.call('decision_query', { tags: ['process'] })).decisions.map((d: { id: string }) => d.id);
    expect(byTag).toEqual([d1.id]);
    expect(ok(await T.agent.call('decision_query', { tags: ['process', 'tools'] })).decisions).toEqual([]);
    const ranked = ok(await T.agent.call('decision_query', { q: 'yak', semantic: true, tags: ['tools'] })).decisions.map((d: { id: string }) => d.id);
    expect(ranked).toEqual([d2]);

    const dep = ok(await T.agent.call('decision_set_status', { decision_id: d2, status: 'deprecated', note: 'we bought a machine' }));
    expect(dep).toMatchObject({ previous_status: 'accepted', changed: true, decision: { status: 'deprecated' } });
    expect(ok(await T.agent.call('decision_query', { tags: ['tools'] })).decisions.map((d: { status: string }) => d.status)).toEqual(['deprecated']);
    expect(ok(await T.agent.call('decision_query', { status: 'accepted', tags: ['tools'] })).decisions).toEqual([]);
  });
});

describe('knowledge_search says no, and pages', () => {
  it('min_score: an unrelated query returns nothing; a hit only by meaning needs the score', async () => {
    await embedDue(db, localEmbedder());
    // the local model rates this query 0.42 against "Retry pattern": without min_score it is the nearest note
    const loose = ok(await T.agent.call('knowledge_search', { q: 'zygomorphic xylophone tuning forks' }));
    expect(loose.results.every((r: { lexical_rank: number | null }) => r.lexical_rank === null)).toBe(true);
    const none = ok(await T.agent.call('knowledge_search', { q: 'zygomorphic xylophone tuning forks', min_score: 0.6 }));
    expect(none.results).toEqual([]);
    // the same notes by meaning alone: with min_score 1 only a word match would pass, and none does
    const strict = ok(await T.agent.call('knowledge_search', { q: 'resend failed callbacks later', min_score: 1 }));
    expect(strict.results.every((r: { lexical_rank: number | null; similarity: number | null }) => r.lexical_rank !== null || r.similarity === 1)).toBe(true);
  });

  it('cursor pages through the ranked list without repeats', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const r = ok(await T.agent.call('knowledge_search', { q: 'webhook retry dead letter', top_k: 1, lexical_only: true, ...(cursor ? { cursor } : {}) }));
      seen.push(...r.results.map((x: { id: string }) => x.id));
      cursor = r.next_cursor ?? undefined;
      if (!cursor) break;
    }
    const all = ok(await T.agent.call('knowledge_search', { q: 'webhook retry dead letter', top_k: 20, lexical_only: true })).results.map((x: { id: string }) => x.id);
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(seen).toEqual(all);
    // the newest listing pages too
    const first = ok(await T.agent.call('knowledge_search', { top_k: 2 }));
    const second = ok(await T.agent.call('knowledge_search', { top_k: 2, cursor: first.next_cursor }));
    expect(second.results[0].id).not.toBe(first.results[0].id);
    fails(await T.agent.call('knowledge_search', { q: 'x', cursor: 'bm90IGEgY3Vyc29y' }), 'VALIDATION_ERROR');
  });
});
