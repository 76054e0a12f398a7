import type { SwaggerOptions } from '@fastify/swagger';
import type { z } from 'zod';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import {
  BULK_MAX_ROWS,
  DASHBOARD_PAGE_SIZE,
  ORDER_LIST_MAX_LIMIT,
  BULK_POLL_ADVICE,
  IDEMPOTENCY_KEY_TTL_HOURS,
  RESELLER_API_PREFIX,
  RESELLER_TAGS,
  WEBHOOK_DELIVERY_HEADER,
  createBulkOrderBody,
  resellerCreateOrderBody,
  resellerError,
  resellerPackageBody,
  resellerPriceBody,
  resellerRatesBody,
  resellerRefundsBody,
  resellerWebhookBody,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_SIGNATURE_HEADER,
  type WebhookEventType,
} from '@portal/contract';

/**
 * The reseller API's OpenAPI 3.1 document: @fastify/swagger collects the reseller routes (it is
 * registered in their scope only), fastify-type-provider-zod turns the routes' own zod schemas into
 * JSON Schema, and finishDocument adds what routes do not carry (webhooks, examples on the media,
 * only the components the document uses).
 */

type Json = Record<string, any>;

/**
 * zodToJsonConfig.override: the library's default (empty anyOf branches dropped, dates as date-time
 * strings), and an object's `required` is exactly the fields that do not accept undefined (zod marks
 * a preprocessed field by what its preprocessing accepts: a query parameter with a default would be
 * required, a number sent as text optional). The reseller schemas have no defaults in answers.
 */
function override(ctx: { zodSchema: any; jsonSchema: Json }): void {
  const { zodSchema, jsonSchema } = ctx;
  const type = zodSchema?._zod?.def?.type;
  if (type === 'union' && Array.isArray(jsonSchema.anyOf)) jsonSchema.anyOf = jsonSchema.anyOf.filter((branch: Json) => Object.keys(branch).length > 0);
  if (type === 'date') Object.assign(jsonSchema, { type: 'string', format: 'date-time' });
  if (type === 'object' && jsonSchema.properties) {
    const shape: Record<string, { safeParse(v: unknown): { success: boolean } }> = zodSchema._zod.def.shape;
    const required = Object.keys(jsonSchema.properties).filter((key) => shape[key] && !shape[key].safeParse(undefined).success);
    if (required.length > 0) jsonSchema.required = required;
    else delete jsonSchema.required;
  }
}
const zodToJsonConfig = { override } as Parameters<typeof createJsonSchemaTransform>[0]['zodToJsonConfig'];

const API_DESCRIPTION = `Buy shipping labels from your prepaid balance with your own program.

**Base URL** \`{origin}${RESELLER_API_PREFIX}\` (the shop's address). **Authentication**: send your API key (Account Setting) in the \`x-api-key\` header of every call.

Every answer is JSON with \`type\`: \`success\` (with a \`message\`) or \`error\` (with a \`message\` and, for a request that did not validate, \`errors\`), except the two downloads, which answer the file. Money is in dollars with two decimals; your balance is charged when an order is accepted, and a label that cannot be made is refunded.`;

