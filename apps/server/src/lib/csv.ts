/**
 * The CSV reader and writer of bulk orders and the Amazon CSV. Reads UTF-8 with or without a byte order mark
 * (a file that is not valid UTF-8 is read as Windows-1252, what Excel on Windows writes), comma or
 * semicolon separated (the separator is the one the header row uses), fields quoted with " holding
 * separators, quotes ("") and line breaks; CRLF, LF and CR line ends.
 *
 * Both are csv-parse's and csv-stringify's. The reader counts as it reads and stops at the first limit passed
 * (CsvLimits: rows, cells a row, characters a cell, blank lines), so no file holds more than that in memory or time;
 * blank lines are counted, never kept. Cells are trimmed of the spaces around them, which lets a space stand before
 * an opening quote (` "x,y" `); a quote inside an unquoted cell is kept as written (`5" box`), and text after a
 * closing quote (`"5" box`) is refused with its row named (the caller answers 'not a CSV file' when that is the
 * header, as a JSON file's is).
 */
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { Parser } from 'csv-parse';
import { stringify } from 'csv-stringify/sync';
import {
  BULK_MAX_ROWS,
  CSV_CELL_TOO_LONG,
  CSV_MAX_BLANK_LINES,
  CSV_MAX_CELL_CHARS,
  CSV_MAX_COLUMNS,
  CSV_TOO_MANY_BLANK_LINES,
  CSV_TOO_MANY_COLUMNS,
  CSV_TOO_MANY_ROWS,
} from '@portal/contract';

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

/** How much of a CSV file is read: past any of these the reader stops with a CsvLimitError. */
export type CsvLimits = {
  /** Records after the header that are not blank. */
  maxRows: number;
  /** Cells of one record, the header's included. */
  maxCells: number;
  /** Characters of one cell. */
  maxCellChars: number;
  /** Blank records (empty lines, or only separators and spaces), anywhere in the file. */
  maxBlankLines: number;
};

/** A bulk order file's limits, the contract's: 5,000 rows, 100 cells a row, 1,000 characters a cell, 10,000 blank lines. */
export const BULK_CSV_LIMITS: CsvLimits = {
  maxRows: BULK_MAX_ROWS,
  maxCells: CSV_MAX_COLUMNS,
  maxCellChars: CSV_MAX_CELL_CHARS,
  maxBlankLines: CSV_MAX_BLANK_LINES,
};

/** A file past one of its CsvLimits; the message names the limit, and `row` the record past it when it is one record's (cells, characters). */
export class CsvLimitError extends Error {
  constructor(
    message: string,
    readonly row?: number,
  ) {
    super(message);
  }
}

const SYNTAX_MESSAGES: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'A quoted field is not closed: a " is missing',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'A quoted field has text after its closing quote: quote the whole cell',
  CSV_INVALID_CLOSING_QUOTE: 'A quoted field has text after its closing quote: quote the whole cell',
};

/** How much text the reader takes at a time: between two pieces it checks the limits the parser counts for it. */
const PIECE_BYTES = 64 * 1024;

/**
 * Reads CSV text one record at a time, handing `each` the cells of every record that is not blank, and its index
 * (0 is the first record of the text; blank ones are counted, so indexes match the file's rows). Blank records (an
 * empty line, or only separators and spaces) are counted, never kept. Throws, as soon as it reads past it,
 * CsvSyntaxError (with the index) for a quote never closed or text after a closing quote, and CsvLimitError for more
 * blank lines, or (with the index) a record of more cells or a cell of more characters than `limits` allow.
 */
