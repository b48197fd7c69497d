import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JobRegistry, JobWorker } from '../../lib/jobs';
import { parseRanking, runCouncilJob } from '../../lib/jobs/council';
import { startChatStandIn, type ChatStandIn } from '../helpers/chat-standin';
import { execute } from '../../lib/core/execute';
import { assertOutput, fails, freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * The council: council_ask answers at once (running) and enqueues council.run; the job runs the
 * three stages against an OpenAI-compatible stand-in (tests/helpers/chat-standin.ts) through the
 * real `openai` package, and council_get reads the stages, the aggregate, the final answer, and
 * tokens and cost per model. No test reaches the network.
 */

let db: TestDb;
let T: Tenant;
let B: Tenant;
let llm: ChatStandIn;
const saved: Record<string, string | undefined> = {};
const quiet = { log: () => {} };
const registry = new JobRegistry().register('council.run', (job, ctx) => runCouncilJob(ctx.db, job.tenant_id!, String(job.payload.council_id), ctx.signal));

function setEnv(vars: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(vars)) {
    if (!(k in saved)) saved[k] = process.env[k];
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

function configure() {
  setEnv({
    BULLPEN_COUNCIL_MODELS: 'local:alpha,local:beta,local:gamma',
    BULLPEN_COUNCIL_CHAIRMAN: 'local:chair',
    BULLPEN_COUNCIL_LOCAL_MODELS: 'owl,lark',
    BULLPEN_COUNCIL_LOCAL_BASE_URL: llm.baseURL,
    BULLPEN_COUNCIL_LOCAL_API_KEY: 'test-key',
    BULLPEN_COUNCIL_OPENROUTER_BASE_URL: llm.baseURL,
    BULLPEN_COUNCIL_OPENROUTER_API_KEY: 'test-key',
    BULLPEN_COUNCIL_OPENAI_API_KEY: undefined,
    OPENAI_API_KEY: undefined,
    BULLPEN_COUNCIL_TIMEOUT_MS: '400',
    BULLPEN_COUNCIL_PRICES: JSON.stringify({ 'local:alpha': { in: 1000, out: 2000 } }),
  });
}

async function drain(): Promise<number> {
  return new JobWorker(db, { registry, ...quiet }).drain();
}

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'council');
  B = await seedTenant(db, 'council-other');
  llm = await startChatStandIn();
  llm.slowMs = 1500;
  configure();
  ok(await T.agent.call('project_create', { title: 'Jobs', key: 'JOB' }));
  ok(await T.agent.call('task_create', { project_id: 'JOB', title: 'Pick the queue', body: 'Throughput matters more than ordering.' }));
});
afterEach(() => {
  llm.behaviour = {};
  configure();
});
afterAll(async () => {
  setEnv(Object.fromEntries(Object.keys(saved).map((k) => [k, saved[k]])));
  await llm.close();
  await db.drop();
});

