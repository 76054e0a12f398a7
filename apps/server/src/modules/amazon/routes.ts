import multipart from '@fastify/multipart';
import { AMAZON_CSV_FILE_NAME, AMAZON_CSV_PATH, AMAZON_FOUND_HEADER, AMAZON_MAX_BYTES, AMAZON_SKIPPED_HEADER, AMAZON_TOO_LARGE } from '@portal/contract';
import type { Api, AppContext } from '../../app-context.ts';
import { readUpload } from '../../lib/multipart.ts';

const PDF_UPLOAD = { tooLarge: AMAZON_TOO_LARGE, notMultipart: 'Send the PDF as multipart/form-data', oneFile: 'Send one PDF file' };

export async function amazonRoutes(api: Api, ctx: AppContext) {
  const { amazonCsv } = ctx;

  await api.register(async (scope: Api) => {
    await scope.register(multipart, { limits: { fileSize: AMAZON_MAX_BYTES, files: 1, fields: 12, fieldSize: 10_000, parts: 20 } });

    // The answer is the file; errors are { message } and, for unreadable slips (422), { message, pages }.
    scope.post(AMAZON_CSV_PATH, async (request, reply) => {
      const { fields, file } = await readUpload(request, 'pdf', PDF_UPLOAD);
      const result = await amazonCsv.generate({ fields, pdf: file });
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${AMAZON_CSV_FILE_NAME}"`)
        .header('cache-control', 'private, no-store')
        .header(AMAZON_FOUND_HEADER, String(result.found))
        .header(AMAZON_SKIPPED_HEADER, result.skippedPages.join(','))
        .send(result.csv);
    });
  });
}
