import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.ts';
import { isoIn, newId, nowIso } from './ids.ts';
import { createRedis } from './redis.ts';

/**
 * A lock one process holds for `ttlMs` at a time and renews while it lives, so that some work (the
 * Telegram long polling) runs in one process only; a holder that dies loses it once the time is up.
 */
export interface Lease {
  /** Takes the lease if it is free, expired or already ours; true when this process holds it. */
  acquire(): Promise<boolean>;
  /** Extends a lease this process holds, even one a late renewal finds expired if no one took it; false when another took it. */
  renew(): Promise<boolean>;
  /** Gives the lease up at once, if this process holds it. */
  release(): Promise<void>;
  /** Closes what the lease opened (a Redis connection). */
  close(): Promise<void>;
}

/** A lease as a row of the `leases` table (the embedded default): one conditional upsert takes it. */
export function createDbLease(db: Db, name: string, ttlMs: number): Lease {
  const holder = newId();
  return {
    async acquire() {
      const now = nowIso();
      const taken = await db
        .insertInto('leases')
        .values({ name, holder, expires_at: isoIn(ttlMs) })
        .onConflict((oc) =>
          oc
            .column('name')
            .doUpdateSet({ holder, expires_at: isoIn(ttlMs) })
            .where((eb) => eb.or([eb('leases.expires_at', '<', now), eb('leases.holder', '=', holder)])),
        )
        .returning('holder')
        .executeTakeFirst();
      return taken?.holder === holder;
    },
    async renew() {
      const result = await db
        .updateTable('leases')
        .set({ expires_at: isoIn(ttlMs) })
        .where('name', '=', name)
        .where('holder', '=', holder)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async release() {
      await db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute();
    },
    async close() {},
  };
}

// Renew extends the key while it names this holder, or takes it again if it expired with no one taking it; release deletes it only for its holder.
const RENEW_SCRIPT =
  "local v = redis.call('get', KEYS[1]) if v == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) elseif not v then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 else return 0 end";
const RELEASE_SCRIPT = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/** A lease as a Redis key (with REDIS_URL): SET NX PX takes it, a script renews it only for its holder. */
export function createRedisLease(redisUrl: string, key: string, ttlMs: number, log: FastifyBaseLogger): Lease {
  const holder = newId();
  const redis = createRedis(redisUrl, { name: 'lease', log });
  const renew = async () => Number(await redis.eval(RENEW_SCRIPT, 1, key, holder, String(ttlMs))) === 1;
  return {
    async acquire() {
      if ((await redis.set(key, holder, 'PX', ttlMs, 'NX')) === 'OK') return true;
      return renew();
    },
    renew,
    async release() {
      await redis.eval(RELEASE_SCRIPT, 1, key, holder);
    },
    async close() {
      redis.disconnect();
    },
  };
}