describe('council_ask and council_get', () => {
  it('answers running at once; the job runs three stages and council_get shows them with cost', async () => {
    const ask = ok(await T.agent.call('council_ask', { question: 'Should the queue live in Postgres?', project_id: 'JOB', context_ids: ['JOB-1'] }));
    expect(ask).toMatchObject({ status: 'running', council: { models: ['local:alpha', 'local:beta', 'local:gamma'], chairman: 'local:chair', project_key: 'JOB', final_answer: null } });
    const before = ok(await T.agent.call('council_get', { council_id: ask.council_id }));
    expect(before.status).toBe('running');
    expect(await drain()).toBe(1);
    const got = ok(await T.agent.call('council_get', { council_id: ask.council_id }));
    const c = got.council;
    expect(got.status).toBe('done');
    expect(c.answers.map((a: { label: string; model: string }) => `${a.label}=${a.model}`)).toEqual(['A=local:alpha', 'B=local:beta', 'C=local:gamma']);
    expect(c.answers[0].answer).toMatch(/^Yes \([0-9a-f]{6}\): Should the queue live in Postgres\.$/);
    expect(c.answers[0].answer).not.toBe(c.answers[1].answer);
    // each ranks the others only, and sees labels, never models
    expect(c.rankings).toEqual([
      expect.objectContaining({ model: 'local:alpha', ranking: ['B', 'C'], reason: 'earlier answers first', error: null }),
      expect.objectContaining({ model: 'local:beta', ranking: ['A', 'C'] }),
      expect.objectContaining({ model: 'local:gamma', ranking: ['A', 'B'] }),
    ]);
    const rankPrompts = llm.requests.filter((r) => /judge/.test(r.system));
    expect(rankPrompts).toHaveLength(3);
    for (const r of rankPrompts) expect(r.user).not.toMatch(/alpha|beta|gamma/);
    // the context block went into every prompt
    for (const r of llm.requests) expect(r.user).toContain('Task JOB-1: Pick the queue');
    expect(c.aggregate).toEqual([
      { label: 'A', model: 'local:alpha', average_rank: 1, votes: 2 },
      { label: 'B', model: 'local:beta', average_rank: 1.5, votes: 2 },
      { label: 'C', model: 'local:gamma', average_rank: 2, votes: 2 },
    ]);
    expect(c.final_answer).toBe('Final: the council agrees (answers A, B, C).');
    expect(c.chairman_result).toMatchObject({ model: 'local:chair', error: null });
    expect(c.context_refs).toEqual([{ type: 'task', id: expect.any(String), label: 'JOB-1' }]);
    // tokens per model; alpha is priced by BULLPEN_COUNCIL_PRICES
    expect(Object.keys(c.usage).sort()).toEqual(['local:alpha', 'local:beta', 'local:chair', 'local:gamma']);
    const alpha = c.usage['local:alpha'];
    expect(alpha.tokens_in).toBeGreaterThan(0);
    expect(alpha.cost_usd).toBeCloseTo((alpha.tokens_in * 1000 + alpha.tokens_out * 2000) / 1e6, 5);
    expect(c.usage['local:beta'].cost_usd).toBe(0);
    const sum = (f: 'tokens_in' | 'tokens_out') => Object.values(c.usage as Record<string, Record<string, number>>).reduce((s, u) => s + u[f], 0);
    expect(c).toMatchObject({ tokens_in: sum('tokens_in'), tokens_out: sum('tokens_out'), cost_usd: alpha.cost_usd });
    expect(c.finished_at).toBeTruthy();
  });

  it('records tokens and cost on the caller’s run, added up over councils', async () => {
    const a = ok(await T.human.call('council_ask', { question: 'Tabs or spaces?', models: ['openrouter:delta-priced', 'local:alpha'], chairman: 'openrouter:delta-priced' }));
    const before = ok(await T.human.call('run_summary', {}));
    await drain();
    const b = ok(await T.human.call('council_ask', { question: 'Tabs or spaces, again?', models: ['openrouter:delta-priced'] }));
    await drain();
    const ca = ok(await T.human.call('council_get', { council_id: a.council_id })).council;
    const cb = ok(await T.human.call('council_get', { council_id: b.council_id })).council;
    // the provider's reported cost wins: 0.0125 per call (two stages for a, answer and chair)
    expect(ca.usage['openrouter:delta-priced'].cost_usd).toBeCloseTo(0.0125 * 3, 6);
    expect(cb.usage['openrouter:delta-priced'].cost_usd).toBeCloseTo(0.0125 * 2, 6);
    const after = ok(await T.human.call('run_summary', {}));
    const by = Object.fromEntries(after.usage.by_model.map((m: { model: string }) => [m.model, m]));
    expect(by['council:openrouter:delta-priced']).toMatchObject({
      tokens_in: ca.usage['openrouter:delta-priced'].tokens_in + cb.usage['openrouter:delta-priced'].tokens_in,
    });
    expect(by['council:openrouter:delta-priced'].cost_usd).toBeCloseTo(0.0125 * 5, 6);
    expect(after.usage.cost_usd - (before.usage?.cost_usd ?? 0)).toBeCloseTo(ca.cost_usd + cb.cost_usd, 5);
    expect(after.usage.tokens_in - (before.usage?.tokens_in ?? 0)).toBe(ca.tokens_in + cb.tokens_in);
    // the usage ledger (cost_summary, budgets) carries the council's spend too
    const ledger = ok(await T.human.call('cost_summary', { period: 'all', group_by: 'model' })).groups;
    const council = ledger.find((g: { key: string }) => g.key === 'council:openrouter:delta-priced');
    expect(council.cost_usd).toBeCloseTo(0.0125 * 5, 6);
  });

  it('one model failing, timing out or answering garbage makes the council partial, not failed', async () => {
    llm.behaviour = { beta: 'fail', gamma: 'slow' };
    const ask = ok(await T.agent.call('council_ask', { question: 'Partial?', models: ['local:alpha', 'local:beta', 'local:gamma', 'local:delta'] }));
    llm.behaviour.delta = 'bad_ranking';
    await drain();
    const c = ok(await T.agent.call('council_get', { council_id: ask.council_id })).council;
    expect(c.status).toBe('partial');
    expect(c.answers.map((a: { label: string | null; error: string | null }) => [a.label, a.error === null])).toEqual([
      ['A', true],
      [null, false],
      [null, false],
      ['B', true],
    ]);
    expect(c.errors).toEqual([
      { stage: 'answer', model: 'local:beta', error: expect.stringMatching(/^HTTP 500: .*beta is down/) },
      { stage: 'answer', model: 'local:gamma', error: expect.stringMatching(/timed out/i) },
      { stage: 'ranking', model: 'local:delta', error: expect.stringMatching(/^the ranking could not be read/) },
    ]);
    expect(c.aggregate).toEqual([
      { label: 'B', model: 'local:delta', average_rank: 1, votes: 1 },
      { label: 'A', model: 'local:alpha', average_rank: null, votes: 0 },
    ]);
    expect(c.final_answer).toBe('Final: the council agrees (answers A, B).');
  });

  it('every model failing gives failed with each reason; garbage is a reason too', async () => {
    llm.behaviour = { alpha: 'fail', beta: 'garbage' };
    const ask = ok(await T.agent.call('council_ask', { question: 'Anyone?', models: ['local:alpha', 'local:beta'] }));
    await drain();
    const got = ok(await T.agent.call('council_get', { council_id: ask.council_id }));
    expect(got.status).toBe('failed');
    expect(got.council.final_answer).toBeNull();
    expect(got.council.errors.map((e: { model: string; stage: string }) => `${e.stage}:${e.model}`)).toEqual(['answer:local:alpha', 'answer:local:beta']);
    expect(got.council.errors[1].error).toMatch(/\S/);
    expect(got.council.rankings).toEqual([]);
  });

  it('a failing chairman leaves the best-ranked answer standing, as partial', async () => {
    llm.behaviour = { chair: 'fail' };
    const ask = ok(await T.agent.call('council_ask', { question: 'Chairless?' }));
    await drain();
    const c = ok(await T.agent.call('council_get', { council_id: ask.council_id })).council;
    expect(c.status).toBe('partial');
    expect(c.errors).toEqual([{ stage: 'chairman', model: 'local:chair', error: expect.stringMatching(/^HTTP 500/) }]);
    expect(c.final_answer).toBe(c.answers.find((a: { label: string }) => a.label === c.aggregate[0].label).answer);
  });

  it('record_decision makes the final answer a proposed decision linked to the council', async () => {
    const ask = ok(await T.agent.call('council_ask', { question: 'Adopt the outbox pattern?', project_id: 'JOB', record_decision: true }));
    await drain();
    const c = ok(await T.agent.call('council_get', { council_id: ask.council_id })).council;
    expect(c.decision_id).toEqual(expect.any(String));
    const d = ok(await T.agent.call('decision_query', { q: 'outbox', status: 'proposed' })).decisions.find((x: { id: string }) => x.id === c.decision_id);
    expect(d).toMatchObject({ title: 'Council: Adopt the outbox pattern?', choice: c.final_answer, status: 'proposed', council_id: c.id, project_key: 'JOB', author_actor_id: T.agent.id });
    expect(d.rationale).toContain(`council_get {"council_id": "${c.id}"}`);
  });

  it('use_local picks the local provider’s models, the first in the chair', async () => {
    const ask = ok(await T.agent.call('council_ask', { question: 'Local?', use_local: true }));
    expect(ask.council).toMatchObject({ models: ['local:owl', 'local:lark'], chairman: 'local:owl' });
    await drain();
    expect(ok(await T.agent.call('council_get', { council_id: ask.council_id })).status).toBe('done');
    expect(fails(await T.agent.call('council_ask', { question: 'x', use_local: true, models: ['openrouter:delta-priced'] }), 'VALIDATION_ERROR').message)
      .toMatch(/^models: use_local takes local/);
  });

  it('council_get with wait_seconds holds until the job finishes', async () => {
    const ask = ok(await T.agent.call('council_ask', { question: 'Wait for it?' }));
    const waiting = T.agent.call('council_get', { council_id: ask.council_id, wait_seconds: 20 });
    await new Promise((r) => setTimeout(r, 200));
    await drain();
    const got = ok(await waiting);
    expect(got.status).toBe('done');
    expect(got.waited_ms).toBeGreaterThanOrEqual(150);
  });
});

