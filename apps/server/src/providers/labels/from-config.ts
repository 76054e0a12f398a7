import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import { createCallRate } from '../../lib/call-rate.ts';
import { createEasyPostLabelProvider } from './easypost.ts';
import type { LabelProvider } from './label-provider.ts';
import { createRenderPool, inlineRenderer, type LabelRenderer } from './render-pool.ts';
import { createSandboxLabelProvider } from './sandbox.ts';
import { createShippoLabelProvider } from './shippo.ts';
import { UpstreamHealth } from './upstream-health.ts';
import type { UpstreamName } from './default-services.ts';

/** Render threads for sandbox labels (LABEL_RENDER_THREADS; 0 renders on the calling thread), LABEL_RENDER_QUEUE labels waiting at most. */
export function createLabelRenderer(config: Config): LabelRenderer {
  return config.LABEL_RENDER_THREADS > 0 ? createRenderPool(config.LABEL_RENDER_THREADS, config.LABEL_RENDER_QUEUE) : inlineRenderer();
}

/** An upstream's breaker, as UPSTREAM_BREAKER_FAULTS and UPSTREAM_BREAKER_OPEN_MS set it. */
export const healthFor = (config: Config, name: string) =>
  new UpstreamHealth(name, { faultsToOpen: config.UPSTREAM_BREAKER_FAULTS, openMs: config.UPSTREAM_BREAKER_OPEN_MS });

/** Purchases a second shared by every process (lib/call-rate), or none. */
const purchaseRate = (config: Config, log: FastifyBaseLogger, name: string, perSecond: number) =>
  perSecond > 0 ? createCallRate({ perSecond, redisUrl: config.REDIS_URL, keyPrefix: config.QUEUE_PREFIX, name, log }) : undefined;

/**
 * One configured upstream (a name of LABEL_UPSTREAMS) with its own key, URL, webhook secret, concurrency and purchase
 * rate; the sandbox remembers its purchases in DATA_DIR/sandbox-labels.
 */
export function createUpstream(name: UpstreamName, config: Config, renderer: LabelRenderer, log: FastifyBaseLogger, health: UpstreamHealth): LabelProvider {
  switch (name) {
    case 'easypost':
      return createEasyPostLabelProvider({
        apiKey: config.EASYPOST_API_KEY!,
        apiUrl: config.EASYPOST_API_URL,
        timeoutMs: config.EASYPOST_TIMEOUT_MS,
        concurrency: config.EASYPOST_CONCURRENCY,
        rate: purchaseRate(config, log, 'easypost', config.EASYPOST_MAX_PER_SECOND),
        processingLimitMinutes: config.LABEL_PROCESSING_LIMIT_MINUTES,
        refundPollMs: config.REFUND_POLL_INTERVAL_MS,
        webhookSecret: config.EASYPOST_WEBHOOK_SECRET,
        health,
      });
    case 'shippo':
      return createShippoLabelProvider({
        apiKey: config.SHIPPO_API_KEY!,
        apiUrl: config.SHIPPO_API_URL,
        timeoutMs: config.SHIPPO_TIMEOUT_MS,
        concurrency: config.SHIPPO_CONCURRENCY,
        rate: purchaseRate(config, log, 'shippo', config.SHIPPO_MAX_PER_SECOND),
        processingLimitMinutes: config.LABEL_PROCESSING_LIMIT_MINUTES,
        refundPollMs: config.REFUND_POLL_INTERVAL_MS,
        webhookSecret: config.SHIPPO_WEBHOOK_SECRET,
        health,
      });
    case 'sandbox':
      return createSandboxLabelProvider({
        mode: config.LABEL_SANDBOX_MODE,
        delayMs: config.LABEL_SANDBOX_DELAY_MS,
        refundDelayMs: config.LABEL_SANDBOX_REFUND_DELAY_MS,
        renderer,
        callLog: config.LABEL_SANDBOX_CALL_LOG,
        memoryDir: path.join(config.dataDir, 'sandbox-labels'),
      });
  }
}
