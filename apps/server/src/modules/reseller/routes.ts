import { Readable } from 'node:stream';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  API_KEY_HEADER,
  balanceAnswer,
  priceAnswer,
  ratesAnswer,
  resellerRatesBody,
  resellerPriceBody,
  resellerWebhookAnswer,
  resellerWebhookBody,
  BULK_BODY_MAX_BYTES,
  BULK_MAX_ROWS,
  IDEMPOTENCY_KEY_INVALID,
  RATE_LIMITED,
  RESELLER_API_PREFIX,
  RESELLER_TAGS,
  bulkJobStatusAnswer,
  bulkOrderIdParams,
  createBulkOrderAnswer,
  createBulkOrderBody,
  createOrderAnswer,
  jobIdParams,
  labelTypesAnswer,
  orderIdParams,
  packageIdParams,
  resellerLabelFormatQuery,
  resellerPackageAnswer,
  resellerPackageBody,
  resellerPackageDeletedAnswer,
  resellerPackagesAnswer,
  PACKAGE_CREATED,
  PACKAGE_DELETED,
  PACKAGE_UPDATED,
  resellerRefundAnswer,
  resellerRefundsAnswer,
  resellerRefundsBody,
  queueStatsAnswer,
  readOrdersAnswer,
  resellerCreateOrderBody,
  resellerOrderListQuery,
  type ResellerError,
  SCAN_FORM_IDS_MAX,
  SCAN_FORM_MAX_LABELS,
  SCAN_FORM_NOT_FOUND,
  resellerScanFormAnswer,
  resellerScanFormBody,
  resellerScanFormsAnswer,
  scanFormIdParams,
  pickupIdParams,
  resellerPickupAnswer,
  resellerPickupBuyBody,
  resellerPickupRatesBody,
} from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';
import { HttpError, notFound, publicError, tooManyRequests, validationIssues } from '../../lib/http-errors.ts';
import { sha256Hex } from '../../lib/ids.ts';
import { linkOrigin } from '../../lib/link-origin.ts';
import { RateLimiterRes } from '../../lib/rate-limit.ts';
import { errorResponses, ok, servedDocument, swaggerOptions } from './openapi.ts';
import { idempotencyOf, sendAnswer } from '../../lib/idempotency-key.ts';

type ErrorItem = NonNullable<ResellerError['errors']>[number];

/** A 400 that names every bad field (and row). */
export class ResellerValidationError extends HttpError {
  constructor(message: string, errors: ErrorItem[]) {
    super(400, message, { details: { errors } });
  }
}

const summarize = (items: ErrorItem[]) =>
  items.length === 1
    ? items[0].message
    : `${items.length} fields are not valid: ${items
        .map((i) => i.message)
        .slice(0, 3)
        .join('; ')}${items.length > 3 ? '; ...' : ''}`;

/** The `errors` an error lists in its details: ours, or a bulk row check's ({ row, column, message }). */
function errorItemsOf(details: Record<string, unknown>): ErrorItem[] | undefined {
  const list = details.errors;
  if (!Array.isArray(list)) return undefined;
  return list.map((item: { row?: number | null; field?: string | null; column?: string | null; message: string }) => ({
    ...(typeof item.row === 'number' ? { row: item.row } : {}),
    ...((item.field ?? item.column) ? { field: (item.field ?? item.column)! } : {}),
    message: item.message,
  }));
}

/** The reseller API's errors: { type: 'error', message, errors? }; status, message and logging follow the app's rule (publicError). */
function answerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const invalid = validationIssues(error);
  if (invalid) return reply.status(400).send({ type: 'error', message: summarize(invalid), errors: invalid });
  const shown = publicError(error);
  if (shown.internal) request.log.error({ err: error, reqId: request.id }, 'reseller request failed');
  const items = errorItemsOf(shown.details);
  return reply
    .status(shown.statusCode)
    .headers(shown.headers)
    .send({ type: 'error', message: shown.message, ...(items ? { errors: items } : {}) });
}

// ---- documentation pieces ---------------------------------------------------------------------

