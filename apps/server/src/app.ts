import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import helmet from 'helmet';
import cors from '@fastify/cors';
import fastifyStatic from '@fastify/static';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { ADMIN_ONLY, AMAZON_FOUND_HEADER, AMAZON_SKIPPED_HEADER, CAPTCHA_FAILED } from '@portal/contract';
import type { Config } from './config.ts';
import type { Api, AppContext } from './app-context.ts';
import { HttpError, badRequest, notFound, publicError, unauthorized, validationIssues } from './lib/http-errors.ts';
import { buildServices, type ServiceOverrides } from './services.ts';
import { authRoutes, sessionRoutes } from './modules/auth/routes.ts';
import { accountRoutes } from './modules/account/routes.ts';
import { contentRoutes, publicContentRoutes } from './modules/content/routes.ts';
import { catalogRoutes } from './modules/catalog/routes.ts';
import { labelWebhookRoutes, orderRoutes } from './modules/orders/routes.ts';
import { trackingPageRoutes } from './modules/orders/tracking-page-routes.ts';
import { adminScanFormRoutes, pickupRoutes, scanFormRoutes } from './modules/orders/scan-form-routes.ts';
import { addressRoutes } from './modules/addresses/routes.ts';
import { packageRoutes } from './modules/packages/routes.ts';
import { amazonRoutes } from './modules/amazon/routes.ts';
import { opsRoutes } from './modules/ops/routes.ts';
import { bulkRoutes } from './modules/bulk/routes.ts';
import { billingRoutes, paymentWebhookRoutes } from './modules/billing/routes.ts';
import { adminRoutes } from './modules/admin/routes.ts';
import { adminPriceCheckRoutes } from './modules/price-check/routes.ts';
import { adminFedexRoutes, fedexLinkRoutes, fedexRoutes } from './modules/fedex/routes.ts';
import { webhookAccountRoutes } from './modules/reseller/account-routes.ts';
import { resellerRoutes } from './modules/reseller/routes.ts';
import { telegramRoutes, telegramWebhookRoutes } from './modules/telegram/routes.ts';
import { sandboxPayRoutes } from './providers/payments/sandbox-page.ts';
import { bearerToken } from './modules/auth/tokens.ts';
import { logContextMixin, requestLogFields, withLogContext } from './lib/log-context.ts';
import { parseJsonBody } from './lib/json-body.ts';

export type AppOverrides = ServiceOverrides & { logger?: FastifyServerOptions['logger'] };

const captchaHosts: Record<Config['CAPTCHA_PROVIDER'], string[]> = {
  altcha: [],
  recaptcha: ['https://www.google.com', 'https://www.gstatic.com'],
  turnstile: ['https://challenges.cloudflare.com'],
};

