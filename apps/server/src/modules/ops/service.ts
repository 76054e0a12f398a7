import type { Db } from '../../db/database.ts';
import type { Metrics } from '../../lib/metrics.ts';
import type { FileStore } from '../../providers/storage/file-store.ts';
import type { JobQueue } from '../../queue/job-queue.ts';
import { pingDatabase, sumBalancesCents } from './repository.ts';

export type ReadinessPart = 'database' | 'queue' | 'files';
export type Readiness = { ready: boolean; checks: Record<ReadinessPart, string> };

const CHECK_TIMEOUT_MS = 2000;

/** `work`, or an error once `ms` have passed: a part that hangs is as unready as one that fails. */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Whether this process can serve: the database answers, the job queue (the embedded table, or
 * Redis with BullMQ) answers, and the file store answers. Each part is asked at once, with a time limit.
 */
export function createOpsService({ db, queue, files, metrics }: { db: Db; queue: JobQueue; files: FileStore; metrics: Metrics }) {
  metrics.readAtScrape({
    queueCounts: () => queue.counts(),
    balancesCents: () => sumBalancesCents(db),
  });
  const parts: Record<ReadinessPart, () => Promise<unknown>> = {
    database: () => pingDatabase(db),
    queue: () => queue.counts(),
    // A key that is never written: reading it proves the store answers (and, for S3, that it lets us in).
    files: () => files.get('readyz/probe'),
  };
  return {
    /** The metrics in Prometheus' text format, and its content type. */
    async metrics(): Promise<{ text: string; contentType: string }> {
      return { text: await metrics.registry.metrics(), contentType: metrics.registry.contentType };
    },

    async readiness(): Promise<Readiness> {
      const names = Object.keys(parts) as ReadinessPart[];
      const results = await Promise.allSettled(names.map((name) => within(parts[name](), CHECK_TIMEOUT_MS)));
      const checks = {} as Record<ReadinessPart, string>;
      names.forEach((name, i) => {
        const result = results[i];
        checks[name] = result.status === 'fulfilled' ? 'ok' : `failing: ${result.reason instanceof Error ? result.reason.message : String(result.reason)}`;
      });
      return { ready: results.every((r) => r.status === 'fulfilled'), checks };
    },
  };
}
export type OpsService = ReturnType<typeof createOpsService>;