describe('configuration and refusals', () => {
  it('no configuration is UNAVAILABLE, and the hint names the variables', async () => {
    setEnv({ BULLPEN_COUNCIL_MODELS: undefined, BULLPEN_COUNCIL_CHAIRMAN: undefined });
    const e = fails(await T.agent.call('council_ask', { question: 'Anyone there?' }), 'UNAVAILABLE');
    expect(e.retryable).toBe(false);
    expect(e.hint).toMatch(/BULLPEN_COUNCIL_MODELS.*BULLPEN_COUNCIL_CHAIRMAN/);
    setEnv({ BULLPEN_COUNCIL_LOCAL_MODELS: undefined });
    expect(fails(await T.agent.call('council_ask', { question: 'x', use_local: true }), 'UNAVAILABLE').hint).toMatch(/BULLPEN_COUNCIL_LOCAL_MODELS/);
    const noKey = fails(await T.agent.call('council_ask', { question: 'x', models: ['openai:gpt-x'] }), 'UNAVAILABLE');
    expect(noKey.hint).toMatch(/BULLPEN_COUNCIL_OPENAI_API_KEY/);
    expect(fails(await T.agent.call('council_ask', { question: 'x', models: ['acme:m'] }), 'VALIDATION_ERROR').message).toMatch(/^models\[0\]: acme:m names no provider/);
  });

  it('context_ids name tasks, decisions and notes of the caller’s workspace only', async () => {
    const note = ok(await T.agent.call('knowledge_write', { title: 'Queue notes', body: 'We tried Redis in 2024.' }));
    const dec = ok(await T.agent.call('decision_log', { title: 'Use Postgres', choice: 'Everything in Postgres' }));
    const ask = ok(await T.agent.call('council_ask', { question: 'Context?', context_ids: [note.note_id ?? note.note.id, dec.decision_id] }));
    await drain();
    const c = ok(await T.agent.call('council_get', { council_id: ask.council_id })).council;
    expect(c.context_refs.map((r: { type: string; label: string }) => `${r.type}:${r.label}`)).toEqual(['note:Queue notes', 'decision:Use Postgres']);
    expect(llm.requests.at(-1)!.user).toContain('We tried Redis in 2024.');
    // another workspace's ids read as missing, in context and in council_get
    const miss = fails(await B.agent.call('council_ask', { question: 'Peek?', context_ids: [dec.decision_id] }), 'NOT_FOUND');
    expect(miss.message).toMatch(/^context_ids\[0\]: no task, decision or note/);
    expect(fails(await B.agent.call('council_get', { council_id: ask.council_id }), 'NOT_FOUND').message).toMatch(/^council_id: no council/);
    expect(ok(await B.agent.call('council_query', {})).councils).toEqual([]);
    expect(ok(await T.human.call('council_query', {})).councils.map((x: { id: string }) => x.id)).toContain(ask.council_id);
  });

  it('the API roles cannot run the job’s step, and council rows are written only through the RPCs', async () => {
    const ask = ok(await T.agent.call('council_ask', { question: 'Forge?' }));
    await expect(db.withClaims(T.agent.claims, `select bullpen.council_finish('${T.id}', '${ask.council_id}', '{"status":"done"}')`)).rejects.toMatchObject({ code: '42501' });
    await expect(db.withClaims(T.agent.claims, `update public.councils set status = 'done' where id = '${ask.council_id}'`)).rejects.toMatchObject({ code: '42501' });
    await drain();
  });

  it('replays a retried ask instead of asking twice', async () => {
    const input = { question: 'Once?', idempotency_key: 'ask-once' };
    const one = ok(await T.agent.call('council_ask', input));
    const two = ok(await T.agent.call('council_ask', input));
    expect(two).toMatchObject({ council_id: one.council_id, idempotent_replay: true });
    expect(await drain()).toBe(1);
  });
});

