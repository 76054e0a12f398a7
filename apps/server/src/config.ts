import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { CAPTCHA_PROVIDERS } from '@portal/contract';
import { PAYMENT_PROVIDERS } from '@portal/contract';
import { isHostForm, linksNeedSetting } from './lib/link-origin.ts';
import { isTimeZone, serverTimeZone } from './lib/shop-time.ts';
import { UPSTREAM_NAMES, type UpstreamName } from './providers/labels/default-services.ts';

/** Where Telegram posts updates in webhook mode (TELEGRAM_WEBHOOK_URL ends with it). */
export const TELEGRAM_WEBHOOK_PATH = '/api/v1/telegram/webhook';

const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());
const optionalUrl = z.preprocess(emptyAsUndefined, z.url().optional());

const isAddressOrCidr = (entry: string) => {
  const [address, bits, extra] = entry.split('/');
  const family = net.isIP(address);
  if (!family || extra !== undefined) return false;
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
};
/** Fastify's trustProxy: off, true (any proxy), a hop count, or the proxies' addresses and CIDRs. */
const trustProxy = z.preprocess(
  (v) => (v === undefined || v === '' ? 'false' : v),
  z
    .string()
    .transform((v) => v.trim())
    .pipe(
      z.union([
        z.enum(['true', 'false']).transform((v) => v === 'true'),
        z.string().regex(/^\d+$/).transform(Number),
        z
          .string()
          .transform((v) =>
            v
              .split(',')
              .map((entry) => entry.trim())
              .filter(Boolean),
          )
          .refine(
            (list) => list.length > 0 && list.every(isAddressOrCidr),
            'must be true, false, a hop count, or a comma-separated list of addresses and CIDRs',
          ),
      ]),
    ),
);

