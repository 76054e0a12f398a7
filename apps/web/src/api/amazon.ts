import {
  AMAZON_CSV_FILE_NAME,
  AMAZON_CSV_PATH,
  AMAZON_FOUND_HEADER,
  AMAZON_SKIPPED_HEADER,
  REQUEST_ALREADY_SENT,
  amazonUnreadableResponse,
  type UnreadablePage,
} from '@portal/contract';
import { ApiError, fetchFile, saveFile } from './client.ts';
import { useApiMutation } from './mutation.ts';

/** The Marketplace CSV form's text fields (spec section 3). */
export type AmazonCsvForm = {
  weight: string;
  fromName: string;
  fromStreet1: string;
  fromStreet2: string;
  fromCity: string;
  fromState: string;
  fromZip: string;
};
export type AmazonCsvResult = { file: File; found: number; skippedPages: number[] };

/** POST /amazon/generate-csv: the packing slips' bulk order file, and what was read and left out. */
export async function generateAmazonCsv(pdf: File, form: AmazonCsvForm, skipUnreadable: boolean): Promise<AmazonCsvResult> {
  const body = new FormData();
  // Text fields before the file, so a streaming multipart reader has them when it reaches the file.
  for (const [name, value] of Object.entries(form)) body.append(name, value);
  body.append('skipUnreadable', String(skipUnreadable));
  body.append('pdf', pdf, pdf.name);
  const { blob, headers } = await fetchFile(AMAZON_CSV_PATH, { method: 'POST', body });
  const skipped = headers.get(AMAZON_SKIPPED_HEADER) ?? '';
  return {
    file: new File([blob], AMAZON_CSV_FILE_NAME, { type: 'text/csv' }),
    found: Number(headers.get(AMAZON_FOUND_HEADER) ?? 0),
    skippedPages: skipped ? skipped.split(',').map(Number) : [],
  };
}

/** The pages a 422 names as unreadable, or null when the error is of another kind. */
export function unreadablePages(error: unknown): UnreadablePage[] | null {
  if (!(error instanceof ApiError) || error.status !== 422) return null;
  const parsed = amazonUnreadableResponse.safeParse(error.body);
  return parsed.success ? parsed.data.pages : null;
}

/** Generate CSV: amazon.csv, downloaded at once. One call at a time; a refusal that names unreadable slips is read with unreadablePages. */
export const useGenerateAmazonCsv = () =>
  useApiMutation({
    call: ({ pdf, form, skipUnreadable }: { pdf: File; form: AmazonCsvForm; skipUnreadable: boolean }) => generateAmazonCsv(pdf, form, skipUnreadable),
    onSuccess: (result) => saveFile(result.file, AMAZON_CSV_FILE_NAME),
    alreadySent: REQUEST_ALREADY_SENT,
  });
