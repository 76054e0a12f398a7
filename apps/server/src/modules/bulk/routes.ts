import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import {
  BULK_MAX_BYTES,
  CSV_FILE_TOO_LARGE,
  ORDERS_CREATED,
  bulkOrdersResponse,
  csvErrorResponse,
  errorResponse,
  idParams,
  labelFormatQuery,
  messageResponse,
  validateCsvResponse,
} from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';
import { idempotencyOf, sendAnswer } from '../../lib/idempotency-key.ts';
import { readUpload } from '../../lib/multipart.ts';
import type { BulkFileKind, BulkUpload } from './service.ts';

const CSV_UPLOAD = { tooLarge: CSV_FILE_TOO_LARGE, notMultipart: 'Send the CSV file as multipart/form-data', oneFile: 'Send one CSV file' };

/** The text fields and the `csv` file of a multipart request; the file may also come as a text field. */
async function readCsvUpload(request: FastifyRequest): Promise<BulkUpload> {
  const { fields, file } = await readUpload(request, 'csv', CSV_UPLOAD, true);
  return { fields, csv: file };
}

// Any other 400 (a missing field, a file too large) is { message } alone.
const badFile = csvErrorResponse.partial({ errors: true });

export async function bulkRoutes(api: Api, ctx: AppContext) {
  const { bulk, auth } = ctx;

  // Multipart parsing only for the two upload calls; a field or file beyond these limits is a 400.
  await api.register(async (scope: Api) => {
    await scope.register(multipart, { limits: { fileSize: BULK_MAX_BYTES, files: 1, fields: 10, fieldSize: 10_000, parts: 20 } });

    scope.post('/order/validatecsv', { schema: { response: { 200: validateCsvResponse, 400: badFile } } }, async (request) =>
      bulk.validate(request.userId, await readCsvUpload(request)),
    );

    scope.post(
      '/order/createOrderFromCSV',
      { schema: { response: { 200: messageResponse, 400: badFile, 402: errorResponse, 409: errorResponse } } },
      // At most one bulk order per Idempotency-Key (the web sends one per submission): a repeat answers the first answer.
      async (request, reply) =>
        sendAnswer(
          reply,
          await ctx.reseller.idempotent(
            request.userId,
            idempotencyOf(request),
            async (onCharged) => ({ statusCode: 200, body: { message: (await bulk.create(request.userId, await readCsvUpload(request), onCharged)).message } }),
            async () => ({ statusCode: 200, body: { message: ORDERS_CREATED } }),
          ),
        ),
    );
  });

  api.get('/order/read-bulk-orders', { schema: { response: { 200: bulkOrdersResponse } } }, async (request) => ({
    orders: await bulk.list(request.userId),
  }));

  const download = (path: string, kind: BulkFileKind) =>
    api.get(path, { schema: { params: idParams, querystring: labelFormatQuery } }, async (request, reply) => {
      const format = kind === 'csv' ? 'pdf' : (request.query.format ?? (await auth.labelFormatOf(request.userId)));
      const file = await bulk.file(request.userId, request.params.id, kind, format);
      if ('signedUrl' in file) return reply.header('cache-control', 'private, no-store').redirect(file.signedUrl, 302);
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${file.fileName}"`)
        .header('cache-control', 'private, no-store')
        .send(file.data);
    });
  download('/order/bulk-download/:id', 'zip');
  download('/order/bulk-download-csv/:id', 'csv');
  download('/order/bulk-download-pdf/:id', 'pdf');
}
