/**
 * What happened to a user's orders, told after the change is committed (never inside its
 * transaction). The composition root wires the listeners (webhooks); services only emit.
 */
export type ShopEvent =
  | { type: 'order.completed' | 'order.cancelled'; userId: string; orderId: string }
  | { type: 'bulk.completed'; userId: string; bulkOrderId: string };

export type ShopEventNotifier = {
  /** Never throws and never waits for the listeners: a failing listener is its own problem. */
  emit(event: ShopEvent): void;
};

export const silentNotifier: ShopEventNotifier = { emit: () => {} };

/** A notifier whose listeners are added after the services that emit were built. */
export function createEventRelay(): ShopEventNotifier & { listen(listener: (event: ShopEvent) => void): void } {
  const listeners: ((event: ShopEvent) => void)[] = [];
  return {
    emit(event) {
      for (const listener of listeners) listener(event);
    },
    listen(listener) {
      listeners.push(listener);
    },
  };
}
