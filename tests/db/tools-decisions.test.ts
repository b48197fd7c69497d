import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedDue } from '../../lib/memory/backfill';
import { localEmbedder } from '../../lib/memory/embedder';
import { claimsSql, sqlLiteral } from '../../lib/db/types';
import { fails, freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

let db: TestDb;
let T: Tenant;
const missing = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'decisions');
  ok(await T.agent.call('project_create', { title: 'Payments', key: 'PAY' }));
  ok(await T.agent.call('task_create', { project_id: 'PAY', title: 'Pick a money type' }));
  ok(await T.agent.call('task_create', { project_id: 'PAY', title: 'Migrate the ledger' }));
});
afterAll(() => db.drop());

/** Runs SQL as the server's own role (the table owner); returns the SQLSTATE or 'ok'. */
async function asOwner(sql: string): Promise<string> {
  try {
    await db.exec(sql);
    return 'ok';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

describe('decision_log', () => {
  it('appends a decision with options, links its tasks, and task_get shows it', async () => {
    const env = ok(
      await T.agent.call('decision_log', {
        title: 'Money as integer cents',
        choice: 'Store every amount as an integer number of cents',
        context: 'Floats lost a cent in the March reconciliation',
        rationale: 'Exact arithmetic; every database and language has integers',
        consequences: ['Formatting happens at the edges', 'Reports divide by 100'],
        project_id: 'PAY',
        options: [
          { label: 'integer cents', summary: 'bigint of cents', pros: ['exact', 'fast'], cons: 'needs formatting' },
          { label: 'decimal', pros: 'exact', cons: ['slower', 'not in JSON'] },
        ],
        related_task_ids: ['PAY-1'],
      }),
    );
    expect(env.decision).toMatchObject({
      title: 'Money as integer cents',
      consequences: ['Formatting happens at the edges', 'Reports divide by 100'],
      status: 'accepted',
      project_key: 'PAY',
      author_actor_id: T.agent.id,
      superseded_by: null,
      options: [
        { label: 'integer cents', summary: 'bigint of cents', pros: ['exact', 'fast'], cons: ['needs formatting'] },
        { label: 'decimal', summary: null, pros: ['exact'], cons: ['slower', 'not in JSON'] },
      ],
      related_tasks: [{ ref: 'PAY-1', title: 'Pick a money type' }],
    });
    expect(env.embedding_status).toBe(db.vector ? 'pending' : 'unavailable');
    expect(env.superseded).toBeNull();
    const task = ok(await T.human.call('task_get', { task_id: 'PAY-1' }));
    expect(task.decisions).toEqual([expect.objectContaining({ id: env.decision_id, title: 'Money as integer cents', status: 'accepted' })]);
    const brief = ok(await T.human.call('project_brief', { project: 'PAY' }));
    expect(brief.recent_decisions.map((d: { id: string }) => d.id)).toContain(env.decision_id);
  });

  it('logs a proposed, workspace-wide decision and replays an identical retry', async () => {
    const input = { title: 'Weekly release train', choice: 'Release on Tuesdays', status: 'proposed' };
    const one = ok(await T.agent.call('decision_log', input));
    const two = ok(await T.agent.call('decision_log', input));
    expect(one.decision).toMatchObject({ status: 'proposed', project_id: null });
    expect(two).toMatchObject({ decision_id: one.decision_id, idempotent_replay: true });
  });

  it('supersedes: the old decision is superseded, points at the new one, and leaves default recall', async () => {
    const old = ok(await T.agent.call('decision_log', { title: 'Retries: fixed 5 s', choice: 'Retry webhooks every 5 seconds', project_id: 'PAY' }));
    const neu = ok(
      await T.agent.call('decision_log', {
        title: 'Retries: exponential backoff',
        choice: 'Back off exponentially from 1 s, capped at 30 s',
        supersedes_decision_id: old.decision_id,
        related_task_ids: ['PAY-2'],
      }),
    );
    expect(neu.decision).toMatchObject({ supersedes_decision_id: old.decision_id, project_key: 'PAY' });
    expect(neu.superseded).toMatchObject({ id: old.decision_id, previous_status: 'accepted', status: 'superseded' });
    const listed = ok(await T.agent.call('decision_query', { project_id: 'PAY' }));
    const ids = listed.decisions.map((d: { id: string }) => d.id);
    expect(ids).toContain(neu.decision_id);
    expect(ids).not.toContain(old.decision_id);
    const all = ok(await T.agent.call('decision_query', { project_id: 'PAY', include_superseded: true }));
    expect(all.decisions.find((d: { id: string }) => d.id === old.decision_id)).toMatchObject({ status: 'superseded', superseded_by: neu.decision_id });
    const onlySuperseded = ok(await T.agent.call('decision_query', { status: 'superseded' }));
    expect(onlySuperseded.decisions.map((d: { id: string }) => d.id)).toEqual([old.decision_id]);
    const brief = ok(await T.human.call('project_brief', { project: 'PAY' }));
    expect(brief.recent_decisions.map((d: { id: string }) => d.id)).not.toContain(old.decision_id);
    // superseding it again is a conflict: the chain has one head
    const again = fails(await T.agent.call('decision_log', { title: 'x', choice: 'y', supersedes_decision_id: old.decision_id }), 'CONFLICT');
    expect(again.message).toContain(neu.decision_id);
  });

  it('refuses bad input naming the field, and unknown projects, tasks and decisions', async () => {
    expect(fails(await T.agent.call('decision_log', { title: '', choice: 'x' }), 'VALIDATION_ERROR').message).toContain('title');
    expect(fails(await T.agent.call('decision_log', { title: 'x' }), 'VALIDATION_ERROR').message).toContain('choice');
    expect(fails(await T.agent.call('decision_log', { title: 'x', choice: 'y', status: 'superseded' }), 'VALIDATION_ERROR').message).toContain('status');
    expect(fails(await T.agent.call('decision_log', { title: 'x', choice: 'y', options: [{ summary: 'no label' }] }), 'VALIDATION_ERROR').message).toContain('options[0].label');
    expect(fails(await T.agent.call('decision_log', { title: 'x', choice: 'y', colour: 'red' }), 'VALIDATION_ERROR').message).toContain('colour');
    expect(fails(await T.agent.call('decision_log', { title: 'x', choice: 'y', project_id: 'NOPE' }), 'NOT_FOUND').message).toContain('project_id');
    expect(fails(await T.agent.call('decision_log', { title: 'x', choice: 'y', related_task_ids: ['PAY-1', 'PAY-99'] }), 'NOT_FOUND').message).toContain('related_task_ids[1]');
    expect(fails(await T.agent.call('decision_log', { title: 'x', choice: 'y', supersedes_decision_id: missing }), 'NOT_FOUND').message).toContain('supersedes_decision_id');
  });

  it('consequences are a list: the tool door refuses a single text and more than 20 items naming the field; the RPC takes a text as one item', async () => {
    expect(fails(await T.agent.call('decision_log', { title: 'x', choice: 'y', consequences: 'one text' }), 'VALIDATION_ERROR').message).toContain('consequences');
    const many = Array.from({ length: 21 }, (_, i) => `consequence ${i}`);
    expect(fails(await T.agent.call('decision_log', { title: 'x', choice: 'y', consequences: many }), 'VALIDATION_ERROR').message).toContain('consequences');
    expect(fails(await T.agent.call('decision_log', { title: 'x', choice: 'y', consequences: [''] }), 'VALIDATION_ERROR').message).toContain('consequences[0]');
    const none = ok(await T.agent.call('decision_log', { title: 'No consequences', choice: 'y' }));
    expect(none.decision.consequences).toEqual([]);
    // a caller of the RPC itself (supabase.rpc) that still sends one text gets a one-item list
    const direct = (await db.call(T.agent.claims, 'decision_log', { title: 'Direct', choice: 'z', consequences: 'one text' })) as { decision: { consequences: string[] } };
    expect(direct.decision.consequences).toEqual(['one text']);
  });

  it('answers IDEMPOTENCY_CONFLICT for a reused key with other input', async () => {
    ok(await T.agent.call('decision_log', { title: 'k1', choice: 'c1', idempotency_key: 'dec-key-1' }));
    fails(await T.agent.call('decision_log', { title: 'k1', choice: 'other', idempotency_key: 'dec-key-1' }), 'IDEMPOTENCY_CONFLICT');
  });
});

describe('decisions are append-only in the database', () => {
  it('refuses UPDATE of content and DELETE, for the table owner too', async () => {
    const d = ok(await T.agent.call('decision_log', { title: 'Tabs or spaces', choice: 'Spaces' }));
    const id = d.decision_id;
    for (const set of [`title = 'Tabs'`, `choice = 'Tabs'`, `rationale = 'because'`, `options = '[{"label": "tabs"}]'`, `project_id = (select id from public.projects limit 1)`, `created_at = now()`]) {
      expect({ set, code: await asOwner(`update public.decisions set ${set} where id = '${id}'`) }).toEqual({ set, code: 'BPFRB' });
    }
    expect(await asOwner(`delete from public.decisions where id = '${id}'`)).toBe('BPFRB');
    // a status move outside the RPCs is refused as well; inside them, content stays refused
    expect(await asOwner(`update public.decisions set status = 'rejected' where id = '${id}'`)).toBe('BPFRB');
    expect(
      await asOwner(`select set_config('bullpen.decision_move', 'on', true); update public.decisions set choice = 'Tabs', status = 'rejected' where id = '${id}'`),
    ).toBe('BPFRB');
    const [row] = await db.query<{ choice: string; status: string }>(`select choice, status from public.decisions where id = $1`, [id]);
    expect(row).toEqual({ choice: 'Spaces', status: 'accepted' });
  });

  it('the API role cannot write the table at all, and the RPC role cannot change content either', async () => {
    const d = ok(await T.agent.call('decision_log', { title: 'Lint on CI', choice: 'Yes' }));
    const viaApi = await asOwner(claimsSql(T.agent.claims, `update public.decisions set choice = 'No' where id = '${d.decision_id}'`, sqlLiteral));
    expect(viaApi).toBe('42501');
    const viaWriter = await asOwner(
      `set local role bullpen_writer; select set_config('request.jwt.claims', ${sqlLiteral(JSON.stringify(T.agent.claims))}, true); ` +
        `select set_config('bullpen.decision_move', 'on', true); update public.decisions set choice = 'No' where id = '${d.decision_id}'`,
    );
    expect(viaWriter).toBe('BPFRB');
  });

  it('the error reaches a caller as FORBIDDEN with a hint to supersede', async () => {
    const { mapDbError } = await import('../../lib/core/sql-errors');
    const d = ok(await T.agent.call('decision_log', { title: 'Monorepo', choice: 'Yes' }));
    try {
      await db.exec(`update public.decisions set title = 'x' where id = '${d.decision_id}'`);
      throw new Error('update went through');
    } catch (err) {
      const e = mapDbError(err);
      expect(e.code).toBe('FORBIDDEN');
      expect(e.hint).toContain('supersedes_decision_id');
    }
  });
});

describe('decision_set_status', () => {
  it('moves only the status, logs it, and reports no change for the same status', async () => {
    const d = ok(await T.agent.call('decision_log', { title: 'Use feature flags', choice: 'LaunchDarkly-style flags', status: 'proposed' }));
    const moved = ok(await T.human.call('decision_set_status', { decision_id: d.decision_id, status: 'accepted', note: 'agreed in standup' }));
    expect(moved).toMatchObject({ previous_status: 'proposed', changed: true, decision: { status: 'accepted', choice: 'LaunchDarkly-style flags' } });
    const same = ok(await T.human.call('decision_set_status', { decision_id: d.decision_id, status: 'accepted' }));
    expect(same).toMatchObject({ changed: false, previous_status: 'accepted' });
    const rejected = ok(await T.human.call('decision_set_status', { decision_id: d.decision_id, status: 'rejected' }));
    expect(rejected.decision.status).toBe('rejected');
    const [log] = await db.query<{ n: number }>(
      `select count(*)::int as n from public.activity where object_id = $1 and verb = 'decision.status_changed'`,
      [d.decision_id],
    );
    expect(log.n).toBe(2);
  });

  it('refuses superseded decisions, bad statuses and unknown ids', async () => {
    const old = ok(await T.agent.call('decision_log', { title: 'Old way', choice: 'a' }));
    ok(await T.agent.call('decision_log', { title: 'New way', choice: 'b', supersedes_decision_id: old.decision_id }));
    const e = fails(await T.agent.call('decision_set_status', { decision_id: old.decision_id, status: 'accepted' }), 'INVALID_TRANSITION');
    expect(e.message).toContain('superseded');
    expect(fails(await T.agent.call('decision_set_status', { decision_id: old.decision_id, status: 'superseded' }), 'VALIDATION_ERROR').message).toContain('status');
    expect(fails(await T.agent.call('decision_set_status', { decision_id: 'nope', status: 'accepted' }), 'VALIDATION_ERROR').message).toContain('decision_id');
    fails(await T.agent.call('decision_set_status', { decision_id: missing, status: 'accepted' }), 'NOT_FOUND');
  });
});

describe('decision_query', () => {
  it('filters by words, status, since and task, and pages newest first with a cursor', async () => {
    const words = ok(await T.agent.call('decision_query', { q: 'cents' }));
    expect(words.decisions.map((d: { title: string }) => d.title)).toEqual(['Money as integer cents']);
    expect(words.mode).toBe('lexical');
    const byTask = ok(await T.agent.call('decision_query', { task_id: 'PAY-2' }));
    expect(byTask.decisions.map((d: { title: string }) => d.title)).toEqual(['Retries: exponential backoff']);
    const proposed = ok(await T.agent.call('decision_query', { status: ['proposed'] }));
    expect(proposed.decisions.map((d: { title: string }) => d.title)).toContain('Weekly release train');
    const future = ok(await T.agent.call('decision_query', { since: new Date(Date.now() + 60_000).toISOString() }));
    expect(future.decisions).toEqual([]);
    const all = ok(await T.agent.call('decision_query', { include_superseded: true, limit: 200 }));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await T.agent.call('decision_query', { include_superseded: true, limit: 3, ...(cursor ? { cursor } : {}) }));
      seen.push(...page.decisions.map((d: { id: string }) => d.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all.decisions.map((d: { id: string }) => d.id));
    expect(seen.length).toBeGreaterThan(6);
  });

  it('refuses semantic without q, a bad cursor or since, and unknown filters', async () => {
    expect(fails(await T.agent.call('decision_query', { semantic: true }), 'VALIDATION_ERROR').message).toContain('q');
    expect(fails(await T.agent.call('decision_query', { cursor: '////' }), 'VALIDATION_ERROR').message).toContain('cursor');
    expect(fails(await T.agent.call('decision_query', { since: 'yesterday' }), 'VALIDATION_ERROR').message).toContain('since');
    expect(fails(await T.agent.call('decision_query', { min_similarity: 2 }), 'VALIDATION_ERROR').message).toContain('min_similarity');
    fails(await T.agent.call('decision_query', { project_id: 'NOPE' }), 'NOT_FOUND');
    fails(await T.agent.call('decision_query', { task_id: 'PAY-404' }), 'NOT_FOUND');
  });

  it('recalls by meaning with semantic:true, superseded ones left out unless asked', async () => {
    const report = await embedDue(db, localEmbedder(), {});
    const recall = ok(await T.agent.call('decision_query', { q: 'how should we represent sums of money', semantic: true, top_k: 3 }));
    if (db.vector) {
      expect(report.failed).toBe(0);
      expect(report.embedded).toBeGreaterThan(5);
      expect(recall.mode).toBe('hybrid');
      expect(recall.model).toBe('universal-sentence-encoder-lite');
      expect(recall.decisions[0]).toMatchObject({ title: 'Money as integer cents', embedding_status: 'ready' });
      expect(recall.decisions[0].similarity).toBeGreaterThan(0.2);
    } else {
      expect(recall.mode).toBe('lexical');
      expect(recall.fallback_reason).toContain('pgvector');
    }
    const backoff = ok(await T.agent.call('decision_query', { q: 'how often do we retry failed webhook deliveries', semantic: true, top_k: 10 }));
    const titles = backoff.decisions.map((d: { title: string }) => d.title);
    expect(titles).not.toContain('Retries: fixed 5 s');
    if (db.vector) expect(titles[0]).toBe('Retries: exponential backoff');
    const withOld = ok(await T.agent.call('decision_query', { q: 'how often do we retry failed webhook deliveries', semantic: true, include_superseded: true, top_k: 10 }));
    expect(withOld.decisions.map((d: { title: string }) => d.title)).toContain('Retries: fixed 5 s');
  });
});
