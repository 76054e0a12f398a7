import {
  PICKUP_ALREADY_BOOKED,
  PICKUP_BOOKED,
  PICKUP_CANCELLED,
  PICKUP_NOT_CANCELLABLE,
  PICKUP_NOT_FOUND,
  PICKUP_REFUSALS,
  PICKUP_SERVICE_UNKNOWN,
  PICKUP_WINDOW_DAYS_AHEAD,
  PICKUP_WINDOW_INVALID,
  UPSTREAM_TITLES,
  centsToDollars,
  nextUspsPickupDay,
  shopDay,
  uspsPickupDayRequired,
  type Pickup,
  type PickupAnswer,
  type PickupBuyBody,
  type PickupRatesBody,
  type ScanFormFrom,
} from '@portal/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, DbOrTrx } from '../../db/database.ts';
import type { PickupsTable } from '../../db/schema.ts';
import { HttpError, conflict, notFound } from '../../lib/http-errors.ts';
import { isoIn, newId, nowIso } from '../../lib/ids.ts';
import { eventRow, idleOutbox, recordEvents, type ShopEventOutbox } from '../../lib/shop-events.ts';
import { LabelProviderError, type LabelProvider, type PickupRequest, type PickupState } from '../../providers/labels/label-provider.ts';
import { changeBalance } from '../billing/service.ts';
import * as orderRepo from './repository.ts';
import { carrierOf } from './refunds.ts';
import { fromOf, groupKeyOf } from './scan-forms.ts';

type PickupRow = PickupsTable;
const DAY_MS = 86_400_000;
const SWEEP_BATCH = 20;
const LIST_LIMIT = 100;

const ratesOf = (row: PickupRow) => JSON.parse(row.rates_json) as { service: string; feeCents: number }[];
const orderIdsOf = (row: PickupRow) => JSON.parse(row.order_ids_json) as string[];

export function toPickup(row: PickupRow): Pickup {
  return {
    _id: row.id,
    status: row.status,
    carrier: row.carrier,
    from: JSON.parse(row.from_json) as ScanFormFrom,
    minDatetime: row.min_datetime,
    maxDatetime: row.max_datetime,
    instructions: row.instructions,
    labelCount: row.label_count,
    rates: ratesOf(row).map((r) => ({ service: r.service, fee: centsToDollars(r.feeCents) })),
    service: row.service,
    fee: row.fee_cents === null ? null : centsToDollars(row.fee_cents),
    confirmation: row.confirmation,
    message: row.message,
    createdAt: row.created_at,
  };
}

const findOwn = (db: DbOrTrx, userId: string, id: string) =>
  db.selectFrom('pickups').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();

