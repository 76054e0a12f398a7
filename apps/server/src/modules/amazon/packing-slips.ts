/**
 * Reads Seller Central packing slips from the text of their PDF pages: each slip's 'Ship To:' block
 * and its Amazon order id. Pure functions; pdf.js runs in slip-reader-worker.ts.
 */
import { COUNTRIES, countryNamed, createOrderBody, regionIdFor, usAddressViolation, type UnreadablePage } from '@portal/contract';

/** A piece of text on a page: where it starts, from the page's top-left corner, in points. */
export type TextRun = { x: number; top: number; text: string };
/** A glyph run as pdf.js gives it: x and y (from the page's bottom) of its start, its width. */
export type PdfTextItem = { str: string; x: number; y: number; width: number };

/** The To columns of a bulk order row. */
export type ShipTo = { ToName: string; ToCompany: string; ToStreet: string; ToStreet2: string; ToCity: string; ToState: string; ToZip: string };
export type SlipRow = { page: number; orderId: string; shipTo: ShipTo };
/** slips: how many 'Ship To:' blocks were found; textPages: pages with any text. */
export type SlipsRead = { rows: SlipRow[]; unreadable: UnreadablePage[]; slips: number; textPages: number };

// Pieces on one baseline closer than this are one run of text; farther apart they are columns.
const SAME_LINE_POINTS = 2;
const WORD_GAP_POINTS = 12;
// Lines of an address block follow each other; a larger gap ends the block.
const BLOCK_GAP_POINTS = 24;
const BLOCK_MAX_LINES = 7;

/** The runs of text of a page in reading order: top to bottom, then left to right. */
export function textRuns(items: readonly PdfTextItem[], pageHeight: number): TextRun[] {
  const pieces = items
    .filter((item) => item.str.trim() !== '')
    .map((item) => ({ x: item.x, top: pageHeight - item.y, right: item.x + item.width, text: item.str }))
    .sort((a, b) => (Math.abs(a.top - b.top) < SAME_LINE_POINTS ? a.x - b.x : a.top - b.top));
  const runs: (TextRun & { right: number })[] = [];
  for (const piece of pieces) {
    const last = runs[runs.length - 1];
    if (last && Math.abs(piece.top - last.top) < SAME_LINE_POINTS && piece.x - last.right < WORD_GAP_POINTS) {
      last.text += piece.x - last.right > 1 && !last.text.endsWith(' ') && !piece.text.startsWith(' ') ? ` ${piece.text}` : piece.text;
      last.right = Math.max(last.right, piece.right);
    } else {
      runs.push({ ...piece });
    }
  }
  return runs.map(({ x, top, text }) => ({ x, top, text: text.replace(/\s+/g, ' ').trim() }));
}

type Placed = TextRun & { page: number };

