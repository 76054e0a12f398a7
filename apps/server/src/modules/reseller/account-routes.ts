import { webhookSecretResponse, webhookSettingsBody, webhookSettingsResponse } from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';

/** Account Setting's webhook: the signed-in user's URL, its signing secret (shown once) and the recent deliveries. */
export async function webhookAccountRoutes(api: Api, ctx: AppContext) {
  const { reseller, limiter } = ctx;
  const { webhooks } = reseller;

  api.get('/account/webhook', { schema: { response: { 200: webhookSettingsResponse } } }, (request) => webhooks.settings(request.userId));

  api.put('/account/webhook', { schema: { body: webhookSettingsBody, response: { 200: webhookSettingsResponse } } }, async (request) => {
    await limiter.hit(`account:webhook:${request.userId}`);
    return webhooks.save(request.userId, request.body.url);
  });

  api.post('/account/webhook/secret', { schema: { response: { 200: webhookSecretResponse } } }, async (request) => {
    await limiter.hit(`account:webhook:${request.userId}`);
    return webhooks.rotateSecret(request.userId);
  });
}