const TAG_DESCRIPTIONS: Record<string, string> = {
  [RESELLER_TAGS.authentication]: `Every call carries your API key in the \`x-api-key\` header. Find it on Account Setting; regenerating it there revokes the old key at once. A missing or wrong key answers **401**; the key of a disabled account answers **403**. Keep the key secret: it spends your balance. This document itself (\`GET ${RESELLER_API_PREFIX}/openapi.json\`) needs no key.`,
  [RESELLER_TAGS.labelTypes]:
    'The label types you can buy, with their weight limit and price tiers. Name a type by its `uid` (for example `priority`) or its `_id`.',
  [RESELLER_TAGS.orders]:
    'Single labels, made by the same rules and prices as an order on the web. A label is usually ready in the answer (`status: completed` with a `downloadUrl`); one still `processing` completes later: list your orders or use a webhook (`order.completed`, `order.cancelled`).',
  [RESELLER_TAGS.bulkOrders]: `Up to ${BULK_MAX_ROWS.toLocaleString('en-US')} labels of one type in one call, checked row by row like a CSV order (every bad row and field is named, and nothing is charged), paid with one charge and made by a background job. Follow the job with bulk-job-status (${BULK_POLL_ADVICE}) or the \`bulk.completed\` webhook, then download the ZIP: every label as \`{tracking}.pdf\` plus \`label.csv\` (every row with its tracking number, price and status).`,
  [RESELLER_TAGS.packages]:
    'Named weights and sizes you keep, the same as on the Packages page: at most 100, each name unique without regard to case, a weight of at most 150 lb (2400 oz), and a length, width and height in inches (each at most 200) or none.',
  [RESELLER_TAGS.scanForms]:
    "End of day: put a day's labels of one from address on a SCAN form (USPS Form 5630, a carrier's manifest), one barcode the carrier scans for all of them. Follow the form with read-scan-form or the `scan_form.created` webhook, then print its PDF. A label on a form is no longer refunded through the shop.",
  [RESELLER_TAGS.pickups]:
    'Carrier pickups of labels of one carrier and one from address: ask for the rates of a window (`POST /pickup/rates`), book one (its fee charged to your balance once, a `pickup_fee` row), cancel it before the window (the fee refunded once). USPS picks up for free.',
  [RESELLER_TAGS.queue]: "The shop's job queue: how many background jobs (bulk orders, webhook deliveries) wait, run, finished or failed.",
  [RESELLER_TAGS.errors]: `**Errors** are \`{"type": "error", "message": "...", "errors": [{"field": "ToZip", "row": 3, "message": "..."}]}\` with the status: 400 (the request is not valid: every bad field, and row of a bulk order, is listed in \`errors\`), 401 (no or wrong API key), 402 (balance too low; nothing is charged), 403 (account disabled), 404 (not found, or not yours), 409 (not ready yet, an Idempotency-Key still running, or a saved package's name already taken), 422 (an Idempotency-Key reused with another request), 429 (rate limit), 502 (the carrier refused the label; it is refunded).

**Idempotency**: send an \`Idempotency-Key\` header (1 to 255 visible ASCII characters, for example a UUID) with create-order and create-bulk-order to retry them safely. For ${IDEMPOTENCY_KEY_TTL_HOURS} hours the same key with the same request answers the first answer again (with the header \`Idempotent-Replayed: true\`), without a new order or charge; with another request it answers 422; while the first request still runs, 409. A request refused before anything was charged (400, 402, ...) frees its key.

**Rate limit**: each API key may make a number of requests a minute (120 unless the shop set another). Every answer carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` (seconds); past the limit the answer is 429 with \`Retry-After\` (seconds).

**Webhooks**: set a URL on Account Setting to be told of \`order.completed\`, \`order.cancelled\`, \`order.tracking\`, \`order.refunded\`, \`order.refund_rejected\` and \`bulk.completed\` (see \`webhooks\` in this document). Each POST is signed: \`${WEBHOOK_SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex>\` where v1 is the HMAC-SHA256 of \`<t>.<raw body>\` with your webhook secret. Answer 2xx within 10 s; other answers are retried with growing delays, ${WEBHOOK_MAX_ATTEMPTS} tries over about a day.`,
};

const LICENSE_NAME = "Proprietary: use under the shop's Terms of Service";

