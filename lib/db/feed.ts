import type pg from 'pg';
import { envNumber } from '../shared/env';

/**
 * The change feed on a Postgres server. Every write's activity row is its change event, committed
 * with the write; one poller per server process reads new rows by id and hands them out as NOTIFY
 * payloads would have been. Ids are handed out before commit, so a row can commit after a larger
 * one: ids skipped over are kept as gaps and looked up again until they appear (or, for a
 * transaction that rolled back, until they age out).
 */
export class ActivityFeed {
  private hw: number | null = null;
  private readonly gaps = new Map<number, number>();
  private readonly seen = new Set<number>();
  private readonly order: number[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly emit: (payload: string) => void,
    private readonly intervalMs = envNumber('BULLPEN_FEED_POLL_MS'),
    private readonly gapTtlMs = 10_000,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
    void this.tick();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One poll; safe to call directly (tests). */
  async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      if (this.hw === null) {
        const r = await this.pool.query(`select coalesce(max(id), 0)::bigint as m from public.activity`);
        this.hw = Number(r.rows[0].m);
      }
      const cols = `id::bigint as seq, tenant_id, project_id, object_type, object_id, verb, actor_id, at`;
      const rows = (await this.pool.query(`select ${cols} from public.activity where id > $1 order by id limit 5000`, [this.hw])).rows;
      const gapIds = [...this.gaps.keys()];
      if (gapIds.length) {
        rows.push(...(await this.pool.query(`select ${cols} from public.activity where id = any($1::bigint[])`, [gapIds])).rows);
      }
      let hw = this.hw;
      const fresh = rows.map((r) => ({ ...r, seq: Number(r.seq) })).sort((a, b) => a.seq - b.seq);
      for (const row of fresh) {
        if (row.seq > hw) {
          for (let missing = hw + 1; missing < row.seq; missing++) if (!this.seen.has(missing)) this.gaps.set(missing, Date.now());
          hw = row.seq;
          this.hw = hw;
        }
        this.gaps.delete(row.seq);
        if (this.seen.has(row.seq)) continue;
        this.seen.add(row.seq);
        this.order.push(row.seq);
        if (this.order.length > 10_000) this.seen.delete(this.order.shift()!);
        this.emit(JSON.stringify({ ...row, at: row.at instanceof Date ? row.at.toISOString() : row.at }));
      }
      const now = Date.now();
      for (const [id, since] of this.gaps) if (now - since > this.gapTtlMs) this.gaps.delete(id);
    } catch {
      // a failed poll is retried on the next tick; the high-water mark did not move
    } finally {
      this.running = false;
    }
  }
}
