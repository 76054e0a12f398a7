// The composition root: every service of the shop is built here, from the config plus test
// overrides. The web server (app.ts), `npm run worker`, the tests and the benchmarks all start here.
import { centsToDollars, dollarsToCents, setShopTimeZone } from '@portal/contract';
import { SYSTEM, auditBy } from './modules/admin/audit.ts';
import { createRatesService } from './modules/rates/service.ts';
import { createPriceCheckService } from './modules/price-check/service.ts';
import { handleUpstreamEvent } from './modules/orders/tracking-webhook.ts';
import { isoIn, nowIso } from './lib/ids.ts';
import { createUpstreamList } from './modules/orders/upstreams.ts';
import * as ordersRepo from './modules/orders/repository.ts';
import { SANDBOX_TRACKING_JOB, sandboxTrackingJob } from './modules/orders/tracking.ts';
import { createTrackingPages } from './modules/orders/tracking-page.ts';
import { createRecipientMails, recipientMailJob } from './modules/orders/recipient-mails.ts';
import { linkOrigin } from './lib/link-origin.ts';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import { createDatabase, migrateToLatest, type Db } from './db/database.ts';
import { createAttemptLimiter } from './lib/attempt-limiter.ts';
import { createCounters } from './lib/rate-limit.ts';
import { closeRedis, createRedis } from './lib/redis.ts';
import { readOrCreateSecret } from './lib/secrets.ts';
import { createSealedBox } from './lib/sealed-box.ts';
import { createMetrics } from './lib/metrics.ts';
import { createDbLease, createRedisLease } from './lib/lease.ts';
import { createAddressService, createAddressVerifier } from './modules/addresses/service.ts';
import { createPackageService } from './modules/packages/service.ts';
import { createAmazonCsvService } from './modules/amazon/service.ts';
import { createSlipReader } from './modules/amazon/slip-reader.ts';
import { createAdminService, supervisorOf } from './modules/admin/service.ts';
import { createAuthService, type PasswordCost } from './modules/auth/service.ts';
import { createTokenService } from './modules/auth/tokens.ts';
import { configureGroupWriter } from './modules/billing/ledger.ts';
import { createBillingService } from './modules/billing/service.ts';
import { bulkOrderJob, bulkSweepJob } from './modules/bulk/jobs.ts';
import { BULK_SWEEP_JOB, createBulkService } from './modules/bulk/service.ts';
import { seedCatalog } from './modules/catalog/seed-catalog.ts';
import { createCatalogService } from './modules/catalog/service.ts';
import { createContentService } from './modules/content/service.ts';
import { EVENT_SWEEP_JOB, eventSweepJob } from './modules/events/jobs.ts';
import { createEventOutbox } from './modules/events/outbox.ts';
import { createFedexService } from './modules/fedex/service.ts';
import {
  LABEL_REFUND_JOB,
  AUTO_VOID_JOB,
  ORDER_COMPLETION_JOB,
  SCAN_FORM_JOB,
  SCAN_FORM_SWEEP_JOB,
  PICKUP_SWEEP_JOB,
  pickupSweepJob,
  labelRefundJob,
  autoVoidJob,
  orderCompletionJob,
  scanFormJob,
  scanFormSweepJob,
} from './modules/orders/jobs.ts';
import { createRefundService } from './modules/orders/refunds.ts';
import { createOrderService } from './modules/orders/service.ts';
import { keepSearchIndexed } from './modules/orders/order-search.ts';
import { createOpsService } from './modules/ops/service.ts';
import { webhookDeliveryJob } from './modules/reseller/jobs.ts';
import { createResellerService } from './modules/reseller/service.ts';
import { createWebhookService } from './modules/reseller/webhooks.ts';
import { createScanFormService } from './modules/orders/scan-forms.ts';
import { createPickupService } from './modules/orders/pickups.ts';
import { telegramMessageJob, telegramWebhookJob } from './modules/telegram/jobs.ts';
import type { Update } from 'grammy/types';
import { TELEGRAM_WEBHOOK_JOB, createTelegramService } from './modules/telegram/service.ts';
import type { CaptchaVerifier } from './providers/captcha/captcha.ts';
import { createCaptchaVerifier } from './providers/captcha/from-config.ts';
import { createLabelRenderer, createUpstream, healthFor } from './providers/labels/from-config.ts';
import type { LabelProvider } from './providers/labels/label-provider.ts';
import { createMailer } from './providers/mail/from-config.ts';
import type { Mailer } from './providers/mail/mailer.ts';
import { createPaymentProvider } from './providers/payments/from-config.ts';
import type { PaymentProvider } from './providers/payments/payment-provider.ts';
import type { FileStore } from './providers/storage/file-store.ts';
import { createFileStore } from './providers/storage/from-config.ts';
import { createJobQueue } from './queue/from-config.ts';

