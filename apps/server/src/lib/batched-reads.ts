/**
 * Reads by key asked for in the same turn of the event loop, sent together as one statement when the turn ends
 * (setImmediate), or with `gatherMs` those asked within gatherMs of the first: for reads off every request's path,
 * which can wait. Each caller's read is sent after it asked, so it sees every change committed before it asked, as
 * a statement of its own would. Under load the requests of a turn share one round trip; a lone caller waits only
 * for the end of its turn (or gatherMs). See ARCHITECTURE.md#batched-reads.
 */
export function batchedReads<V>(readMany: (keys: string[]) => Promise<Map<string, V>>, gatherMs = 0): (key: string) => Promise<V | undefined> {
  type Waiter = { resolve: (value: V | undefined) => void; reject: (error: unknown) => void };
  let gathering: Map<string, Waiter[]> | null = null;
  const send = (batch: Map<string, Waiter[]>) =>
    readMany([...batch.keys()]).then(
      (found) => batch.forEach((waiters, key) => waiters.forEach((w) => w.resolve(found.get(key)))),
      (error) => batch.forEach((waiters) => waiters.forEach((w) => w.reject(error))),
    );
  return (key) =>
    new Promise((resolve, reject) => {
      if (!gathering) {
        const batch = (gathering = new Map());
        const sendBatch = () => {
          gathering = null;
          void send(batch);
        };
        if (gatherMs > 0) setTimeout(sendBatch, gatherMs);
        else setImmediate(sendBatch);
      }
      const waiters = gathering.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else gathering.set(key, [{ resolve, reject }]);
    });
}
