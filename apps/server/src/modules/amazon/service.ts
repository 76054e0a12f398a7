import {
  AMAZON_DAMAGED,
  AMAZON_ENCRYPTED,
  AMAZON_NOTHING_LEFT,
  AMAZON_NOT_PDF,
  AMAZON_NO_SLIPS,
  AMAZON_NO_TEXT,
  AMAZON_PDF_REQUIRED,
  AMAZON_TOO_COMPLEX,
  AMAZON_TOO_MANY_PAGES,
  AMAZON_UNREADABLE,
  CSV_COLUMNS,
  amazonCsvFields,
  type AmazonCsvFields,
} from '@portal/contract';
import { HttpError, badRequest } from '../../lib/http-errors.ts';
import { toCsv } from '../../lib/csv.ts';
import type { SlipRow } from './packing-slips.ts';
import type { SlipReader } from './slip-reader.ts';

/** A multipart upload as the route read it: text fields and the `pdf` file (null when none was sent). */
export type AmazonUpload = { fields: Record<string, string>; pdf: Buffer | null };
export type AmazonCsv = { csv: string; found: number; skippedPages: number[] };

// A PDF starts with this, give or take a few bytes of junk some tools put before it.
const isPdf = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-');

/** One bulk order row: From and Weight from the form, To and Reference from the slip. */
function csvRow(fields: AmazonCsvFields, { orderId, shipTo }: SlipRow): string[] {
  const row: Record<(typeof CSV_COLUMNS)[number], string> = {
    FromName: fields.fromName,
    FromCompany: '',
    FromStreet: fields.fromStreet1,
    FromStreet2: fields.fromStreet2,
    FromCity: fields.fromCity,
    FromState: fields.fromState,
    FromZip: fields.fromZip,
    FromPhone: '',
    ...shipTo,
    ToPhone: '',
    ToEmail: '',
    Insurance: '',
    Return: '',
    Weight: String(fields.weight),
    Length: '',
    Width: '',
    Height: '',
    Reference: orderId,
    Service: '',
    Reference2: '',
    ShipDate: '',
  };
  return CSV_COLUMNS.map((column) => row[column]);
}

export function createAmazonCsvService(reader: SlipReader) {
  return {
    /**
     * The bulk order CSV of a packing-slip PDF. A slip whose address cannot be read fully makes a 422
     * naming its page, unless the user chose to leave such slips out.
     */
    async generate({ fields, pdf }: AmazonUpload): Promise<AmazonCsv> {
      if (!pdf || pdf.length === 0) throw badRequest(AMAZON_PDF_REQUIRED);
      const form = amazonCsvFields.safeParse(fields);
      if (!form.success) throw badRequest(form.error.issues[0].message);
      if (!isPdf(pdf)) throw badRequest(AMAZON_NOT_PDF);

      const reading = await reader.read(new Uint8Array(pdf));
      if (reading.problem === 'too-complex') throw new HttpError(422, AMAZON_TOO_COMPLEX);
      if (reading.problem !== null) {
        throw badRequest(
          reading.problem === 'too-many-pages' ? AMAZON_TOO_MANY_PAGES(reading.pages) : reading.problem === 'encrypted' ? AMAZON_ENCRYPTED : AMAZON_DAMAGED,
        );
      }
      if (reading.textPages === 0) throw badRequest(AMAZON_NO_TEXT);
      if (reading.slips === 0) throw badRequest(AMAZON_NO_SLIPS);

      const skippedPages = [...new Set(reading.unreadable.map((u) => u.page))];
      if (skippedPages.length > 0 && !form.data.skipUnreadable) {
        throw new HttpError(422, AMAZON_UNREADABLE(skippedPages), { details: { pages: reading.unreadable } });
      }
      if (reading.rows.length === 0) throw new HttpError(422, AMAZON_NOTHING_LEFT, { details: { pages: reading.unreadable } });
      return { csv: toCsv([[...CSV_COLUMNS], ...reading.rows.map((row) => csvRow(form.data, row))]), found: reading.rows.length, skippedPages };
    },
  };
}
export type AmazonCsvService = ReturnType<typeof createAmazonCsvService>;
