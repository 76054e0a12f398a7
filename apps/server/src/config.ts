import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { CAPTCHA_PROVIDERS } from '@portal/contract';
import { PAYMENT_PROVIDERS } from '@portal/contract';

const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());
const optionalUrl = z.preprocess(emptyAsUndefined, z.url().optional());

/** Every environment variable the server reads, with its default. The README's table mirrors this. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(7400),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.preprocess(emptyAsUndefined, z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional()),
  PUBLIC_URL: optionalUrl,
  JWT_SECRET: z.preprocess(emptyAsUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  JWT_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(24 * 7),
  SMTP_URL: z.preprocess(emptyAsUndefined, z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional()),
  MAIL_FROM: z.string().default('Label Portal <no-reply@label-portal.local>'),
  CAPTCHA_PROVIDER: z.enum(CAPTCHA_PROVIDERS).default('altcha'),
  CAPTCHA_SITE_KEY: optionalString,
  CAPTCHA_SECRET: optionalString,
  CAPTCHA_VERIFY_URL: optionalUrl,
  ALTCHA_HMAC_KEY: z.preprocess(emptyAsUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
  ALTCHA_MAX_NUMBER: z.coerce.number().int().min(1000).max(10_000_000).default(100_000),
  CORS_ORIGIN: z.string().default('http://localhost:5173'),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(10),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(15 * 60),
  TELEGRAM_BOT_USERNAME: optionalString,
  /** Sandbox label provider: 'instant' renders at once, 'processing' has the label ready LABEL_SANDBOX_DELAY_MS later, 'fail' refuses every label. */
  LABEL_SANDBOX_MODE: z.enum(['instant', 'processing', 'fail']).default('instant'),
  LABEL_SANDBOX_DELAY_MS: z.coerce.number().int().min(0).default(10_000),
  /** How often the background runner asks about orders still processing. */
  ORDER_POLL_INTERVAL_MS: z.coerce.number().int().min(50).default(5_000),
  /** Worker threads rendering sandbox labels; 0 renders on the main thread. Default: one per spare core, at most 2. */
  LABEL_RENDER_THREADS: z.coerce.number().int().min(0).max(16).default(Math.min(2, Math.max(0, os.availableParallelism() - 1))),
  PAYMENT_PROVIDER: z.enum(PAYMENT_PROVIDERS).default('sandbox'),
  /** Signs the sandbox hosted page's webhooks; generated and kept in DATA_DIR when unset. */
  SANDBOX_WEBHOOK_SECRET: z.preprocess(emptyAsUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
  BTCPAY_URL: optionalUrl,
  BTCPAY_STORE_ID: optionalString,
  BTCPAY_API_KEY: optionalString,
  BTCPAY_WEBHOOK_SECRET: optionalString,
  INVOICE_EXPIRY_MINUTES: z.coerce.number().int().min(1).max(7 * 24 * 60).default(60),
  /** Background jobs run on BullMQ in this Redis when set; otherwise on the embedded queue in the database. */
  REDIS_URL: z.preprocess(emptyAsUndefined, z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional()),
  /** Jobs one process runs at a time. */
  QUEUE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** false: this process only queues jobs, and `npm run worker` processes run them. */
  QUEUE_RUN_WORKERS: z.preprocess(emptyAsUndefined, z.stringbool({ error: 'must be true or false' }).default(true)),
  /** BullMQ's Redis key prefix (several shops can share one Redis). */
  QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'must be letters, digits, _ . -').default('portal'),
  /** BullMQ: how long a job's lock lasts and how often stalled jobs (of a worker that died) are looked for. */
  QUEUE_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(30_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST: z.string().default(path.resolve(import.meta.dirname, '../../web/dist')),
});

export type Config = z.infer<typeof envSchema> & { dataDir: string };

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const config = parsed.data;
  if (config.CAPTCHA_PROVIDER !== 'altcha' && (!config.CAPTCHA_SITE_KEY || !config.CAPTCHA_SECRET)) {
    throw new Error(`Invalid configuration:\n  CAPTCHA_SITE_KEY, CAPTCHA_SECRET: required when CAPTCHA_PROVIDER=${config.CAPTCHA_PROVIDER}`);
  }
  if (config.PAYMENT_PROVIDER === 'btcpay') {
    const missing = (['BTCPAY_URL', 'BTCPAY_STORE_ID', 'BTCPAY_API_KEY', 'BTCPAY_WEBHOOK_SECRET'] as const).filter((name) => !config[name]);
    if (missing.length) throw new Error(`Invalid configuration:\n  ${missing.join(', ')}: required when PAYMENT_PROVIDER=btcpay`);
  }
  return { ...config, dataDir: path.resolve(config.DATA_DIR) };
}

/** For the process entry points: a bad configuration is printed, naming each variable, and the process stops. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
