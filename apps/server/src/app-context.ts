import type { FastifyInstance, FastifyBaseLogger, RawServerDefault, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import type { AttemptLimiter } from './lib/attempt-limiter.ts';
import type { CaptchaVerifier } from './providers/captcha/captcha.ts';
import type { Mailer } from './providers/mail/mailer.ts';
import type { PaymentProvider } from './providers/payments/payment-provider.ts';
import type { AuthService } from './modules/auth/service.ts';
import type { CatalogService } from './modules/catalog/service.ts';
import type { OrderService } from './modules/orders/service.ts';
import type { LabelProvider } from './providers/labels/label-provider.ts';
import type { FileStore } from './providers/storage/file-store.ts';
import type { JobQueue } from './queue/job-queue.ts';
import type { BulkService } from './modules/bulk/service.ts';

/** Everything a module needs, built once in app.ts and handed to each module's routes. */
export type AppContext = {
  config: Config;
  db: Db;
  mailer: Mailer;
  captcha: CaptchaVerifier;
  limiter: AttemptLimiter;
  auth: AuthService;
  /** Generated files (label PDFs): DATA_DIR/files. */
  files: FileStore;
  /** The label provider: the sandbox renderer (LABEL_SANDBOX_MODE) unless overridden. */
  labels: LabelProvider;
  catalog: CatalogService;
  orders: OrderService;
  /** Background jobs (REDIS_URL: BullMQ, else embedded); its counts are for the reseller API. */
  queue: JobQueue;
  /** Bulk (CSV) orders. */
  bulk: BulkService;
  /** The configured payment provider (PAYMENT_PROVIDER): sandbox hosted page or BTCPay. */
  payments: PaymentProvider;
  /** preHandler: 401 unless a valid bearer token; sets request.userId. */
  requireUser: (request: FastifyRequest) => Promise<void>;
  /** preHandler: 400 'Captcha verification failed' unless body.captchaToken is a fresh solution. */
  requireCaptcha: (request: FastifyRequest) => Promise<void>;
};

export type Api = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>;

declare module 'fastify' {
  interface FastifyRequest {
    userId: string;
  }
}