const AUTH_ERRORS = [401, 403, 429];
/** A file answer: bytes, documented as a binary string of its media type. */
const binary = (contentTypes: string | string[], description: string) => ({
  description,
  // A file, sent as a Buffer or a stream (Fastify serializes neither).
  content: Object.fromEntries(
    [contentTypes].flat().map((contentType) => [
      contentType,
      {
        schema: z
          .custom<Buffer | Readable>((v) => Buffer.isBuffer(v) || v instanceof Readable)
          .meta({ type: 'string', format: 'binary' } as Record<string, unknown>),
      },
    ]),
  ),
});

const idempotencyHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, IDEMPOTENCY_KEY_INVALID)
    .optional()
    .describe('Makes a retry safe: the same key with the same request within 24 h answers the first answer again, without a new order or charge'),
});

/** What a bulk order needs before its rows are checked one by one (by the same check as a CSV file). */
const bulkEnvelope = z.object({
  labelType: createBulkOrderBody.shape.labelType,
  design: createBulkOrderBody.shape.design,
  data: z
    .array(z.unknown(), { error: 'data must be a list of order objects' })
    .min(1, 'data must hold at least one order')
    .max(BULK_MAX_ROWS, `data may hold at most ${BULK_MAX_ROWS.toLocaleString('en-US')} orders`),
});

// ---- the plugin -------------------------------------------------------------------------------

