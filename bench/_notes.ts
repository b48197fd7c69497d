/**
 * What the memory benches share (bench/retrieval.ts, bench/memory-search.ts): the labelled set, a
 * workspace with one agent, and notes at scale built from the set's texts and vectors.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Claims, Db } from '../lib/db/types';
import { LOCAL_DIMS, LOCAL_MODEL } from '../lib/memory/embedder';
import { ensureActor, ensureWorkspace } from '../lib/server/workspace';
import { root } from './lib';

export type Doc = { id: string; type: 'note' | 'decision'; title: string; text: string };
export type Query = { q: string; relevant: string[] };
export const set = JSON.parse(readFileSync(path.join(root, 'bench', 'retrieval-set.json'), 'utf8')) as { docs: Doc[]; queries: Query[]; unrelated?: string[] };

/** A workspace named `slug` with one agent; that agent's claims. */
export async function benchWorkspace(db: Db, slug: string): Promise<Claims> {
  const ws = await ensureWorkspace(db, slug, slug);
  const a = await ensureActor(db, ws.id, { kind: 'agent', external_ref: `agent:${slug}`, display_name: `Bench ${slug}` });
  return { sub: a.id, role: 'authenticated', tenant_id: ws.id, actor_id: a.id, run_id: 'bench' };
}

/**
 * n notes in the workspace, already embedded, 1,000 per statement: each note is two of the set's
 * texts, its vector the normalised sum of theirs (docVectors[i] is the set's doc i).
 */
export async function seedNotes(db: Db, ws: Claims, n: number, docVectors: number[][]): Promise<void> {
  for (let start = 0; start < n; start += 1000) {
    const rows = [];
    for (let j = start; j < Math.min(n, start + 1000); j++) {
      const a = (j * 7919) % set.docs.length;
      const b = (j * 104729 + 13) % set.docs.length;
      const v = docVectors[a].map((x, k) => x + docVectors[b][k]);
      const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
      rows.push({
        id: randomUUID(),
        title: `${set.docs[a].title} (${j})`,
        body: `${set.docs[a].text} ${set.docs[b].text}`,
        v: `[${v.map((x) => (x / norm).toFixed(6)).join(',')}]`,
      });
    }
    await db.query(
      `with x as (select * from jsonb_to_recordset($3::jsonb) as x(id uuid, title text, body text, v text)),
       n as (insert into public.knowledge_notes (tenant_id, id, kind, title, body, author_actor_id, updated_by_actor_id,
               content_hash, embedding_status, embedding_model, embedding_dims, embedded_at)
             select $1, x.id, 'note', x.title, x.body, $2, $2, bullpen.memory_hash(bullpen.note_embed_text(x.title, x.body)),
                    'ready', $4, $5, now() from x returning id, content_hash)
       insert into public.memory_embeddings (tenant_id, object_type, object_id, model, dims, content_hash, embedding)
       select $1, 'note', x.id, $4, $5, n.content_hash, x.v::public.vector from x join n on n.id = x.id`,
      [ws.tenant_id, ws.actor_id, JSON.stringify(rows), LOCAL_MODEL, LOCAL_DIMS],
    );
  }
}

/** n notes made of the set's texts in the workspace, pending embedding (as knowledge_write leaves them); their titles and bodies. */
export async function seedPendingNotes(db: Db, ws: Claims, n: number): Promise<{ title: string; body: string }[]> {
  const rows = Array.from({ length: n }, (_, j) => {
    const d = set.docs[j % set.docs.length];
    return { title: `${d.title} [${j}]`, body: `${d.text} (copy ${j})` };
  });
  await db.query(
    `insert into public.knowledge_notes (tenant_id, kind, title, body, author_actor_id, updated_by_actor_id, content_hash, embedding_status)
     select $1, 'note', x.title, x.body, $2, $2, bullpen.memory_hash(bullpen.note_embed_text(x.title, x.body)), 'pending'
       from jsonb_to_recordset($3::jsonb) as x(title text, body text)`,
    [ws.tenant_id, ws.actor_id, JSON.stringify(rows)],
  );
  return rows;
}
