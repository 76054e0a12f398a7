import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { z } from 'zod';
import { createTestDb, testDbKind } from '../../test/harness.ts';
import type { Db } from '../db/database.ts';
import { randomToken } from '../lib/ids.ts';
import { createBullmqQueue } from './bullmq-queue.ts';
import { createEmbeddedQueue } from './embedded-queue.ts';
import type { JobQueue } from './job-queue.ts';

const log = pino({ level: 'silent' });
// BullMQ does not depend on the database, so it runs once, in the SQLite project.
const engines = ['embedded', ...(process.env.TEST_REDIS_URL && testDbKind === 'sqlite' ? ['bullmq'] : [])] as const;

const waitFor = async (check: () => Promise<boolean>, ms = 15_000) => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe.each(engines)('%s queue', (engine) => {
  let db: Db;
  let drop: () => Promise<void>;
  const open: JobQueue[] = [];
  const prefix = `test-${randomToken(6)}`;
  const makeQueue = (concurrency = 2) => {
    const queue = engine === 'embedded' ? createEmbeddedQueue(db, log, concurrency) : createBullmqQueue({ redisUrl: process.env.TEST_REDIS_URL!, concurrency, prefix, stalledIntervalMs: 1000 }, log);
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
    const jobId = `job-${randomToken(6)}`;
    await queue.enqueue('once', {}, { jobId });
    await queue.enqueue('once', {}, { jobId });
    await queue.startWorkers();
    await waitFor(async () => (await queue.getJob(jobId))?.state === 'completed');
    await new Promise((r) => setTimeout(r, 300));
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
  it('runs a job again when the process that held it died', async () => {
    const { db, drop } = await createTestDb();
    const crashed = createEmbeddedQueue(db, log, 1);
    crashed.define({ name: 'long', payload: z.object({}), handle: () => new Promise<void>(() => {}) }); // never ends: the process "dies" holding it
    const id = await crashed.enqueue('long', {});
    await crashed.startWorkers();
    await waitFor(async () => (await crashed.getJob(id))?.state === 'active');
    void crashed.close(); // stops taking jobs; the held one never finishes

    const restarted = createEmbeddedQueue(db, log, 1);
    let resumedAttempt = 0;
    restarted.define({ name: 'long', payload: z.object({}), handle: async (_p, job) => void (resumedAttempt = job.attempt) });
    await restarted.startWorkers();
    await waitFor(async () => (await restarted.getJob(id))?.state === 'completed');
    expect(resumedAttempt).toBe(2);
    await restarted.close();
    await drop();
  });
});
