import { describe, expect, it } from 'vitest';
import { CsvSyntaxError, decodeCsvText, detectSeparator, parseCsv, parseCsvRecords, toCsv } from './csv.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('CSV reader', () => {
  it('splits comma separated records with CRLF, LF and CR line ends', () => {
    expect(parseCsvRecords('a,b\r\nc,d\ne,f\rg,h', ',')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
      ['g', 'h'],
    ]);
  });

  it('reads quoted fields holding separators, doubled quotes and line breaks', () => {
    const text = 'Name,Street\r\n"Doe, Jane","12 ""Main"" St\r\nSuite 4"\r\n';
    expect(parseCsvRecords(text, ',')).toEqual([
      ['Name', 'Street'],
      ['Doe, Jane', '12 "Main" St\r\nSuite 4'],
    ]);
  });

  it('keeps empty cells, a trailing separator and spaces before an opening quote', () => {
    expect(parseCsvRecords('a,,c,\n1, "x,y" ,3', ',')).toEqual([
      ['a', '', 'c', ''],
      ['1', 'x,y', '3'],
    ]);
  });

  it('keeps a quote inside an unquoted field as written', () => {
    expect(parseCsvRecords('5" box,2', ',')).toEqual([['5" box', '2']]);
  });

  it('names the record of a quoted field that never closes', () => {
    expect(() => parseCsvRecords('a,b\n1,2\n3,"open\n', ',')).toThrow(CsvSyntaxError);
    try {
      parseCsvRecords('a,b\n1,2\n3,"open\n', ',');
    } catch (error) {
      expect((error as CsvSyntaxError).row).toBe(2);
    }
  });

  it('takes the separator the header uses: semicolon or comma', () => {
    expect(detectSeparator('FromName;FromCity;"A,B"\n1,2,3')).toBe(';');
    expect(detectSeparator('FromName,FromCity\n1;2;3;4')).toBe(',');
    expect(parseCsv('A;B\n"x;y";2').records).toEqual([{ row: 1, cells: ['x;y', '2'] }]);
  });

  it('skips empty lines and rows of empty cells, numbering rows as they are in the file', () => {
    const table = parseCsv('\r\nA,B\r\n1,2\r\n\r\n,\r\n3,4\r\n\r\n');
    expect(table.header).toEqual(['A', 'B']);
    expect(table.records).toEqual([
      { row: 1, cells: ['1', '2'] },
      { row: 4, cells: ['3', '4'] },
    ]);
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

  it('quotes cells with separators, quotes and line breaks, and reads back what it wrote', () => {
    const rows = [
      ['a', 'b,c', 'say "hi"', 'two\nlines', 'semi;colon'],
      ['1', '', 'x', 'y', 'z'],
    ];
    const text = toCsv(rows);
    expect(text.startsWith('\ufeff')).toBe(true);
    const decoded = decodeCsvText(bytes(text))!;
    expect(parseCsvRecords(decoded.replace(/\r\n$/, ''), ',')).toEqual(rows);
  });
});
