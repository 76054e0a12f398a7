import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { createCallRate } from '../../lib/call-rate.ts';
import { createEasyPostLabelProvider, type EasyPostOptions, type ShipmentStore } from './easypost.ts';
import type { LabelProvider } from './label-provider.ts';
import { createRenderPool, inlineRenderer, type LabelRenderer } from './render-pool.ts';
import { createSandboxLabelProvider } from './sandbox.ts';

/** Render threads for sandbox labels (LABEL_RENDER_THREADS; 0 renders on the calling thread), LABEL_RENDER_QUEUE labels waiting at most. */
export function createLabelRenderer(config: Config): LabelRenderer {
  return config.LABEL_RENDER_THREADS > 0 ? createRenderPool(config.LABEL_RENDER_THREADS, config.LABEL_RENDER_QUEUE) : inlineRenderer();
}

/** EasyPost's Shipment and purchase, kept on the order row. */
export const orderShipmentStore = (db: Db): ShipmentStore => ({
  async shipmentOf(orderId) {
    const row = await db.selectFrom('orders').select('shipment_id').where('id', '=', orderId).executeTakeFirst();
    return row?.shipment_id ?? null;
  },
  async recordShipment(orderId, shipmentId) {
    await db.updateTable('orders').set({ shipment_id: shipmentId }).where('id', '=', orderId).execute();
  },
  async recordPurchase(orderId, purchase) {
    await db
      .updateTable('orders')
      .set({ upstream_cost_cents: purchase.costCents, upstream_carrier: purchase.carrier, upstream_service: purchase.service })
      .where('id', '=', orderId)
      .execute();
  },
});

/**
 * The configured label provider (LABEL_PROVIDER): EasyPost, or the sandbox (LABEL_SANDBOX_MODE), which remembers its
 * purchases in DATA_DIR/sandbox-labels. hooks: what a label type is bought as upstream (the catalog), and the audit row
 * of a rate refused for its cost.
 */
export function createLabelProvider(
  config: Config,
  renderer: LabelRenderer,
  db: Db,
  log: FastifyBaseLogger,
  hooks: Pick<EasyPostOptions, 'services' | 'onCostRefused'>,
): LabelProvider {
  if (config.LABEL_PROVIDER === 'easypost') {
    return createEasyPostLabelProvider({
      apiKey: config.EASYPOST_API_KEY!,
      apiUrl: config.EASYPOST_API_URL,
      timeoutMs: config.EASYPOST_TIMEOUT_MS,
      concurrency: config.EASYPOST_CONCURRENCY,
      rate:
        config.EASYPOST_MAX_PER_SECOND > 0
          ? createCallRate({ perSecond: config.EASYPOST_MAX_PER_SECOND, redisUrl: config.REDIS_URL, keyPrefix: config.QUEUE_PREFIX, name: 'easypost', log })
          : undefined,
      maxCostRatio: config.LABEL_MAX_COST_RATIO,
      processingLimitMinutes: config.LABEL_PROCESSING_LIMIT_MINUTES,
      refundPollMs: config.REFUND_POLL_INTERVAL_MS,
      store: orderShipmentStore(db),
      ...hooks,
    });
  }
  return createSandboxLabelProvider({
    mode: config.LABEL_SANDBOX_MODE,
    delayMs: config.LABEL_SANDBOX_DELAY_MS,
    refundDelayMs: config.LABEL_SANDBOX_REFUND_DELAY_MS,
    renderer,
    callLog: config.LABEL_SANDBOX_CALL_LOG,
    memoryDir: path.join(config.dataDir, 'sandbox-labels'),
  });
}