/** @fastify/swagger's options for the reseller scope. */
export function swaggerOptions(): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      // The served document adds the license's url (this shop's Terms of Service).
      info: { title: 'Label Portal Reseller API', version: '1.0.0', description: API_DESCRIPTION, license: { name: LICENSE_NAME } },
      servers: [{ url: RESELLER_API_PREFIX, description: 'This shop (the served document names its full address)' }],
      tags: Object.values(RESELLER_TAGS).map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Your API key, from Account Setting' },
        },
      },
      security: [{ apiKey: [] }],
    },
    transform: createJsonSchemaTransform({ zodToJsonConfig }),
    transformObject: (input) => finishDocument(createJsonSchemaTransformObject({ zodToJsonConfig })(input) as Json),
  };
}

// ---- answers and errors of the routes ----

/** A route's 200 answer, described. */
export const ok = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });

const ERROR_DOCS: Record<number, { description: string; example: Record<string, unknown> }> = {
  400: {
    description: 'The request is not valid: `errors` names every bad field (and row)',
    example: {
      type: 'error',
      message: '2 fields are not valid: To ZIP must be a US ZIP code like 12345 or 12345-6789; Weight is required',
      errors: [
        { row: 3, field: 'ToZip', message: 'To ZIP must be a US ZIP code like 12345 or 12345-6789' },
        { row: 7, field: 'Weight', message: 'Weight is required' },
      ],
    },
  },
  401: { description: 'No API key, or a wrong one', example: { type: 'error', message: 'Invalid API key' } },
  402: { description: 'The balance does not cover the price; nothing was charged', example: { type: 'error', message: 'Insufficient balance' } },
  403: { description: 'The account is disabled', example: { type: 'error', message: 'This account is disabled; contact the shop for help' } },
  404: { description: 'Not found, or not yours', example: { type: 'error', message: 'Order not found' } },
  409: {
    description: 'Not ready yet, a refund already asked or decided, a request with this Idempotency-Key still running, or a package of this name already saved',
    example: { type: 'error', message: 'The label is not ready yet' },
  },
  422: {
    description:
      'This Idempotency-Key was used with another request, or the label is past its refund window (scanned by the carrier, or a USPS label older than the window)',
    example: { type: 'error', message: 'This Idempotency-Key was already used with a different request' },
  },
  413: {
    description: 'The body is larger than this call takes: 64 KiB, or for create-bulk-order its 5,000 rows with every field at its longest (about 12.8 MiB)',
    example: { type: 'error', message: 'Request body is too large' },
  },
  429: { description: 'Rate limit reached: retry after `Retry-After` seconds', example: { type: 'error', message: 'Too many requests, retry in 42 s' } },
  502: {
    description: 'The carrier refused the label: the order is cancelled and refunded',
    example: {
      type: 'error',
      message: 'The label could not be created: address not deliverable. The order was cancelled and its price refunded to your balance.',
    },
  },
};

/** Error answers of a route: { type: 'error', message, errors? } (their examples are added to the document by finishDocument). */
export const errorResponses = (...codes: number[]) => Object.fromEntries(codes.map((code) => [code, ok(resellerError, ERROR_DOCS[code].description)]));

/** Request examples of every body, by component name, from the body schemas' own metadata (zod leaves examples out of input schemas). */
const REQUEST_EXAMPLES: Record<string, unknown> = Object.fromEntries(
  (
    [
      resellerCreateOrderBody,
      createBulkOrderBody,
      resellerPackageBody,
      resellerPriceBody,
      resellerRatesBody,
      resellerRefundsBody,
      resellerWebhookBody,
    ] as z.ZodType[]
  ).flatMap((body) => {
    const meta = body.meta() as { id?: string; examples?: unknown[] } | undefined;
    // The component of an input schema is named after its id, with Input added where its output differs.
    return meta?.id ? [meta.id, `${meta.id}Input`].map((name) => [name, meta.examples?.[0]]) : [];
  }),
);