/** Every environment variable the server reads, with its default. The README's table mirrors this. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(7400),
  /** Unset: 0.0.0.0 (every interface) when PUBLIC_URL or ALLOWED_HOSTS says what links to hand out, else 127.0.0.1 (loadConfig). */
  HOST: optionalString,
  /** The shop's time zone (IANA name): the date a label prints, the console's day filters and the overview's days. */
  SHOP_TIME_ZONE: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine(isTimeZone, 'must be an IANA time zone name, such as America/New_York or UTC')
      .default(() => serverTimeZone()),
  ),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
  ),
  PUBLIC_URL: optionalUrl,
  /** Hosts (host[:port], comma-separated) whose requests may set the origin of links when PUBLIC_URL is unset; loopback always may. */
  ALLOWED_HOSTS: z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((entry) => entry.trim().toLowerCase())
            .filter(Boolean)
        : (v ?? []),
    z.array(z.string().refine(isHostForm, 'must be a comma-separated list of host or host:port')),
  ),
  JWT_SECRET: z.preprocess(emptyAsUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  JWT_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(24 * 7),
  SMTP_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional(),
  ),
  MAIL_FROM: z.string().default('Label Portal <no-reply@label-portal.local>'),
  CAPTCHA_PROVIDER: z.enum(CAPTCHA_PROVIDERS).default('altcha'),
  CAPTCHA_SITE_KEY: optionalString,
  CAPTCHA_SECRET: optionalString,
  CAPTCHA_VERIFY_URL: optionalUrl,
  ALTCHA_HMAC_KEY: z.preprocess(emptyAsUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
  ALTCHA_MAX_NUMBER: z.coerce.number().int().min(1000).max(10_000_000).default(100_000),
  CORS_ORIGIN: z.string().default('http://localhost:5173'),
  /** Whose X-Forwarded-For to believe; off by default, so a client cannot pick its own address for the attempt limits. */
  TRUST_PROXY: trustProxy,
  /** Largest JSON (or form) body of a call without its own limit; create-bulk-order and the terms page have theirs (README, Security). */
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024),
  RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(10),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(15 * 60),
  /** The bot's token from @BotFather; with TELEGRAM_BOT_USERNAME it turns Telegram messages on. */
  TELEGRAM_BOT_TOKEN: optionalString,
  /** The bot's username (a leading @ is dropped), for the t.me deep links. */
  TELEGRAM_BOT_USERNAME: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().replace(/^@/, '') || undefined : v),
    z
      .string()
      .regex(/^[A-Za-z0-9_]{5,32}$/, 'must be a Telegram bot username (5-32 letters, digits or _)')
      .optional(),
  ),
  /** Set: Telegram posts updates to this URL (its path must be TELEGRAM_WEBHOOK_PATH) instead of the shop long polling. */
  TELEGRAM_WEBHOOK_URL: z.preprocess(
    emptyAsUndefined,
    z
      .url()
      .refine((v) => new URL(v).pathname.replace(/\/+$/, '').endsWith(TELEGRAM_WEBHOOK_PATH), `must end with the path ${TELEGRAM_WEBHOOK_PATH}`)
      .optional(),
  ),
  /** Another Bot API server (a local telegram-bot-api, or a test's fake); grammY refuses a trailing slash, so it is dropped. */
  TELEGRAM_API_ROOT: z.preprocess(
    emptyAsUndefined,
    z
      .url()
      .transform((v) => v.replace(/\/+$/, ''))
      .default('https://api.telegram.org'),
  ),
  /** How long the process that long-polls Telegram holds its lock between renewals: another takes over this long after it died. */
  TELEGRAM_POLL_LEASE_MS: z.coerce.number().int().min(300).default(30_000),
  /** Sandbox label provider: 'instant' renders at once, 'processing' has the label ready LABEL_SANDBOX_DELAY_MS later, 'fail' refuses every label. */
  LABEL_SANDBOX_MODE: z.enum(['instant', 'processing', 'fail']).default('instant'),
  LABEL_SANDBOX_DELAY_MS: z.coerce.number().int().min(0).default(10_000),
  /** Sandbox labels walk pre_transit -> in_transit -> out_for_delivery -> delivered, one step this often (0: no tracking). */
  LABEL_SANDBOX_TRACKING_STEP_MS: z.coerce.number().int().min(0).default(60_000),
  /** Sandbox label provider: a refund is approved this long after it is asked (by the refund sweep on the queue). */
  LABEL_SANDBOX_REFUND_DELAY_MS: z.coerce.number().int().min(0).default(10_000),
  /** USPS labels can be refunded (voided) within this many days of purchase while unscanned; UPS and FedEx until scanned. */
  REFUND_WINDOW_DAYS_USPS: z.coerce.number().int().min(0).default(28),
  /**
   * Automatic voids: the shop asks the refund of a USPS label unused (no carrier scan, on no SCAN form or pickup) this
   * many days after purchase, inside REFUND_WINDOW_DAYS_USPS (0: never). Customers may turn it off in Account Setting.
   */
  AUTO_VOID_DAYS_USPS: z.coerce.number().int().min(0).default(25),
  /** The same for UPS and FedEx labels, inside their 90 days (0: never). */
  AUTO_VOID_DAYS_UPS_FEDEX: z.coerce.number().int().min(0).max(89).default(80),
  /** Labels one run of the automatic voids asks about at most (the next run takes the rest). */
  AUTO_VOID_BATCH: z.coerce.number().int().min(1).max(1000).default(100),
  /** How often the automatic voids run (a scheduled queue job). */
  AUTO_VOID_INTERVAL_MS: z.coerce.number().int().min(50).default(3_600_000),
  /**
   * Insurance sold with a label: its price is this percent of the declared value (Insurance), at least INSURANCE_MIN
   * dollars; a declared value above INSURANCE_MAX dollars is refused (0: no insurance is sold). Bought upstream with the
   * label (EasyPost: 1 % of the value, at least $1).
   */
  INSURANCE_RATE_PERCENT: z.coerce.number().min(0).max(100).default(1.5),
  INSURANCE_MIN: z.coerce.number().min(0).max(1000).default(1.5),
  INSURANCE_MAX: z.coerce.number().int().min(0).max(100_000).default(5000),
  /** How often a submitted upstream refund is asked about again (EasyPost's webhook events usually tell first). */
  REFUND_POLL_INTERVAL_MS: z.coerce.number().int().min(50).default(600_000),
  /** A refund still requested this long after it was asked shows as stuck in the console's refund queue. */
  REFUND_STUCK_HOURS: z.coerce.number().min(0).default(72),
  /** Sandbox diagnostic: a file each process appends one line to per label asked for ('create <order id>') and made ('made <order id>'). */
  LABEL_SANDBOX_CALL_LOG: optionalString,
  /** Where labels come from when LABEL_UPSTREAMS is unset: the sandbox renderer (SAMPLE labels, the default) or one upstream. */
  LABEL_PROVIDER: z.enum(UPSTREAM_NAMES).default('sandbox'),
  /**
   * The upstreams labels are bought at, in order of preference (easypost, shippo, sandbox; comma separated). Unset: the
   * one LABEL_PROVIDER names.
   */
  LABEL_UPSTREAMS: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() ? v.split(',').map((name) => name.trim()) : undefined),
    z
      .array(z.enum(UPSTREAM_NAMES))
      .min(1)
      .refine((names) => new Set(names).size === names.length, 'names an upstream twice')
      .optional(),
  ),
  /** Where a label is bought: `cheapest` (every healthy upstream quoted at once) or `preference` (the first healthy one). */
  LABEL_UPSTREAM_POLICY: z.enum(['cheapest', 'preference']).default('cheapest'),
  /** How long a purchase waits for the upstreams' quotes; an upstream that has not answered by then is left out. */
  UPSTREAM_QUOTE_DEADLINE_MS: z.coerce.number().int().min(100).default(10_000),
  /**
   * Under `cheapest`: a purchase that would wait longer than this for the cheapest upstream's purchase rate
   * (*_MAX_PER_SECOND) is bought at the next cheapest, so a large bulk order uses every upstream's rate.
   */
  UPSTREAM_SPILL_MS: z.coerce.number().int().min(0).default(1000),
  /** Faults in a row (timeouts, refused connections, 5xx, 429s still there) that make an upstream unhealthy. */
  UPSTREAM_BREAKER_FAULTS: z.coerce.number().int().min(1).default(3),
  /** How long an unhealthy upstream gets no new purchase before one probes it; doubles with each failed probe, to 2 minutes. */
  UPSTREAM_BREAKER_OPEN_MS: z.coerce.number().int().min(100).default(10_000),
  /** EasyPost's API key (a test key or a production key); required when LABEL_PROVIDER=easypost. */
  EASYPOST_API_KEY: optionalString,
  /** EasyPost's API root (tests point it at a local fake); must end with a slash, as the client appends paths to it. */
  EASYPOST_API_URL: z.preprocess(
    emptyAsUndefined,
    z
      .url()
      .refine((v) => v.endsWith('/'), 'must end with /')
      .default('https://api.easypost.com/v2/'),
  ),
  /** Signs EasyPost's webhook events (X-Hmac-Signature); without it the tracking webhook refuses every event. */
  EASYPOST_WEBHOOK_SECRET: optionalString,
  /** EasyPost calls one process makes at once. */
  EASYPOST_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  /** EasyPost purchases a second, shared by every process (in Redis when REDIS_URL is set); 0: no limit. */
  EASYPOST_MAX_PER_SECOND: z.coerce.number().min(0).default(0),
  /** How long one EasyPost call may take before it is given up and retried later. */
  EASYPOST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** Shippo's API token (a test token starts shippo_test_); required when Shippo is an upstream. */
  SHIPPO_API_KEY: optionalString,
  /** Shippo's API root (tests point it at a local fake). */
  SHIPPO_API_URL: z.preprocess(emptyAsUndefined, z.url().default('https://api.goshippo.com')),
  /** A secret of ours in Shippo's webhook URL (?token=…), since Shippo signs nothing; without it the webhook refuses every event. */
  SHIPPO_WEBHOOK_SECRET: optionalString,
  /** Shippo calls one process makes at once. */
  SHIPPO_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
  /** Shippo purchases a second, shared by every process (in Redis when REDIS_URL is set); 0: no limit. */
  SHIPPO_MAX_PER_SECOND: z.coerce.number().min(0).default(0),
  /** How long one Shippo call may take before it is given up and retried later. */
  SHIPPO_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** The Normal Order, the address book and CSV validation ask EasyPost whether it knows each address (create_and_verify). */
  EASYPOST_VERIFY_ADDRESSES: z.preprocess(emptyAsUndefined, z.stringbool({ error: 'must be true or false' }).default(false)),
  /** An upstream rate above the order's price times this is refused before buying (1.0: never sell at a loss). */
  LABEL_MAX_COST_RATIO: z.coerce.number().positive().default(1.0),
  /** An order still without its label this long after it was placed is cancelled and refunded, unless the upstream has its label. */
  LABEL_PROCESSING_LIMIT_MINUTES: z.coerce.number().int().min(1).default(60),
  /** How long a charge waits for others to be written with it (billing/ledger.ts, the group writer); 0 writes each group at once. */
  LEDGER_GATHER_MS: z.coerce.number().int().min(0).max(1000).default(5),
  /** How long a process holds a waiting order while it asks the label provider; an order whose holder died is asked about again after it. */
  LABEL_CLAIM_MS: z.coerce.number().int().min(1000).default(120_000),
  /** How long a single order's request waits for a label bought upstream; past it the answer is Processing and the purchase goes on in the background. */
  LABEL_WAIT_MS: z.coerce.number().int().min(0).default(5_000),
  /** How often the order completion sweep (a scheduled queue job) asks about orders still processing. */
  ORDER_POLL_INTERVAL_MS: z.coerce.number().int().min(50).default(5_000),
  /** Worker threads rendering sandbox labels; 0 renders on the main thread. Default: one per core (at most 4), so a bulk order renders on every core. */
  LABEL_RENDER_THREADS: z.coerce.number().int().min(0).max(16).default(Math.min(4, os.availableParallelism())),
  /**
   * Labels that may wait for a render thread; past them a label is refused with a 503 (Retry-After) and no order is
   * written, and a bulk job runs again later. A running bulk job asks for 8 at a time: keep it above 8 x QUEUE_CONCURRENCY.
   */
  LABEL_RENDER_QUEUE: z.coerce.number().int().min(16).default(1000),
  /** An Amazon packing-slip PDF whose reading takes longer is refused (422) and its reading thread stopped. */
  SLIP_READER_TIMEOUT_MS: z.coerce.number().int().min(100).default(20_000),
  /**
   * How much the process may grow over its size with no reading under way while it reads a packing-slip PDF (the reading
   * thread's start included); past it the PDF is refused (422).
   */
  SLIP_READER_MAX_MB: z.coerce.number().int().min(150).default(300),
  /** Uploads that may wait while another is read (one at a time); past them an upload is answered 503 with Retry-After. */
  SLIP_READER_QUEUE: z.coerce.number().int().min(0).default(4),
  PAYMENT_PROVIDER: z.enum(PAYMENT_PROVIDERS).default('sandbox'),
  /** Signs the sandbox hosted page's webhooks; generated and kept in DATA_DIR when unset. */
  SANDBOX_WEBHOOK_SECRET: z.preprocess(emptyAsUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
  BTCPAY_URL: optionalUrl,
  BTCPAY_STORE_ID: optionalString,
  BTCPAY_API_KEY: optionalString,
  BTCPAY_WEBHOOK_SECRET: optionalString,
  INVOICE_EXPIRY_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 60)
    .default(60),
  /** Background jobs run on BullMQ in this Redis when set; otherwise on the embedded queue in the database. */
  REDIS_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
      .optional(),
  ),
  /** Jobs one process runs at a time. */
  QUEUE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** false: this process only queues jobs, and `npm run worker` processes run them. */
  QUEUE_RUN_WORKERS: z.preprocess(emptyAsUndefined, z.stringbool({ error: 'must be true or false' }).default(true)),
  /** Redis key prefix of this shop's jobs and attempt counts (several shops can share one Redis). */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, 'must be letters, digits, _ . -')
    .default('portal'),
  /** How long a running job's lock lasts between renewals, and so how soon the job of a worker that died is taken again (both engines). */
  QUEUE_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(30_000),
  /** First retry of a failed job after this long, then twice as long each time (at most 1 minute), for 5 attempts. */
  QUEUE_RETRY_DELAY_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /** How often the sweeps queue again bulk orders that stopped moving and dispatch the events a process that died left in the outbox. */
  QUEUE_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
  /** Encrypts the API keys and webhook secrets kept in the database; generated and kept in DATA_DIR when unset. */
  SECRETS_KEY: z.preprocess(emptyAsUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  /** Reseller API requests one API key may make a minute (shared through Redis when REDIS_URL is set). */
  RESELLER_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
  /** true: webhook URLs may point to private and local network addresses (a shop whose receivers run inside its own network, and tests). */
  WEBHOOK_ALLOW_PRIVATE: z.preprocess(emptyAsUndefined, z.stringbool({ error: 'must be true or false' }).default(false)),
  /** Delay before the first webhook retry, doubling each time: 8 tries over about a day with the default. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).default(680_000),
  /** How long a webhook receiver has to answer. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Files in an S3-compatible bucket instead of DATA_DIR/files, so several machines share them. */
  S3_BUCKET: optionalString,
  /** The store's URL for a store other than AWS (MinIO, R2...); AWS when empty. */
  S3_ENDPOINT: z.preprocess(emptyAsUndefined, z.url({ error: 'must be a URL' }).optional()),
  S3_REGION: z.preprocess(emptyAsUndefined, z.string().default('us-east-1')),
  /** Without them the AWS SDK's own chain is used (environment, instance role...). */
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  /** Bucket in the path (http://host/bucket/key), which most S3-compatible stores need. */
  S3_FORCE_PATH_STYLE: z.preprocess(emptyAsUndefined, z.stringbool({ error: 'must be true or false' }).default(false)),
  /** With S3: bulk file downloads, once the owner is checked, redirect to a short-lived signed link of the bucket. */
  S3_SIGNED_DOWNLOADS: z.preprocess(emptyAsUndefined, z.stringbool({ error: 'must be true or false' }).default(false)),
  /** Turns on /metrics for Prometheus, which must send it as a bearer token. */
  METRICS_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST: z.string().default(path.resolve(import.meta.dirname, '../../web/dist')),
});

