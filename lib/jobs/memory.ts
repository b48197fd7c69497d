import { embedDue, purgeExpired, queueModelChange } from '../memory/backfill';
import { getEmbedder } from '../memory/embedder';
import { enqueue } from './queue';
import { registerJob } from './registry';

/**
 * The memory room's background work:
 * - memory.embed: enqueued by every write of a note or decision (one pending job per workspace,
 *   key "memory.embed"); embeds what is due in that workspace. An embedder outage is recorded on
 *   the rows (pending, with the error and a retry moment); the job itself succeeds and schedules
 *   the next attempt, so backoff lives where the console can show it.
 * - memory.backfill (every 5 min, and at start-up): re-queues rows embedded by another model
 *   after a model change, and embeds anything due in any workspace.
 * - memory.purge_expired (every 5 min): deletes notes past their expires_at.
 */

const KEY = 'memory.embed';

async function embedWorkspace(db: Parameters<typeof embedDue>[0], tenantId: string | null): Promise<void> {
  const report = await embedDue(db, getEmbedder(), { tenantId });
  if (report.more) {
    await enqueue(db, KEY, { reason: 'more' }, { tenantId, key: KEY });
  } else if (report.retry_at) {
    await enqueue(db, KEY, { reason: 'retry', error: report.error ?? null }, { tenantId, key: KEY, runAt: report.retry_at });
  }
}

registerJob('memory.embed', async (job, { db }) => embedWorkspace(db, job.tenant_id), { leaseSeconds: 600 });

registerJob(
  'memory.backfill',
  async (_job, { db }) => {
    await queueModelChange(db, getEmbedder().model);
    await embedWorkspace(db, null);
  },
  { everySeconds: 300, leaseSeconds: 1800 },
);

registerJob('memory.purge_expired', async (_job, { db }) => { await purgeExpired(db); }, { everySeconds: 300 });