/** Moves a pickup from `from` to `set`, once: false when it was no longer in `from` (another process or request moved it). */
async function move(db: DbOrTrx, id: string, from: PickupRow['status'][], set: Partial<PickupRow>): Promise<boolean> {
  const result = await db.updateTable('pickups').set(set).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Carrier pickups of a customer's labels (one upstream, carrier and from address). Rating asks the upstream for its
 * offers and keeps them. Booking charges the fee (one pickup_fee ledger row) and marks the pickup `booking` in one
 * transaction before the upstream is asked (claim before call); a refusal fails it and refunds the fee once
 * (pickup_refund); a lost answer or an upstream away leaves it `booking`, and the sweep asks the upstream where the
 * pickup stands before buying again (retrieve before retry). Cancelling before the window moves it to `cancelling`,
 * then `cancelled` with the fee refunded once, the same way. pickup.booked and pickup.cancelled are the events.
 */
export function createPickupService(deps: {
  db: Db;
  labels: LabelProvider & { named(name: string): LabelProvider | undefined };
  log: FastifyBaseLogger;
  outbox?: ShopEventOutbox;
  /** How long a process holds a pickup while it asks (LABEL_CLAIM_MS). */
  claimMs: number;
  /** When to ask again after an upstream that could not be reached (ORDER_POLL_INTERVAL_MS). */
  retryMs: number;
}) {
  const { db, labels, log } = deps;
  const outbox = deps.outbox ?? idleOutbox;

  function upstreamOf(row: PickupRow): LabelProvider {
    const upstream = labels.named(row.provider);
    if (!upstream?.buyPickup || !upstream.findPickup) throw new HttpError(422, PICKUP_REFUSALS.noPickups(UPSTREAM_TITLES[row.provider] ?? row.provider));
    return upstream;
  }

  async function own(userId: string, id: string): Promise<PickupRow> {
    const row = await findOwn(db, userId, id);
    if (!row) throw notFound(PICKUP_NOT_FOUND);
    return row;
  }

  /** The fee back to the customer, once (pickup_refund, unique per pickup), with the pickup's new state and its labels let go. */
  async function endWithRefund(row: PickupRow, from: PickupRow['status'][], set: Partial<PickupRow>, event?: 'pickup.cancelled'): Promise<boolean> {
    const at = nowIso();
    const events = event ? [eventRow({ type: event, userId: row.user_id, pickupId: row.id }, at)] : [];
    const done = await db.transaction().execute(async (trx) => {
      if (!(await move(trx, row.id, from, { ...set, due_at: null, updated_at: at }))) return false;
      await trx.updateTable('orders').set({ pickup_id: null }).where('pickup_id', '=', row.id).execute();
      if (row.fee_cents)
        await changeBalance(
          trx,
          {
            userId: row.user_id,
            amountCents: row.fee_cents,
            kind: 'pickup_refund',
            reference: row.id,
            note: `Refund of the ${row.carrier} pickup ${row.id.slice(0, 8).toUpperCase()}`,
          },
          { shop_events: events },
        );
      else await recordEvents(trx, events);
      return true;
    });
    if (done) outbox.committed(events);
    return done;
  }

  async function booked(row: PickupRow, state: Extract<PickupState, { status: 'booked' }>): Promise<void> {
    const at = nowIso();
    const events = [eventRow({ type: 'pickup.booked', userId: row.user_id, pickupId: row.id }, at)];
    const done = await db.transaction().execute(async (trx) => {
      if (!(await move(trx, row.id, ['booking'], { status: 'booked', confirmation: state.confirmation, due_at: null, updated_at: at }))) return false;
      await recordEvents(trx, events);
      return true;
    });
    if (done) outbox.committed(events);
  }

  /** Asks the upstream about a booking this process holds: where it stands first after an earlier take, a purchase only if unbooked. */
  async function book(row: PickupRow): Promise<void> {
    const upstream = upstreamOf(row);
    try {
      const before = row.claims > 1 ? await upstream.findPickup!(row.upstream_ref!) : ({ status: 'unbooked' } as const);
      const state = before.status === 'unbooked' ? await upstream.buyPickup!(row.upstream_ref!, row.carrier, row.service!) : before;
      if (state.status === 'booked') return booked(row, state);
      await endWithRefund(row, ['booking'], { status: 'failed', message: 'the upstream cancelled the pickup' });
    } catch (error) {
      if (error instanceof LabelProviderError) {
        await endWithRefund(row, ['booking'], { status: 'failed', message: error.message });
        return;
      }
      log.warn({ err: error, pickupId: row.id }, 'pickup: the upstream could not be asked; asked again later');
      await db
        .updateTable('pickups')
        .set({ due_at: isoIn(deps.retryMs) })
        .where('id', '=', row.id)
        .execute();
    }
  }

  /** Asks the upstream to cancel a pickup this process holds; what it says decides (a refusal keeps it booked). */
  async function cancelAtUpstream(row: PickupRow): Promise<void> {
    const upstream = upstreamOf(row);
    try {
      const before = row.claims > 1 ? await upstream.findPickup!(row.upstream_ref!) : ({ status: 'booked' } as const);
      const state = before.status === 'booked' ? await upstream.cancelPickup!(row.upstream_ref!) : before;
      if (state.status !== 'booked') await endWithRefund(row, ['cancelling'], { status: 'cancelled' }, 'pickup.cancelled');
    } catch (error) {
      if (error instanceof LabelProviderError) {
        await move(db, row.id, ['cancelling'], { status: 'booked', message: error.message, due_at: null, updated_at: nowIso() });
        throw new HttpError(422, error.message);
      }
      log.warn({ err: error, pickupId: row.id }, 'pickup cancel: the upstream could not be asked; asked again later');
      await db
        .updateTable('pickups')
        .set({ due_at: isoIn(deps.retryMs) })
        .where('id', '=', row.id)
        .execute();
    }
  }

  /** Takes a booking or cancelling pickup that is due for this process (its takes counted); undefined when it is not. */
  const take = (id: string, statuses: PickupRow['status'][]) =>
    db
      .updateTable('pickups')
      .set((eb) => ({ due_at: isoIn(deps.claimMs), claims: eb('claims', '+', 1), updated_at: nowIso() }))
      .where('id', '=', id)
      .where('status', 'in', statuses)
      .where('due_at', '<=', nowIso())
      .returningAll()
      .executeTakeFirst();

  const answer = (row: PickupRow, message: string): PickupAnswer => ({ message, pickup: toPickup(row) });

  return {
    /** The upstream's offers for a pickup of these labels in this window: a `rated` pickup, nothing charged. */
    async rates(userId: string, body: PickupRatesBody): Promise<PickupAnswer> {
      const min = Date.parse(body.minDatetime);
      const max = Date.parse(body.maxDatetime);
      if (!(min > Date.now() && min < Date.now() + PICKUP_WINDOW_DAYS_AHEAD * DAY_MS && max > min && max - min <= DAY_MS))
        throw new HttpError(422, PICKUP_WINDOW_INVALID);
      const ids = [...new Set(body.orderIds)];
      const orders = await orderRepo.findOwnOrders(db, userId, ids);
      if (orders.length < ids.length) throw new HttpError(422, PICKUP_REFUSALS.notFound);
      for (const order of orders) {
        if (order.status !== 'completed') throw new HttpError(422, PICKUP_REFUSALS.notCompleted);
        if (order.refund_status) throw new HttpError(422, PICKUP_REFUSALS.refunded);
        if (order.pickup_id) throw new HttpError(422, PICKUP_REFUSALS.onPickup);
      }
      if (new Set(orders.map(groupKeyOf)).size > 1) throw new HttpError(422, PICKUP_REFUSALS.mixed);
      const first = orders[0];
      if (carrierOf(first) === 'USPS') {
        // USPS collects on its next business day only; the day is the shop's (SHOP_TIME_ZONE), as ship dates are.
        const day = nextUspsPickupDay(shopDay());
        if (shopDay(0, min) !== day || shopDay(0, max) !== day) throw new HttpError(422, uspsPickupDayRequired(day));
      }
      const upstream = labels.named(first.provider);
      if (!upstream?.ratePickup) throw new HttpError(422, PICKUP_REFUSALS.noPickups(UPSTREAM_TITLES[first.provider] ?? first.provider));
      const id = newId();
      const from = fromOf(first);
      const request: PickupRequest = {
        pickupId: id,
        from: { ...from, phone: first.from_phone },
        carrier: carrierOf(first),
        minDatetime: new Date(min).toISOString(),
        maxDatetime: new Date(max).toISOString(),
        instructions: body.instructions ?? '',
        labels: orders.map((o) => ({ orderId: o.id, shipmentRef: o.upstream_ref, tracking: o.tracking ?? '' })),
      };
      let offer;
      try {
        offer = await upstream.ratePickup(request);
      } catch (error) {
        if (error instanceof LabelProviderError) throw new HttpError(422, error.message);
        throw error;
      }
      const at = nowIso();
      const row: PickupRow = {
        id,
        user_id: userId,
        status: 'rated',
        provider: first.provider,
        carrier: request.carrier,
        from_json: JSON.stringify(from),
        min_datetime: request.minDatetime,
        max_datetime: request.maxDatetime,
        instructions: request.instructions,
        order_ids_json: JSON.stringify(orders.map((o) => o.id)),
        label_count: orders.length,
        upstream_ref: offer.ref,
        rates_json: JSON.stringify(offer.rates),
        service: null,
        fee_cents: null,
        confirmation: null,
        message: null,
        due_at: null,
        claims: 0,
        created_at: at,
        updated_at: at,
      };
      await db.insertInto('pickups').values(row).execute();
      return answer(row, `${offer.rates.length} pickup rate${offer.rates.length === 1 ? '' : 's'}`);
    },

    /** Books a rated pickup's service: its fee charged once, then the upstream asked (and, if need be, the sweep). */
    async buy(userId: string, body: PickupBuyBody): Promise<PickupAnswer> {
      const row = await own(userId, body.pickupId);
      if (row.status !== 'rated') throw conflict(PICKUP_ALREADY_BOOKED);
      const rate = ratesOf(row).find((r) => r.service === body.service);
      if (!rate) throw new HttpError(422, PICKUP_SERVICE_UNKNOWN);
      const at = nowIso();
      const taken = await db.transaction().execute(async (trx) => {
        const set = { status: 'booking' as const, service: rate.service, fee_cents: rate.feeCents, due_at: isoIn(deps.claimMs), claims: 1, updated_at: at };
        if (!(await move(trx, row.id, ['rated'], set))) return false;
        const ids = orderIdsOf(row);
        const free = await trx.updateTable('orders').set({ pickup_id: row.id }).where('id', 'in', ids).where('pickup_id', 'is', null).executeTakeFirst();
        if (Number(free.numUpdatedRows) !== ids.length) throw new HttpError(422, PICKUP_REFUSALS.onPickup);
        if (rate.feeCents > 0)
          await changeBalance(trx, {
            userId,
            amountCents: -rate.feeCents,
            kind: 'pickup_fee',
            reference: row.id,
            note: `${row.carrier} pickup ${row.id.slice(0, 8).toUpperCase()} (${row.label_count} label${row.label_count === 1 ? '' : 's'})`,
          });
        return true;
      });
      if (!taken) throw conflict(PICKUP_ALREADY_BOOKED);
      await book({ ...row, ...{ status: 'booking', service: rate.service, fee_cents: rate.feeCents, claims: 1 } });
      const now = (await findOwn(db, userId, row.id))!;
      return answer(now, now.status === 'booked' ? PICKUP_BOOKED : now.status === 'failed' ? `The pickup was refused: ${now.message}` : 'Booking the pickup');
    },

    /** Cancels a booked pickup before its window: the fee refunded once when the upstream cancels it. */
    async cancel(userId: string, id: string): Promise<PickupAnswer> {
      const row = await own(userId, id);
      if (row.status !== 'booked' || Date.parse(row.min_datetime) <= Date.now()) throw conflict(PICKUP_NOT_CANCELLABLE);
      if (!(await move(db, row.id, ['booked'], { status: 'cancelling', message: null, due_at: isoIn(deps.claimMs), claims: 1, updated_at: nowIso() })))
        throw conflict(PICKUP_NOT_CANCELLABLE);
      await cancelAtUpstream({ ...row, status: 'cancelling', claims: 1 });
      const now = (await findOwn(db, userId, id))!;
      return answer(now, now.status === 'cancelled' ? PICKUP_CANCELLED : 'Cancelling the pickup');
    },

    /** One of the user's pickups, or null (an event's message reads it). */
    async view(userId: string, id: string): Promise<Pickup | null> {
      const row = await findOwn(db, userId, id);
      return row ? toPickup(row) : null;
    },

    /** The console: every customer's newest pickups, or one customer's (their page), with the owner. */
    async adminList(userId?: string) {
      let query = db
        .selectFrom('pickups')
        .innerJoin('users', 'users.id', 'pickups.user_id')
        .selectAll('pickups')
        .select(['users.tg_id as owner_tg_id', 'users.username as owner_username']);
      if (userId) query = query.where('pickups.user_id', '=', userId);
      const rows = await query.orderBy('pickups.created_at', 'desc').orderBy('pickups.id', 'desc').limit(LIST_LIMIT).execute();
      return rows.map((row) => ({ ...toPickup(row), owner: { _id: row.user_id, tgId: row.owner_tg_id, username: row.owner_username } }));
    },

    async list(userId: string): Promise<Pickup[]> {
      const rows = await db.selectFrom('pickups').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').limit(LIST_LIMIT).execute();
      return rows.map(toPickup);
    },

    /** Asks again about bookings and cancels still under way (an upstream away, a lost answer, a process that died). */
    async sweep(): Promise<number> {
      const due = await db
        .selectFrom('pickups')
        .select('id')
        .where('status', 'in', ['booking', 'cancelling'])
        .where('due_at', '<=', nowIso())
        .orderBy('due_at')
        .limit(SWEEP_BATCH)
        .execute();
      for (const { id } of due) {
        const row = await take(id, ['booking', 'cancelling']);
        if (!row) continue;
        if (row.status === 'booking') await book(row);
        else await cancelAtUpstream(row).catch(() => undefined); // a refusal is kept on the pickup
      }
      return due.length;
    },
  };
}

export type PickupService = ReturnType<typeof createPickupService>;
