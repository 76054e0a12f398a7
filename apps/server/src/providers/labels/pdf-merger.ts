import type { FileWriter } from '../storage/file-store.ts';
import { PlainPdf, rewrittenPlain, type Span } from './plain-pdf.ts';

const latin1 = (text: string) => Buffer.from(text, 'latin1');
/** Attributes a page may take from the page tree above it; the merged PDF puts them on the page itself. */
const INHERITED = ['Resources', 'MediaBox', 'CropBox', 'Rotate'];
const CATALOG_NUMBER = 1;
const PAGES_NUMBER = 2;

/**
 * One PDF of many labels' pages, written as each label is added: a label's objects are copied with
 * new numbers and sent on at once, so memory holds one label and the cross-reference offsets, never
 * the whole document. The page tree and catalog come last. `add` waits while `out` is behind.
 */
export function createPdfMerger(out: Pick<FileWriter, 'write'>) {
  const offsets = [0, 0, 0]; // offsets[n]: where object n starts; 0 is the free entry, then the catalog and page tree written last
  const pageNumbers: number[] = [];
  let written = 0;
  const send = async (bytes: Uint8Array) => {
    written += bytes.length;
    await out.write(bytes);
  };

  return {
    /** Appends every page of one label PDF. */
    async add(pdf: Uint8Array): Promise<void> {
      const header = written === 0 ? latin1('%PDF-1.7\n%\xE2\xE3\xCF\xD3\n') : null;
      const at = written + (header?.length ?? 0);
      const plain = PlainPdf.read(pdf);
      let copy: PageCopy | null = null;
      try {
        if (plain) copy = copyPages(plain, offsets.length, at);
      } catch {
        // Read as plain but not as expected: pdf-lib writes it plain again, below.
      }
      copy ??= copyPages(await rewrittenPlain(pdf), offsets.length, at);
      offsets.push(...copy.offsets);
      pageNumbers.push(...copy.pages);
      await send(Buffer.concat(header ? [header, ...copy.parts] : copy.parts));
    },
    /** Pages added so far. */
    get pages(): number {
      return pageNumbers.length;
    },
    /** Writes the page tree, the catalog and the cross-reference table; at least one page must have been added. */
    async end(): Promise<void> {
      if (pageNumbers.length === 0) throw new Error('A merged PDF needs at least one page');
      offsets[PAGES_NUMBER] = written;
      let tail = `${PAGES_NUMBER} 0 obj\n<< /Type /Pages /Count ${pageNumbers.length} /Kids [${pageNumbers.map((n) => `${n} 0 R`).join(' ')}] >>\nendobj\n`;
      offsets[CATALOG_NUMBER] = written + tail.length;
      tail += `${CATALOG_NUMBER} 0 obj\n<< /Type /Catalog /Pages ${PAGES_NUMBER} 0 R >>\nendobj\n`;
      const xrefAt = written + tail.length;
      const entries = offsets.map((offset, n) => (n === 0 ? '0000000000 65535 f \n' : `${String(offset).padStart(10, '0')} 00000 n \n`));
      tail += `xref\n0 ${offsets.length}\n${entries.join('')}trailer\n<< /Size ${offsets.length} /Root ${CATALOG_NUMBER} 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
      await send(latin1(tail));
    },
  };
}

type PageCopy = { parts: Uint8Array[]; offsets: number[]; pages: number[] };

/**
 * A label's pages and every object they use, as objects of the merged PDF numbered from `firstNumber`
 * and written from byte `at`: their bytes, where each starts, and the pages' numbers. The label's own
 * catalog and page tree stay behind (a reference to them becomes null); each page takes what it
 * inherited from its page tree as entries of its own.
 */
function copyPages(source: PlainPdf, firstNumber: number, at: number): PageCopy {
  const dictOf = (number: number) => source.entries(source.token(source.object(number).value.start));
  const tree = new Set([source.root]);
  const pages: { number: number; entries: Map<string, Span>; inherited: Map<string, Span> }[] = [];
  const walk = (number: number, inherited: Map<string, Span>) => {
    const entries = dictOf(number);
    const kids = entries.get('Kids');
    if (!kids) return void pages.push({ number, entries, inherited });
    if (tree.has(number)) throw new Error('The page tree of a label PDF loops');
    tree.add(number);
    const passed = new Map(inherited);
    for (const key of INHERITED) if (entries.has(key)) passed.set(key, entries.get(key)!);
    for (const kid of source.items(source.resolve(kids))) walk(source.refOf(kid), passed);
  };
  walk(source.refOf(dictOf(source.root).get('Pages')), new Map());

  const numbers = new Map<number, number>();
  const toWrite: number[] = [];
  const refText = (ref: number) => {
    let number = numbers.get(ref);
    if (number === undefined) {
      if (tree.has(ref) || !source.has(ref)) return 'null';
      number = firstNumber + toWrite.length;
      numbers.set(ref, number);
      toWrite.push(ref);
    }
    return `${number} 0 R`;
  };
  for (const page of pages) refText(page.number); // the pages numbered first, in their order
  const pageOf = new Map(pages.map((page) => [page.number, page]));

  const parts: Uint8Array[] = [];
  const offsets: number[] = [];
  for (let i = 0; i < toWrite.length; i++) {
    const ref = toWrite[i];
    const start = parts.length;
    parts.push(latin1(`${firstNumber + i} 0 obj\n`));
    const page = pageOf.get(ref);
    if (page) {
      parts.push(latin1('<<'));
      const entries = [...page.entries].filter(([key]) => key !== 'Parent');
      for (const key of INHERITED) if (!page.entries.has(key) && page.inherited.has(key)) entries.push([key, page.inherited.get(key)!]);
      for (const [key, value] of entries) {
        parts.push(latin1(`/${key} `));
        source.rewriteRefs(value, refText, parts);
        parts.push(latin1('\n'));
      }
      parts.push(latin1(`/Parent ${PAGES_NUMBER} 0 R>>`));
    } else {
      const { value, stream } = source.object(ref);
      source.rewriteRefs(value, refText, parts);
      if (stream) parts.push(latin1('\nstream\n'), source.bytes.subarray(stream.start, stream.end), latin1('\nendstream'));
    }
    parts.push(latin1('\nendobj\n'));
    offsets.push(at);
    for (let p = start; p < parts.length; p++) at += parts[p].length;
  }
  return { parts, offsets, pages: pages.map((page) => numbers.get(page.number)!) };
}
