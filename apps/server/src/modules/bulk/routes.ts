import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { BULK_MAX_BYTES, CSV_FILE_TOO_LARGE, bulkOrdersResponse, csvErrorResponse, errorResponse, idParams, messageResponse, validateCsvResponse } from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';
import { badRequest } from '../../lib/http-errors.ts';
import type { BulkFileKind, BulkUpload } from './service.ts';

const MULTIPART_ERRORS: Record<string, string> = {
  FST_REQ_FILE_TOO_LARGE: CSV_FILE_TOO_LARGE,
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'Send the CSV file as multipart/form-data',
  FST_FILES_LIMIT: 'Send one CSV file',
  FST_PARTS_LIMIT: 'Too many form fields',
  FST_FIELDS_LIMIT: 'Too many form fields',
  FST_PROTO_VIOLATION: 'Bad form field name',
  FST_MP_PREMATURE_CLOSE: 'The upload was cut off; send the file again',
};

/** The text fields and the `csv` file of a multipart request, in any order; the file may also come as a text field. */
async function readUpload(request: FastifyRequest): Promise<BulkUpload> {
  const upload: BulkUpload = { fields: {}, csv: null };
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        if (part.fieldname === 'csv' && !upload.csv) upload.csv = data;
      } else if (part.fieldname === 'csv' && !upload.csv) {
        upload.csv = Buffer.from(String(part.value ?? ''));
      } else {
        upload.fields[part.fieldname] = String(part.value ?? '');
      }
    }
  } catch (error) {
    const message = MULTIPART_ERRORS[(error as { code?: string }).code ?? ''];
    if (message) throw badRequest(message);
    throw error;
  }
  return upload;
}

// Any other 400 (a missing field, a file too large) is { message } alone.
const badFile = csvErrorResponse.partial({ errors: true });

export async function bulkRoutes(api: Api, ctx: AppContext) {
  const { bulk, requireUser } = ctx;

  // Multipart parsing only for the two upload calls; a field or file beyond these limits is a 400.
  await api.register(async (scope: Api) => {
    await scope.register(multipart, { limits: { fileSize: BULK_MAX_BYTES, files: 1, fields: 10, fieldSize: 10_000, parts: 20 } });

    scope.post(
      '/order/validatecsv',
      { schema: { response: { 200: validateCsvResponse, 400: badFile } }, preHandler: requireUser },
      async (request) => bulk.validate(await readUpload(request)),
    );

    scope.post(
      '/order/createOrderFromCSV',
      { schema: { response: { 200: messageResponse, 400: badFile, 402: errorResponse, 409: errorResponse } }, preHandler: requireUser },
      async (request) => ({ message: (await bulk.create(request.userId, await readUpload(request))).message }),
    );
  });

  api.get('/order/read-bulk-orders', { schema: { response: { 200: bulkOrdersResponse } }, preHandler: requireUser }, async (request) => ({
    orders: await bulk.list(request.userId),
  }));

  const download = (path: string, kind: BulkFileKind) =>
    api.get(path, { schema: { params: idParams }, preHandler: requireUser }, async (request, reply) => {
      const file = await bulk.file(request.userId, request.params.id, kind);
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
