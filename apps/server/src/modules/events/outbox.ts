import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { ShopEventOutbox, ShopEventRow } from '../../lib/shop-events.ts';
import * as repo from './repository.ts';

/**
 * Where events go (webhooks, Telegram). `record` writes what the events make (a delivery, a message: each once per
 * event and receiver, however often it is told) and queues its sending; `resume` queues again what was recorded and
 * never queued, or whose sender died, before `before`.
 */
export type EventReceiver = {
  record(events: ShopEventRow[]): Promise<void>;
  resume(before: string): Promise<void>;
};

/** Events dispatched at a time. */
const BATCH = 100;

/**
 * The outbox of shop events (shop_events). Services write an event in the transaction of its change and, once it is
 * committed, hand it here (committed): this process dispatches it at once. Dispatching an event records what it makes
 * for every receiver, then deletes it; a process that dies in between leaves the event, and dispatching it again
 * makes nothing twice. The sweep (a scheduled queue job, and each worker as it starts) dispatches the events left
 * behind.
 */
export function createEventOutbox(deps: { db: Db; log: FastifyBaseLogger }): ShopEventOutbox & {
  /** Adds a receiver (built after the services that write events). */
  deliverTo(receiver: EventReceiver): void;
  /** Dispatches the events written more than `olderThanMs` ago, then has each receiver queue again what it left; answers how many events. */
  sweep(olderThanMs: number): Promise<number>;
  /** Waits for the events handed over to be dispatched (at shutdown, before the queue and database close). */
  flush(): Promise<void>;
} {
  const { db, log } = deps;
  const receivers: EventReceiver[] = [];
  const handedOver: ShopEventRow[] = [];
  let dispatching: Promise<void> | null = null;

  async function dispatch(events: ShopEventRow[]): Promise<void> {
    for (const receiver of receivers) await receiver.record(events);
    await repo.deleteEvents(
      db,
      events.map((e) => e.id),
    );
  }

  async function dispatchHandedOver(): Promise<void> {
    while (handedOver.length > 0) {
      const batch = handedOver.splice(0, BATCH);
      await dispatch(batch).catch((error) =>
        log.error({ err: error, events: batch.length }, 'events could not be dispatched; the sweep dispatches them later'),
      );
    }
  }

  function startDispatching(): void {
    dispatching ??= dispatchHandedOver().finally(() => {
      dispatching = null;
      if (handedOver.length > 0) startDispatching();
    });
  }

  return {
    deliverTo(receiver) {
      receivers.push(receiver);
    },
    committed(rows) {
      handedOver.push(...rows);
      startDispatching();
    },
    async sweep(olderThanMs) {
      const before = new Date(Date.now() - olderThanMs).toISOString();
      let swept = 0;
      for (;;) {
        const events = await repo.eventsBefore(db, before, BATCH);
        if (events.length > 0) await dispatch(events);
        swept += events.length;
        if (events.length < BATCH) break;
      }
      for (const receiver of receivers) await receiver.resume(before);
      if (swept > 0) log.info({ events: swept }, 'events left behind were dispatched');
      return swept;
    },
    async flush() {
      while (dispatching) await dispatching;
    },
  };
}
export type EventOutbox = ReturnType<typeof createEventOutbox>;