describe('a council drawn from a sensitive note', () => {
  // a key with the sensitive scope (claims.sensitive) beside a normal key of the same agent
  const as = (sensitive: boolean): Actor => {
    const claims = { ...T.agent.claims, ...(sensitive ? { sensitive: true } : {}) };
    const ctx = { db, claims };
    return { ...T.agent, claims, ctx, call: async (tool, input = {}) => assertOutput(tool, await execute(ctx, tool, input)) };
  };

  it('is sensitive: only the sensitive key reads it, and no activity line names its question', async () => {
    const seer = as(true);
    const plain = as(false);
    const note = ok(await seer.call('knowledge_write', { title: 'Wombat payroll', body: 'Wombat salaries are in the vault.', sensitivity: 'sensitive' }));
    const noteId = note.note_id ?? note.note.id;
    // a normal key cannot even name the note as context
    expect(fails(await plain.call('council_ask', { question: 'Peek?', context_ids: [noteId] }), 'NOT_FOUND').message).toMatch(/^context_ids\[0\]/);
    const ask = ok(await seer.call('council_ask', { question: 'Wombat raise this year?', context_ids: [noteId] }));
    expect(ask.council.sensitivity).toBe('sensitive');
    await drain();
    const got = ok(await seer.call('council_get', { council_id: ask.council_id }));
    expect(got.council).toMatchObject({ sensitivity: 'sensitive', status: 'done' });
    expect(got.council.context_refs.map((r: { label: string }) => r.label)).toEqual(['Wombat payroll']);
    expect(ok(await seer.call('council_query', {})).councils.map((c: { id: string }) => c.id)).toContain(ask.council_id);
    // the normal key: missing by id, absent from the list, and the activity log names nothing
    expect(fails(await plain.call('council_get', { council_id: ask.council_id }), 'NOT_FOUND').message).toMatch(/^council_id: no council/);
    expect(ok(await plain.call('council_query', {})).councils.map((c: { id: string }) => c.id)).not.toContain(ask.council_id);
    const log = ok(await plain.call('activity_query', { limit: 100 }));
    expect(JSON.stringify(log)).not.toMatch(/Wombat/);
    expect(log.activity.filter((a: { object_id: string | null }) => a.object_id === ask.council_id).map((a: { summary: string }) => a.summary))
      .toEqual(expect.arrayContaining(['asked the council a sensitive question', 'council done: a sensitive question']));
    // the API role reading the table directly sees no row either
    const direct = await db.withClaims(T.agent.claims, `select count(*)::int as n from public.councils where id = '${ask.council_id}'`);
    expect(direct[0].n).toBe(0);
    // a normal council stays normal and visible to both
    const plainAsk = ok(await plain.call('council_ask', { question: 'Tabs or spaces?' }));
    expect(plainAsk.council.sensitivity).toBe('normal');
    expect(ok(await plain.call('council_get', { council_id: plainAsk.council_id })).council.sensitivity).toBe('normal');
    await drain();
  });

  it('is not recorded as a decision: record_decision is refused, naming the field, and nothing is written', async () => {
    const seer = as(true);
    const note = ok(await seer.call('knowledge_write', { title: 'Numbat offer', body: 'Numbat offer terms.', sensitivity: 'sensitive' }));
    const before = ok(await seer.call('council_query', { limit: 100 })).councils.length;
    const e = fails(await seer.call('council_ask', { question: 'Numbat?', context_ids: [note.note_id ?? note.note.id], record_decision: true }), 'VALIDATION_ERROR');
    expect(e.message).toMatch(/^record_decision: the context holds a sensitive note/);
    expect(ok(await seer.call('council_query', { limit: 100 })).councils.length).toBe(before);
    expect(await drain()).toBe(0);
  });
});

describe('parseRanking', () => {
  it('reads JSON or a RANKING line, keeps shown labels once, and refuses garbage', () => {
    expect(parseRanking('ok {"ranking": ["b", "A", "B", "Z"], "reason": "r"}', ['A', 'B'])).toEqual({ ranking: ['B', 'A'], reason: 'r' });
    expect(parseRanking('RANKING: C > A\nREASON: clearer', ['A', 'C'])).toEqual({ ranking: ['C', 'A'], reason: 'clearer' });
    expect(parseRanking('no idea', ['A'])).toBeNull();
  });
});
