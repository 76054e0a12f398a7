import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';

export type RedisClientOptions = {
  /** What the client is for, in its log lines. */
  name: string;
  /** Where its connection errors are logged; without one they show only as the failing commands' errors. */
  log?: FastifyBaseLogger;
  /** How many reconnects a command waits for before failing (2); BullMQ needs null: its commands wait for ever. */
  maxRetriesPerRequest?: number | null;
  /** How long a connection attempt may take (ioredis' 10 s). */
  connectTimeout?: number;
};

/**
 * Every Redis client of the shop (REDIS_URL) is made here. It connects on its first command, so a process that never
 * uses it opens no connection; a lost connection is reconnected by ioredis, and its errors are logged, never thrown at
 * the process (an 'error' event with no listener is printed by ioredis as unhandled): a Redis blip fails the commands
 * sent during it, nothing else.
 */
export function createRedis(url: string, options: RedisClientOptions): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: options.maxRetriesPerRequest === undefined ? 2 : options.maxRetriesPerRequest,
    ...(options.connectTimeout ? { connectTimeout: options.connectTimeout } : {}),
  });
  redis.on('error', (error) => options.log?.warn({ err: error }, `${options.name}: Redis error`));
  return redis;
}

/** Closes a client of createRedis: its sent commands are answered first (QUIT), unless it never connected. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'wait' || redis.status === 'end') return redis.disconnect();
  await redis.quit().catch(() => redis.disconnect());
}
