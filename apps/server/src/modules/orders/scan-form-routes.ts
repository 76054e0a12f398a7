import {
  SCAN_FORM_IDS_MAX,
  adminScanFormsQuery,
  adminScanFormsResponse,
  adminPickupsQuery,
  adminPickupsResponse,
  idParams,
  pickupAnswerSchema,
  pickupBuyBody,
  pickupListResponse,
  pickupRatesBody,
  scanFormDetailSchema,
  scanFormListResponse,
  scanFormRequestBody,
  scanFormResultSchema,
  todayLabelsResponse,
} from '@portal/contract';
import type { FastifyReply } from 'fastify';
import type { Api, AppContext } from '../../app-context.ts';

/** A request naming SCAN_FORM_IDS_MAX order ids of 64 characters, quoted and comma-separated, with room for the rest. */
const REQUEST_BODY_LIMIT = SCAN_FORM_IDS_MAX * 70 + 1024;

const sendPdf = (reply: FastifyReply, file: { data: Buffer; fileName: string }) =>
  reply
    .type('application/pdf')
    .header('content-disposition', `attachment; filename="${file.fileName}"`)
    .header('cache-control', 'private, no-store')
    .send(file.data);

/** A customer's SCAN forms: ask for forms, today's labels not on one, the forms and their PDFs. */
export async function scanFormRoutes(api: Api, ctx: AppContext) {
  const { scanForms } = ctx;
  api.post('/scan-form', { bodyLimit: REQUEST_BODY_LIMIT, schema: { body: scanFormRequestBody, response: { 200: scanFormResultSchema } } }, (request) =>
    scanForms.request(request.userId, request.body),
  );
  api.get('/scan-form/today', { schema: { response: { 200: todayLabelsResponse } } }, (request) => scanForms.today(request.userId));
  api.get('/scan-form/read', { schema: { response: { 200: scanFormListResponse } } }, async (request) => ({ forms: await scanForms.list(request.userId) }));
  api.get('/scan-form/:id', { schema: { params: idParams, response: { 200: scanFormDetailSchema } } }, (request) =>
    scanForms.detail(request.userId, request.params.id),
  );
  api.get('/scan-form/:id/pdf', { schema: { params: idParams } }, async (request, reply) =>
    sendPdf(reply, await scanForms.pdf(request.userId, request.params.id)),
  );
}

/** The console's SCAN forms (inside /api/v1/admin, behind its guard). */
export async function adminScanFormRoutes(scope: Api, ctx: AppContext) {
  const { scanForms } = ctx;
  scope.get('/scan-forms', { schema: { querystring: adminScanFormsQuery, response: { 200: adminScanFormsResponse } } }, async (request) => ({
    forms: await scanForms.adminList(request.query),
  }));
  scope.get('/pickups', { schema: { querystring: adminPickupsQuery, response: { 200: adminPickupsResponse } } }, async (request) => ({
    pickups: await ctx.pickups.adminList(request.query.userId),
  }));
  scope.get('/scan-forms/:id/pdf', { schema: { params: idParams } }, async (request, reply) => sendPdf(reply, await scanForms.adminPdf(request.params.id)));
}

/** A customer's carrier pickups: rates for some labels, booking one (its fee charged), cancelling it, the list. */
export async function pickupRoutes(api: Api, ctx: AppContext) {
  const { pickups } = ctx;
  api.post('/pickup/rates', { bodyLimit: REQUEST_BODY_LIMIT, schema: { body: pickupRatesBody, response: { 200: pickupAnswerSchema } } }, (request) =>
    pickups.rates(request.userId, request.body),
  );
  api.post('/pickup', { schema: { body: pickupBuyBody, response: { 200: pickupAnswerSchema } } }, (request) => pickups.buy(request.userId, request.body));
  api.post('/pickup/:id/cancel', { schema: { params: idParams, response: { 200: pickupAnswerSchema } } }, (request) =>
    pickups.cancel(request.userId, request.params.id),
  );
  api.get('/pickup/read', { schema: { response: { 200: pickupListResponse } } }, async (request) => ({ pickups: await pickups.list(request.userId) }));
}
