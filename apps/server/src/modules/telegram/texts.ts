import {
  ACCOUNT_DISABLED,
  TELEGRAM_LINK_TEXT,
  TELEGRAM_LINK_TTL_MINUTES,
  centsToDollars,
  formatDollars,
  type FedexOrder,
  type Order,
  type Pickup,
} from '@portal/contract';

// Everything the bot says, as plain text (no parse mode, so names and notes need no escaping).

const money = (cents: number) => `$${formatDollars(centsToDollars(cents))}`;
const dollars = (amount: number) => `$${formatDollars(amount)}`;
/** The short id the dashboard shows (OrderId). */
export const shortId = (id: string) => id.slice(0, 8).toUpperCase();
/** A line with a link into the shop, or nothing when its address is unknown. */
const linkLine = (label: string, shopUrl: string | null, path: string) => (shopUrl ? [`${label}: ${shopUrl}${path}`] : []);
const lines = (...parts: (string | string[] | null | undefined | false)[]) =>
  parts
    .flat()
    .filter((part): part is string => typeof part === 'string')
    .join('\n');

const LINK_AGAIN = `Open a fresh link with '${TELEGRAM_LINK_TEXT}' on the Orders card of your dashboard.`;

export const botTexts = {
  linked: (tgId: string) => lines(`Linked to @${tgId}`, 'You will get your order updates in this chat. /help lists what I can do.'),
  tokenUnknown: lines('This link is not valid.', LINK_AGAIN),
  tokenUsed: lines('This link was already used.', LINK_AGAIN),
  tokenExpired: lines(`This link has expired (a link works for ${TELEGRAM_LINK_TTL_MINUTES} minutes).`, LINK_AGAIN),
  welcome: lines('Hello! I tell you when your shipping-label orders complete.', `To start, use '${TELEGRAM_LINK_TEXT}' on the Orders card of your dashboard.`),
  alreadyLinked: (tgId: string) => lines(`This chat is linked to @${tgId}.`, '/help lists what I can do.'),
  notLinked: lines('This chat is not linked to a shop account.', `Use '${TELEGRAM_LINK_TEXT}' on the Orders card of your dashboard.`),
  disabled: ACCOUNT_DISABLED,
  unlinked: lines('Unlinked: this chat gets no more messages.', `To link it again, use '${TELEGRAM_LINK_TEXT}' on the Orders card of your dashboard.`),
  noOrders: 'You have no orders yet.',
  orders: (orders: Order[]) =>
    lines(
      `Your last ${orders.length === 1 ? 'order' : `${orders.length} orders`}:`,
      ...orders.map((o) => `\n${shortId(o._id)} ${o.labelType.name} to ${o.toName}\n${o.status}${o.tracking ? `, tracking ${o.tracking}` : ''}`),
    ),
  balance: (cents: number) => `Balance: ${money(cents)}`,
  help: lines(
    '/orders - your last 5 orders with status and tracking',
    '/balance - your balance',
    '/stop - stop the messages and unlink this chat',
    '/help - this list',
    'Choose which messages you get in Account Setting.',
  ),
  failed: 'Something went wrong, please try again later.',
};

/** The messages sent on events; shopUrl is where the links in them point (null: no links). */
export const eventTexts = {
  orderCompleted: (order: Order, shopUrl: string | null) =>
    lines(
      `Order ${order.OrderId} completed`,
      `${order.labelType.name} to ${order.toName}`,
      `Tracking: ${order.tracking ?? '-'}`,
      linkLine('Dashboard', shopUrl, '/'),
    ),

  orderDelivered: (order: Order, shopUrl: string | null) =>
    lines(
      `Order ${order.OrderId} delivered`,
      `${order.labelType.name} to ${order.toName}`,
      `Tracking: ${order.tracking ?? '-'}`,
      linkLine('Dashboard', shopUrl, '/'),
    ),

  orderCancelled: (order: Order, shopUrl: string | null) =>
    lines(
      `Order ${order.OrderId} cancelled and refunded (${dollars(order.price)})`,
      `${order.labelType.name} to ${order.toName}`,
      `Reason: ${order.note ?? 'not given'}`,
      linkLine('Dashboard', shopUrl, '/'),
    ),

  orderRefunded: (order: Order, shopUrl: string | null) =>
    lines(
      `Label of order ${order.OrderId} refunded (${dollars(order.price)} back to your balance)`,
      `${order.labelType.name} to ${order.toName}`,
      linkLine('Dashboard', shopUrl, '/'),
    ),

  orderRefundRejected: (order: Order, shopUrl: string | null) =>
    lines(
      `Refund of order ${order.OrderId} rejected`,
      `${order.labelType.name} to ${order.toName}`,
      `Reason: ${order.refundNote ?? 'not given'}`,
      linkLine('Dashboard', shopUrl, '/'),
    ),

  bulkCompleted: (bulk: { id: string; status: string; made: number; failed: number; refundedCents: number; note: string | null }, shopUrl: string | null) =>
    lines(
      `Bulk order ${shortId(bulk.id)} ${bulk.status === 'completed' ? 'done' : 'could not be finished'}: ${bulk.made} made, ${bulk.failed} failed`,
      `Refunded: ${money(bulk.refundedCents)}`,
      bulk.note && `Note: ${bulk.note}`,
      linkLine('Files', shopUrl, '/csv-orders'),
    ),

  fedexCompleted: (order: FedexOrder, shopUrl: string | null) =>
    lines(`FedEx order ${shortId(order._id)} completed`, order.note && `Note: ${order.note}`, linkLine('Label', shopUrl, '/fedex-order')),

  fedexCancelled: (order: FedexOrder, shopUrl: string | null) =>
    lines(
      `FedEx order ${shortId(order._id)} cancelled and refunded (${dollars(order.price)})`,
      `Note: ${order.note ?? 'not given'}`,
      linkLine('Dashboard', shopUrl, '/fedex-order'),
    ),

  pickupBooked: (pickup: Pickup, shopUrl: string | null) =>
    lines(
      `${pickup.carrier} pickup booked: confirmation ${pickup.confirmation ?? 'pending'}`,
      `Window: ${pickup.minDatetime} to ${pickup.maxDatetime}`,
      `${pickup.labelCount} label${pickup.labelCount === 1 ? '' : 's'}, fee ${dollars(pickup.fee ?? 0)}`,
      linkLine('End of day', shopUrl, '/scan-forms'),
    ),

  pickupCancelled: (pickup: Pickup, shopUrl: string | null) =>
    lines(
      `${pickup.carrier} pickup ${pickup.confirmation ?? ''} cancelled; fee refunded (${dollars(pickup.fee ?? 0)})`,
      linkLine('End of day', shopUrl, '/scan-forms'),
    ),

  depositCredited: (deposit: { amountCents: number; bonusPercent: number; bonusCents: number; balanceCents: number }, shopUrl: string | null) =>
    lines(
      `Deposit credited: ${money(deposit.amountCents)}`,
      deposit.bonusCents > 0 ? `Bonus: ${deposit.bonusPercent}% (${money(deposit.bonusCents)})` : 'Bonus: none',
      `New balance: ${money(deposit.balanceCents)}`,
      linkLine('Deposits', shopUrl, '/deposits'),
    ),
};
