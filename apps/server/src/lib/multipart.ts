import type { FastifyRequest } from 'fastify';
import { badRequest } from './http-errors.ts';

/** What a refused upload tells the user, by what was sent: the file too large, not a form, more than one file. */
export type UploadMessages = { tooLarge: string; notMultipart: string; oneFile: string };

/**
 * The text fields and the one file named `fileField` of a multipart request (registered with
 * @fastify/multipart and its limits), in any order; the file is null when none was sent. A form
 * beyond the limits, or cut off, is a 400. With `fileAsText`, the file may also come as a text field.
 */
export async function readUpload(
  request: FastifyRequest,
  fileField: string,
  messages: UploadMessages,
  fileAsText = false,
): Promise<{ fields: Record<string, string>; file: Buffer | null }> {
  const refusals: Record<string, string> = {
    FST_REQ_FILE_TOO_LARGE: messages.tooLarge,
    FST_INVALID_MULTIPART_CONTENT_TYPE: messages.notMultipart,
    FST_FILES_LIMIT: messages.oneFile,
    FST_PARTS_LIMIT: 'Too many form fields',
    FST_FIELDS_LIMIT: 'Too many form fields',
    FST_PROTO_VIOLATION: 'Bad form field name',
    FST_MP_PREMATURE_CLOSE: 'The upload was cut off; send the file again',
  };
  const upload: { fields: Record<string, string>; file: Buffer | null } = { fields: {}, file: null };
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        if (part.fieldname === fileField && !upload.file) upload.file = data;
      } else if (fileAsText && part.fieldname === fileField && !upload.file) {
        upload.file = Buffer.from(String(part.value ?? ''));
      } else {
        upload.fields[part.fieldname] = String(part.value ?? '');
      }
    }
  } catch (error) {
    // Busboy's own errors carry no code: a form with no boundary, or one cut off before its closing boundary.
    const { code = '', message: said = '' } = error as { code?: string; message?: string };
    const cutOff = said === 'Unexpected end of multipart data' || said.endsWith('terminated early due to unexpected end of multipart data');
    const message = refusals[code] ?? (said === 'Multipart: Boundary not found' ? messages.notMultipart : cutOff ? refusals.FST_MP_PREMATURE_CLOSE : undefined);
    if (message) throw badRequest(message);
    throw error;
  }
  return upload;
}