export async function eachCsvRecord(
  text: string,
  separator: ',' | ';',
  each: (cells: string[], index: number) => void,
  limits: CsvLimits = BULK_CSV_LIMITS,
): Promise<void> {
  let records = 0;
  let blankRecords = 0;
  const index = () => records + parser.info.empty_lines;
  // At the end the parser counts the text's last line break as one more empty line.
  const checkBlankLines = (lastBreak = 0) => {
    if (blankRecords + parser.info.empty_lines - lastBreak > limits.maxBlankLines) throw new CsvLimitError(CSV_TOO_MANY_BLANK_LINES(limits.maxBlankLines));
  };
  const parser = new Parser({
    delimiter: separator,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_quotes: true,
    relax_column_count: true,
    trim: true,
    // Empty lines are only counted (info.empty_lines), by the parser's fastest path.
    skip_empty_lines: true,
    // No record is longer than its cells may be (4 bytes a character): the parser stops there, not at the end of the text.
    max_record_size: limits.maxCells * (4 * limits.maxCellChars + 1),
    on_record: (cells: string[]) => {
      // csv-parse keeps a relaxed record's length error in its state and copies it into the next one's, so each error
      // held all before it: 5,000 rows of differing lengths took 75 s. The one kept is of no use here; it is cleared.
      const state = (parser as unknown as { state?: { error?: unknown } }).state;
      if (state) state.error = undefined;
      const at = index();
      records++;
      if (cells.length > limits.maxCells) throw new CsvLimitError(CSV_TOO_MANY_COLUMNS(limits.maxCells), at);
      if (cells.some((cell) => cell.length > limits.maxCellChars)) throw new CsvLimitError(CSV_CELL_TOO_LONG(limits.maxCellChars), at);
      if (cells.every((cell) => cell === '')) blankRecords++;
      checkBlankLines();
      if (cells.some((cell) => cell !== '')) each(cells, at);
      return null;
    },
  });
  const done = finished(parser);
  // Awaited below; until then a failure is only kept (the loop may stop first).
  done.catch(() => {});
  parser.resume();
  try {
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length && !parser.destroyed; at += PIECE_BYTES) {
      if (!parser.write(bytes.subarray(at, at + PIECE_BYTES))) await once(parser, 'drain');
      checkBlankLines();
    }
    if (!parser.destroyed) parser.end();
    await done;
    checkBlankLines(/[\r\n]$/.test(text) ? 1 : 0);
  } catch (error) {
    parser.destroy();
    if (error instanceof CsvLimitError || error instanceof CsvSyntaxError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code === 'CSV_MAX_RECORD_SIZE') throw new CsvLimitError(CSV_CELL_TOO_LONG(limits.maxCellChars), index());
    if (SYNTAX_MESSAGES[code]) throw new CsvSyntaxError(index(), SYNTAX_MESSAGES[code]);
    throw error;
  }
}

/** The records of a CSV text that are not blank, within the bulk order limits. */
export async function parseCsvRecords(text: string, separator: ',' | ';'): Promise<string[][]> {
  const records: string[][] = [];
  await eachCsvRecord(text, separator, (cells) => records.push(cells));
  return records;
}

/**
 * The header (the first record that is not blank) and the non-blank records after it, numbered as in the file.
 * Stops with a CsvLimitError past `limits` and a CsvSyntaxError for a quote; their rows are counted from the header.
 */
export async function parseCsv(text: string, limits: CsvLimits = BULK_CSV_LIMITS): Promise<CsvTable> {
  const separator = detectSeparator(text);
  let header: string[] | null = null;
  let headerAt = 0;
  const records: CsvRecord[] = [];
  try {
    await eachCsvRecord(
      text,
      separator,
      (cells, index) => {
        if (header === null) {
          header = cells;
          headerAt = index;
        } else {
          if (records.length === limits.maxRows) throw new CsvLimitError(CSV_TOO_MANY_ROWS(limits.maxRows));
          records.push({ row: index - headerAt, cells });
        }
      },
      limits,
    );
  } catch (error) {
    // Rows are numbered from the header: an error before it has been read is in the header.
    const row = (index: number) => (header === null ? 0 : index - headerAt);
    if (error instanceof CsvSyntaxError) throw new CsvSyntaxError(row(error.row), error.message);
    if (error instanceof CsvLimitError && error.row !== undefined) throw new CsvLimitError(error.message, row(error.row));
    throw error;
  }
  return { separator, header: (header as string[] | null) ?? [], records };
}

/**
 * A CSV file: comma separated, CRLF after every row, with a UTF-8 byte order mark so spreadsheets read it as UTF-8.
 * A cell a spreadsheet would run as a formula (=, +, -, @, tab, CR: CSV injection) gets a leading ', and a cell with a
 * comma, semicolon, quote or line break is quoted (a semicolon too, for spreadsheets that split on it).
 */
export function toCsv(rows: readonly (readonly string[])[]): string {
  return stringify(rows as string[][], { bom: true, record_delimiter: '\r\n', escape_formulas: true, quoted_match: /[;\r\n]/ });
}
