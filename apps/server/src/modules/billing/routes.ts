import { createInvoiceBody, createInvoiceResponse, invoicesResponse, messageResponse, pageQuery, statementResponse, webhookParams } from '@portal/contract';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Api, AppContext } from '../../app-context.ts';
import { linkOrigin } from '../../lib/link-origin.ts';
import { WEBHOOK_BODY_LIMIT_BYTES } from '../../lib/json-body.ts';

/** The signed-in customer's deposits and statement. */
export async function billingRoutes(api: Api, ctx: AppContext) {
  const { billing } = ctx;

  api.post('/invoices/create-invoice', { schema: { body: createInvoiceBody, response: { 200: createInvoiceResponse } } }, (request) =>
    billing.createInvoice(request.userId, request.body, linkOrigin(ctx.config, request)),
  );

  api.get('/invoices/readAll', { schema: { querystring: pageQuery, response: { 200: invoicesResponse } } }, (request) =>
    billing.listInvoices(request.userId, request.query.page, request.query.limit),
  );

  api.get('/account/statement', { schema: { querystring: pageQuery, response: { 200: statementResponse } } }, (request) =>
    billing.statement(request.userId, request.query.page, request.query.limit),
  );
}

/** The payment provider's webhook: no sign-in, the provider's signature is checked by the billing service. */
export async function paymentWebhookRoutes(api: Api, ctx: AppContext) {
  const { billing } = ctx;

  // Its own plugin, so the raw-body parser (the signature covers the exact bytes) applies to the webhook alone.
  await api.register(async (plugin) => {
    const hooks = plugin.withTypeProvider<ZodTypeProvider>();
    hooks.removeAllContentTypeParsers();
    hooks.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    hooks.post(
      '/invoices/webhook/:provider',
      { bodyLimit: WEBHOOK_BODY_LIMIT_BYTES, schema: { params: webhookParams, response: { 200: messageResponse } } },
      (request) => billing.handleWebhook(request.params.provider, Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0), request.headers),
    );
  });
}
