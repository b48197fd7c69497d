import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatStandIn, type ChatStandIn } from '../helpers/chat-standin';
import { fails, freshDb, ok, seedTenant, target, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * Tenant isolation proofs for deliberation (debates and the council): workspace B tries to read
 * and write what workspace A owns, through SQL as the API role and through every tool; inside A,
 * an actor who is not a participant tries to argue in a debate. tests/db/isolation.test.ts finds
 * the insert proofs and the tool cases below by their text.
 */

let db: TestDb;
let A: Tenant;
let B: Tenant;
let ada: Actor;
let outsider: Actor;
let llm: ChatStandIn;
let proofs = 0;
const a = { decision: '', council: '', handoff: '', task: '' };
const saved: Record<string, string | undefined> = {};
const env = {
  BULLPEN_COUNCIL_MODELS: 'local:alpha,local:beta',
  BULLPEN_COUNCIL_CHAIRMAN: 'local:alpha',
  BULLPEN_COUNCIL_LOCAL_API_KEY: 'test-key',
  BULLPEN_COUNCIL_LOCAL_BASE_URL: '',
};

beforeAll(async () => {
  db = await freshDb();
  llm = await startChatStandIn();
  env.BULLPEN_COUNCIL_LOCAL_BASE_URL = llm.baseURL;
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  A = await seedTenant(db, 'delib-a');
  B = await seedTenant(db, 'delib-b');
  ada = await A.addAgent('Ada');
  outsider = await A.addAgent('Outsider');
  ok(await A.agent.call('project_create', { title: 'Secret', key: 'SEC' }));
  a.task = ok(await A.agent.call('task_create', { project_id: 'SEC', title: 'Secret task' })).task.id;
  const d = ok(await A.agent.call('decision_log', {
    title: 'Secret debate', choice: 'Pick one', project_id: 'SEC', participants: [ada.id],
    options: [{ label: 'left' }, { label: 'right' }],
  }));
  a.decision = d.decision_id;
  a.handoff = d.decision.debate.participants[0].handoff_id;
  a.council = ok(await A.agent.call('council_ask', { question: 'Secret question?' })).council_id;
  ok(await B.agent.call('project_create', { title: 'Open', key: 'OPN' }));
});
afterAll(async () => {
  console.log(`[isolation-deliberation:${target}] ${proofs} tenant isolation proofs passed`);
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await llm.close();
  await db.drop();
});

describe('the tables', () => {
  it('show B none of A’s participants or councils, while A sees its own', async () => {
    for (const t of ['decision_participants', 'councils']) {
      const seen = await db.withClaims<{ n: number }>(B.agent.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect({ t, n: seen[0].n }).toEqual({ t, n: 0 });
      const own = await db.withClaims<{ n: number }>(A.agent.claims, `select count(*)::int as n from public.${t} where tenant_id = '${A.id}'`);
      expect(own[0].n, t).toBe(1);
      proofs += 2;
    }
  });

  it('refuse every write by the API roles, into either workspace', async () => {
    const attempts = [
      `insert into public.decision_participants (tenant_id, decision_id, actor_id) values ('${A.id}', '${a.decision}', '${B.agent.id}')`,
      `insert into public.decision_participants (tenant_id, decision_id, actor_id) values ('${A.id}', '${a.decision}', '${outsider.id}')`,
      `insert into public.councils (tenant_id, question, models, chairman, asked_by_actor_id) values ('${A.id}', 'evil', '{local:x}', 'local:x', '${A.agent.id}')`,
      `update public.decision_participants set position = 'left'`,
      `update public.councils set status = 'done', finished_at = now()`,
      `delete from public.councils`,
    ];
    for (const sql of attempts) {
      const claims = sql.includes(outsider.id) ? outsider.claims : B.agent.claims;
      await expect(db.withClaims(claims, sql), sql).rejects.toMatchObject({ code: '42501' });
      proofs++;
    }
  });
});

describe('every deliberation tool, called with another workspace’s ids', () => {
  const cases: [string, () => Record<string, unknown>][] = [
    ['debate_reply', () => ({ decision_id: a.decision, position: 'left', argument: 'intrude' })],
    ['decision_log', () => ({ title: 'x', choice: 'y', options: [{ label: 'l' }, { label: 'r' }], participants: [ada.id] })],
    ['decision_set_status', () => ({ decision_id: a.decision, status: 'accepted', note: 'mine', winning_option: 'left' })],
    ['council_ask', () => ({ question: 'peek', context_ids: [a.decision] })],
    ['council_ask', () => ({ question: 'peek', context_ids: [a.task] })],
    ['council_ask', () => ({ question: 'peek', context_ids: ['SEC-1'] })],
    ['council_ask', () => ({ question: 'peek', project_id: 'SEC' })],
    ['council_get', () => ({ council_id: a.council })],
    ['council_query', () => ({ project_id: 'SEC' })],
  ];

  it.each(cases)('%s answers NOT_FOUND (%#)', async (tool, input) => {
    fails(await B.agent.call(tool, input()), 'NOT_FOUND');
    proofs++;
  });

  it('list tools filter rather than leak', async () => {
    expect(ok(await B.agent.call('council_query', {})).councils).toEqual([]);
    const dq = ok(await B.agent.call('decision_query', { include_superseded: true }));
    expect(JSON.stringify(dq)).not.toContain('Secret');
    proofs += 2;
  });
});

describe('inside the workspace, only a participant argues', () => {
  it('another actor’s reply is FORBIDDEN, and it cannot answer the participant’s handoff', async () => {
    const e = fails(await outsider.call('debate_reply', { decision_id: a.decision, position: 'left', argument: 'let me in' }), 'FORBIDDEN');
    expect(e.message).toMatch(/only a participant replies to a debate/);
    fails(await outsider.call('handoff_respond', { handoff_id: a.handoff, response: { chosen_option: 'left' } }), 'FORBIDDEN');
    const d = ok(await A.human.call('decision_query', { q: 'Secret debate' })).decisions[0];
    expect(d.debate.arguments).toEqual([]);
    expect(d.debate.waiting_on.map((w: { display_name: string }) => w.display_name)).toEqual(['Ada']);
    proofs += 2;
  });
});
