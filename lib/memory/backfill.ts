import type { Db } from '../db/types';
import type { Embedder } from './embedder';

/**
 * The background half of "durable row before embedding". Writes commit notes and decisions with
 * embedding_status 'pending' and wake the embedder; this reads every due row, embeds it and stores
 * the vector beside the row's content hash. An embedder failure never touches the write: the row
 * stays pending, records the error and is retried with backoff, and becomes 'failed' after
 * MAX_ATTEMPTS. Runs on the server's own connection, scoped by tenant where given.
 */

export const MAX_ATTEMPTS = 8;

type Due = { object_type: 'note' | 'decision' | 'chunk'; id: string; tenant_id: string; text: string; content_hash: string; attempts: number };

export type EmbedReport = {
  embedded: number;
  failed: number;
  /** Rows that failed this pass and wait for a retry; the earliest retry moment. */
  retry_at: Date | null;
  /** More rows were due than this pass took (call again). */
  more: boolean;
  error?: string;
};

/** Delay before retry `attempt` (1-based): 2 s doubling, capped at an hour, with ±20 % jitter. */
export function retryDelayMs(attempt: number, firstMs = 2000): number {
  const base = Math.min(3_600_000, firstMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

const indexed = new Set<string>();

/** Whether this database stores vectors (pgvector present and the vector migration applied). */
export async function vectorsAvailable(db: Db): Promise<boolean> {
  const [r] = await db.query<{ ok: boolean }>(`select to_regclass('public.memory_embeddings') is not null as ok`);
  return !!r?.ok;
}

async function dueRows(db: Db, tenantId: string | null, limit: number): Promise<Due[]> {
  return db.query<Due>(
    `(select 'note' as object_type, n.id, n.tenant_id, bullpen.note_embed_text(n.title, n.body) as text, n.content_hash,
             n.embedding_attempts as attempts, coalesce(n.embedding_retry_at, n.created_at) as due
        from public.knowledge_notes n
       where n.embedding_status in ('pending', 'unavailable') and ($1::uuid is null or n.tenant_id = $1)
         and (n.embedding_retry_at is null or n.embedding_retry_at <= now())
         and (n.expires_at is null or n.expires_at > now())
       order by n.tenant_id, n.embedding_retry_at nulls first limit $2)
     union all
     (select 'decision', d.id, d.tenant_id,
             bullpen.decision_embed_text(d.title, d.choice, d.context, d.rationale, d.consequences), d.content_hash,
             d.embedding_attempts, coalesce(d.embedding_retry_at, d.created_at)
        from public.decisions d
       where d.embedding_status in ('pending', 'unavailable') and ($1::uuid is null or d.tenant_id = $1)
         and (d.embedding_retry_at is null or d.embedding_retry_at <= now())
       order by d.tenant_id, d.embedding_retry_at nulls first limit $2)
     union all
     -- source chunks (0031_sources) are embedded from their document's title, heading and text
     (select 'chunk', c.id, c.tenant_id, c.doc_title || E'\n' || coalesce(c.heading, '') || E'\n' || c.body, c.content_hash,
             c.embedding_attempts, coalesce(c.embedding_retry_at, now())
        from public.source_chunks c
       where c.embedding_status in ('pending', 'unavailable') and ($1::uuid is null or c.tenant_id = $1)
         and (c.embedding_retry_at is null or c.embedding_retry_at <= now())
       order by c.tenant_id, c.embedding_retry_at nulls first limit $2)
     order by due limit $2`,
    [tenantId, limit],
  );
}

/** Stores vectors for rows whose content is still what was embedded; marks them ready. */
async function store(db: Db, model: string, rows: Due[], vectors: number[][]): Promise<void> {
  const dims = vectors[0]?.length ?? 0;
  const key = `${model}:${dims}`;
  if (!indexed.has(key)) {
    await db.query(`select bullpen.memory_vector_index($1, $2)`, [model, dims]);
    indexed.add(key);
  }
  const input = rows.map((r, i) => ({ t: r.object_type, id: r.id, tenant_id: r.tenant_id, hash: r.content_hash, v: `[${vectors[i].join(',')}]` }));
  await db.query(
    `with input as (
       select x.* from jsonb_to_recordset($1::jsonb) as x(t text, id uuid, tenant_id uuid, hash text, v text)
        where (x.t = 'note' and exists (select 1 from public.knowledge_notes n where n.tenant_id = x.tenant_id and n.id = x.id and n.content_hash = x.hash))
           or (x.t = 'decision' and exists (select 1 from public.decisions d where d.tenant_id = x.tenant_id and d.id = x.id and d.content_hash = x.hash))
           or (x.t = 'chunk' and exists (select 1 from public.source_chunks c where c.tenant_id = x.tenant_id and c.id = x.id and c.content_hash = x.hash))
     ), upserted as (
       insert into public.memory_embeddings as e (tenant_id, object_type, object_id, model, dims, content_hash, embedding)
       select tenant_id, t, id, $2, $3, hash, v::public.vector from input
       on conflict (tenant_id, object_type, object_id, model)
       do update set embedding = excluded.embedding, dims = excluded.dims, content_hash = excluded.content_hash, created_at = now()
       returning e.tenant_id, e.object_type, e.object_id
     ), dropped as (
       -- the previous model's vector goes once the new one is in: search never loses the row meanwhile
       delete from public.memory_embeddings e using input
        where e.tenant_id = input.tenant_id and e.object_type = input.t and e.object_id = input.id and e.model <> $2
     ), chunks as (
       update public.source_chunks c
          set embedding_status = 'ready', embedding_model = $2, embedding_dims = $3, embedded_at = now(),
              embedding_attempts = 0, embedding_retry_at = null, embedding_error = null
         from input where input.t = 'chunk' and c.tenant_id = input.tenant_id and c.id = input.id and c.content_hash = input.hash
     ), notes as (
       update public.knowledge_notes n
          set embedding_status = 'ready', embedding_model = $2, embedding_dims = $3, embedded_at = now(),
              embedding_attempts = 0, embedding_retry_at = null, embedding_error = null
         from input where input.t = 'note' and n.tenant_id = input.tenant_id and n.id = input.id and n.content_hash = input.hash
     )
     update public.decisions d
        set embedding_status = 'ready', embedding_model = $2, embedding_dims = $3, embedded_at = now(),
            embedding_attempts = 0, embedding_retry_at = null, embedding_error = null
       from input where input.t = 'decision' and d.tenant_id = input.tenant_id and d.id = input.id`,
    [JSON.stringify(input), model, dims],
  );
}

/** Records a failed attempt: pending with a retry moment, or failed after MAX_ATTEMPTS. */
async function recordFailure(db: Db, rows: Due[], error: string, firstRetryMs?: number): Promise<Date> {
  let earliest = Infinity;
  const input = rows.map((r) => {
    const attempts = r.attempts + 1;
    const at = Date.now() + retryDelayMs(attempts, firstRetryMs);
    earliest = Math.min(earliest, at);
    return { t: r.object_type, id: r.id, tenant_id: r.tenant_id, attempts, retry_at: new Date(at).toISOString() };
  });
  const sql = (table: string, t: string) =>
    `update public.${table} x
        set embedding_attempts = i.attempts, embedding_error = left($2, 1000),
            embedding_status = case when i.attempts >= $3 then 'failed' else 'pending' end,
            embedding_retry_at = case when i.attempts >= $3 then null else i.retry_at end
       from jsonb_to_recordset($1::jsonb) as i(t text, id uuid, tenant_id uuid, attempts int, retry_at timestamptz)
      where i.t = '${t}' and x.tenant_id = i.tenant_id and x.id = i.id`;
  await db.query(sql('knowledge_notes', 'note'), [JSON.stringify(input), error, MAX_ATTEMPTS]);
  await db.query(sql('decisions', 'decision'), [JSON.stringify(input), error, MAX_ATTEMPTS]);
  await db.query(sql('source_chunks', 'chunk'), [JSON.stringify(input), error, MAX_ATTEMPTS]);
  return new Date(earliest);
}

/**
 * Embeds what is due (pending rows whose retry moment has come), in batches, for one workspace or
 * all. Safe to run twice at once: a vector is stored only for the content it was computed from.
 * One read takes up to `window` batches of due rows; each batch is embedded, then written in one
 * statement while the next batch embeds (the write runs in the database, the embedding here), so
 * the database's time hides behind the model's.
 */
export async function embedDue(
  db: Db,
  embedder: Embedder,
  opts: { tenantId?: string | null; batch?: number; maxBatches?: number; firstRetryMs?: number; window?: number } = {},
): Promise<EmbedReport> {
  const report: EmbedReport = { embedded: 0, failed: 0, retry_at: null, more: false };
  if (!(await vectorsAvailable(db))) return report;
  // at least one batch per worker of a pooled embedder, so every worker has one while the last is written
  const batch = opts.batch ?? Math.max(32, embedder.batch ?? 0);
  const maxBatches = opts.maxBatches ?? 50;
  const window = Math.max(1, opts.window ?? 4);
  let batches = 0;
  while (batches < maxBatches) {
    const take = Math.min(window, maxBatches - batches);
    const due = await dueRows(db, opts.tenantId ?? null, batch * take);
    if (due.length === 0) return report;
    let writing: Promise<void> = Promise.resolve();
    for (let i = 0; i < due.length; i += batch) {
      const rows = due.slice(i, i + batch);
      batches++;
      let vectors: number[][];
      try {
        vectors = await embedder.embed(rows.map((r) => r.text));
      } catch (err) {
        await writing;
        const message = `${embedder.model}: ${(err as Error).message}`;
        const at = await recordFailure(db, rows, message, opts.firstRetryMs);
        report.failed += rows.length;
        report.error = message;
        report.retry_at = report.retry_at && report.retry_at < at ? report.retry_at : at;
        // the embedder is down: leave the rest for the retry instead of failing them one batch at a time
        return report;
      }
      await writing;
      writing = store(db, embedder.model, rows, vectors);
      // awaited before the next write or the return; meanwhile a failure must not go unhandled
      writing.catch(() => {});
      report.embedded += rows.length;
    }
    await writing;
    if (due.length < batch * take) return report;
  }
  report.more = true;
  return report;
}

/**
 * A model change: rows embedded by another model go back to pending, so the background re-embeds
 * them. Their old vectors stay until the new ones replace them. Returns how many were queued.
 */
export async function queueModelChange(db: Db, model: string): Promise<number> {
  if (!(await vectorsAvailable(db))) return 0;
  const [a] = await db.query<{ n: number }>(
    `with n as (update public.knowledge_notes set embedding_status = 'pending', embedding_attempts = 0, embedding_retry_at = null
                 where embedding_status in ('ready', 'failed') and embedding_model is not null and embedding_model <> $1 returning 1),
          d as (update public.decisions set embedding_status = 'pending', embedding_attempts = 0, embedding_retry_at = null
                 where embedding_status in ('ready', 'failed') and embedding_model is not null and embedding_model <> $1 returning 1),
          c as (update public.source_chunks set embedding_status = 'pending', embedding_attempts = 0, embedding_retry_at = null
                 where embedding_status in ('ready', 'failed') and embedding_model is not null and embedding_model <> $1 returning 1)
     select ((select count(*) from n) + (select count(*) from d) + (select count(*) from c))::int as n`,
    [model],
  );
  return a?.n ?? 0;
}

/** Deletes notes past their expires_at (search already ignores them) with their comment threads, and records each in the activity log. */
export async function purgeExpired(db: Db, limit = 1000): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `with gone as (
       delete from public.knowledge_notes n
        where n.ctid in (select ctid from public.knowledge_notes where expires_at <= now() limit $1)
       returning n.tenant_id, n.id, n.project_id, n.title
     ), threads as (
       delete from public.comments c using gone where c.tenant_id = gone.tenant_id and c.object_type = 'note' and c.object_id = gone.id
     ), logged as (
       insert into public.activity (tenant_id, project_id, actor_id, verb, object_type, object_id, summary)
       select tenant_id, project_id, null, 'note.expired', 'note', id, title from gone
     )
     select count(*)::int as n from gone`,
    [limit],
  );
  return rows[0]?.n ?? 0;
}