export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<FastifyInstance> {
  // Every line names the request (or queue job) it is part of, service lines too.
  const logger = overrides.logger ?? { level: config.LOG_LEVEL, mixin: logContextMixin };
  const app = Fastify({
    // A request's line shows its path and query names, never a query value (a FedEx link's signature is its key); a test's logger too.
    logger: typeof logger === 'object' ? { serializers: { req: requestLogFields }, ...logger } : logger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    // A hop count trusts that many proxies in front of the server.
    trustProxy: typeof config.TRUST_PROXY === 'number' ? (_address: string, hop: number) => hop < (config.TRUST_PROXY as number) : config.TRUST_PROXY,
    // A URL that cannot be decoded (a stray %): a browser gets the app's not-found page, a program a JSON 400.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const page = error.code === 'FST_ERR_BAD_URL' && isPageRequest(request) ? appPage(config.WEB_DIST) : null;
      if (page) reply.status(404).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page);
      else reply.status(400).send({ message: error.message });
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // JSON bodies: depth and width bounded before parsing (json-body.ts), every route's bodyLimit before that.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  const services = await buildServices(config, app.log, overrides);
  app.addHook('onClose', () => services.close());
  try {
    if (config.QUEUE_RUN_WORKERS) await services.startWorkers();
    const { auth, captcha } = services;
    /** The user of the request's bearer token; 401 without a valid one (403 for a disabled account). */
    const signedInUser = async (request: FastifyRequest) => {
      const token = bearerToken(request.headers.authorization);
      const user = token ? await auth.userForToken(token) : null;
      if (!user) throw unauthorized();
      return user;
    };
    const ctx: AppContext = {
      ...services,
      async requireUser(request) {
        const user = await signedInUser(request);
        request.userId = user.id;
      },
      async requireAdmin(request) {
        const user = await signedInUser(request);
        if (user.role !== 'admin') throw new HttpError(403, ADMIN_ONLY);
        request.userId = user.id;
      },
      async requireCaptcha(request) {
        const token = (request.body as { captchaToken?: string } | undefined)?.captchaToken;
        if (!(await captcha.verify(token, request.ip))) throw badRequest(CAPTCHA_FAILED);
      },
    };

    // Built once: @fastify/helmet built helmet's middleware again for every request (about 3% of an order's CPU).
    const directives = {
      // The ALTCHA widget solves its proof of work in blob: workers; hosted captchas load their own scripts and frames.
      'script-src': ["'self'", ...captchaHosts[config.CAPTCHA_PROVIDER]],
      'frame-src': ["'self'", ...captchaHosts[config.CAPTCHA_PROVIDER]],
      'worker-src': ["'self'", 'blob:'],
      'img-src': ["'self'", 'data:', 'blob:'],
      'connect-src': ["'self'", ...captchaHosts[config.CAPTCHA_PROVIDER]],
    };
    const httpsHeaders = helmet({ contentSecurityPolicy: { directives } });
    // A shop opened over plain http: upgrade-insecure-requests (and HSTS) would have the browser fetch every
    // script over https, which nothing answers, and the page stays blank.
    const httpHeaders = helmet({ contentSecurityPolicy: { directives: { ...directives, 'upgrade-insecure-requests': null } }, strictTransportSecurity: false });
    const alwaysHttps = config.PUBLIC_URL !== undefined && new URL(config.PUBLIC_URL).protocol === 'https:';
    app.addHook('onRequest', (request, reply, done) => {
      // request.protocol believes X-Forwarded-Proto only from a proxy TRUST_PROXY names.
      const securityHeaders = alwaysHttps || request.protocol === 'https' ? httpsHeaders : httpHeaders;
      securityHeaders(request.raw, reply.raw, () => done());
    });
    await app.register(cors, {
      origin: config.CORS_ORIGIN.split(',').map((o) => o.trim()),
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
      // What the Amazon CSV page reads of its answer when the app is served from another origin (development).
      exposedHeaders: [AMAZON_FOUND_HEADER, AMAZON_SKIPPED_HEADER],
    });
    app.decorateRequest('userId', '');
    // The rest of the request runs inside its log context, so lines written by services carry its id.
    app.addHook('onRequest', (request, _reply, done) => withLogContext({ reqId: request.id }, done));
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'no route';
      services.metrics.httpDuration.observe({ method: request.method, route, status_code: reply.statusCode }, reply.elapsedTime / 1000);
    });

    // The one place that writes error answers: routes and services throw, this shapes { message, ...details }.
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const invalid = validationIssues(error);
      if (invalid) return reply.status(400).send({ message: invalid[0].message });
      const shown = publicError(error);
      if (shown.internal) request.log.error({ err: error, reqId: request.id }, 'request failed');
      return reply
        .status(shown.statusCode)
        .headers(shown.headers)
        .send({ message: shown.message, ...shown.details });
    });

    await opsRoutes(app as unknown as Api, ctx);

    await app.register(
      async (api) => {
        const typed = api as unknown as Api;
        // Open to anyone: sign-up and sign-in, what the signed-out screens read, and the calls from outside whose own
        // secret is the key (the payment provider's and Telegram's webhooks, a FedEx label's signed link).
        await authRoutes(typed, ctx);
        await publicContentRoutes(typed, ctx);
        await paymentWebhookRoutes(typed, ctx);
        await labelWebhookRoutes(typed, ctx);
        await telegramWebhookRoutes(typed, ctx);
        await fedexLinkRoutes(typed, ctx);
        await trackingPageRoutes(typed, ctx);
        // The signed-in customer's calls: one guard for the whole scope, run first on every request (before the body
        // is read or checked): 401 without a valid token, 403 for a disabled account.
        await api.register(async (scope) => {
          scope.addHook('onRequest', ctx.requireUser);
          const customer = scope as unknown as Api;
          await sessionRoutes(customer, ctx);
          await accountRoutes(customer, ctx);
          await webhookAccountRoutes(customer, ctx);
          await telegramRoutes(customer, ctx);
          await contentRoutes(customer, ctx);
          await catalogRoutes(customer, ctx);
          await orderRoutes(customer, ctx);
          await addressRoutes(customer, ctx);
          await packageRoutes(customer, ctx);
          await bulkRoutes(customer, ctx);
          await billingRoutes(customer, ctx);
          await fedexRoutes(customer, ctx);
          await amazonRoutes(customer, ctx);
          await scanFormRoutes(customer, ctx);
          await pickupRoutes(customer, ctx);
        });
        // The operator console, /api/v1/admin, behind its own guard (an admin's token).
        await adminRoutes(typed, ctx, [adminFedexRoutes, adminPriceCheckRoutes, adminScanFormRoutes]);
      },
      { prefix: '/api/v1' },
    );

    await resellerRoutes(app, ctx);
    await sandboxPayRoutes(app, ctx);
    await serveWebApp(app, config.WEB_DIST);
    return app;
  } catch (error) {
    // A start that fails half-way leaves no queue, thread or connection open.
    await services.close();
    throw error;
  }
}

/**
 * A request for a page of the app rather than for data or a file: a GET outside /api/ whose path
 * has no file extension, or that a browser sends for a page (accepting HTML).
 */
function isPageRequest(request: FastifyRequest): boolean {
  if (request.method !== 'GET' || request.url.startsWith('/api/')) return false;
  return !path.extname(request.url.split('?')[0]) || (request.headers.accept ?? '').includes('text/html');
}

/** The built app's index.html, or null without a built app. */
function appPage(webDist: string): string | null {
  try {
    return fs.readFileSync(path.join(webDist, 'index.html'), 'utf8');
  } catch {
    return null;
  }
}

/**
 * The built single-page app with history fallback: the app decides what a path shows (its own
 * not-found page included); a browser asking for a missing file gets that page with a 404. /api
 * paths that match nothing, and files fetched by scripts, stay JSON 404s.
 */
async function serveWebApp(app: FastifyInstance, webDist: string): Promise<void> {
  const indexFile = path.join(webDist, 'index.html');
  const hasWeb = fs.existsSync(indexFile);
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: false,
      index: false,
      // The build writes .br and .gz beside each text file; the one the browser accepts is sent.
      preCompressed: true,
      cacheControl: false,
      // Files under assets/ are named by their content hash, so they never change; anything else may.
      setHeaders: (reply, filePath) => {
        reply.header('cache-control', path.relative(webDist, filePath).startsWith(`assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    if (hasWeb && isPageRequest(request)) {
      const missingFile = Boolean(path.extname(request.url.split('?')[0]));
      return reply
        .status(missingFile ? 404 : 200)
        .type('text/html')
        .header('cache-control', 'no-cache')
        .sendFile('index.html');
    }
    throw notFound(`Route ${request.method} ${request.url.split('?')[0]} not found`);
  });
}
