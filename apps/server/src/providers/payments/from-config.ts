import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { readOrCreateSecret } from '../../lib/secrets.ts';
import { createBtcpayPaymentProvider } from './btcpay.ts';
import type { PaymentProvider } from './payment-provider.ts';
import { createSandboxPaymentProvider } from './sandbox.ts';

/** The provider PAYMENT_PROVIDER names; loadConfig has already checked BTCPay's settings. */
export function createPaymentProvider(config: Config, db: Db): PaymentProvider {
  if (config.PAYMENT_PROVIDER === 'btcpay') {
    return createBtcpayPaymentProvider({
      url: config.BTCPAY_URL!,
      storeId: config.BTCPAY_STORE_ID!,
      apiKey: config.BTCPAY_API_KEY!,
      webhookSecret: config.BTCPAY_WEBHOOK_SECRET!,
    });
  }
  return createSandboxPaymentProvider(db, readOrCreateSecret(config.dataDir, 'sandbox-webhook-secret', config.SANDBOX_WEBHOOK_SECRET));
}
