import { describe, expect, it } from 'vitest';
import { CSV_CELL_TOO_LONG, CSV_TOO_MANY_BLANK_LINES, CSV_TOO_MANY_COLUMNS, CSV_TOO_MANY_ROWS } from '@portal/contract';
import { BULK_CSV_LIMITS, CsvLimitError, CsvSyntaxError, decodeCsvText, detectSeparator, parseCsv, parseCsvRecords, toCsv } from './csv.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('CSV reader', () => {
  it('splits comma separated records with CRLF, LF and CR line ends', async () => {
    expect(await parseCsvRecords('a,b\r\nc,d\ne,f\rg,h', ',')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
      ['g', 'h'],
    ]);
  });

  it('reads quoted fields holding separators, doubled quotes and line breaks', async () => {
    const text = 'Name,Street\r\n"Doe, Jane","12 ""Main"" St\r\nSuite 4"\r\n';
    expect(await parseCsvRecords(text, ',')).toEqual([
      ['Name', 'Street'],
      ['Doe, Jane', '12 "Main" St\r\nSuite 4'],
    ]);
  });

  it('keeps empty cells, a trailing separator and spaces before an opening quote', async () => {
    expect(await parseCsvRecords('a,,c,\n1, "x,y" ,3', ',')).toEqual([
      ['a', '', 'c', ''],
      ['1', 'x,y', '3'],
    ]);
  });

  it('keeps a quote inside an unquoted field as written', async () => {
    expect(await parseCsvRecords('5" box,2', ',')).toEqual([['5" box', '2']]);
  });

  it('names the record of a quoted field that never closes', async () => {
    const refused = parseCsvRecords('a,b\n1,2\n3,"open\n', ',');
    await expect(refused).rejects.toThrow(CsvSyntaxError);
    await expect(refused).rejects.toMatchObject({ row: 2 });
  });

  it('takes the separator the header uses: semicolon or comma', async () => {
    expect(detectSeparator('FromName;FromCity;"A,B"\n1,2,3')).toBe(';');
    expect(detectSeparator('FromName,FromCity\n1;2;3;4')).toBe(',');
    expect((await parseCsv('A;B\n"x;y";2')).records).toEqual([{ row: 1, cells: ['x;y', '2'] }]);
  });

  it('skips empty lines and rows of empty cells, numbering rows as they are in the file', async () => {
    const table = await parseCsv('\r\nA,B\r\n1,2\r\n\r\n,\r\n3,4\r\n\r\n');
    expect(table.header).toEqual(['A', 'B']);
    expect(table.records).toEqual([
      { row: 1, cells: ['1', '2'] },
      { row: 4, cells: ['3', '4'] },
    ]);
  });
});

/** What parseCsv throws for this text: its class, message and row. */
async function refusal(text: string, limits = BULK_CSV_LIMITS) {
  try {
    await parseCsv(text, limits);
  } catch (error) {
    return { error: (error as Error).constructor.name, message: (error as Error).message, row: (error as CsvLimitError).row };
  }
  return null;
}

