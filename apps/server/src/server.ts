import { buildApp } from './app.ts';
import { loadConfigOrExit } from './config.ts';
import { handleProcessEnd } from './lib/process-end.ts';

const config = loadConfigOrExit();

const app = await buildApp(config);
handleProcessEnd({
  log: app.log,
  stopping: 'shutting down',
  // Requests in flight get 10 s to finish; keep-alive connections are closed as soon as they fall idle.
  close: () => {
    setInterval(() => app.server.closeIdleConnections(), 100).unref();
    return app.close();
  },
  graceMs: 10_000,
});
await app.listen({ port: config.PORT, host: config.HOST });
