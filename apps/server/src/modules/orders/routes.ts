import {
  ORDER_CREATED,
  ORDER_DUPLICATED,
  RETURN_CREATED,
  createOrderRequest,
  placedResponse,
  ratesBody,
  ratesResponse,
  errorResponse,
  idParams,
  labelFormatQuery,
  messageResponse,
  orderDetailResponse,
  orderListQuery,
  orderListResponse,
  selectedLabelsBody,
  refundOrdersBody,
  refundResultSchema,
  refundResultsResponse,
  autoVoidSavedResponse,
} from '@portal/contract';
import { z } from 'zod';
import type { Api, AppContext } from '../../app-context.ts';
import { WEBHOOK_BODY_LIMIT_BYTES, parseJsonBody } from '../../lib/json-body.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { linkOrigin } from '../../lib/link-origin.ts';
import { idempotencyOf, sendAnswer, type ApiAnswer } from '../../lib/idempotency-key.ts';
import type { LabelFile } from './label-files.ts';
import type { OnCharged, PlaceResult } from './placing.ts';

export async function orderRoutes(api: Api, ctx: AppContext) {
  const { orders, auth } = ctx;

  // A refused label is the provider's failure, not the user's: 502 with what happened (the order is already refunded).
  const answer = (result: PlaceResult, message: string): ApiAnswer =>
    result.ok
      ? { statusCode: 200, body: { message, orderId: result.orderId, labelType: result.labelType } }
      : { statusCode: 502, body: { message: result.message } };

  /**
   * Places an order at most once per Idempotency-Key (the web sends one per submission): the same key again answers
   * the first answer, without a second order or charge (the reseller API's mechanism, keyed per user).
   */
  const placeOnce = (
    request: FastifyRequest & { userId: string },
    reply: FastifyReply,
    place: (onCharged?: OnCharged) => Promise<PlaceResult>,
    message: string,
  ) =>
    ctx.reseller
      .idempotent(
        request.userId,
        idempotencyOf(request),
        async (onCharged) => answer(await place(onCharged), message),
        async () => ({ statusCode: 200, body: { message } }),
      )
      .then((result) => sendAnswer(reply, result));

  const placed = { 200: placedResponse, 502: errorResponse };

  // A body that fails the schema is answered with every problem at once (fields and the type's rules), not its first.
  // Every enabled label type priced for one package, with its delivery estimate or why it cannot take it: a quote.
  // A saved package named in the body fills its weight and dimensions before the body is checked.
  const preValidation = (request: FastifyRequest) => ctx.packages.fillFromPackage(request as FastifyRequest & { userId: string });
  api.post('/order/rates', { schema: { body: ratesBody, response: { 200: ratesResponse } }, preValidation }, (request) =>
    ctx.rates.rates(request.userId, request.body),
  );

  api.post('/order/create', { schema: { body: createOrderRequest, response: placed }, attachValidation: true, preValidation }, async (request, reply) => {
    if (request.validationError) throw await orders.invalidBody(request.body);
    return placeOnce(request, reply, (onCharged) => orders.place(request.userId, request.body, { onCharged }), ORDER_CREATED);
  });

  // The spec posts duplicate with an empty body; a client that still says application/json gets no 400 for it.
  await api.register(async (scope: Api) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, body === '' ? undefined : parseJsonBody(body as string));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
    scope.post('/order/duplicate/:id', { schema: { params: idParams, response: placed } }, async (request, reply) =>
      placeOnce(request, reply, (onCharged) => orders.duplicate(request.userId, request.params.id, onCharged), ORDER_DUPLICATED),
    );
    // A return label of a completed order (its addresses swapped): 409 when one was made or it is not completed.
    scope.post('/order/return/:id', { schema: { params: idParams, response: placed } }, async (request, reply) =>
      placeOnce(request, reply, (onCharged) => orders.placeReturn(request.userId, request.params.id, onCharged), RETURN_CREATED),
    );
    // A label's refund (void): 409 when it was asked before or is not completed, 422 outside the carrier's window.
    scope.post('/order/refund/:id', { schema: { params: idParams, response: { 200: refundResultSchema } } }, (request) =>
      ctx.refunds.request(request.userId, request.params.id),
    );
  });

  // Several at once (Order History's multi-select): each order answered on its own.
  api.post('/order/refund', { schema: { body: refundOrdersBody, response: { 200: refundResultsResponse } } }, async (request) => ({
    results: await ctx.refunds.requestMany(request.userId, request.body.ids),
  }));

  api.get('/order/auto-voids', { schema: { response: { 200: autoVoidSavedResponse } } }, (request) => ctx.refunds.savedByAutoVoids(request.userId));

  api.get('/order/read', { schema: { querystring: orderListQuery, response: { 200: orderListResponse } } }, (request) =>
    orders.list(request.userId, request.query),
  );

  api.get('/order/details/:id', { schema: { params: idParams, response: { 200: orderDetailResponse } } }, (request) =>
    orders.detail(request.userId, request.params.id, linkOrigin(ctx.config, request)),
  );

  // Labels come in the format chosen in Account Setting unless ?format= (or the body's format) names another.
  const sendLabel = (reply: FastifyReply, file: LabelFile) =>
    reply
      .type(file.contentType)
      .header('content-disposition', `attachment; filename="${file.fileName}"`)
      .header('cache-control', 'private, no-store')
      .send(Buffer.from(file.data));

  api.get('/order/download/:id', { schema: { params: idParams, querystring: labelFormatQuery } }, async (request, reply) =>
    sendLabel(reply, await orders.labelFile(request.userId, request.params.id, request.query.format ?? (await auth.labelFormatOf(request.userId)))),
  );

  // Order History's selected orders as one file.
  api.post('/order/download-selected', { schema: { body: selectedLabelsBody } }, async (request, reply) =>
    sendLabel(reply, await orders.selectedLabels(request.userId, request.body.ids, request.body.format ?? (await auth.labelFormatOf(request.userId)))),
  );
}

const upstreamWebhookParams = z.object({ upstream: z.string().max(20) });
/** Shippo's webhook URL carries a token of ours; the rest of a query is ignored. */
const upstreamWebhookQuery = z.record(z.string(), z.string().max(200));

/** Each upstream's webhook events: no sign-in; its adapter checks the event's signature (or secret token) over the raw body. */
export async function labelWebhookRoutes(api: Api, ctx: AppContext) {
  // Its own plugin, so the raw-body parser (the signature covers the exact bytes) applies to the webhook alone.
  await api.register(async (plugin) => {
    plugin.removeAllContentTypeParsers();
    plugin.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    plugin.post(
      '/labels/webhook/:upstream',
      { bodyLimit: WEBHOOK_BODY_LIMIT_BYTES, schema: { params: upstreamWebhookParams, querystring: upstreamWebhookQuery, response: { 200: messageResponse } } },
      (request) =>
        ctx.upstreamEvent(
          (request.params as z.infer<typeof upstreamWebhookParams>).upstream,
          Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
          request.headers,
          request.query as z.infer<typeof upstreamWebhookQuery>,
        ),
    );
  });
}