/**
 * How old an event must be before the sweep dispatches it (or QUEUE_SWEEP_INTERVAL_MS when shorter): the process that
 * wrote it dispatches it within milliseconds unless it died.
 */
const EVENT_LEFTOVER_MS = 10_000;

export type ServiceOverrides = {
  /** An already migrated database (tests); otherwise one is opened from config and closed with the services. */
  db?: Db;
  mailer?: Mailer;
  captcha?: CaptchaVerifier;
  payments?: PaymentProvider;
  labels?: LabelProvider;
  files?: FileStore;
  /** A cheaper password hash than argon2id's default (tests). */
  passwordCost?: PasswordCost;
  /** How a sign-in waits out its account's slow-down (tests record the wait instead). */
  slowDown?: (ms: number) => Promise<void>;
};

export async function buildServices(config: Config, log: FastifyBaseLogger, overrides: ServiceOverrides = {}) {
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    return { ...(await build(config, log, overrides, closers)), close };
  } catch (error) {
    // A start that fails half-way leaves nothing open.
    await close();
    throw error;
  }
}
export type Services = Awaited<ReturnType<typeof buildServices>>;

async function build(config: Config, log: FastifyBaseLogger, overrides: ServiceOverrides, closers: (() => Promise<unknown>)[]) {
  const db = overrides.db ?? createDatabase({ url: config.DATABASE_URL, sqliteFile: path.join(config.dataDir, 'portal.sqlite'), log });
  if (!overrides.db) {
    closers.push(() => db.destroy());
    await migrateToLatest(db);
  }
  configureGroupWriter(db, { gatherMs: config.LEDGER_GATHER_MS, log });
  const content = createContentService(db);
  await content.seed();
  await seedCatalog(db);

  const jwtSecret = readOrCreateSecret(config.dataDir, 'jwt-secret', config.JWT_SECRET);
  const mailer = overrides.mailer ?? createMailer(config, db, log);
  const captcha = overrides.captcha ?? createCaptchaVerifier(config, db);
  const payments = overrides.payments ?? createPaymentProvider(config, db);
  const files = overrides.files ?? (await createFileStore(config));
  // Closed after the queue (closers run last-in first-out), once the jobs that append labels have stopped.
  if (!overrides.files) closers.push(() => files.close());
  const renderer = createLabelRenderer(config);
  closers.push(() => renderer.close());
  const health = new Map(config.upstreams.map((name) => [name, healthFor(config, name)]));
  const upstreams = overrides.labels ? [overrides.labels] : config.upstreams.map((name) => createUpstream(name, config, renderer, log, health.get(name)!));
  // A label type is offered only once an upstream that sells postage maps it (the sandbox makes every type itself).
  // Insurance is sold while an upstream can buy it with the label.
  const catalog = createCatalogService(db, {
    mappedAt: overrides.labels || config.upstreams.includes('sandbox') ? undefined : config.upstreams,
    insurance: {
      ratePercent: config.INSURANCE_RATE_PERCENT,
      minCents: dollarsToCents(config.INSURANCE_MIN),
      maxCents: upstreams.some((u) => u.insures !== false) ? config.INSURANCE_MAX * 100 : 0,
    },
  });
  // A purchase may land upstream until its call times out: for twice the upstream's timeout no second one is asked.
  const settleMs = (upstream: string) => 2 * (upstream === 'shippo' ? config.SHIPPO_TIMEOUT_MS : config.EASYPOST_TIMEOUT_MS);
  const labels = createUpstreamList({
    upstreams,
    health,
    policy: config.LABEL_UPSTREAM_POLICY,
    quoteDeadlineMs: config.UPSTREAM_QUOTE_DEADLINE_MS,
    spillMs: config.UPSTREAM_SPILL_MS,
    settleMs,
    mappingOf: catalog.mappingOf,
    store: {
      choose: (orderId, upstream, chosen, from) => ordersRepo.chooseUpstream(db, orderId, upstream, chosen, from),
      recordPurchase: (orderId, bought) => ordersRepo.recordPurchase(db, orderId, bought),
      askPurchase: (orderId, upstream) => ordersRepo.askPurchase(db, orderId, nowIso(), isoIn(-settleMs(upstream))),
    },
    maxCostRatio: config.LABEL_MAX_COST_RATIO,
    processingLimitMinutes: config.LABEL_PROCESSING_LIMIT_MINUTES,
    // The operator sees each refusal in the console's audit log, with the price, the rate and where it was found.
    onCostRefused: (request, costCents, upstream) =>
      db.transaction().execute((trx) =>
        auditBy(SYSTEM, { action: 'order.cost_refused', targetType: 'order' })(trx, {
          targetId: request.orderId,
          before: null,
          after: {
            labelType: request.uid,
            upstream,
            price: centsToDollars(request.priceCents ?? 0),
            upstreamCost: centsToDollars(costCents),
            maxCostRatio: config.LABEL_MAX_COST_RATIO,
          },
        }),
      ),
    log,
  });
  if (!overrides.labels) closers.push(async () => labels.close?.());

  // Seals what the shop must read back: API keys (for Account Setting) and webhook signing secrets.
  // Ship dates are days of the shop's zone wherever the contract's rules check them (the web app learns it from /auth/access).
  setShopTimeZone(config.SHOP_TIME_ZONE);
  const sealedBox = createSealedBox(readOrCreateSecret(config.dataDir, 'secrets-key', config.SECRETS_KEY));
  const auth = createAuthService({
    db,
    mailer,
    tokens: createTokenService(jwtSecret, config.JWT_TTL_HOURS),
    codePepper: jwtSecret,
    sealedBox,
    passwordCost: overrides.passwordCost,
  });
  await auth.sealPlainApiKeys();
  // Services write what happened to orders and deposits as events in the transaction of the change (the outbox), and
  // hand them over once committed; the outbox dispatches them to the webhooks and Telegram.
  const outbox = createEventOutbox({ db, log });
  const metrics = createMetrics();
  const rates = createRatesService({ db, catalog, labels, log, maxCostRatio: config.LABEL_MAX_COST_RATIO });
  const priceCheck = createPriceCheckService({ db, catalog, labels, log });
  // A check under way (the overview starts one in the background) ends before the database closes.
  closers.push(() => priceCheck.settle());
  const orders = createOrderService({
    db,
    catalog,
    rates,
    labels,
    files,
    log,
    pollMs: config.ORDER_POLL_INTERVAL_MS,
    claimMs: config.LABEL_CLAIM_MS,
    labelWaitMs: config.LABEL_WAIT_MS,
    outbox,
    metrics,
  });
  const refunds = createRefundService({
    db,
    labels,
    log,
    outbox,
    claimMs: config.LABEL_CLAIM_MS,
    retryMs: config.ORDER_POLL_INTERVAL_MS,
    windowDaysUsps: config.REFUND_WINDOW_DAYS_USPS,
    stuckHours: config.REFUND_STUCK_HOURS,
    autoVoid: { daysUsps: config.AUTO_VOID_DAYS_USPS, daysOthers: config.AUTO_VOID_DAYS_UPS_FEDEX, batch: config.AUTO_VOID_BATCH },
  });
  closers.push(keepSearchIndexed(db, log));
  // Closed first (closers run last-in first-out), so running jobs finish while the renderer and database are still open.
  const queue = await createJobQueue(config, db, log);
  closers.push(() => queue.close());
  const pickups = createPickupService({ db, labels, log, outbox, claimMs: config.LABEL_CLAIM_MS, retryMs: config.ORDER_POLL_INTERVAL_MS });
  const scanForms = createScanFormService({
    db,
    labels,
    files,
    log,
    outbox,
    enqueue: async (formId) => void (await queue.enqueue(SCAN_FORM_JOB, { formId }, { jobId: `scan-form-${formId}` })),
    claimMs: config.LABEL_CLAIM_MS,
    retryMs: config.ORDER_POLL_INTERVAL_MS,
  });
  // The limits on clients (attempts, the reseller API's requests) are counted in one store, shared by every process
  // through Redis when it is configured. Its client connects on first use, so a worker, which serves no request, opens
  // none; and it gives up quickly, as a request waits on it.
  const counterRedis = config.REDIS_URL
    ? createRedis(config.REDIS_URL, { name: 'rate limits', log, maxRetriesPerRequest: 1, connectTimeout: 2000 })
    : undefined;
  if (counterRedis) closers.push(() => closeRedis(counterRedis));
  const counters = createCounters(counterRedis, config.QUEUE_PREFIX);
  const limiter = createAttemptLimiter({ max: config.RATE_LIMIT_MAX, windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS, counters, sleep: overrides.slowDown });
  // Completed FedEx orders are downloaded through signed, expiring links (a plain link, no Authorization header).
  const fedex = createFedexService({ db, files, log, priceCents: content.fedexPriceCents, linkSecret: jwtSecret, outbox, timeZone: config.SHOP_TIME_ZONE });
  const billing = createBillingService({ db, payments, invoiceTtlMinutes: config.INVOICE_EXPIRY_MINUTES, log, outbox, metrics });
  const addressVerifier = createAddressVerifier({ labels, enabled: config.EASYPOST_VERIFY_ADDRESSES, log });
  const bulk = createBulkService({
    db,
    addressVerifier,
    catalog,
    rates,
    orders,
    files,
    queue,
    log,
    pollMs: config.ORDER_POLL_INTERVAL_MS,
    outbox,
    metrics,
    signedDownloads: config.S3_SIGNED_DOWNLOADS,
  });
  const webhooks = createWebhookService({
    db,
    queue,
    sealedBox,
    orders,
    bulk,
    scanForms,
    pickups,
    log,
    publicUrl: config.PUBLIC_URL,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
  });
  outbox.deliverTo(webhooks);
  const slipReader = createSlipReader({ timeoutMs: config.SLIP_READER_TIMEOUT_MS, maxMb: config.SLIP_READER_MAX_MB, queue: config.SLIP_READER_QUEUE });
  closers.push(() => slipReader.close());
  // Telegram is on with a bot token and username; its webhook secret is derived from the server secret, so every web process knows it.
  // grammY is loaded only then (about 15 MB a process).
  const telegramBot = config.TELEGRAM_BOT_TOKEN && config.TELEGRAM_BOT_USERNAME ? await import('./modules/telegram/bot.ts') : null;
  const bot = telegramBot?.createBot(config.TELEGRAM_BOT_TOKEN!, config.TELEGRAM_API_ROOT) ?? null;
  const telegramWebhookSecret = telegramBot && config.TELEGRAM_WEBHOOK_URL ? telegramBot.webhookSecretToken(jwtSecret) : null;
  const telegram = createTelegramService({
    db,
    queue,
    orders,
    bulk,
    fedex,
    pickups,
    log,
    bot: bot && { api: bot.api, username: config.TELEGRAM_BOT_USERNAME! },
    publicUrl: config.PUBLIC_URL,
    retryBaseMs: config.QUEUE_RETRY_DELAY_MS,
    claimMs: config.QUEUE_STALLED_INTERVAL_MS,
    webhook: telegramWebhookSecret ? { url: config.TELEGRAM_WEBHOOK_URL!, secretToken: telegramWebhookSecret } : undefined,
  });
  if (bot) telegramBot!.addCommands(bot, telegram, log);
  outbox.deliverTo(telegram);
  // Status mails to recipients, off the same events; their links use PUBLIC_URL (else http://localhost:PORT: no request to ask).
  const recipientMails = createRecipientMails({ db, queue, mailer, log, linkBase: linkOrigin(config, { protocol: 'http', host: '' }) });
  outbox.deliverTo(recipientMails);
  closers.push(() => outbox.flush()); // events handed over still being dispatched, before the queue closes
  const reseller = createResellerService({ db, auth, catalog, orders, bulk, webhooks, refunds, log });
  // Every job the shop runs; work that answers no request runs only here, where workers run.
  queue.define(bulkOrderJob(bulk));
  queue.define(bulkSweepJob(bulk));
  queue.define(orderCompletionJob(orders));
  queue.define(labelRefundJob(refunds));
  queue.define(autoVoidJob(refunds));
  queue.define(scanFormJob(scanForms));
  queue.define(pickupSweepJob(pickups));
  queue.define(scanFormSweepJob(scanForms));
  queue.define(webhookDeliveryJob(webhooks));
  queue.define(telegramMessageJob(telegram));
  queue.define(telegramWebhookJob(telegram));
  queue.define(recipientMailJob(recipientMails));
  queue.define(eventSweepJob(outbox, Math.min(EVENT_LEFTOVER_MS, config.QUEUE_SWEEP_INTERVAL_MS)));
  const sandboxTracking = config.upstreams.includes('sandbox') && config.LABEL_SANDBOX_TRACKING_STEP_MS > 0;
  if (sandboxTracking) queue.define(sandboxTrackingJob(db, outbox, config.LABEL_SANDBOX_TRACKING_STEP_MS));

  /**
   * Where workers run: in webhook mode, tells Telegram the webhook (a job, retried until taken); otherwise long-polls,
   * in one process at a time (a lease in Redis with REDIS_URL, else in the database). Stopped first at close.
   */
  async function startTelegram(): Promise<void> {
    if (!bot) return;
    if (telegramWebhookSecret) {
      await queue.enqueue(TELEGRAM_WEBHOOK_JOB, {}, { jobId: TELEGRAM_WEBHOOK_JOB, again: true });
      return;
    }
    const leaseMs = config.TELEGRAM_POLL_LEASE_MS;
    const lease = config.REDIS_URL
      ? createRedisLease(config.REDIS_URL, `${config.QUEUE_PREFIX}:telegram-poller`, leaseMs, log)
      : createDbLease(db, 'telegram-poller', leaseMs);
    const poller = telegramBot!.createPoller(bot, lease, leaseMs, log);
    closers.push(() => poller.stop());
    poller.start();
  }

  return {
    config,
    log,
    mailer,
    captcha,
    payments,
    files,
    labels,
    auth,
    catalog,
    orders,
    rates,
    queue,
    bulk,
    content,
    /** SCAN forms: a day's labels of one from address in one carrier scan. */
    scanForms,
    /** Carrier pickups of a customer's labels, their fees charged and refunded once. */
    pickups,
    addresses: createAddressService(db),
    /** Saved packages; packages.packageNamed(userId, name) finds one by its name, as an order names it. */
    packages: createPackageService(db),
    addressVerifier,
    /** The recipient's public tracking page of a label (/t/<token>) and its unsubscribe link. */
    trackingPages: createTrackingPages({ db, rates }),
    /** An upstream's webhook events (tracking statuses, refunds), verified by its adapter. */
    upstreamEvent: (upstream: string, rawBody: Buffer, headers: IncomingHttpHeaders, query: Record<string, string>) =>
      handleUpstreamEvent(db, outbox, labels.named(upstream), rawBody, headers, query, refunds.upstreamSaid),
    amazonCsv: createAmazonCsvService(slipReader),
    ops: createOpsService({ db, queue, files, metrics }),
    metrics,
    billing,
    fedex,
    webhooks,
    telegram,
    /** Webhook mode: checks the secret of a request and handles the update it posts; null when Telegram polls or is off. */
    telegramWebhook:
      telegramBot && bot && telegramWebhookSecret
        ? {
            accepts: (header: string | string[] | undefined) => telegramBot.isWebhookSecret(header, telegramWebhookSecret),
            handle: (update: Update) => telegramBot.handleUpdate(bot, update),
          }
        : null,
    reseller,
    /** Where the limits on clients count (Redis with REDIS_URL; in memory, per process, without): the reseller API's requests per key. */
    counters,
    admin: createAdminService({
      db,
      auth,
      billing,
      catalog,
      content,
      orders,
      bulk,
      queue,
      fedex,
      refunds,
      priceCheck,
      upstreams: labels,
      policy: config.LABEL_UPSTREAM_POLICY,
      timeZone: config.SHOP_TIME_ZONE,
      goingLive: {
        paymentProvider: config.PAYMENT_PROVIDER,
        publicUrl: config.PUBLIC_URL ?? null,
        allowedHosts: config.ALLOWED_HOSTS,
        smtp: Boolean(config.SMTP_URL),
        trustProxy: config.TRUST_PROXY !== false,
        upstreams: config.upstreams,
        postgres: Boolean(config.DATABASE_URL),
        dataDir: config.dataDir,
        supervisor: supervisorOf(process.env),
      },
    }),
    refunds,
    limiter,

    /** Runs queue jobs in this process, with the scheduled sweeps that keep paid work moving. */
    async startWorkers(): Promise<void> {
      await queue.schedule(ORDER_COMPLETION_JOB, config.ORDER_POLL_INTERVAL_MS);
      await queue.schedule(LABEL_REFUND_JOB, config.ORDER_POLL_INTERVAL_MS);
      await queue.schedule(AUTO_VOID_JOB, config.AUTO_VOID_INTERVAL_MS);
      await queue.schedule(SCAN_FORM_SWEEP_JOB, config.ORDER_POLL_INTERVAL_MS);
      await queue.schedule(PICKUP_SWEEP_JOB, config.ORDER_POLL_INTERVAL_MS);
      await queue.schedule(BULK_SWEEP_JOB, config.QUEUE_SWEEP_INTERVAL_MS);
      await queue.schedule(EVENT_SWEEP_JOB, config.QUEUE_SWEEP_INTERVAL_MS);
      // A round every quarter step: each label moves within a quarter step of its due time.
      if (sandboxTracking) await queue.schedule(SANDBOX_TRACKING_JOB, Math.max(50, Math.round(config.LABEL_SANDBOX_TRACKING_STEP_MS / 4)));
      await queue.startWorkers();
      await bulk.resumeStalled().catch((error) => log.error({ err: error }, 'stalled bulk order sweep failed'));
      // Every event left behind, whatever its age: a process that wrote one and died may have been this one.
      await outbox.sweep(0).catch((error) => log.error({ err: error }, 'events left behind could not be dispatched'));
      await startTelegram().catch((error) => log.error({ err: error }, 'telegram could not be started'));
    },
  };
}
