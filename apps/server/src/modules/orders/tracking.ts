import { TRACKING_STATUSES, type TrackingStatus } from '@portal/contract';
import type { Db, DbOrTrx } from '../../db/database.ts';
import { eventRow, recordEvents, type ShopEventOutbox, type ShopEventRow } from '../../lib/shop-events.ts';
import { newId } from '../../lib/ids.ts';
import { noPayload, type JobDefinition } from '../../queue/job-queue.ts';
import * as repo from './repository.ts';

/** Where a parcel can only go forwards: a status of a lower step never replaces one of a higher. */
const STEPS: Partial<Record<TrackingStatus, number>> = { pre_transit: 0, in_transit: 1, out_for_delivery: 2, available_for_pickup: 3, delivered: 4 };
/** Ends: nothing moves a label past them. */
const ENDS: readonly string[] = ['delivered', 'return_to_sender', 'failure'];

/**
 * Whether a label at `current` moves to `next`: never from an end, always to an end, forwards along STEPS; a status
 * outside the steps (unknown, error...) never replaces one on them.
 */
export function movesTo(current: string | null, next: TrackingStatus): boolean {
  if (current === next || (current !== null && ENDS.includes(current))) return false;
  if (current === null || ENDS.includes(next)) return true;
  const from = STEPS[current as TrackingStatus];
  const to = STEPS[next];
  if (from === undefined) return true;
  return to !== undefined && to > from;
}

/**
 * Tells orders a tracking status, in the caller's transaction: each is kept in the orders' tracking history
 * (tracking_events), and the orders it moves forwards (movesTo) take it, with an order.tracking event (reseller
 * webhook, Telegram when delivered) each; a late status of a lower step changes nothing else. Answers those events, to
 * hand to the outbox once committed. Both the EasyPost webhook and the sandbox's timer come through here.
 */
export async function setTrackingStatus(trx: DbOrTrx, orders: repo.TrackedOrder[], status: TrackingStatus, at: string): Promise<ShopEventRow[]> {
  if (orders.length === 0) return [];
  await repo.insertTrackingEvents(
    trx,
    orders.map((order) => ({ id: newId(), order_id: order.id, status, received_at: at })),
  );
  const candidates = orders.filter((order) => movesTo(order.tracking_status, status));
  if (candidates.length === 0) return [];
  // Moved only from a status it moves forwards from, as the row is when written: two events at once cannot move it back.
  const from = TRACKING_STATUSES.filter((current) => movesTo(current, status));
  const moved = await repo.moveTracking(
    trx,
    candidates.map((order) => order.id),
    from,
    status,
    at,
  );
  const movedIds = new Set(moved.map((row) => row.id));
  const changed = candidates.filter((order) => movedIds.has(order.id));
  const events = changed.map((order) =>
    eventRow({ type: 'order.tracking', userId: order.user_id, orderId: order.id, status, bulk: order.bulk_order_id !== null }, at),
  );
  await recordEvents(trx, events);
  return events;
}

/** The statuses the sandbox walks its labels through, one a step. */
export const SANDBOX_TRACKING_STEPS = ['pre_transit', 'in_transit', 'out_for_delivery', 'delivered'] as const satisfies readonly TrackingStatus[];
/** Labels moved a round. */
const SANDBOX_BATCH = 500;
/**
 * A label not moved within this many steps, and at least an hour (the shop was stopped), is left where it is: the timer
 * reads only recent orders. The hour keeps a round that runs late (a busy machine) from leaving labels behind.
 */
const SANDBOX_WINDOW_STEPS = 10;
const SANDBOX_WINDOW_MIN_MS = 3_600_000;

/**
 * One round of the sandbox's tracking (LABEL_SANDBOX_TRACKING_STEP_MS): each sandbox label completed or moved at least
 * a step ago, and within the window, takes its next status, as EasyPost's tracker.updated would set
 * it. Answers how many labels moved.
 */
export async function advanceSandboxTracking(db: Db, outbox: ShopEventOutbox, stepMs: number): Promise<number> {
  const now = Date.now();
  const due = await repo.sandboxTrackingDue(db, {
    after: new Date(now - Math.max(SANDBOX_WINDOW_MIN_MS, SANDBOX_WINDOW_STEPS * stepMs)).toISOString(),
    upTo: new Date(now - stepMs).toISOString(),
    statuses: SANDBOX_TRACKING_STEPS.slice(0, -1),
    limit: SANDBOX_BATCH,
  });
  if (due.length === 0) return 0;
  const at = new Date(now).toISOString();
  const byNext = new Map<TrackingStatus, repo.TrackedOrder[]>();
  for (const order of due) {
    const next = SANDBOX_TRACKING_STEPS[SANDBOX_TRACKING_STEPS.indexOf(order.tracking_status as (typeof SANDBOX_TRACKING_STEPS)[number]) + 1];
    byNext.set(next, [...(byNext.get(next) ?? []), order]);
  }
  // Two workers running a round at once set the same next status: the second changes nothing new, and its events have
  // the same ids as the first's, so each receiver tells each step once.
  const events = await db.transaction().execute(async (trx) => {
    const all: ShopEventRow[] = [];
    for (const [next, orders] of byNext) all.push(...(await setTrackingStatus(trx, orders, next, at)));
    return all;
  });
  outbox.committed(events);
  return due.length;
}

export const SANDBOX_TRACKING_JOB = 'sandbox-tracking';

/** Scheduled while the provider is the sandbox and LABEL_SANDBOX_TRACKING_STEP_MS > 0. */
export const sandboxTrackingJob = (db: Db, outbox: ShopEventOutbox, stepMs: number): JobDefinition<Record<string, never>> => ({
  name: SANDBOX_TRACKING_JOB,
  payload: noPayload,
  handle: async () => void (await advanceSandboxTracking(db, outbox, stepMs)),
});