const SHIP_TO = /^ship\s*to\b\s*(?::\s*(.*))?$/i;
// 'Order ID:', 'Shipping Address:', 'Order Date:': the next label of the slip ends the address.
const FIELD_LABEL = /^[A-Za-z][A-Za-z .#/]{1,30}:/;
const ORDER_ID = /order\s*(?:id|#|number)\s*:?\s*(\d{3}-\d{7}-\d{7})/i;
const CITY_STATE_ZIP = /^(.*\S)\s+(\d{5}(?:-\d{4})?)$/;
// A street starts with its number, or is a PO box; a company name rarely does.
const STREET_START = /^(\d|p\.?\s*o\.?\s*box\b|box\s+\d)/i;

const COUNTRY_NAMES = new Set(COUNTRIES.map((country) => country.name.toLowerCase()));

const toColumns = createOrderBody.pick({ ToName: true, ToCompany: true, ToStreet: true, ToStreet2: true, ToCity: true, ToState: true, ToZip: true });

/** The lines under a 'Ship To:' label, in its column, up to the slip's next label or a gap. */
function addressBlock(runs: Placed[], at: number, inline: string): { lines: string[]; end: number } {
  const label = runs[at];
  const lines = inline ? [inline] : [];
  let previous: Placed = label;
  let column: number | undefined;
  let i = at + 1;
  for (; i < runs.length && lines.length < BLOCK_MAX_LINES; i++) {
    const run = runs[i];
    if (SHIP_TO.test(run.text)) break;
    const samePage = run.page === previous.page;
    if (samePage && run.top - previous.top < SAME_LINE_POINTS) continue; // beside the line before: another column
    column ??= run.x >= label.x - 4 && run.x <= label.x + 60 ? run.x : undefined;
    if (column === undefined || run.x > column + 6) continue; // text to the right of the block
    if (run.x < column - 6 || FIELD_LABEL.test(run.text)) break;
    if (samePage && run.top - previous.top > BLOCK_GAP_POINTS) break;
    lines.push(run.text); // a block cut by a page break goes on at the top of the next page
    previous = run;
  }
  return { lines, end: i };
}

/** 'Austin, TX 78701', 'AUSTIN, Texas 78701-1234' or 'New York NY 10001': city, state code, ZIP. */
function cityStateZip(line: string): { city: string; state: string; zip: string } | null {
  const match = CITY_STATE_ZIP.exec(line);
  if (!match) return null;
  const [, before, zip] = match;
  const comma = before.lastIndexOf(',');
  if (comma >= 0) {
    const state = regionIdFor(before.slice(comma + 1));
    const city = before.slice(0, comma).trim();
    return state && city ? { city, state, zip } : null;
  }
  // Without a comma the state is the last one to three words.
  const words = before.split(' ');
  for (let n = 1; n <= 3 && n < words.length; n++) {
    const state = regionIdFor(words.slice(-n).join(' '));
    if (state) return { city: words.slice(0, -n).join(' '), state, zip };
  }
  return null;
}

/** The To columns of an address block, or why it cannot be read without guessing. */
export function parseShipTo(block: string[]): { shipTo: ShipTo } | { reason: string } {
  const lines = [...block];
  const last = lines[lines.length - 1] ?? '';
  if (countryNamed(last) === 'United States') lines.pop();
  else if (COUNTRY_NAMES.has(last.toLowerCase())) return { reason: `it ships to ${last}, outside the United States` };
  const cityLine = lines.pop();
  const place = cityLine ? cityStateZip(cityLine) : null;
  if (!cityLine || !place) return { reason: cityLine ? `"${cityLine}" is not a city, state and ZIP` : 'the Ship To block is empty' };
  const [name, ...middle] = lines;
  if (!name || middle.length === 0) return { reason: 'the Ship To block has no street' };
  let company = '';
  let streets = middle;
  if (middle.length === 3) [company, ...streets] = middle;
  else if (middle.length === 2 && !STREET_START.test(middle[0]) && STREET_START.test(middle[1])) [company, ...streets] = middle;
  else if (middle.length > 3) return { reason: 'the Ship To block has more lines than a name, company, two streets and the city' };
  const parsed = toColumns.safeParse({
    ToName: name,
    ToCompany: company,
    ToStreet: streets[0],
    ToStreet2: streets[1] ?? '',
    ToCity: place.city,
    ToState: place.state,
    ToZip: place.zip,
  });
  if (!parsed.success) return { reason: parsed.error.issues[0].message };
  const violation = usAddressViolation('To', parsed.data.ToState, parsed.data.ToZip);
  return violation ? { reason: violation } : { shipTo: parsed.data };
}

/**
 * Every slip of the document: pages hold runs in reading order. A page may hold several slips, and
 * a slip may run over to the next page (its items, or even its address). A page without text (a
 * scan) and a slip whose address or order id cannot be read are reported, never guessed.
 */
export function readPackingSlips(pages: readonly TextRun[][]): SlipsRead {
  const runs: Placed[] = pages.flatMap((page, index) => page.map((run) => ({ ...run, page: index + 1 })));
  const unreadable: UnreadablePage[] = [];
  pages.forEach((page, index) => {
    if (page.length === 0) unreadable.push({ page: index + 1, reason: 'the page has no text (a scan)' });
  });
  const starts = runs.flatMap((run, i) => (SHIP_TO.test(run.text) ? [i] : []));
  const claimed = new Set<number>();
  const rows: SlipRow[] = [];
  let previousEnd = 0;
  starts.forEach((start, k) => {
    const page = runs[start].page;
    const { lines, end } = addressBlock(runs, start, SHIP_TO.exec(runs[start].text)?.[1]?.trim() ?? '');
    const next = starts[k + 1] ?? runs.length;
    // The order id is under the address on Seller Central's slips; some layouts print it beside
    // the address (another column) or above it: look in the slip's own runs first, then above.
    const findId = (from: number, to: number, step: 1 | -1) => {
      for (let i = from; step > 0 ? i < to : i > to && runs[i].page === page; i += step) {
        const id = ORDER_ID.exec(runs[i].text)?.[1];
        if (id && !claimed.has(i)) return { i, id };
      }
      return null;
    };
    const found = findId(start + 1, next, 1) ?? findId(start - 1, previousEnd - 1, -1);
    if (found) claimed.add(found.i);
    previousEnd = end;
    const read = parseShipTo(lines);
    if ('reason' in read) unreadable.push({ page, reason: read.reason });
    else if (!found) unreadable.push({ page, reason: 'the slip has no Order ID' });
    else rows.push({ page, orderId: found.id, shipTo: read.shipTo });
  });
  unreadable.sort((a, b) => a.page - b.page);
  return { rows, unreadable, slips: starts.length, textPages: pages.filter((page) => page.length > 0).length };
}
