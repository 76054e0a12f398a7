import crypto from 'node:crypto';
import type { Api, AppContext } from '../../app-context.ts';
import { notFound, unauthorized } from '../../lib/http-errors.ts';

const sameSecret = (given: string, expected: string) => {
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
};

/**
 * For load balancers and orchestrators: /healthz (the process is alive) and /readyz (it can serve);
 * for Prometheus: /metrics, only when METRICS_TOKEN is set, and then only with it as a bearer token.
 */
export async function opsRoutes(app: Api, ctx: AppContext) {
  const token = ctx.config.METRICS_TOKEN;
  app.get('/metrics', async (request, reply) => {
    if (!token) throw notFound();
    if (!sameSecret(request.headers.authorization ?? '', `Bearer ${token}`)) throw unauthorized();
    const { text, contentType } = await ctx.ops.metrics();
    return reply.type(contentType).header('cache-control', 'no-store').send(text);
  });

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const { ready, checks } = await ctx.ops.readiness();
    if (ready) return { status: 'ready', checks };
    const failing = Object.entries(checks).filter(([, state]) => state !== 'ok');
    return reply.status(503).send({ status: 'unavailable', message: failing.map(([part, state]) => `${part} ${state}`).join('; '), checks });
  });
}