const WEBHOOKS: Record<WebhookEventType, { tag: string; summary: string; description: string; data: string }> = {
  'order.completed': {
    tag: RESELLER_TAGS.orders,
    summary: 'A label is ready',
    description: 'A single order completed: `data.order` holds it with its tracking number and download URL.',
    data: 'order',
  },
  'order.cancelled': {
    tag: RESELLER_TAGS.orders,
    summary: 'An order was cancelled and refunded',
    description: 'The carrier refused a single order: it is cancelled, its price refunded, and `data.order.note` says why.',
    data: 'order',
  },
  'order.tracking': {
    tag: RESELLER_TAGS.orders,
    summary: 'A label moved (tracking)',
    description:
      'The carrier scanned a label (single or bulk): `data.order.trackingStatus` is where the parcel is now (pre_transit, in_transit, out_for_delivery, delivered, return_to_sender, failure...). One event a status and label; `id` names both.',
    data: 'order',
  },
  'order.refunded': {
    tag: RESELLER_TAGS.orders,
    summary: 'A label was refunded',
    description:
      'A refund you asked for (refund-order) was approved: its price is back on your balance, `data.order.refundStatus` is `refunded`, and the label can no longer be downloaded.',
    data: 'order',
  },
  'order.refund_rejected': {
    tag: RESELLER_TAGS.orders,
    summary: 'A label refund was rejected',
    description:
      'A refund you asked for was rejected (the carrier scanned the label, or refused the void): `data.order.refundStatus` is `rejected` and `data.order.refundNote` says why. Nothing is credited.',
    data: 'order',
  },
  'bulk.completed': {
    tag: RESELLER_TAGS.bulkOrders,
    summary: 'A bulk order is done',
    description: 'Every row of a bulk order was made or failed (failed rows are refunded): `data.bulkOrder` holds the counts and the ZIP download URL.',
    data: 'bulkOrder',
  },
  'scan_form.created': {
    tag: RESELLER_TAGS.scanForms,
    summary: 'A SCAN form is ready',
    description: 'A SCAN form you asked for was made by the carrier: `data.scanForm` holds its orders, tracking codes and the PDF URL to print and hand over.',
    data: 'scanForm',
  },
  'pickup.booked': {
    tag: RESELLER_TAGS.pickups,
    summary: 'A carrier pickup is booked',
    description: "A pickup you booked was confirmed by the carrier: `data.pickup` holds its window, fee and the carrier's confirmation number.",
    data: 'pickup',
  },
  'pickup.cancelled': {
    tag: RESELLER_TAGS.pickups,
    summary: 'A carrier pickup is cancelled',
    description:
      'A pickup you cancelled before its window was cancelled by the carrier, and its fee refunded to your balance (a `pickup_refund` row on your statement): `data.pickup`.',
    data: 'pickup',
  },
};

/** 'order.completed' -> 'onOrderCompleted': the operationId of the webhook a client implements. */
const webhookOperationId = (event: string) =>
  `on${event
    .split(/[._]/)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('')}`;

function webhookOperations(): Json {
  const operations: Json = {};
  for (const [event, doc] of Object.entries(WEBHOOKS)) {
    operations[event] = {
      post: {
        operationId: webhookOperationId(event),
        summary: doc.summary,
        description: `${doc.description} The JSON body is signed: verify \`${WEBHOOK_SIGNATURE_HEADER}\` (HMAC-SHA256 of \`<t>.<raw body>\` with your webhook secret, compared in constant time; refuse a \`t\` older than 5 minutes) before trusting it, and deduplicate on \`id\`.`,
        tags: [doc.tag],
        parameters: [
          {
            name: WEBHOOK_SIGNATURE_HEADER,
            in: 'header',
            required: true,
            schema: { type: 'string' },
            example: 't=1795430400,v1=5f2b…',
            description: '`t=<unix seconds>,v1=<hex HMAC-SHA256>`',
          },
          { name: WEBHOOK_EVENT_HEADER, in: 'header', required: true, schema: { type: 'string', enum: [event] } },
          { name: WEBHOOK_DELIVERY_HEADER, in: 'header', required: true, schema: { type: 'string' }, description: 'The delivery id (the same on every retry)' },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/ResellerWebhookEvent' } } } },
        responses: {
          '2XX': { description: 'Received. Any other answer (or none within 10 s) is retried.' },
        },
        security: [],
      },
    };
  }
  return operations;
}

/** Every `#/components/schemas/X` a value refers to. */
function refsIn(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/')) found.add(child.slice('#/components/schemas/'.length));
      else refsIn(child, found);
    }
  }
}

