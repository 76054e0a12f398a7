import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import helmet from '@fastify/helmet';
import cors from '@fastify/cors';
import fastifyStatic from '@fastify/static';
import { hasZodFastifySchemaValidationErrors, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { CAPTCHA_FAILED } from '@portal/contract';
import type { Config } from './config.ts';
import type { Api, AppContext } from './app-context.ts';
import { createDatabase, migrateToLatest, type Db } from './db/database.ts';
import { AttemptLimiter } from './lib/attempt-limiter.ts';
import { HttpError, badRequest, unauthorized } from './lib/http-errors.ts';
import { readOrCreateSecret } from './lib/secrets.ts';
import { createAltchaVerifier, createSiteverifyVerifier, type CaptchaVerifier } from './providers/captcha/captcha.ts';
import { createOutboxMailer, createSmtpMailer, type Mailer } from './providers/mail/mailer.ts';
import { createAuthService } from './modules/auth/service.ts';
import { createTokenService } from './modules/auth/tokens.ts';
import { authRoutes } from './modules/auth/routes.ts';
import { accountRoutes } from './modules/account/routes.ts';
import { contentRoutes, seedContent } from './modules/content/routes.ts';
import { catalogRoutes } from './modules/catalog/routes.ts';
import { seedCatalog } from './modules/catalog/seed-catalog.ts';
import { createCatalogService } from './modules/catalog/service.ts';
import { orderRoutes } from './modules/orders/routes.ts';
import { createOrderService, startOrderCompletionRunner } from './modules/orders/service.ts';
import { addressRoutes } from './modules/addresses/routes.ts';
import { bulkRoutes } from './modules/bulk/routes.ts';
import { createBulkService } from './modules/bulk/service.ts';
import { createJobQueue, defineJobs, startJobWorkers } from './queue/from-config.ts';
import type { LabelProvider } from './providers/labels/label-provider.ts';
import { createSandboxLabelProvider } from './providers/labels/sandbox.ts';
import { createRenderPool, inlineRenderer } from './providers/labels/render-pool.ts';
import { createLocalFileStore, type FileStore } from './providers/storage/file-store.ts';
import { billingRoutes } from './modules/billing/routes.ts';
import { createPaymentProvider } from './providers/payments/from-config.ts';
import type { PaymentProvider } from './providers/payments/payment-provider.ts';
import { sandboxPayRoutes } from './providers/payments/sandbox-page.ts';

export type AppOverrides = {
  /** An already migrated database (tests); otherwise one is opened from config and closed with the app. */
  db?: Db;
  mailer?: Mailer;
  captcha?: CaptchaVerifier;
  payments?: PaymentProvider;
  labels?: LabelProvider;
  files?: FileStore;
  logger?: FastifyServerOptions['logger'];
};

const captchaHosts: Record<Config['CAPTCHA_PROVIDER'], string[]> = {
  altcha: [],
  recaptcha: ['https://www.google.com', 'https://www.gstatic.com'],
  turnstile: ['https://challenges.cloudflare.com'],
};

export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: overrides.logger ?? { level: config.LOG_LEVEL },
    bodyLimit: config.BODY_LIMIT_BYTES,
    trustProxy: true,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // Outside concerns first: database, secrets, providers.
  const db = overrides.db ?? createDatabase({ url: config.DATABASE_URL, sqliteFile: path.join(config.dataDir, 'portal.sqlite') });
  if (!overrides.db) {
    await migrateToLatest(db);
    app.addHook('onClose', () => db.destroy());
  }
  await seedContent(db);
  await seedCatalog(db);
  const jwtSecret = readOrCreateSecret(config.dataDir, 'jwt-secret', config.JWT_SECRET);
  const mailer = overrides.mailer ?? (config.SMTP_URL ? createSmtpMailer(config.SMTP_URL, config.MAIL_FROM) : createOutboxMailer(db, app.log));
  const captcha =
    overrides.captcha ??
    (config.CAPTCHA_PROVIDER === 'altcha'
      ? createAltchaVerifier(db, readOrCreateSecret(config.dataDir, 'altcha-hmac-key', config.ALTCHA_HMAC_KEY), config.ALTCHA_MAX_NUMBER)
      : createSiteverifyVerifier(config.CAPTCHA_PROVIDER, config.CAPTCHA_SITE_KEY!, config.CAPTCHA_SECRET!, config.CAPTCHA_VERIFY_URL));

  const auth = createAuthService({ db, mailer, tokens: createTokenService(jwtSecret, config.JWT_TTL_HOURS), codePepper: jwtSecret });
  const files = overrides.files ?? createLocalFileStore(path.join(config.dataDir, 'files'));
  const renderer = config.LABEL_RENDER_THREADS > 0 ? createRenderPool(config.LABEL_RENDER_THREADS) : inlineRenderer();
  app.addHook('onListen', async () => renderer.warm()); // a listening server has its render threads ready for the first order
  app.addHook('onClose', () => renderer.close());
  const labels = overrides.labels ?? createSandboxLabelProvider({ mode: config.LABEL_SANDBOX_MODE, delayMs: config.LABEL_SANDBOX_DELAY_MS, renderer });
  const catalog = createCatalogService(db);
  const orders = createOrderService({ db, catalog, labels, files, log: app.log });
  // Completes orders the label provider answers later; a durable job queue replaces it in a later issue.
  const orderRunner = startOrderCompletionRunner(orders, config.ORDER_POLL_INTERVAL_MS, app.log);
  app.addHook('onClose', () => orderRunner.stop());
  // Background jobs: embedded in the database, or BullMQ when REDIS_URL is set. Closed first (hooks run last-in first-out),
  // so running jobs finish while the renderer and database are still open.
  const queue = createJobQueue(config, db, app.log);
  const bulk = createBulkService({ db, catalog, orders, files, queue, log: app.log, pollMs: config.ORDER_POLL_INTERVAL_MS });
  defineJobs(queue, { bulk });
  if (config.QUEUE_RUN_WORKERS) await startJobWorkers(queue, { bulk }, app.log);
  app.addHook('onClose', () => queue.close());
  const ctx: AppContext = {
    config,
    db,
    mailer,
    captcha,
    auth,
    files,
    labels,
    catalog,
    orders,
    queue,
    bulk,
    payments: overrides.payments ?? createPaymentProvider(config, db),
    limiter: new AttemptLimiter(config.RATE_LIMIT_MAX, config.RATE_LIMIT_WINDOW_SECONDS * 1000),
    async requireUser(request) {
      const header = request.headers.authorization ?? '';
      const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
      const user = token ? await auth.userForToken(token) : null;
      if (!user) throw unauthorized();
      request.userId = user.id;
    },
    async requireCaptcha(request) {
      const token = (request.body as { captchaToken?: string } | undefined)?.captchaToken;
      if (!(await captcha.verify(token, request.ip))) throw badRequest(CAPTCHA_FAILED);
    },
  };

  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        // The ALTCHA widget solves its proof of work in blob: workers; hosted captchas load their own scripts and frames.
        'script-src': ["'self'", ...captchaHosts[config.CAPTCHA_PROVIDER]],
        'frame-src': ["'self'", ...captchaHosts[config.CAPTCHA_PROVIDER]],
        'worker-src': ["'self'", 'blob:'],
        'img-src': ["'self'", 'data:', 'blob:'],
        'connect-src': ["'self'", ...captchaHosts[config.CAPTCHA_PROVIDER]],
      },
    },
  });
  await app.register(cors, { origin: config.CORS_ORIGIN.split(',').map((o) => o.trim()), methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'] });
  app.decorateRequest('userId', '');

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const issue = error.validation[0];
      const field = issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
      const text = issue.message ?? 'Invalid input';
      const message = text.startsWith('Invalid') && field ? `${field}: ${text}` : text;
      return reply.status(400).send({ message });
    }
    const status = error instanceof HttpError ? error.statusCode : (error.statusCode ?? 500);
    if (status >= 500) {
      request.log.error({ err: error, reqId: request.id }, 'request failed');
      return reply.status(500).send({ message: 'Something went wrong, please try again later' });
    }
    return reply.status(status).send({ message: error.message });
  });

  app.get('/healthz', async () => ({ status: 'ok' }));

  await app.register(
    async (api) => {
      const typed = api as unknown as Api;
      await authRoutes(typed, ctx);
      await accountRoutes(typed, ctx);
      await contentRoutes(typed, ctx);
      await catalogRoutes(typed, ctx);
      await orderRoutes(typed, ctx);
      await addressRoutes(typed, ctx);
      await bulkRoutes(typed, ctx);
      await billingRoutes(typed, ctx);
    },
    { prefix: '/api/v1' },
  );

  await sandboxPayRoutes(app, ctx);
  await serveWebApp(app, config.WEB_DIST);
  return app;
}

/** The built single-page app with history fallback; /api paths that match nothing stay JSON 404s. */
async function serveWebApp(app: FastifyInstance, webDist: string): Promise<void> {
  const indexFile = path.join(webDist, 'index.html');
  const hasWeb = fs.existsSync(indexFile);
  if (hasWeb) await app.register(fastifyStatic, { root: webDist, wildcard: false, index: false });
  app.setNotFoundHandler((request, reply) => {
    const isPage = request.method === 'GET' && !request.url.startsWith('/api/') && !path.extname(request.url.split('?')[0]);
    if (hasWeb && isPage) return reply.type('text/html').header('cache-control', 'no-cache').sendFile('index.html');
    return reply.status(404).send({ message: `Route ${request.method} ${request.url.split('?')[0]} not found` });
  });
}