/** `upstreams`: LABEL_UPSTREAMS, or the one LABEL_PROVIDER names. */
export type Config = Omit<z.infer<typeof envSchema>, 'HOST'> & { HOST: string; dataDir: string; upstreams: UpstreamName[] };

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const { HOST: host, ...settings } = parsed.data;
  // Listening beyond this machine is asked for by HOST, and then links need to know the shop's address (link-origin.ts):
  // without it Add Balance would send a customer on the network to http://localhost.
  const config = { ...settings, HOST: host ?? (settings.PUBLIC_URL || settings.ALLOWED_HOSTS.length ? '0.0.0.0' : '127.0.0.1') };
  if (linksNeedSetting(config)) {
    throw new Error(
      `Invalid configuration:\n  PUBLIC_URL: required when HOST (${config.HOST}) reaches beyond this machine; set it to the address customers open the shop at ` +
        `(e.g. https://labels.example.com), or list those hosts in ALLOWED_HOSTS, or set HOST=127.0.0.1. ` +
        `Without it, links the shop hands out (payment pages, downloads) would point to http://localhost:${config.PORT}.`,
    );
  }
  if (config.CAPTCHA_PROVIDER !== 'altcha' && (!config.CAPTCHA_SITE_KEY || !config.CAPTCHA_SECRET)) {
    throw new Error(`Invalid configuration:\n  CAPTCHA_SITE_KEY, CAPTCHA_SECRET: required when CAPTCHA_PROVIDER=${config.CAPTCHA_PROVIDER}`);
  }
  if (config.PAYMENT_PROVIDER === 'btcpay') {
    const missing = (['BTCPAY_URL', 'BTCPAY_STORE_ID', 'BTCPAY_API_KEY', 'BTCPAY_WEBHOOK_SECRET'] as const).filter((name) => !config[name]);
    if (missing.length) throw new Error(`Invalid configuration:\n  ${missing.join(', ')}: required when PAYMENT_PROVIDER=btcpay`);
  }
  if (Boolean(config.TELEGRAM_BOT_TOKEN) !== Boolean(config.TELEGRAM_BOT_USERNAME)) {
    throw new Error('Invalid configuration:\n  TELEGRAM_BOT_TOKEN, TELEGRAM_BOT_USERNAME: set both to turn Telegram messages on, or neither');
  }
  const upstreams = config.LABEL_UPSTREAMS ?? [config.LABEL_PROVIDER];
  if (upstreams.includes('easypost') && !config.EASYPOST_API_KEY)
    throw new Error('Invalid configuration:\n  EASYPOST_API_KEY: required when EasyPost is an upstream (LABEL_UPSTREAMS or LABEL_PROVIDER=easypost)');
  if (upstreams.includes('shippo') && !config.SHIPPO_API_KEY)
    throw new Error('Invalid configuration:\n  SHIPPO_API_KEY: required when Shippo is an upstream (LABEL_UPSTREAMS or LABEL_PROVIDER=shippo)');
  if (config.AUTO_VOID_DAYS_USPS > 0 && config.AUTO_VOID_DAYS_USPS >= config.REFUND_WINDOW_DAYS_USPS)
    throw new Error('Invalid configuration:\n  AUTO_VOID_DAYS_USPS: must be under REFUND_WINDOW_DAYS_USPS (USPS refunds nothing after it), or 0');
  if (config.TELEGRAM_WEBHOOK_URL && !config.TELEGRAM_BOT_TOKEN)
    throw new Error('Invalid configuration:\n  TELEGRAM_WEBHOOK_URL: needs TELEGRAM_BOT_TOKEN and TELEGRAM_BOT_USERNAME');
  return { ...config, upstreams, dataDir: path.resolve(config.DATA_DIR) };
}

/** The exit code of a process stopped by its configuration (sysexits' EX_CONFIG): its supervisor does not start it again. */
export const CONFIG_EXIT_CODE = 78;

/** For the process entry points: a bad configuration is printed, naming each variable, and the process stops. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(CONFIG_EXIT_CODE);
  }
}