const componentOf = (media: Json) => (typeof media.schema?.$ref === 'string' ? media.schema.$ref.replace('#/components/schemas/', '') : undefined);

/** Every JSON media object gets an `example`: its schema's (or its component's) first one, the request body's, or the error's of its status. */
function addExamples(operation: Json, schemas: Json): void {
  for (const media of Object.values<Json>(operation.requestBody?.content ?? {})) {
    const example = REQUEST_EXAMPLES[componentOf(media) ?? ''];
    if (example !== undefined && media.example === undefined) media.example = example;
  }
  for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
    for (const media of Object.values<Json>(response.content ?? {})) {
      const examples = media.schema?.examples ?? schemas[componentOf(media) ?? '']?.examples;
      if (Array.isArray(examples) && examples.length > 0 && media.example === undefined) {
        media.example = examples[0];
        if (media.schema.examples) delete media.schema.examples;
      }
      if (componentOf(media) === 'ResellerError' && ERROR_DOCS[Number(status)]) media.example = ERROR_DOCS[Number(status)].example;
    }
  }
}

/** The headers answers carry: the rate limit's on every answer, Retry-After on a 429, Idempotent-Replayed on a replayed create. */
const HEADERS: Json = {
  'RateLimit-Limit': { description: 'Requests this API key may make a minute', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current minute', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the current minute ends', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
  'Idempotent-Replayed': {
    description: 'true when this is the first answer to the same Idempotency-Key, answered again',
    schema: { type: 'string', enum: ['true'] },
  },
};
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

function addHeaders(operation: Json): void {
  const idempotent = (operation.parameters ?? []).some((p: Json) => p.in === 'header' && p.name === 'idempotency-key');
  for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
    const names = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
    if (status === '429') names.push('Retry-After');
    if (idempotent && status.startsWith('2')) names.push('Idempotent-Replayed');
    response.headers = Object.fromEntries(names.map((name) => [name, headerRef(name)]));
  }
}

/** Page sizes above the maximum are read as the maximum; the document says so. */
function addLimits(operation: Json): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in === 'query' && parameter.name === 'limit')
      Object.assign(parameter.schema, { minimum: 1, maximum: ORDER_LIST_MAX_LIMIT, default: DASHBOARD_PAGE_SIZE });
  }
}

/** Webhooks, examples and headers on the answers, and only the components the paths and webhooks use (zod's registry is the whole process's). */
export function finishDocument(document: Json): Json {
  document.webhooks = webhookOperations();
  document.components.headers = HEADERS;
  const schemas: Json = document.components?.schemas ?? {};
  for (const path of Object.values<Json>(document.paths ?? {})) {
    for (const operation of Object.values<Json>(path)) {
      addExamples(operation, schemas);
      addHeaders(operation);
      addLimits(operation);
    }
  }
  const used = new Set<string>();
  refsIn({ paths: document.paths, webhooks: document.webhooks }, used);
  for (let grown = true; grown;) {
    const before = used.size;
    for (const name of [...used]) refsIn(schemas[name], used);
    grown = used.size > before;
  }
  document.components.schemas = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  return document;
}

/** The document as served: its server is this shop's full base URL. */
export function servedDocument(document: Json, origin: string): Json {
  return {
    ...document,
    info: { ...document.info, license: { ...document.info?.license, url: `${origin}/tos` } },
    servers: [{ url: `${origin}${RESELLER_API_PREFIX}`, description: 'This shop' }],
  };
}
