/**
 * The CSV reader and writer of bulk orders and the Amazon CSV. Reads UTF-8 with or without a byte order mark
 * (a file that is not valid UTF-8 is read as Windows-1252, what Excel on Windows writes), comma or
 * semicolon separated (the separator is the one the header row uses), fields quoted with " holding
 * separators, quotes ("") and line breaks; CRLF, LF and CR line ends.
 *
 * The writer is csv-stringify's. The reader stays this small one: csv-parse reads a space before an opening quote
 * (` "x,y" `) only with its trim options, which then also trim every unquoted cell (the report keeps cells as
 * written), and it refuses any text after a closing quote (`"5" box`, and a JSON file, which must be answered
 * 'not a CSV file' rather than with a quote error).
 */
import { stringify } from 'csv-stringify/sync';

export class CsvSyntaxError extends Error {
  constructor(
    /** The record the problem is in: 0 is the header, 1 the first record after it. */
    readonly row: number,
    message: string,
  ) {
    super(message);
  }
}

export type CsvRecord = {
  /** 0 is the header, 1 the first record after it; blank records count, so numbers match the file's rows. */
  row: number;
  cells: string[];
};

export type CsvTable = { separator: ',' | ';'; header: string[]; records: CsvRecord[] };

const BOM = '\ufeff';

/** Windows-1252's characters at 0x80-0x9f, where Latin-1 has control codes (0x81, 0x8d, 0x8f, 0x90, 0x9d are unused). */
const WINDOWS_1252_HIGH = '€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8dŽ\x8f\x90‘’“”•–—˜™š›œ\x9džŸ';

/**
 * Windows-1252, as Excel saves a CSV on Windows. Node's TextDecoder('windows-1252') decodes Latin-1 (0x92 becomes the
 * control code U+0092, not ’), so the 32 bytes where the two differ are mapped here.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]);
}

/**
 * The text of an uploaded file, or null when it is not text (a spreadsheet, PDF, image or UTF-16
 * file holds bytes no CSV text has: NUL and other control characters).
 */
export function decodeCsvText(bytes: Uint8Array): string | null {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    // Tab, LF, CR and (DOS end-of-file) Ctrl-Z are the only control bytes a text file may hold.
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x1a) return null;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = decodeWindows1252(bytes);
  }
  if (text.startsWith(BOM)) text = text.slice(1);
  return text.replace(/\x1a+$/, '');
}

/** The separator the first line uses most, outside quotes: ';' or ','. */
export function detectSeparator(text: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted) {
      if (c === '\n' || c === '\r') break;
      if (c === ',') commas++;
      else if (c === ';') semicolons++;
    }
  }
  return semicolons > commas ? ';' : ',';
}

/** Splits CSV text into records of cells. Throws CsvSyntaxError for a quoted field that never closes. */
export function parseCsvRecords(text: string, separator: ',' | ';'): string[][] {
  const records: string[][] = [];
  const sep = separator.charCodeAt(0);
  const QUOTE = 34;
  const LF = 10;
  const CR = 13;
  const n = text.length;
  let cells: string[] = [];
  let i = 0;
  while (i <= n) {
    // At the start of a field.
    let field = '';
    let j = i;
    while (j < n && text.charCodeAt(j) === 32) j++; // spaces before an opening quote
    if (j < n && text.charCodeAt(j) === QUOTE) {
      j++;
      for (;;) {
        const close = text.indexOf('"', j);
        if (close < 0) throw new CsvSyntaxError(records.length, 'A quoted field is not closed: a " is missing');
        field += text.slice(j, close);
        if (text.charCodeAt(close + 1) === QUOTE) {
          field += '"';
          j = close + 2;
        } else {
          j = close + 1;
          break;
        }
      }
      // Anything after the closing quote up to the separator is kept as written (lenient: `"5" box`).
      let k = j;
      while (k < n) {
        const c = text.charCodeAt(k);
        if (c === sep || c === LF || c === CR) break;
        k++;
      }
      const rest = text.slice(j, k);
      if (rest.trim() !== '') field += rest;
      i = k;
    } else {
      let k = i;
      while (k < n) {
        const c = text.charCodeAt(k);
        if (c === sep || c === LF || c === CR) break;
        k++;
      }
      field = text.slice(i, k);
      i = k;
    }
    cells.push(field);
    if (i >= n) {
      records.push(cells);
      break;
    }
    const c = text.charCodeAt(i);
    if (c === sep) {
      i++;
      if (i === n) {
        cells.push('');
        records.push(cells);
        break;
      }
      continue;
    }
    // End of a record: CRLF, LF or CR.
    records.push(cells);
    cells = [];
    i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    if (i === n) break;
  }
  return records;
}

const isBlank = (cells: string[]) => cells.every((c) => c.trim() === '');

/** The header and the non-blank records after it, numbered as in the file. */
export function parseCsv(text: string): CsvTable {
  const separator = detectSeparator(text);
  const all = parseCsvRecords(text, separator);
  let headerAt = all.findIndex((cells) => !isBlank(cells));
  if (headerAt < 0) headerAt = all.length;
  const header = (all[headerAt] ?? []).map((h) => h.trim());
  const records: CsvRecord[] = [];
  for (let r = headerAt + 1; r < all.length; r++) if (!isBlank(all[r])) records.push({ row: r - headerAt, cells: all[r] });
  return { separator, header, records };
}

/**
 * A CSV file: comma separated, CRLF after every row, with a UTF-8 byte order mark so spreadsheets read it as UTF-8.
 * A cell a spreadsheet would run as a formula (=, +, -, @, tab, CR: CSV injection) gets a leading ', and a cell with a
 * comma, semicolon, quote or line break is quoted (a semicolon too, for spreadsheets that split on it).
 */
export function toCsv(rows: readonly (readonly string[])[]): string {
  return stringify(rows as string[][], { bom: true, record_delimiter: '\r\n', escape_formulas: true, quoted_match: /[;\r\n]/ });
}
