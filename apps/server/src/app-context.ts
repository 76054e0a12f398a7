import type { FastifyInstance, FastifyBaseLogger, RawServerDefault, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from './services.ts';

/** What a module's routes get: the services built by the composition root (never the database), and the guards. */
export type AppContext = Omit<Services, 'close' | 'startWorkers'> & {
  /** Guard of the customer scope (app.ts): 401 unless a valid bearer token, 403 for a disabled account; sets request.userId. */
  requireUser: (request: FastifyRequest) => Promise<void>;
  /** Guard of /api/v1/admin: 401 unless a valid bearer token, 403 unless its user is an admin; sets request.userId. */
  requireAdmin: (request: FastifyRequest) => Promise<void>;
  /** preHandler: 400 'Captcha verification failed' unless body.captchaToken is a fresh solution. */
  requireCaptcha: (request: FastifyRequest) => Promise<void>;
};

export type Api = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>;

declare module 'fastify' {
  interface FastifyRequest {
    userId: string;
  }
}
