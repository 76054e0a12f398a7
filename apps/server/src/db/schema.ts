import type { LabelFormat } from '@portal/contract';
import type { ColumnType } from 'kysely';

/** Timestamps are ISO-8601 UTC strings, which sort and compare the same way on SQLite and PostgreSQL. */
type Timestamp = string;
/** Booleans are 0/1 integers on both dialects. */
type Flag = number;

export interface UsersTable {
  id: string;
  username: string;
  tg_id: string;
  tg_id_lower: string;
  password_hash: string;
  email: string | null;
  email_verified: Flag;
  balance_cents: number;
  /** The API key sealed with the server's key (lib/sealed-box), for Account Setting; a plain key until the first start after the migration seals it. */
  api_key_sealed: string;
  /** SHA-256 (hex) of the API key: how a request's x-api-key finds its user (unique index). */
  api_key_hash: string;
  token_version: number;
  created_at: Timestamp;
  /** 'customer' (the default) or 'admin' (the operator console). */
  role: ColumnType<'customer' | 'admin', 'customer' | 'admin' | undefined, 'customer' | 'admin'>;
  /** Set while the account is disabled. */
  disabled_at: Timestamp | null;
  /** The last sign-in or order. */
  last_active_at: Timestamp | null;
  /** The label file format chosen in Account Setting: 'pdf' (4x6), 'pdf-letter' or 'zpl'. */
  label_format: ColumnType<LabelFormat, LabelFormat | undefined, LabelFormat>;
  /** 1: the shop asks the refund of the customer's unused labels by itself (AUTO_VOID_DAYS_*); 0: turned off. */
  auto_void: ColumnType<number, number | undefined, number>;
  /** 1: the recipients of the customer's labels with a ToEmail get status mails (in transit, out for delivery, delivered); 0 (default): none. */
  recipient_emails: ColumnType<number, number | undefined, number>;
}

/** Every change of a balance, with the balance it left behind. */
export interface LedgerTable {
  id: string;
  user_id: string;
  amount_cents: number;
  balance_after_cents: number;
  kind: string;
  reference: string | null;
  note: string;
  created_at: Timestamp;
}

export interface OneTimeCodesTable {
  id: string;
  user_id: string;
  purpose: 'verify_email' | 'reset_password';
  email: string;
  code_hash: string;
  attempts: number;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: Timestamp;
}

export interface CaptchaUsesTable {
  key: string;
  expires_at: Timestamp;
}

export interface OutboxMailTable {
  id: string;
  to_address: string;
  subject: string;
  body: string;
  created_at: Timestamp;
}

export interface ContentTable {
  key: string;
  value: string;
}

export interface FaqsTable {
  id: string;
  position: number;
  question: string;
  answer: string;
}

export interface Database {
  users: UsersTable;
  ledger: LedgerTable;
  one_time_codes: OneTimeCodesTable;
  captcha_uses: CaptchaUsesTable;
  outbox_mail: OutboxMailTable;
  content: ContentTable;
  faqs: FaqsTable;
  label_types: LabelTypesTable;
  upstream_events: UpstreamEventsTable;
  upstream_services: UpstreamServicesTable;
  tracking_events: TrackingEventsTable;
  label_type_prices: LabelTypePricesTable;
  catalog_version: CatalogVersionTable;
  orders: OrdersTable;
  settled_order_counts: SettledOrderCountsTable;
  addresses: AddressesTable;
  packages: PackagesTable;
  invoices: InvoicesTable;
  sandbox_invoices: SandboxInvoicesTable;
  jobs: JobsTable;
  bulk_orders: BulkOrdersTable;
  fedex_orders: FedexOrdersTable;
  audit_log: AuditLogTable;
  quotes: QuotesTable;
  reference_packages: ReferencePackagesTable;
  price_checks: PriceChecksTable;
  scan_forms: ScanFormsTable;
  pickups: PickupsTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  telegram_accounts: TelegramAccountsTable;
  telegram_link_tokens: TelegramLinkTokensTable;
  telegram_messages: TelegramMessagesTable;
  leases: LeasesTable;
  revoked_tokens: RevokedTokensTable;
  shop_events: ShopEventsTable;
  recipient_mails: RecipientMailsTable;
  recipient_unsubscribes: RecipientUnsubscribesTable;
}

