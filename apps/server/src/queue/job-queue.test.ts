import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { z } from 'zod';
import { createTestDb, testDbKind } from '../../test/harness.ts';
import type { Db } from '../db/database.ts';
import { createBullmqQueue } from './bullmq-queue.ts';
import { createEmbeddedQueue } from './embedded-queue.ts';
import { RetryLaterError, drained, type JobQueue } from './job-queue.ts';
import { uniqueId } from '../../test/basics.ts';

const log = pino({ level: 'silent' });
// BullMQ does not depend on the database, so it runs once, in the SQLite project.
const engines = ['embedded', ...(process.env.TEST_REDIS_URL && testDbKind === 'sqlite' ? ['bullmq'] : [])] as const;

/** Waits until `check` holds (what it waits for is the caller's next line). */
const waitFor = (check: () => Promise<boolean>, ms = 15_000) => expect.poll(check, { timeout: ms, interval: 50 }).toBe(true);

describe.each(engines)('%s queue', (engine) => {
  let db: Db;
  let drop: () => Promise<void>;
  const open: JobQueue[] = [];
  const prefix = uniqueId('test');
  const makeQueue = (concurrency = 2) => {
    const tuning = { concurrency, lockMs: 1000, retryBaseMs: 100 };
    const queue =
      engine === 'embedded' ? createEmbeddedQueue(db, log, tuning) : createBullmqQueue({ ...tuning, redisUrl: process.env.TEST_REDIS_URL!, prefix }, log);
    open.push(queue);
    return queue;
  };
  beforeAll(async () => ({ db, drop } = await createTestDb()));
  afterEach(async () => {
    await Promise.all(open.splice(0).map((q) => q.close()));
  });
  afterAll(async () => {
    if (engine === 'bullmq') {
      const { Queue } = await import('bullmq');
      const { Redis } = await import('ioredis');
      const connection = new Redis(process.env.TEST_REDIS_URL!, { maxRetriesPerRequest: null });
      const queue = new Queue('portal-jobs', { connection, prefix });
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
    }
    await drop();
  });

  it('runs a job to completion, reporting progress', async () => {
    const queue = makeQueue();
    const seen: number[] = [];
    queue.define({
      name: 'count',
      payload: z.object({ to: z.number() }),
      async handle({ to }, job) {
        for (let i = 1; i <= to; i++) {
          seen.push(i);
          await job.updateProgress((i / to) * 100);
        }
      },
    });
    await queue.startWorkers();
    const id = await queue.enqueue('count', { to: 4 });
    await waitFor(async () => (await queue.getJob(id))?.state === 'completed');
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(await queue.getJob(id)).toMatchObject({ id, name: 'count', state: 'completed', progress: 100, attempts: 1 });
  });

  it('queues a job id once', async () => {
    const queue = makeQueue();
    let runs = 0;
    queue.define({ name: 'once', payload: z.object({}), handle: async () => void runs++ });
    const jobId = uniqueId('job');
    await queue.enqueue('once', {}, { jobId });
    await queue.enqueue('once', {}, { jobId });
    await queue.startWorkers();
    await waitFor(async () => (await queue.getJob(jobId))?.state === 'completed');
    // Nothing else is queued: a second copy of the job would be waiting, running or due for a retry.
    await drained(queue);
    expect(runs).toBe(1);
  });

  it('retries a job that throws', async () => {
    const queue = makeQueue();
    const attempts: number[] = [];
    queue.define({
      name: 'flaky',
      payload: z.object({}),
      async handle(_payload, job) {
        attempts.push(job.attempt);
        if (job.attempt === 1) throw new Error('upstream hiccup');
      },
    });
    await queue.startWorkers();
    const id = await queue.enqueue('flaky', {});
    await waitFor(async () => (await queue.getJob(id))?.state === 'completed');
    expect(attempts).toEqual([1, 2]);
  });

  it('waits as long as a RetryLaterError asks before the retry, not the policy delay', async () => {
    const queue = makeQueue();
    const runs: number[] = [];
    queue.define({
      name: 'told-to-wait',
      payload: z.object({}),
      retry: { attempts: 3, delayMs: () => 10 },
      async handle(_payload, job) {
        runs.push(Date.now());
        if (job.attempt === 1) throw new RetryLaterError('flood limit', 1200);
      },
    });
    await queue.startWorkers();
    const id = await queue.enqueue('told-to-wait', {});
    await waitFor(async () => (await queue.getJob(id))?.state === 'completed');
    expect(runs).toHaveLength(2);
    expect(runs[1] - runs[0]).toBeGreaterThanOrEqual(1100);
  });
  it('fails a job whose payload does not parse, without retrying', async () => {
    const queue = makeQueue();
    let runs = 0;
    queue.define({ name: 'typed', payload: z.object({ n: z.number() }), handle: async () => void runs++ });
    await queue.startWorkers();
    const id = await queue.enqueue('typed', { n: 'not a number' });
    await waitFor(async () => (await queue.getJob(id))?.state === 'failed');
    expect(runs).toBe(0);
    expect((await queue.getJob(id))?.attempts).toBe(1);
  });

  it('queues a failed job id again, from its first attempt', async () => {
    const queue = makeQueue();
    let healthy = false;
    const attempts: number[] = [];
    queue.define({
      name: 'doomed',
      payload: z.object({}),
      async handle(_payload, job) {
        attempts.push(job.attempt);
        if (!healthy) throw new Error('still broken');
      },
    });
    await queue.startWorkers();
    const jobId = uniqueId('doomed');
    await queue.enqueue('doomed', {}, { jobId });
    await waitFor(async () => (await queue.getJob(jobId))?.state === 'failed', 20_000);
    expect(attempts).toEqual([1, 2, 3, 4, 5]);
    healthy = true;
    await queue.enqueue('doomed', {}, { jobId });
    await waitFor(async () => (await queue.getJob(jobId))?.state === 'completed');
    expect(attempts.slice(5)).toEqual([1]);
  });

  it('runs a completed job id again only when asked to', async () => {
    const queue = makeQueue();
    let runs = 0;
    queue.define({ name: 'rerun', payload: z.object({}), handle: async () => void runs++ });
    await queue.startWorkers();
    const jobId = uniqueId('rerun');
    await queue.enqueue('rerun', {}, { jobId });
    await waitFor(async () => runs === 1 && (await queue.getJob(jobId))?.state === 'completed');
    await queue.enqueue('rerun', {}, { jobId });
    await drained(queue);
    expect(runs).toBe(1);
    expect(await queue.getJob(jobId)).toMatchObject({ state: 'completed', attempts: 1 });
    await queue.enqueue('rerun', {}, { jobId, again: true });
    await waitFor(async () => runs === 2 && (await queue.getJob(jobId))?.state === 'completed');
  });

  it('runs a scheduled job every interval, once however many processes schedule it', async () => {
    const [one, two] = [makeQueue(), makeQueue()];
    const before = await one.counts();
    const runs: string[] = [];
    const name = uniqueId('tick');
    const started = Date.now();
    for (const queue of [one, two]) {
      queue.define({ name, payload: z.object({}), handle: async (_p, job) => void runs.push(job.id) });
      await queue.schedule(name, 400);
      await queue.startWorkers();
    }
    await waitFor(async () => runs.length >= 4, 10_000);
    const elapsed = Date.now() - started;
    // Two processes each scheduling it would run it about twice an interval; it runs once.
    expect(new Set(runs).size).toBe(runs.length);
    expect(runs.length).toBeLessThanOrEqual(Math.ceil(elapsed / 400) + 1);
    // Scheduled runs are not kept and not counted.
    const after = await one.counts();
    expect([after.completed, after.delayed, after.waiting]).toEqual([before.completed, before.delayed, before.waiting]);
  });

  it('counts jobs by state', async () => {
    const queue = makeQueue();
    const before = await queue.counts();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    queue.define({ name: 'gated', payload: z.object({}), handle: () => gate });
    await queue.enqueue('gated', {});
    const waiting = await queue.counts();
    expect(waiting.waiting).toBe(before.waiting + 1);
    expect(waiting.total).toBe(before.total + 1);
    await queue.startWorkers();
    await waitFor(async () => (await queue.counts()).active === 1);
    release();
    await waitFor(async () => (await queue.counts()).completed === before.completed + 1);
    expect(Object.keys(await queue.counts()).sort()).toEqual(['active', 'completed', 'delayed', 'failed', 'total', 'waiting']);
  });
});

