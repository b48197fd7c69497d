/**
 * The seqs a live consumer has already handled, bounded. A resumed stream replays a short overlap
 * window (events can commit out of seq order), so both the SSE route and the browser drop any seq
 * they have seen. `high` is the largest seq seen: what a reconnect resumes from.
 */
export class SeqWindow {
  private readonly seen = new Set<number>();
  private readonly order: number[] = [];
  private head = 0;
  high = 0;

  constructor(private readonly capacity = 20_000) {}

  has(seq: number): boolean {
    return this.seen.has(seq);
  }

  /** Records a seq; false when it was already seen (a duplicate to drop). */
  add(seq: number): boolean {
    if (this.seen.has(seq)) return false;
    this.seen.add(seq);
    this.order.push(seq);
    if (seq > this.high) this.high = seq;
    if (this.order.length - this.head > this.capacity) {
      this.seen.delete(this.order[this.head]);
      this.head++;
      if (this.head > 4096) {
        this.order.splice(0, this.head);
        this.head = 0;
      }
    }
    return true;
  }

  get size(): number {
    return this.seen.size;
  }
}