/** The reseller API under /api/reseller/v1: its own errors, x-api-key on every call, a rate limit per key, urlencoded bodies and its OpenAPI document. */
export async function resellerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { reseller, config, limiter, counters, packages, scanForms, pickups } = ctx;
  const originOf = (request: FastifyRequest) => linkOrigin(config, request);
  /** A saved package named in the body fills its weight and dimensions before the body is checked. */
  const withSavedPackage = (request: FastifyRequest) => packages.fillFromPackage(request as FastifyRequest & { userId: string });

  await app.register(
    async (instance) => {
      instance.setErrorHandler(answerError);
      instance.setNotFoundHandler((request, reply) =>
        reply.status(404).send({ type: 'error', message: `Route ${request.method} ${request.url.split('?')[0]} not found` }),
      );
      await instance.register(formbody, { bodyLimit: config.BODY_LIMIT_BYTES });

      // Requests a minute per API key (its hash; the address without one), in the shop's counter store: shared by every
      // process through Redis when there is one. Every route counts but the document (and a path with no route).
      const max = config.RESELLER_RATE_LIMIT_PER_MINUTE;
      const perKey = counters('reseller-rate', max, 60);
      instance.addHook('onRequest', async (request, reply) => {
        if (request.is404 || (request.routeOptions.config as { publicDocument?: boolean }).publicDocument) return;
        const key = request.headers[API_KEY_HEADER];
        // A store error (Redis away, logged by its client) does not stop the API: the request goes uncounted.
        const counted = await perKey
          .consume(typeof key === 'string' && key.trim() ? `key:${sha256Hex(key.trim())}` : `ip:${request.ip}`)
          .catch((error: unknown) => (error instanceof RateLimiterRes ? error : null));
        const seconds = Math.ceil((counted?.msBeforeNext ?? 0) / 1000);
        reply.header('ratelimit-limit', max);
        reply.header('ratelimit-remaining', counted ? Math.max(0, counted.remainingPoints) : max);
        reply.header('ratelimit-reset', seconds);
        if (counted && counted.consumedPoints > max) throw tooManyRequests(seconds, RATE_LIMITED(Math.max(1, seconds)));
      });

      // Every route but the document checks the key, after the rate limit counted the request.
      const authenticate = async (request: FastifyRequest) => {
        const user = await reseller.authenticate(request.headers[API_KEY_HEADER]);
        request.userId = user.id;
      };
      instance.addHook('onRoute', (route) => {
        if ((route.config as { publicDocument?: boolean } | undefined)?.publicDocument) return;
        route.onRequest = [...(Array.isArray(route.onRequest) ? route.onRequest : route.onRequest ? [route.onRequest] : []), authenticate];
      });

      await instance.register(swagger, swaggerOptions());
      const api = instance as unknown as Api;

      api.get('/openapi.json', { schema: { hide: true }, config: { publicDocument: true } }, async (request, reply) => {
        return reply.header('cache-control', 'no-cache').send(servedDocument(instance.swagger() as Record<string, any>, originOf(request)));
      });

      api.get(
        '/labeltype/read-types',
        {
          schema: {
            operationId: 'readLabelTypes',
            tags: [RESELLER_TAGS.labelTypes],
            summary: 'List the label types',
            description: 'The label types you can order now, each with its uid, name, weight limit (pounds; ounces for ground_oz) and price tiers in dollars.',
            response: { 200: ok(labelTypesAnswer, 'The enabled label types'), ...errorResponses(...AUTH_ERRORS) },
          },
        },
        async () => ({ type: 'success' as const, message: 'Label types', labelTypes: await reseller.labelTypes() }),
      );

      api.post(
        '/order/create-order',
        {
          schema: {
            operationId: 'createOrder',
            tags: [RESELLER_TAGS.orders],
            summary: 'Create a label',
            description:
              'Buys one label, charged to your balance, by the same rules and prices as an order on the web. Send the fields as `application/x-www-form-urlencoded` or JSON. The answer holds the order; its `downloadUrl` is set once the label is made (usually at once). Send an `Idempotency-Key` to retry safely.',
            consumes: ['application/x-www-form-urlencoded', 'application/json'],
            headers: idempotencyHeaders,
            body: resellerCreateOrderBody,
            response: { 200: ok(createOrderAnswer, 'The label order, paid'), ...errorResponses(400, 401, 402, 403, 409, 413, 422, 429, 502) },
          },
          // A body that fails the schema is answered with every problem at once: its fields and the label type's rules.
          attachValidation: true,
          preValidation: withSavedPackage,
        },
        async (request, reply) => {
          const invalid = request.validationError;
          if (invalid) {
            if (invalid.validationContext !== 'body') throw invalid;
            const error = await reseller.invalidOrderBody(request.body);
            const body = (request.body ?? {}) as Record<string, unknown>;
            const date = resellerCreateOrderBody.shape.Date.safeParse(body.Date);
            const items = errorItemsOf(error.details ?? {}) ?? [];
            if (!date.success) items.push({ field: 'Date', message: date.error.issues[0].message });
            const shown = items.filter((item) => item.field !== undefined || item.message !== 'The order is not valid');
            throw new ResellerValidationError(summarize(shown.length > 0 ? shown : items), shown.length > 0 ? shown : items);
          }
          const { Date: _shipDate, ...order } = request.body;
          return sendAnswer(reply, await reseller.createOrder(request.userId, order, originOf(request), idempotencyOf(request)));
        },
      );

      api.get(
        '/order/read-orders',
        {
          schema: {
            operationId: 'readOrders',
            tags: [RESELLER_TAGS.orders],
            summary: 'List your orders',
            description:
              'Your single and bulk orders, newest first, a page at a time, with a status filter and a search over names, tracking numbers and order ids.',
            querystring: resellerOrderListQuery,
            response: { 200: ok(readOrdersAnswer, 'A page of your orders'), ...errorResponses(400, ...AUTH_ERRORS) },
          },
        },
        async (request) => {
          const { starting_after: startingAfter, ...filter } = request.query;
          const page = await reseller.listOrders(request.userId, filter, originOf(request), startingAfter);
          return { type: 'success' as const, message: 'Orders', ...page, page: request.query.page, limit: request.query.limit };
        },
      );

      api.post(
        '/order/price',
        {
          schema: {
            operationId: 'readPrice',
            tags: [RESELLER_TAGS.labelTypes],
            summary: 'Price a label',
            description:
              'What a label of this type and weight costs now, by the tier that holds the weight: the price create-order would charge. 400 names why a weight has no price.',
            consumes: ['application/json', 'application/x-www-form-urlencoded'],
            body: resellerPriceBody,
            response: { 200: ok(priceAnswer, 'The price in dollars'), ...errorResponses(400, ...AUTH_ERRORS) },
          },
        },
        async (request) => ({ type: 'success' as const, message: 'Price', ...(await reseller.price(request.body.labelType, request.body.weight)) }),
      );

      api.post(
        '/order/rates',
        {
          schema: {
            operationId: 'readRates',
            tags: [RESELLER_TAGS.labelTypes],
            summary: 'Compare rates for a package',
            description:
              "Every enabled label type for one package: our price, carrier and service, estimated business days and delivery date (counted from the ship date), or why the type cannot take it (weight, size, route, or not available right now). The answer is a quote: create-order with its `quoteId` buys at exactly these prices for 15 minutes. `cheapest` and `fastest` name what create-order's `strategy` would choose.",
            consumes: ['application/json', 'application/x-www-form-urlencoded'],
            body: resellerRatesBody,
            response: { 200: ok(ratesAnswer, 'The rates, kept as a quote'), ...errorResponses(400, ...AUTH_ERRORS) },
          },
          preValidation: withSavedPackage,
        },
        async (request) => ({ type: 'success' as const, message: 'Rates', ...(await ctx.rates.rates(request.userId, request.body)) }),
      );

      api.get(
        '/account/balance',
        {
          schema: {
            operationId: 'readBalance',
            tags: [RESELLER_TAGS.authentication],
            summary: 'Read your balance',
            description: 'Your prepaid balance in dollars, what orders are charged to. Top it up with a deposit on the web.',
            response: { 200: ok(balanceAnswer, 'Your balance'), ...errorResponses(...AUTH_ERRORS) },
          },
        },
        async (request) => ({ type: 'success' as const, message: 'Balance', balance: await reseller.balance(request.userId) }),
      );

      const webhookAnswer = ({ message, url, hasSecret, secret, events }: Awaited<ReturnType<typeof reseller.webhooks.settings>>) => ({
        type: 'success' as const,
        message,
        url,
        hasSecret,
        ...(secret ? { secret } : {}),
        events,
      });

      api.get(
        '/account/webhook',
        {
          schema: {
            operationId: 'readWebhook',
            tags: [RESELLER_TAGS.authentication],
            summary: 'Read your webhook',
            description: 'The URL order and bulk order events are posted to (null when none), and whether a signing secret exists.',
            response: { 200: ok(resellerWebhookAnswer, 'Your webhook'), ...errorResponses(...AUTH_ERRORS) },
          },
        },
        async (request) => webhookAnswer(await reseller.webhooks.settings(request.userId)),
      );

      api.put(
        '/account/webhook',
        {
          schema: {
            operationId: 'saveWebhook',
            tags: [RESELLER_TAGS.authentication],
            summary: 'Set your webhook',
            description:
              'Sets the URL events are posted to (null stops them), as Account Setting does. The first URL set creates the signing secret, answered in `secret` this once; keep it to verify the signature.',
            body: resellerWebhookBody,
            response: { 200: ok(resellerWebhookAnswer, 'Your webhook, saved'), ...errorResponses(400, ...AUTH_ERRORS) },
          },
        },
        async (request) => {
          // The same count as Account Setting's save (account-routes.ts): one budget per account, wherever it saves from.
          await limiter.hit(`account:webhook:${request.userId}`);
          return webhookAnswer(await reseller.webhooks.save(request.userId, request.body.url));
        },
      );

      // Saved packages: the same service and rules as the web's Packages page; an id of another customer's is 404.
      api.get(
        '/packages',
        {
          schema: {
            operationId: 'readPackages',
            tags: [RESELLER_TAGS.packages],
            summary: 'List your saved packages',
            description: 'Your saved packages (named weights and sizes, also kept on the Packages page), by name.',
            response: { 200: ok(resellerPackagesAnswer, 'Your packages'), ...errorResponses(...AUTH_ERRORS) },
          },
        },
        async (request) => ({ type: 'success' as const, message: 'Packages', packages: await packages.list(request.userId) }),
      );

      api.post(
        '/packages',
        {
          schema: {
            operationId: 'createPackage',
            tags: [RESELLER_TAGS.packages],
            summary: 'Save a package',
            description:
              'Saves a named weight (lb or oz) with its length, width and height in inches (all three or none). 409 when you have a package of this name already (names are compared without regard to case); 400 past 100 packages.',
            consumes: ['application/json', 'application/x-www-form-urlencoded'],
            body: resellerPackageBody,
            response: { 200: ok(resellerPackageAnswer, 'The package, saved'), ...errorResponses(400, 409, ...AUTH_ERRORS) },
          },
        },
        async (request) => ({ type: 'success' as const, message: PACKAGE_CREATED, package: await packages.create(request.userId, request.body) }),
      );

      api.put(
        '/packages/:package_id',
        {
          schema: {
            operationId: 'updatePackage',
            tags: [RESELLER_TAGS.packages],
            summary: 'Change a saved package',
            description:
              'Replaces your package with the fields sent: dimensions not sent are removed, a weightUnit not sent is lb. 404 for an id that is not one of yours; 409 when another of your packages has the new name.',
            consumes: ['application/json', 'application/x-www-form-urlencoded'],
            params: packageIdParams,
            body: resellerPackageBody,
            response: { 200: ok(resellerPackageAnswer, 'The package, changed'), ...errorResponses(400, 404, 409, ...AUTH_ERRORS) },
          },
        },
        async (request) => ({
          type: 'success' as const,
          message: PACKAGE_UPDATED,
          package: await packages.update(request.userId, request.params.package_id, request.body),
        }),
      );

      api.delete(
        '/packages/:package_id',
        {
          schema: {
            operationId: 'deletePackage',
            tags: [RESELLER_TAGS.packages],
            summary: 'Delete a saved package',
            description: 'Deletes your package. Orders made with it keep their weight and size. 404 for an id that is not one of yours.',
            params: packageIdParams,
            response: { 200: ok(resellerPackageDeletedAnswer, 'The package, deleted'), ...errorResponses(404, ...AUTH_ERRORS) },
          },
        },
        async (request) => {
          await packages.remove(request.userId, request.params.package_id);
          return { type: 'success' as const, message: PACKAGE_DELETED };
        },
      );

      api.get(
        '/order/download/:order_id',
        {
          schema: {
            operationId: 'downloadLabel',
            tags: [RESELLER_TAGS.orders],
            summary: 'Download a label',
            description:
              'The label of your completed order in the chosen format (`format`, else the one chosen in Account Setting): a 4 x 6 inch PDF or a Letter PDF as `{tracking}.pdf`, ZPL as `{tracking}.zpl`. 409 while it is being made or when the order was cancelled.',
            params: orderIdParams,
            querystring: resellerLabelFormatQuery,
            response: {
              200: binary(['application/pdf', 'application/zpl'], 'The label file: PDF, or ZPL with format=zpl'),
              ...errorResponses(400, 404, 409, ...AUTH_ERRORS),
            },
          },
        },
        async (request, reply) => {
          const file = await reseller.labelFile(request.userId, request.params.order_id, request.query.format);
          return reply
            .type(file.contentType)
            .header('content-disposition', `attachment; filename="${file.fileName}"`)
            .header('cache-control', 'private, no-store')
            .send(Buffer.from(file.data));
        },
      );

      api.post(
        '/order/return-order/:order_id',
        {
          schema: {
            operationId: 'returnOrder',
            tags: [RESELLER_TAGS.orders],
            summary: 'Create a return label',
            description:
              "Buys a return label of your completed order: the same label type, parcel and references, from its receiver back to its sender, charged to your balance like any label of its type. The two are linked: the return's `returnOf` names the order, the order's `returnId` its return. One return an order (409 for a second, charging nothing); 422 for a return label or a refunded one. Send an `Idempotency-Key` to retry safely.",
            headers: idempotencyHeaders,
            params: orderIdParams,
            response: { 200: ok(createOrderAnswer, 'The return label order, paid'), ...errorResponses(402, 404, 409, 422, 502, ...AUTH_ERRORS) },
          },
        },
        async (request, reply) =>
          sendAnswer(reply, await reseller.createReturn(request.userId, request.params.order_id, originOf(request), idempotencyOf(request))),
      );

      api.post(
        '/order/refund-order/:order_id',
        {
          schema: {
            operationId: 'refundOrder',
            tags: [RESELLER_TAGS.orders],
            summary: 'Refund (void) a label',
            description:
              "Asks for the refund of your completed, unused label: `refundStatus` becomes `requested`, then `refunded` (its price credited to your balance once, a `label_refund` row on your statement; event `order.refunded`) or `rejected` with `refundNote` (event `order.refund_rejected`). USPS labels can be refunded within the shop's window (28 days by default) while unscanned; UPS and FedEx until the carrier scans them. 422 with the reason outside the window; 409 when a refund was asked already or the order is not completed. A label with a refund asked or made can no longer be downloaded.",
            params: orderIdParams,
            response: { 200: ok(resellerRefundAnswer, 'The refund asked'), ...errorResponses(404, 409, 422, ...AUTH_ERRORS) },
          },
        },
        async (request) => {
          const refund = await reseller.refunds.request(request.userId, request.params.order_id);
          return { type: 'success' as const, message: refund.message, refund };
        },
      );

      api.post(
        '/order/refund-orders',
        {
          schema: {
            operationId: 'refundOrders',
            tags: [RESELLER_TAGS.orders],
            summary: 'Refund (void) several labels',
            description:
              'The list form of refund-order: each order id is answered on its own in `results` (ok, or the reason it cannot be refunded), in the order sent; one that fails does not stop the others.',
            body: resellerRefundsBody,
            response: { 200: ok(resellerRefundsAnswer, 'One result per order'), ...errorResponses(400, ...AUTH_ERRORS) },
          },
        },
        async (request) => {
          const results = await reseller.refunds.requestMany(request.userId, request.body.order_ids);
          return { type: 'success' as const, message: `${results.filter((r) => r.ok).length} of ${results.length} refunds requested`, results };
        },
      );

      api.post(
        '/scan-form',
        {
          bodyLimit: SCAN_FORM_IDS_MAX * 70 + 1024,
          schema: {
            operationId: 'createScanForm',
            tags: [RESELLER_TAGS.scanForms],
            summary: 'Make SCAN forms for your labels',
            description: `Puts completed labels (by \`order_ids\`, or a bulk order's by \`bulk_order_id\`) on SCAN forms (USPS Form 5630, a carrier's manifest): one barcode the carrier scans for all of them. The labels are grouped as the carrier takes them on one form (one from address, carrier and ship date; shipping today or later; not refunded; each label on one form), and one form is made a group (at most ${SCAN_FORM_MAX_LABELS.toLocaleString('en-US')} labels). Each form starts \`creating\`; follow it with read-scan-form or the \`scan_form.created\` webhook. \`refused\` names each label that could not go on a form, and why; 422 when none could. A label on a form can no longer be refunded through the shop.`,
            body: resellerScanFormBody,
            response: { 200: ok(resellerScanFormsAnswer, 'The forms asked'), ...errorResponses(400, 404, 422, ...AUTH_ERRORS) },
          },
        },
        async (request) => {
          const body = request.body;
          const result = await scanForms.request(request.userId, body.order_ids ? { orderIds: body.order_ids } : { bulkOrderId: body.bulk_order_id! });
          const forms = await Promise.all(result.forms.map((f) => scanForms.resellerView(request.userId, f._id, originOf(request))));
          return {
            type: 'success' as const,
            message: result.message,
            forms: forms.filter((f) => f !== null),
            refused: result.refused.map((r) => ({ order_id: r.orderId, reason: r.reason })),
          };
        },
      );

      api.get(
        '/scan-form/:scan_form_id',
        {
          schema: {
            operationId: 'readScanForm',
            tags: [RESELLER_TAGS.scanForms],
            summary: 'Follow a SCAN form',
            description:
              "Your SCAN form: `creating`, then `created` with `pdf_url`, or `failed` with the carrier's `message` (its labels are then free to refund or put on another form).",
            params: scanFormIdParams,
            response: { 200: ok(resellerScanFormAnswer, 'The form'), ...errorResponses(404, ...AUTH_ERRORS) },
          },
        },
        async (request) => {
          const form = await scanForms.resellerView(request.userId, request.params.scan_form_id, originOf(request));
          if (!form) throw notFound(SCAN_FORM_NOT_FOUND);
          return { type: 'success' as const, message: 'SCAN form', form };
        },
      );

      api.get(
        '/scan-form/:scan_form_id/pdf',
        {
          schema: {
            operationId: 'downloadScanForm',
            tags: [RESELLER_TAGS.scanForms],
            summary: 'Download a SCAN form',
            description: 'The PDF of your created SCAN form, to print and hand to the carrier with the parcels. 409 until it is created.',
            params: scanFormIdParams,
            response: { 200: binary('application/pdf', 'The form PDF'), ...errorResponses(404, 409, ...AUTH_ERRORS) },
          },
        },
        async (request, reply) => {
          const file = await scanForms.pdf(request.userId, request.params.scan_form_id);
          return reply
            .type('application/pdf')
            .header('content-disposition', `attachment; filename="${file.fileName}"`)
            .header('cache-control', 'private, no-store')
            .send(file.data);
        },
      );

      api.post(
        '/pickup/rates',
        {
          bodyLimit: SCAN_FORM_IDS_MAX * 70 + 1024,
          schema: {
            operationId: 'ratePickup',
            tags: [RESELLER_TAGS.pickups],
            summary: 'Ask for pickup rates',
            description:
              "The carrier's pickup offers for your completed labels (one carrier and one from address) in a window that starts in the future, within 7 days, and lasts at most a day (USPS: on its next business day, Monday to Saturday but federal holidays, in the shop's time zone): a `rated` pickup with each service and its fee. Nothing is charged. 422 with the reason for labels of several carriers or addresses, or a window out of bounds.",
            body: resellerPickupRatesBody,
            response: { 200: ok(resellerPickupAnswer, 'The rated pickup'), ...errorResponses(400, 422, ...AUTH_ERRORS) },
          },
        },
        async (request) => ({ type: 'success' as const, ...(await pickups.rates(request.userId, request.body)) }),
      );

      api.post(
        '/pickup',
        {
          schema: {
            operationId: 'bookPickup',
            tags: [RESELLER_TAGS.pickups],
            summary: 'Book a pickup',
            description:
              "Books one service of a rated pickup: its fee is charged to your balance once (a `pickup_fee` row), then the carrier is asked. `status` is `booked` with the carrier's `confirmation`, `booking` while the carrier is slow (event `pickup.booked` when it confirms), or `failed` with `message` (the fee refunded). 409 when it was booked already; 402 when the balance is too low.",
            body: resellerPickupBuyBody,
            response: { 200: ok(resellerPickupAnswer, 'The pickup'), ...errorResponses(400, 402, 404, 409, 422, ...AUTH_ERRORS) },
          },
        },
        async (request) => ({ type: 'success' as const, ...(await pickups.buy(request.userId, request.body)) }),
      );

      api.post(
        '/pickup/:pickup_id/cancel',
        {
          schema: {
            operationId: 'cancelPickup',
            tags: [RESELLER_TAGS.pickups],
            summary: 'Cancel a pickup',
            description:
              'Cancels a booked pickup before its window starts: its fee is refunded once (a `pickup_refund` row, event `pickup.cancelled`). 409 once the window started or when it is not booked; 422 with the reason when the carrier refuses.',
            params: pickupIdParams,
            response: { 200: ok(resellerPickupAnswer, 'The pickup'), ...errorResponses(404, 409, 422, ...AUTH_ERRORS) },
          },
        },
        async (request) => ({ type: 'success' as const, ...(await pickups.cancel(request.userId, request.params.pickup_id)) }),
      );

      api.post(
        '/order/create-bulk-order',
        {
          // Up to 5,000 rows: a larger body than other calls, bounded by the rows' field lengths.
          bodyLimit: BULK_BODY_MAX_BYTES,
          // The rows are checked by the bulk order's own row check, which names every bad row and field at once.
          attachValidation: true,
          schema: {
            operationId: 'createBulkOrder',
            tags: [RESELLER_TAGS.bulkOrders],
            summary: 'Create a bulk order',
            description:
              'Buys one label a row of `data`, all of one label type, with one charge of the total. Every row is checked first by the same rules as a CSV order: a bad row refuses the whole order with every bad row and field in `errors`, and nothing is charged. The labels are made by a background job: follow it with bulk-job-status, then download the ZIP. Send an `Idempotency-Key` to retry safely.',
            headers: idempotencyHeaders,
            body: createBulkOrderBody,
            response: { 200: ok(createBulkOrderAnswer, 'The bulk order, paid and queued'), ...errorResponses(400, 401, 402, 403, 409, 413, 422, 429) },
          },
        },
        async (request, reply) => {
          const envelope = bulkEnvelope.safeParse(request.body);
          if (!envelope.success) {
            const items = envelope.error.issues.map((issue) => ({ ...(issue.path.length ? { field: issue.path.join('.') } : {}), message: issue.message }));
            throw new ResellerValidationError(summarize(items), items);
          }
          const { labelType, design, data } = envelope.data;
          const notObjects = data.flatMap((row, i) =>
            row && typeof row === 'object' && !Array.isArray(row) ? [] : [{ row: i + 1, message: `Row ${i + 1} must be an order object` }],
          );
          if (notObjects.length > 0) throw new ResellerValidationError(summarize(notObjects), notObjects);
          const rows = data as Record<string, unknown>[];
          return sendAnswer(reply, await reseller.createBulkOrder(request.userId, { labelType, design, rows }, idempotencyOf(request)));
        },
      );

      api.get(
        '/order/bulk-job-status/:job_id',
        {
          schema: {
            operationId: 'readBulkJobStatus',
            tags: [RESELLER_TAGS.bulkOrders],
            summary: 'Follow a bulk order',
            description: `The job of your bulk order: its state (waiting, active, completed, failed), progress in percent by the stages 0-80 labels, 85 CSV report, 90 merged PDF, 95 ZIP, 98 database update, 100 done, the labels made and failed, and the ZIP's URL once completed. Poll every 15 to 30 seconds.`,
            params: jobIdParams,
            response: { 200: ok(bulkJobStatusAnswer, 'The job and its progress'), ...errorResponses(404, ...AUTH_ERRORS) },
          },
        },
        async (request) => reseller.bulkJobStatus(request.userId, request.params.job_id, originOf(request)),
      );

      api.get(
        '/order/bulk-queue-stats',
        {
          schema: {
            operationId: 'readQueueStats',
            tags: [RESELLER_TAGS.queue],
            summary: 'Count the queued jobs',
            description: "How many jobs of the shop's background queue wait, run, completed, failed or wait for a retry (delayed).",
            response: { 200: ok(queueStatsAnswer, 'Jobs by state'), ...errorResponses(...AUTH_ERRORS) },
          },
        },
        async () => ({ type: 'success' as const, message: 'Queue stats', ...(await reseller.queueStats()) }),
      );

      api.get(
        '/order/download-bulk-order/:bulkorder_id',
        {
          schema: {
            operationId: 'downloadBulkOrder',
            tags: [RESELLER_TAGS.bulkOrders],
            summary: 'Download a bulk order',
            description:
              'The ZIP of your completed bulk order: every label as `{tracking}.pdf` (or `{tracking}.zpl` with format=zpl; with pdf-letter, each on a Letter page) and `label.csv` (every row with its tracking number, price, status and message). 409 until it is completed.',
            params: bulkOrderIdParams,
            querystring: resellerLabelFormatQuery,
            response: { 200: binary('application/zip', 'The ZIP file'), ...errorResponses(400, 404, 409, ...AUTH_ERRORS) },
          },
        },
        async (request, reply) => {
          const file = await reseller.bulkZip(request.userId, request.params.bulkorder_id, request.query.format);
          if ('signedUrl' in file) return reply.header('cache-control', 'private, no-store').redirect(file.signedUrl, 302);
          return reply
            .type(file.contentType)
            .header('content-disposition', `attachment; filename="${file.fileName}"`)
            .header('cache-control', 'private, no-store')
            .send(file.data);
        },
      );
    },
    { prefix: RESELLER_API_PREFIX },
  );
}