describe('embedded queue after a crash', () => {
  it('takes again, without a restart, a job whose worker died holding it', async () => {
    const { db, drop } = await createTestDb();
    const live = createEmbeddedQueue(db, log, { concurrency: 1, lockMs: 300, retryBaseMs: 100 });
    try {
      let resumedAttempt = 0;
      live.define({ name: 'long', payload: z.object({}), handle: async (_p, job) => void (resumedAttempt = job.attempt) });
      const id = await live.enqueue('long', {});
      // What a worker killed mid-job leaves: the job active, under a lease that has not run out yet.
      await db
        .updateTable('jobs')
        .set({ state: 'active', attempts: 1, locked_until: new Date(Date.now() + 3600_000).toISOString() })
        .where('id', '=', id)
        .execute();
      await live.startWorkers();
      // Another job, queued after it, runs: the worker has looked for due jobs while the lease held, and passed it by.
      let markerRan = false;
      live.define({ name: 'marker', payload: z.object({}), handle: async () => void (markerRan = true) });
      const marker = await live.enqueue('marker', {});
      await waitFor(async () => (await live.getJob(marker))?.state === 'completed');
      expect(markerRan).toBe(true);
      expect((await live.getJob(id))?.state).toBe('active'); // still leased: not taken from a worker that may be alive
      expect(resumedAttempt).toBe(0);
      // The lease runs out: the live worker takes the job again.
      await db
        .updateTable('jobs')
        .set({ locked_until: new Date(Date.now() - 1).toISOString() })
        .where('id', '=', id)
        .execute();
      await waitFor(async () => (await live.getJob(id))?.state === 'completed');
      expect(resumedAttempt).toBe(2);
    } finally {
      await live.close();
      await drop();
    }
  });

  it('keeps renewing the lease of a long job, so no other worker takes it', async () => {
    const { db, drop } = await createTestDb();
    const queues = [1, 2].map(() => createEmbeddedQueue(db, log, { concurrency: 1, lockMs: 200, retryBaseMs: 100 }));
    try {
      let runs = 0;
      for (const queue of queues) {
        queue.define({ name: 'slow', payload: z.object({}), handle: async () => void (runs++, await new Promise((r) => setTimeout(r, 1000))) });
        await queue.startWorkers();
      }
      const id = await queues[0].enqueue('slow', {});
      await waitFor(async () => (await queues[0].getJob(id))?.state === 'completed');
      expect(runs).toBe(1);
    } finally {
      await Promise.all(queues.map((q) => q.close()));
      await drop();
    }
  });
});
