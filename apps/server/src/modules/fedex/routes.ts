import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  FEDEX_LABEL_MAX_BYTES,
  FEDEX_ORDER_CREATED,
  FEDEX_LABEL_REQUIRED,
  FEDEX_LABEL_TOO_LARGE,
  adminFedexQueueQuery,
  adminFedexQueueResponse,
  cancelFedexOrderBody,
  completeFedexOrderFields,
  createFedexOrderBody,
  errorResponse,
  fedexFileQuery,
  fedexListQuery,
  fedexListResponse,
  idParams,
  messageResponse,
  fedexPriceResponse,
} from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';
import { badRequest } from '../../lib/http-errors.ts';
import { idempotencyOf, sendAnswer } from '../../lib/idempotency-key.ts';
import { readUpload } from '../../lib/multipart.ts';

const sendPdf = (reply: FastifyReply, file: { fileName: string; data: Buffer }) =>
  reply
    .type('application/pdf')
    .header('content-disposition', `attachment; filename="${file.fileName}"`)
    .header('cache-control', 'private, no-store')
    .send(file.data);

/** The signed-in customer's calls: /fed/read-price, /fed/create-order, /fed/read and the commercial invoice. */
export async function fedexRoutes(api: Api, ctx: AppContext) {
  const { fedex, content } = ctx;

  // The flat price of a FedEx hand-made order, as the operator set it in the console.
  api.get('/fed/read-price', { schema: { response: { 200: fedexPriceResponse } } }, async () => ({ price: await content.fedexPrice() }));

  // At most one order per Idempotency-Key (the web sends one per submission): a repeat answers the first answer.
  api.post('/fed/create-order', { schema: { body: createFedexOrderBody, response: { 200: messageResponse, 402: errorResponse } } }, async (request, reply) =>
    sendAnswer(
      reply,
      await ctx.reseller.idempotent(
        request.userId,
        idempotencyOf(request),
        async (onCharged) => ({ statusCode: 200, body: { message: (await fedex.create(request.userId, request.body, onCharged)).message } }),
        async () => ({ statusCode: 200, body: { message: FEDEX_ORDER_CREATED } }),
      ),
    ),
  );

  api.get('/fed/read', { schema: { querystring: fedexListQuery, response: { 200: fedexListResponse } } }, (request) =>
    fedex.list(request.userId, request.query),
  );

  api.get('/fed/invoice/:id', { schema: { params: idParams } }, async (request, reply) =>
    sendPdf(reply, await fedex.invoiceFor(request.userId, request.params.id)),
  );
}

/** A completed order's label link: a plain link (the spec's 'server path plus the order's file path'), no Authorization header; the signature is the key. */
export async function fedexLinkRoutes(api: Api, ctx: AppContext) {
  const { fedex } = ctx;

  api.get('/fed/file/:id', { schema: { params: idParams, querystring: fedexFileQuery } }, async (request, reply) =>
    sendPdf(reply, await fedex.labelByLink(request.params.id, request.query.expires, request.query.signature)),
  );
}

const LABEL_UPLOAD = { tooLarge: FEDEX_LABEL_TOO_LARGE, notMultipart: 'Send the label as multipart/form-data', oneFile: 'Send one label file' };

/** The `label` file and the `note` field of the complete call, in any order. */
async function readCompletion(request: FastifyRequest): Promise<{ label: Buffer; note: string }> {
  const { fields, file: label } = await readUpload(request, 'label', LABEL_UPLOAD);
  if (!label || label.length === 0) throw badRequest(FEDEX_LABEL_REQUIRED);
  const parsed = completeFedexOrderFields.safeParse(fields);
  if (!parsed.success) throw badRequest(parsed.error.issues[0].message);
  return { label, note: parsed.data.note };
}

/**
 * The operator console's FedEx queue, registered by app.ts inside the console's scope (/api/v1/admin,
 * one guard for the whole prefix); the console's service hands each change its audit hook.
 */
export async function adminFedexRoutes(scope: Api, ctx: AppContext) {
  const { admin } = ctx;

  scope.get('/fedex-orders', { schema: { querystring: adminFedexQueueQuery, response: { 200: adminFedexQueueResponse } } }, (request) =>
    admin.fedexQueue(request.query),
  );

  scope.get('/fedex-orders/:id/invoice', { schema: { params: idParams } }, async (request, reply) =>
    sendPdf(reply, await admin.fedexInvoice(request.params.id)),
  );

  scope.post('/fedex-orders/:id/cancel', { schema: { params: idParams, body: cancelFedexOrderBody, response: { 200: messageResponse } } }, (request) =>
    admin.cancelFedexOrder(request.userId, request.params.id, request.body.note),
  );

  // Multipart only for the upload; a file beyond the limit is a 400 naming the limit.
  await scope.register(async (upload: Api) => {
    await upload.register(multipart, { limits: { fileSize: FEDEX_LABEL_MAX_BYTES, files: 1, fields: 5, fieldSize: 10_000, parts: 10 } });
    upload.post('/fedex-orders/:id/complete', { schema: { params: idParams, response: { 200: messageResponse } } }, async (request) =>
      admin.completeFedexOrder(request.userId, request.params.id, await readCompletion(request)),
    );
  });
}
