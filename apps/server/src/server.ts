import { buildApp } from './app.ts';
import { loadConfigOrExit } from './config.ts';

const config = loadConfigOrExit();

const app = await buildApp(config);
let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    // Requests in flight get 10 s to finish; keep-alive connections are closed as soon as they fall idle.
    const forceExit = setTimeout(() => process.exit(1), 10_000).unref();
    setInterval(() => app.server.closeIdleConnections(), 100).unref();
    await app.close();
    clearTimeout(forceExit);
    process.exit(0);
  });
}
await app.listen({ port: config.PORT, host: config.HOST });
