import type { Api, AppContext } from '../../app-context.ts';

/** For load balancers and orchestrators: /healthz (the process is alive) and /readyz (it can serve). */
export async function opsRoutes(app: Api, ctx: AppContext) {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const { ready, checks } = await ctx.ops.readiness();
    if (ready) return { status: 'ready', checks };
    const failing = Object.entries(checks).filter(([, state]) => state !== 'ok');
    return reply.status(503).send({ status: 'unavailable', message: failing.map(([part, state]) => `${part} ${state}`).join('; '), checks });
  });
}