describe('CSV reader limits', () => {
  const small = { maxRows: 3, maxCells: 4, maxCellChars: 10, maxBlankLines: 2 };

  it('stops at the blank line past the limit of a file of a header, 2,097,152 blank lines and one row, at once', async () => {
    const text = `A,B\n${'\n'.repeat(2_097_152)}1,2\n`;
    expect(await refusal(text)).toEqual({ error: 'CsvLimitError', message: CSV_TOO_MANY_BLANK_LINES(BULK_CSV_LIMITS.maxBlankLines), row: undefined });
  });

  it('lets through a file at every limit, and refuses one row, blank line, cell or character more, naming the limit and the row', async () => {
    const atLimits = `A,B,C,D\n\n1,2,3,${'x'.repeat(10)}\n , \n4\n5\n`;
    expect((await parseCsv(atLimits, small)).records.map((r) => r.row)).toEqual([2, 4, 5]);
    expect(await refusal(`${atLimits}6\n`, small)).toMatchObject({ message: CSV_TOO_MANY_ROWS(3), row: undefined });
    expect(await refusal(`${atLimits}\n`, small)).toMatchObject({ message: CSV_TOO_MANY_BLANK_LINES(2) });
    expect(await refusal('A,B\n1,2,3,4,5\n', small)).toEqual({ error: 'CsvLimitError', message: CSV_TOO_MANY_COLUMNS(4), row: 1 });
    expect(await refusal(`A,B\n\n1,2\n3,"${'y'.repeat(11)}"\n`, small)).toEqual({ error: 'CsvLimitError', message: CSV_CELL_TOO_LONG(10), row: 3 });
    // A cell that never ends is stopped when its record passes what its cells may hold, not at the end of the text.
    expect(await refusal(`A,B\n1,${'z'.repeat(1000)}`, small)).toEqual({ error: 'CsvLimitError', message: CSV_CELL_TOO_LONG(10), row: 1 });
  });

  it('reads 5,000 rows of differing lengths without csv-parse piling up their length errors (75 s without the fix)', async () => {
    const text = `A,B,C\n${Array.from({ length: 5000 }, (_, i) => (i % 2 ? 'a,b' : 'a,b,c,d')).join('\n')}\n`;
    const started = performance.now();
    expect((await parseCsv(text)).records).toHaveLength(5000);
    // A generous bound, not a speed target (tens of ms here): it only tells the fix in eachCsvRecord from its absence.
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('refuses text after a closing quote, naming its row', async () => {
    expect(await refusal('A,B\n1,2\n"5" box,2\n')).toEqual({ error: 'CsvSyntaxError', message: expect.stringContaining('closing quote'), row: 2 });
  });
});

describe('decoding an upload', () => {
  it('reads UTF-8 with and without a byte order mark', () => {
    expect(decodeCsvText(bytes('\ufeffA,B\nJosé,2'))).toBe('A,B\nJosé,2');
    expect(decodeCsvText(bytes('A,B\nJosé,2'))).toBe('A,B\nJosé,2');
  });

  it('reads a file that is not UTF-8 as Windows-1252 (Excel on Windows)', () => {
    expect(decodeCsvText(Uint8Array.from([0x41, 0x0a, 0x4a, 0x6f, 0x73, 0xe9]))).toBe('A\nJosé');
  });

  it('refuses binary files: spreadsheets, PDFs with binary streams, images, UTF-16', () => {
    expect(decodeCsvText(Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]))).toBeNull(); // xlsx (zip)
    expect(decodeCsvText(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]))).toBeNull(); // png
    expect(decodeCsvText(Uint8Array.from([0xff, 0xfe, 0x41, 0x00, 0x2c, 0x00]))).toBeNull(); // UTF-16
  });
});

describe('CSV writer', () => {
  it('escapes cells a spreadsheet would run as a formula', () => {
    expect(toCsv([['=SUM(A1)', '+1', '-2', '@x', '\tx', 'ok']])).toBe("\ufeff'=SUM(A1),'+1,'-2,'@x,'\tx,ok\r\n");
    expect(toCsv([['=1,2', '\rx']])).toBe(`\ufeff"'=1,2","'\rx"\r\n`);
  });

  it('quotes cells with separators, quotes and line breaks, and reads back what it wrote', async () => {
    const rows = [
      ['a', 'b,c', 'say "hi"', 'two\nlines', 'semi;colon'],
      ['1', '', 'x', 'y', 'z'],
    ];
    const text = toCsv(rows);
    expect(text.startsWith('\ufeff')).toBe(true);
    const decoded = decodeCsvText(bytes(text))!;
    expect(await parseCsvRecords(decoded.replace(/\r\n$/, ''), ',')).toEqual(rows);
  });
});
