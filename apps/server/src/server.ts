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
    const forceExit = setTimeout(() => process.exit(1), 10_000).unref();
    await app.close();
    clearTimeout(forceExit);
    process.exit(0);
  });
}
await app.listen({ port: config.PORT, host: config.HOST });
