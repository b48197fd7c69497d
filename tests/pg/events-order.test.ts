import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDb, ok, seedTenant, type Actor, type Tenant, type TestDb } from '../helpers/db';

/**
 * event_poll's cursor on a real Postgres server, where writers commit concurrently and an activity
 * id handed out first can commit last. The cursor must never skip such a row nor repeat one.
 */

let db: TestDb;
let T: Tenant;

beforeAll(async () => {
  db = await freshDb();
  T = await seedTenant(db, 'events-order');
});
afterAll(() => db.drop());

type Ev = { seq: number; event_type: string; payload: Record<string, unknown> };

async function pollAll(actor: Actor, cursor: string): Promise<{ events: Ev[]; cursor: string; held: boolean }> {
  const events: Ev[] = [];
  let held = false;
  for (;;) {
    const r = ok(await actor.call('event_poll', { since_cursor: cursor, types: ['order.*'], limit: 50 }));
    events.push(...r.events);
    cursor = r.next_cursor;
    held = r.held_back;
    if (!r.has_more) return { events, cursor, held };
  }
}

describe('event_poll under concurrent writers', () => {
  it('holds back a row committed ahead of an older open transaction, then reads both, the smaller id first', async () => {
    const start = ok(await T.agent.call('event_poll', {})).next_cursor;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let slowSeq = 0;
    let inserted!: () => void;
    const wrote = new Promise<void>((r) => (inserted = r));
    // an open transaction takes an id first and commits last
    const slow = db.transaction(async (s) => {
      const [row] = await s.query<{ id: string }>(
        `insert into public.activity (tenant_id, actor_id, verb, object_type, metadata) values ($1, $2, 'order.slow', 'event', '{}') returning id`,
        [T.id, T.agent.id],
      );
      slowSeq = Number(row.id);
      inserted();
      await gate;
    });
    await wrote;
    const fast = ok(await T.agent.call('event_publish', { event_type: 'order.fast', payload: {} })).event;
    expect(fast.seq).toBeGreaterThan(slowSeq);
    const early = ok(await T.agent.call('event_poll', { since_cursor: start, types: ['order.*'] }));
    // the committed row is not handed out past the open one: it is held back, and so is the cursor
    expect(early.events).toEqual([]);
    expect(early.held_back).toBe(true);
    release();
    await slow;
    const late = ok(await T.agent.call('event_poll', { since_cursor: early.next_cursor, types: ['order.*'] }));
    expect(late.events.map((e: Ev) => e.event_type)).toEqual(['order.slow', 'order.fast']);
    expect(late.held_back).toBe(false);
  });

  it('16 concurrent writers and a poller reading all along: every event read exactly once', async () => {
    const agents = await Promise.all(Array.from({ length: 16 }, (_, i) => T.addAgent(`writer-${i}`)));
    let cursor = ok(await T.agent.call('event_poll', {})).next_cursor;
    const published: number[] = [];
    const read: number[] = [];
    let writing = true;
    const poller = (async () => {
      while (writing) {
        const r = await pollAll(T.agent, cursor);
        read.push(...r.events.map((e) => e.seq));
        cursor = r.cursor;
      }
    })();
    await Promise.all(
      agents.map(async (a, w) => {
        for (let i = 0; i < 40; i++) {
          const env = await a.call('event_publish', { event_type: 'order.mixed', payload: { w, i } });
          published.push(ok(env).event.seq);
        }
      }),
    );
    writing = false;
    await poller;
    for (let tries = 0; tries < 50; tries++) {
      const r = await pollAll(T.agent, cursor);
      read.push(...r.events.map((e) => e.seq));
      cursor = r.cursor;
      if (!r.held && read.length >= published.length) break;
      await new Promise((res) => setTimeout(res, 20));
    }
    expect(read.length).toBe(published.length);
    expect(new Set(read).size).toBe(read.length);
    expect([...read].sort((a, b) => a - b)).toEqual([...published].sort((a, b) => a - b));
  });

  it('interleaved slow transactions: ids committed out of order are neither skipped nor repeated', async () => {
    let cursor = ok(await T.agent.call('event_poll', {})).next_cursor;
    const written: number[] = [];
    const read: number[] = [];
    let writing = true;
    const poller = (async () => {
      while (writing) {
        const r = await pollAll(T.agent, cursor);
        read.push(...r.events.map((e) => e.seq));
        cursor = r.cursor;
        await new Promise((res) => setTimeout(res, 2));
      }
    })();
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; i < 25; i++) {
          await db.transaction(async (s) => {
            const [row] = await s.query<{ id: string }>(
              `insert into public.activity (tenant_id, actor_id, verb, object_type, metadata) values ($1, $2, 'order.held', 'event', $3) returning id`,
              [T.id, T.agent.id, JSON.stringify({ w, i })],
            );
            written.push(Number(row.id));
            // hold the id for a random moment before committing
            await new Promise((res) => setTimeout(res, Math.random() * 15));
          });
        }
      }),
    );
    writing = false;
    await poller;
    const rest = await pollAll(T.agent, cursor);
    read.push(...rest.events.map((e) => e.seq));
    expect(new Set(read).size).toBe(read.length);
    expect([...read].sort((a, b) => a - b)).toEqual([...written].sort((a, b) => a - b));
  });
});
