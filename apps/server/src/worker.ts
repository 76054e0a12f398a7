// `npm run worker`: a process that only runs background jobs, with the same configuration as the
// server. With REDIS_URL set, start as many as needed, on any machine that reaches Redis, the
// database and the files; run the web process with QUEUE_RUN_WORKERS=false to keep jobs off it.
// Without REDIS_URL (the embedded queue) run at most one, and the server with QUEUE_RUN_WORKERS=false.
import pino from 'pino';
import { loadConfigOrExit } from './config.ts';
import { logContextMixin } from './lib/log-context.ts';
import { handleProcessEnd } from './lib/process-end.ts';
import { buildServices } from './services.ts';

const config = loadConfigOrExit();
const log = pino({ level: config.LOG_LEVEL, mixin: logContextMixin });
const services = await buildServices(config, log);
// Before the jobs start and 'worker started' is logged: a SIGTERM or SIGINT right after it ended the process at once
// (Node's default) rather than gracefully.
handleProcessEnd({
  log,
  stopping: 'worker stopping',
  // Running jobs get 30 s to finish; one cut off is taken again by another worker (or this one after a restart).
  close: () => services.close(),
  graceMs: 30_000,
});
await services.startWorkers();
log.info({ engine: services.queue.engine, concurrency: config.QUEUE_CONCURRENCY }, 'worker started');
