import type { FastifyInstance, FastifyBaseLogger, RawServerDefault, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import type { AttemptLimiter } from './lib/attempt-limiter.ts';
import type { CaptchaVerifier } from './providers/captcha/captcha.ts';
import type { Mailer } from './providers/mail/mailer.ts';
import type { AuthService } from './modules/auth/service.ts';

/** Everything a module needs, built once in app.ts and handed to each module's routes. */
export type AppContext = {
  config: Config;
  db: Db;
  mailer: Mailer;
  captcha: CaptchaVerifier;
  limiter: AttemptLimiter;
  auth: AuthService;
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
