// Test only, loaded with `node --import` ahead of a real entry point (src/server.ts, src/worker.ts):
// makes the mistakes the last-resort policy (src/lib/process-end.ts) is for. In the web process a
// request to /healthz?unhandled leaves a rejected promise nobody awaits inside its handler, as a
// route missing an `await` would; in any process SIGUSR2 throws an exception nothing catches.
import diagnostics from 'node:diagnostics_channel';

diagnostics.tracingChannel<unknown, { request: { url: string } }>('fastify.request.handler').subscribe({
  start: ({ request }) => {
    if (request.url === '/healthz?unhandled') void Promise.reject(new Error('test: a promise nobody awaited'));
  },
  end: () => {},
  asyncStart: () => {},
  asyncEnd: () => {},
  error: () => {},
});
process.on('SIGUSR2', () => {
  throw new Error('test: an exception nobody caught');
});
