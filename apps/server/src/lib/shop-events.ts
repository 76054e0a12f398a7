/**
 * What happened to a user's orders and balance, told after the change is committed (never inside
 * its transaction). The composition root wires the listeners (webhooks, Telegram); services only emit.
 */
export type ShopEvent =
  | { type: 'order.completed' | 'order.cancelled'; userId: string; orderId: string }
  | { type: 'bulk.completed'; userId: string; bulkOrderId: string }
  | { type: 'fedex.completed' | 'fedex.cancelled'; userId: string; fedexOrderId: string }
  /** A paid deposit: the amounts as credited and the balance the credit left behind. */
  | { type: 'deposit.credited'; userId: string; invoiceId: string; amountCents: number; bonusPercent: number; bonusCents: number; balanceCents: number };

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
