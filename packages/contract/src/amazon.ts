import { z } from 'zod';
import { createOrderBody, usAddressViolation } from './orders.ts';

/**
 * POST /api/v1/amazon/generate-csv: Seller Central packing slips (one PDF) become a bulk order CSV
 * file for the USPS CSV page. Multipart: pdf, fromName, fromStreet1, fromStreet2 (optional),
 * fromCity, fromState, fromZip, weight, and skipUnreadable ('true' to leave out the slips whose
 * address could not be read). It answers the file, amazon.csv.
 */
export const AMAZON_CSV_PATH = '/amazon/generate-csv';
export const AMAZON_CSV_FILE_NAME = 'amazon.csv';
export const AMAZON_MAX_BYTES = 20 * 1024 * 1024;
export const AMAZON_MAX_PAGES = 1000;

/** Answer headers: how many addresses the file holds, and the pages left out (comma separated, empty for none). */
export const AMAZON_FOUND_HEADER = 'x-addresses-found';
export const AMAZON_SKIPPED_HEADER = 'x-pages-skipped';

export const AMAZON_PDF_REQUIRED = 'Please select the packing slips PDF';
export const AMAZON_NOT_PDF = 'The file is not a PDF: choose the packing slips PDF printed from Seller Central';
export const AMAZON_DAMAGED = 'The PDF is damaged and cannot be read: print the packing slips from Seller Central again';
export const AMAZON_ENCRYPTED = 'The PDF is protected by a password: print the packing slips again without one';
export const AMAZON_NO_TEXT = 'This PDF has no text: print the packing slips from Seller Central as PDF, not as a scan';
export const AMAZON_NO_SLIPS = "No packing slip was found: no page of this PDF has a 'Ship To:' address";
export const AMAZON_TOO_LARGE = 'The PDF is larger than 20 MB: print fewer packing slips at a time';
export const AMAZON_TOO_MANY_PAGES = (pages: number) =>
  `The PDF has ${pages.toLocaleString('en-US')} pages; at most ${AMAZON_MAX_PAGES.toLocaleString('en-US')} pages are allowed in one file`;
/** 422: reading the PDF went past the time or memory one upload may take (a PDF built to inflate, or to keep a reader busy). */
export const AMAZON_TOO_COMPLEX = 'This PDF is too complex to read: print the packing slips from Seller Central again, or fewer at a time';
export const AMAZON_NOTHING_LEFT = 'No address could be read on any packing slip of this PDF';

const pageList = (pages: number[]) => (pages.length === 1 ? `page ${pages[0]}` : `pages ${pages.slice(0, -1).join(', ')} and ${pages[pages.length - 1]}`);
/** 422 when some slips could not be read fully: they are never guessed; the user may generate without them. */
export const AMAZON_UNREADABLE = (pages: number[]) =>
  `The address on ${pageList(pages)} could not be read fully. Check ${pages.length === 1 ? 'that slip' : 'those slips'}, or generate the CSV without ${pages.length === 1 ? 'it' : 'them'}.`;

/** Why one page gave no row. */
export const unreadablePage = z.object({ page: z.number().int(), reason: z.string() });
export type UnreadablePage = z.infer<typeof unreadablePage>;
export const amazonUnreadableResponse = z.object({ message: z.string(), pages: z.array(unreadablePage) });
export type AmazonUnreadableResponse = z.infer<typeof amazonUnreadableResponse>;

/**
 * The text fields, checked by the rules of a bulk order row (createOrderBody): From Name, Street,
 * City, State (code or name) and ZIP required, Street 2 optional, Weight a number.
 */
export const amazonCsvFields = z
  .object({
    fromName: createOrderBody.shape.FromName,
    fromStreet1: createOrderBody.shape.FromStreet,
    fromStreet2: createOrderBody.shape.FromStreet2,
    fromCity: createOrderBody.shape.FromCity,
    fromState: createOrderBody.shape.FromState,
    fromZip: createOrderBody.shape.FromZip,
    weight: createOrderBody.shape.Weight,
    skipUnreadable: z.preprocess((v) => v === 'true' || v === true, z.boolean()),
  })
  .strip()
  .superRefine((fields, context) => {
    const violation = usAddressViolation('From', fields.fromState, fields.fromZip);
    if (violation) context.addIssue({ code: 'custom', message: violation, path: [violation.startsWith('From State') ? 'fromState' : 'fromZip'] });
  });
export type AmazonCsvFields = z.output<typeof amazonCsvFields>;
