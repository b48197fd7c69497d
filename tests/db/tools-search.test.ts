import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, freshDb, ok, seedTenant, type Tenant, type TestDb } from '../helpers/db';

let db: TestDb;
let T: Tenant;
const made: Record<string, string> = {};

type Hit = { object_type: string; object_id: string; title: string; snippet: string; rank: number; ref: string | null; project_id: string | null };

async function find(q: string, extra: Record<string, unknown> = {}): Promise<Hit[]> {
  return ok(await T.agent.call('search', { q, ...extra })).results;
}

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'search');
  made.project = ok(await T.agent.call('project_create', { title: 'Lighthouse observatory', key: 'LIGHT', summary: 'Telescope scheduling' })).project.id;
  made.task = ok(await T.agent.call('task_create', { project_id: 'LIGHT', title: 'Calibrate the spectrograph', body: 'Use the neon lamp.' })).task_id;
  ok(await T.agent.call('task_create', { project_id: 'LIGHT', title: 'Order coffee', body: 'The spectrograph team drinks a lot.' }));
  made.decision = ok(await T.agent.call('decision_log', { title: 'Dome opens at dusk', choice: 'Automate the dome shutter', project_id: 'LIGHT' })).decision_id;
  made.note = ok(await T.agent.call('knowledge_write', { title: 'Cryostat refill', body: 'Liquid nitrogen every Thursday morning.', project_id: 'LIGHT' })).note_id;
  made.comment = ok(await T.agent.call('comment_add', { object_type: 'task', object_id: 'LIGHT-1', body: 'The heliostat mirror drifts at night.' })).comment_id;
  made.skill = ok(await T.agent.call('skill_upsert', { slug: 'collimation', description: 'Aligning the telescope optics', body: 'Star test first.' })).skill.id;
});
afterAll(() => db.drop());

describe('search', () => {
  it('finds every kind of object by a word, with title, snippet and rank', async () => {
    const cases: [string, string, string][] = [
      ['observatory', 'project', made.project],
      ['spectrograph', 'task', made.task],
      ['shutter', 'decision', made.decision],
      ['nitrogen', 'note', made.note],
      ['heliostat', 'comment', made.comment],
      ['collimation', 'skill', made.skill],
    ];
    for (const [q, type, id] of cases) {
      const hits = await find(q);
      expect(hits[0], q).toMatchObject({ object_type: type, object_id: id });
      expect(hits[0].rank, q).toBeGreaterThan(0);
      expect(typeof hits[0].title).toBe('string');
    }
    const [task] = await find('spectrograph');
    expect(task).toMatchObject({ ref: 'LIGHT-1', title: 'Calibrate the spectrograph', project_id: made.project });
    const [note] = await find('nitrogen');
    expect(note.snippet).toContain('«nitrogen»');
    const [comment] = await find('heliostat');
    expect(comment).toMatchObject({ ref: 'LIGHT-1', title: 'Comment on LIGHT-1 Calibrate the spectrograph' });
  });

  it('ranks a title match above a body mention, and finds a task by its KEY-N', async () => {
    const hits = await find('spectrograph', { types: ['task'] });
    expect(hits.map((h) => h.title)).toEqual(['Calibrate the spectrograph', 'Order coffee']);
    expect(hits[0].rank).toBeGreaterThan(hits[1].rank);
    const [byRef] = await find('LIGHT-2');
    expect(byRef).toMatchObject({ object_type: 'task', title: 'Order coffee', ref: 'LIGHT-2' });
    const [byKey] = await find('light');
    expect(byKey).toMatchObject({ object_type: 'project', object_id: made.project });
  });

  it('tolerates a typo through trigrams, honours limit and types, and is keyword-only', async () => {
    expect((await find('spectrgraph'))[0]).toMatchObject({ object_id: made.task });
    expect(await find('observatory telescope cryostat nitrogen spectrograph', { limit: 2 })).toHaveLength(2);
    expect((await find('spectrograph', { types: ['comment', 'note'] })).map((h) => h.object_type)).toEqual([]);
    // a word of the same meaning but no shared letters finds nothing: search is not semantic
    expect(await find('astronomy')).toEqual([]);
  });

  it('includes handoffs', async () => {
    const id = ok(await T.agent.call('handoff_create', { to_actor_ids: [T.human.id], title: 'Review the telescope mount', body: 'Is the periscope aligned?', kind: 'question' })).handoff.id;
    const hits = await find('periscope');
    expect(hits.map((h) => [h.object_type, h.object_id])).toEqual([['handoff', id]]);
  });

  it('refuses empty queries, bad limits and unknown types, naming the field', async () => {
    expect(fails(await T.agent.call('search', { q: '  ' }), 'VALIDATION_ERROR').message).toContain('q');
    expect(fails(await T.agent.call('search', { q: 'x', limit: 101 }), 'VALIDATION_ERROR').message).toContain('limit');
    expect(fails(await T.agent.call('search', { q: 'x', types: ['planet'] }), 'VALIDATION_ERROR').message).toContain('types[0]');
    expect(fails(await T.agent.call('search', {}), 'VALIDATION_ERROR').message).toContain('q');
  });
});