/**
 * The outbox: an event written with the change it announces, deleted once its webhook deliveries and Telegram
 * messages are recorded. id: `<type>:<subject_id>`. data: what the event carries beyond its subject (JSON), or null.
 */
export interface ShopEventsTable {
  id: string;
  type: string;
  user_id: string;
  subject_id: string;
  data: string | null;
  created_at: Timestamp;
}

/** A sign-in token ended by signing out, kept until it would have expired. */
export interface RevokedTokensTable {
  /** The token's id (its jti claim). */
  jti: string;
  user_id: string;
  expires_at: Timestamp;
}

/** An account's Telegram: the linked chat (null once unlinked) and the kinds of message it turned off. */
export interface TelegramAccountsTable {
  user_id: string;
  /** Telegram's chat id, as text (it can pass 32 bits). */
  chat_id: string | null;
  /** The Telegram username of whoever linked the chat (may differ from the account's). */
  chat_username: string | null;
  /** The shop's address as the account saw it when linking: links in messages use it when PUBLIC_URL is unset. */
  shop_url: string | null;
  /** JSON array of the TelegramTopic values turned off; '[]' (the default) is all on. */
  muted: string;
  linked_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A one-time link token of a deep link, kept as its SHA-256 only. */
export interface TelegramLinkTokensTable {
  token_hash: string;
  user_id: string;
  shop_url: string;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: Timestamp;
}

/**
 * One message about one event to one chat (unique per chat and event). status: pending | retrying |
 * sending (claimed by a run; never sent twice) | sent | failed | dropped (the chat was unlinked or blocked the bot).
 */
export interface TelegramMessagesTable {
  id: string;
  user_id: string;
  chat_id: string;
  event_id: string;
  text: string;
  status: 'pending' | 'retrying' | 'sending' | 'sent' | 'failed' | 'dropped';
  attempts: number;
  last_error: string | null;
  telegram_message_id: number | null;
  sent_at: Timestamp | null;
  /** While 'sending': until when the run that took it holds it; past it, another run takes it again (its holder died). */
  claimed_until: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A named lease: held by `holder` until expires_at unless renewed (e.g. the one process that polls Telegram). */
export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: Timestamp;
}

/** An Idempotency-Key of a reseller create call. state: running (claimed) | done (answer stored). */
export interface IdempotencyKeysTable {
  id: string;
  user_id: string;
  key: string;
  /** SHA-256 of the method, path and body: the same key with another request is refused. */
  fingerprint: string;
  state: 'running' | 'done';
  /** The order or bulk order paid for, written in the transaction of the charge. */
  resource_id: string | null;
  status_code: number | null;
  /** The JSON answer replayed to repeats. */
  response: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  expires_at: Timestamp;
}

/** A user's webhook: where events go and the secret that signs them (sealed). */
export interface WebhookEndpointsTable {
  user_id: string;
  url: string | null;
  secret_sealed: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One event to deliver to a user's webhook. status: pending | retrying | delivered | failed. */
export interface WebhookDeliveriesTable {
  id: string;
  user_id: string;
  event_id: string;
  event_type: string;
  /** The JSON body sent, fixed when the event happened. */
  payload: string;
  /** The URL of the last attempt. */
  url: string | null;
  status: 'pending' | 'retrying' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: Timestamp | null;
  next_attempt_at: Timestamp | null;
  delivered_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** What an operator changed: who (null: the command line), what, the target and its values before and after (JSON). */
/**
 * A quote (POST /order/rates): each type's answer (RateRecord[] as JSON), the package it priced (JSON) and the
 * fingerprint of what its upstream shipment was made with; used by one order (order_id) before expires_at.
 */
export interface QuotesTable {
  id: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  package_json: string;
  fingerprint: string;
  shipment_ref: string | null;
  rates_json: string;
  order_id: string | null;
}

/** A package the console's price check prices each enabled type with: weight in weight_unit, inches, two ZIPs of one country. */
export interface ReferencePackagesTable {
  id: string;
  name: string;
  weight: number;
  weight_unit: 'lb' | 'oz';
  length: number | null;
  width: number | null;
  height: number | null;
  from_zip: string;
  to_zip: string;
  created_at: Timestamp;
}

/** The last price check (id 'last'): its answer as JSON and when it ran. */
export interface PriceChecksTable {
  id: string;
  checked_at: Timestamp;
  result_json: string;
}

export interface AuditLogTable {
  id: string;
  admin_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  before_json: string | null;
  after_json: string | null;
  created_at: Timestamp;
  /** 'system' for a row the shop wrote by itself; null for an admin's (admin_id) or the command line's. */
  actor?: 'system' | null;
}

/** A deposit invoice; the bonus is fixed when it is created. status: pending | paid | cancelled | expired. */
export interface InvoicesTable {
  id: string;
  user_id: string;
  amount_cents: number;
  bonus_percent: number;
  bonus_cents: number;
  payment_method: string;
  status: string;
  provider: string;
  provider_invoice_id: string;
  hosted_url: string;
  expires_at: Timestamp;
  paid_at: Timestamp | null;
  created_at: Timestamp;
}

/** The sandbox payment provider's own record of an invoice. status: new | settled | expired. */
export interface SandboxInvoicesTable {
  id: string;
  /** Our invoice id, as a real provider keeps the merchant's order id. */
  order_id: string;
  amount_cents: number;
  currency: string;
  status: string;
  return_url: string;
  expires_at: Timestamp;
  created_at: Timestamp;
}

/** A label type of the catalog; weights are pounds, or ounces for ground_oz. */
export interface LabelTypesTable {
  id: string;
  uid: string;
  name: string;
  max_weight: number;
  status: Flag;
  position: number;
  created_at: Timestamp;
}

/** What a label type is bought as at one upstream (its carrier and service names there, an optional carrier account). */
export interface UpstreamServicesTable {
  label_type_id: string;
  upstream: string;
  carrier: string;
  service: string;
  carrier_account: string | null;
}

/** One weight tier of a label type: from_weight <= weight <= to_weight costs price_cents. */
export interface LabelTypePricesTable {
  id: string;
  label_type_id: string;
  from_weight: number;
  to_weight: number;
  price_cents: number;
}

/** A single label order. status: pending | processing | completed | cancelled. */
export interface OrdersTable {
  id: string;
  user_id: string;
  label_type_id: string;
  label_type_uid: string;
  label_type_name: string;
  design: string | null;
  weight: number;
  length: number | null;
  width: number | null;
  height: number | null;
  from_name: string;
  from_company: string;
  from_street: string;
  from_street2: string;
  from_city: string;
  from_state: string;
  from_zip: string;
  from_country: string;
  from_phone: string;
  to_name: string;
  to_company: string;
  to_street: string;
  to_street2: string;
  to_city: string;
  to_state: string;
  to_zip: string;
  to_country: string;
  to_phone: string;
  price_cents: number;
  status: 'pending' | 'processing' | 'completed' | 'cancelled';
  tracking: string | null;
  /** The label PDF's key in the file store. */
  pdf_key: string | null;
  provider: string;
  /** The provider's handle for a label it is still making. */
  provider_ref: string | null;
  note: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The bulk (CSV) order this order is a row of, else null. */
  bulk_order_id: string | null;
  /** Its row in the bulk order's file (1 = the first row after the header). */
  bulk_row: number | null;
  /** Until then the order is another process's to ask the provider about (or, once processing, not due for a check). */
  claimed_until: Timestamp | null;
  /**
   * How many times a process took the order to ask the provider about it, counted as it is taken (before the ask).
   * Past the first, an earlier try may have bought its label and died before recording it: it is looked up first.
   */
  claims: number;
  /**
   * The upstream shipment the order buys (at orders.provider), recorded before it is bought: a retry asks that upstream
   * about it instead of buying again. Null while no upstream was chosen.
   */
  upstream_ref: string | null;
  /** When its purchase was last asked of that upstream: no second purchase is asked while the first may still land. */
  upstream_asked_at: string | null;
  /** What the label cost upstream, once bought, with the carrier and service bought. */
  upstream_cost_cents: number | null;
  upstream_carrier: string | null;
  upstream_service: string | null;
  /** The quote the order was bought under (POST /order/rates), and the rate of its upstream shipment it buys, else null. */
  quote_id: string | null;
  upstream_rate_id: string | null;
  /** The carrier's tracking status (EasyPost tracker.updated): pre_transit, in_transit, out_for_delivery, delivered, return_to_sender, failure... */
  tracking_status: string | null;
  /** The label's refund (void): null, requested, refunded, rejected; the status stays completed. */
  refund_status: 'requested' | 'refunded' | 'rejected' | null;
  /** Why a refund was rejected (or an operator's note). */
  refund_note: string | null;
  refund_requested_at: Timestamp | null;
  refund_updated_at: Timestamp | null;
  /** When the refund sweep next asks the provider about a requested refund; until then it is another process's (a claim). */
  refund_due_at: Timestamp | null;
  /** Takes of a requested refund by a process that asks the provider; past the first, the upstream is asked what it did first. */
  refund_claims: number;
  /** The upstream's last answer about the refund (EasyPost refund_status: submitted, refunded, rejected). */
  refund_upstream: string | null;
  /** 1 when the refund was asked by the automatic voids of unused labels, not by the customer. */
  refund_auto: number;
  /** A return label: the order it returns (its addresses swapped), else null. */
  return_of: string | null;
  /** 1: a return label (bought upstream as one, its addresses those of the parcel coming back): return_of's, or one made on its own. */
  is_return: number;
  /** The return label made for this order, else null (one an order). */
  return_order_id: string | null;
  /** The day the parcel ships, YYYY-MM-DD (UTC); null for orders made before ship dates (they shipped the day they were made). */
  ship_date: string | null;
  /** The reference lines the label prints ('' when none); searchable. */
  reference1: string;
  reference2: string;
  /** The SCAN form the label is on (set before the upstream is asked, cleared if the form fails), else null. */
  scan_form_id: string | null;
  /** The carrier pickup booked (or being booked) for the label, else null. */
  pickup_id: string | null;
  /** The public tracking page's token (/t/<token>): random, unique, made with the order (shown once it is completed). */
  tracking_token: string | null;
  /** The declared value insured with the label (cents), else null. */
  insured_cents: number | null;
  /** What the customer paid for that insurance (cents; a part of price_cents, so every refund of the order gives it back). */
  insurance_cents: number;
  /** What the upstream charged for the insurance (cents), once bought. */
  insurance_cost_cents: number | null;
  /** The recipient's email for status mails (ToEmail), else null. */
  to_email: string | null;
}

/** A status mail to a label's recipient: one row per order and status, taken (state 'sending') before it is sent. */
export interface RecipientMailsTable {
  id: string;
  order_id: string;
  user_id: string;
  /** The tracking status it tells: in_transit, out_for_delivery or delivered. */
  status: string;
  state: 'pending' | 'sending' | 'sent' | 'retrying' | 'failed' | 'dropped';
  attempts: number;
  last_error: string | null;
  sent_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A recipient address (lower case) that asked one customer's labels to mail it no more. */
export interface RecipientUnsubscribesTable {
  user_id: string;
  email: string;
  created_at: Timestamp;
}

/** A carrier pickup (2026-11-30-20-pickups). */
export interface PickupsTable {
  id: string;
  user_id: string;
  status: 'rated' | 'booking' | 'booked' | 'failed' | 'cancelling' | 'cancelled';
  provider: string;
  carrier: string;
  from_json: string;
  min_datetime: string;
  max_datetime: string;
  instructions: string;
  /** The labels asked for, as a JSON array of order ids. */
  order_ids_json: string;
  label_count: number;
  /** The upstream's pickup, which the rates and the purchase belong to. */
  upstream_ref: string | null;
  /** The upstream's offers: [{service, feeCents}]. */
  rates_json: string;
  service: string | null;
  fee_cents: number | null;
  confirmation: string | null;
  message: string | null;
  /** When a process next asks the upstream about a booking or a cancel; until then it is another process's. */
  due_at: string | null;
  claims: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A SCAN form (2026-11-30-10-scan-forms): one carrier scan for a day's labels of one from address. */
export interface ScanFormsTable {
  id: string;
  user_id: string;
  status: 'creating' | 'created' | 'failed';
  /** The upstream asked (orders.provider of its labels). */
  provider: string;
  carrier: string;
  /** YYYY-MM-DD: the labels' ship date. */
  ship_date: string;
  /** The from address (a LabelParty) as JSON. */
  from_json: string;
  label_count: number;
  /** The bulk order whose labels it holds, when asked for one. */
  bulk_order_id: string | null;
  /** The form at the upstream, once it answered. */
  upstream_ref: string | null;
  /** When the upstream was first asked: a later take asks what became of that before asking again. */
  upstream_asked_at: string | null;
  pdf_key: string | null;
  /** Why it failed, in the upstream's words. */
  message: string | null;
  /** When a process next asks the upstream about it (while creating); until then it is another process's. */
  due_at: string | null;
  claims: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The EasyPost webhook events taken, by id: a replayed event changes nothing. */
export interface UpstreamEventsTable {
  id: string;
  received_at: Timestamp;
}

/** Every tracking status told about an order, late ones included (2026-11-29-10-tracking-events). */
export interface TrackingEventsTable {
  id: string;
  order_id: string;
  status: string;
  received_at: Timestamp;
}

/** One row (id 1): raised by triggers on every change to label_types or label_type_prices. */
export interface CatalogVersionTable {
  id: number;
  version: number;
}

/** A user's settled orders in one status (completed, cancelled), kept by triggers on orders (2026-11-24-30-settled-order-counts). */
export interface SettledOrderCountsTable {
  user_id: string;
  status: OrdersTable['status'];
  total: number;
}

/** A saved address of the user's address book (always United States). */
export interface AddressesTable {
  id: string;
  user_id: string;
  name: string;
  company: string;
  street: string;
  street2: string;
  city: string;
  state: string;
  zip: string;
  country: string;
  created_at: Timestamp;
}

/** A customer's saved package: a named weight (lb or oz) with all three dimensions in inches, or none. */
export interface PackagesTable {
  id: string;
  user_id: string;
  name: string;
  /** The name as compared (lower case): unique per customer. */
  name_key: string;
  weight: number;
  weight_unit: 'lb' | 'oz';
  length: number | null;
  width: number | null;
  height: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Background jobs of the embedded queue. state: waiting | active | completed | failed | delayed. */
export interface JobsTable {
  id: string;
  name: string;
  payload: string;
  state: string;
  progress: number;
  attempts: number;
  run_at: Timestamp;
  failed_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** While a worker runs the job it renews this; a job 'active' past it lost its worker and is taken again. */
  locked_until: Timestamp | null;
}

/**
 * A bulk (CSV) order. status: processing | completed | failed (given up after the last try). Its rows are orders (orders.bulk_order_id);
 * the files are keys in the file store: the uploaded CSV, and once completed the report, merged PDF and ZIP.
 */
export interface BulkOrdersTable {
  id: string;
  user_id: string;
  label_type_id: string;
  label_type_uid: string;
  label_type_name: string;
  design: string | null;
  status: 'processing' | 'completed' | 'failed';
  /** Runs of its job so far (a run cut off by a crash counts too). */
  job_attempts: number;
  total_orders: number;
  /** What was debited at payment; failed rows are refunded by their own ledger rows. */
  total_cents: number;
  progress: number;
  job_id: string | null;
  input_key: string;
  report_key: string | null;
  pdf_key: string | null;
  zip_key: string | null;
  /** Labels made, rows failed and what their refunds gave back, written when the order completes. */
  made_orders: number;
  failed_orders: number;
  refunded_cents: number;
  note: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: Timestamp | null;
}

/**
 * A FedEx hand-made international order, fulfilled by an operator. status: pending | completed | cancelled.
 * Pickup columns are null without a pickup; invoice_items is the commercial invoice's lines as JSON
 * ({ units, description, weight, value, tariff }[], weight and value per unit).
 */
export interface FedexOrdersTable {
  id: string;
  user_id: string;
  status: 'pending' | 'completed' | 'cancelled';
  price_cents: number;
  from_name: string;
  from_street: string;
  from_street2: string;
  from_city: string;
  from_state: string;
  from_zip: string;
  from_phone: string;
  from_email: string;
  from_country: string;
  to_name: string;
  to_street: string;
  to_street2: string;
  to_city: string;
  to_state: string;
  to_zip: string;
  to_phone: string;
  to_email: string;
  to_country: string;
  weight: number;
  weight_unit: string;
  length: number;
  width: number;
  height: number;
  dimension_unit: string;
  special_notes: string;
  signature: Flag;
  pickup: Flag;
  pickup_date: string | null;
  pickup_time: string | null;
  pickup_end_time: string | null;
  pickup_time_zone: string | null;
  pickup_name: string | null;
  pickup_street: string | null;
  pickup_street2: string | null;
  pickup_city: string | null;
  pickup_state: string | null;
  pickup_zip: string | null;
  pickup_phone: string | null;
  pickup_country: string | null;
  shipment_purpose: string;
  currency: string;
  invoice_items: string;
  /** The operator's note on completing or cancelling (the customer's Status Note). */
  note: string | null;
  /** The uploaded label PDF's key in the file store, once completed. */
  file_key: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
