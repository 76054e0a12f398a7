import { describe, expect, it } from 'vitest';
import { parseShipTo, readPackingSlips, textRuns, type TextRun } from './packing-slips.ts';

/** Lines of a page from the top, 14 points apart; `[x, text]` places a line in a column. */
const page = (...lines: (string | [number, string] | [number, string][])[]): TextRun[] =>
  lines.flatMap((line, i) =>
    (Array.isArray(line[0]) ? (line as [number, string][]) : [typeof line === 'string' ? [40, line] : line]).map(([x, text]) => ({
      x: x as number,
      top: 50 + i * 14,
      text: text as string,
    })),
  );

describe('reading packing slips from text runs', () => {
  it('joins the pieces of a line and keeps columns apart', () => {
    const items = [
      { str: 'Order', x: 40, y: 700, width: 28 },
      { str: 'ID: 111-2223333-4445556', x: 70, y: 700, width: 120 },
      { str: 'Order Date: Nov 23', x: 330, y: 700.5, width: 90 },
      { str: ' ', x: 200, y: 690, width: 3 },
    ];
    expect(textRuns(items, 792)).toEqual([
      { x: 40, top: 92, text: 'Order ID: 111-2223333-4445556' },
      { x: 330, top: 91.5, text: 'Order Date: Nov 23' },
    ]);
  });

  it('reads a name on the label line, skips text beside the block, and finds an order id printed above it', () => {
    const read = readPackingSlips([
      page(
        'Order ID: 111-0000001-0000001',
        'Ship To: Ann Lee',
        [
          [52, '1 Market Street'],
          [400, 'Gift wrap: no'],
        ],
        [52, 'San Francisco, CA 94105'],
        'Shipping Address:',
      ),
    ]);
    expect(read.unreadable).toEqual([]);
    expect(read.rows).toEqual([
      {
        page: 1,
        orderId: '111-0000001-0000001',
        shipTo: { ToName: 'Ann Lee', ToCompany: '', ToStreet: '1 Market Street', ToStreet2: '', ToCity: 'San Francisco', ToState: 'CA', ToZip: '94105' },
      },
    ]);
  });

  it('finds an order id printed beside the Ship To block, in another column', () => {
    const read = readPackingSlips([
      page(
        [
          [40, 'Ship To:'],
          [330, 'Order ID: 111-0000003-0000003'],
        ],
        [
          [52, 'Ann Lee'],
          [330, 'Order Date: Nov 23, 2026'],
        ],
        [52, '1 Market Street'],
        [52, 'San Francisco, CA 94105'],
        'Thank you for buying',
      ),
      page(
        'Ship To:',
        [
          [52, 'Pat Doe'],
          [330, 'Order ID: 111-0000004-0000004'],
        ],
        [52, '22 Elm Drive'],
        [52, 'New York NY 10001'],
      ),
    ]);
    expect(read.unreadable).toEqual([]);
    expect(read.rows.map((r) => [r.page, r.orderId, r.shipTo.ToName])).toEqual([
      [1, '111-0000003-0000003', 'Ann Lee'],
      [2, '111-0000004-0000004', 'Pat Doe'],
    ]);
  });

  it('follows an address block cut by a page break onto the next page', () => {
    const first = page('Ship To:', [52, 'Pat Doe']);
    first.forEach((run) => (run.top += 700)); // at the bottom of the page
    const read = readPackingSlips([first, page([52, '22 Elm Drive'], [52, 'New York NY 10001'], 'Order ID: 111-0000002-0000002')]);
    expect(read.rows.map((r) => [r.page, r.orderId, r.shipTo.ToName, r.shipTo.ToStreet, r.shipTo.ToCity, r.shipTo.ToState])).toEqual([
      [1, '111-0000002-0000002', 'Pat Doe', '22 Elm Drive', 'New York', 'NY'],
    ]);
  });

  it('never guesses an address it cannot read fully', () => {
    expect(parseShipTo(['Ann Lee', 'San Francisco, CA 94105'])).toEqual({ reason: 'the Ship To block has no street' });
    expect(parseShipTo(['Ann Lee', '1 Market Street', 'San Francisco CA'])).toEqual({ reason: '"San Francisco CA" is not a city, state and ZIP' });
    expect(parseShipTo(['Ann Lee', '1 Market Street', 'Springfield, Atlantis 12345'])).toEqual({
      reason: '"Springfield, Atlantis 12345" is not a city, state and ZIP',
    });
    expect(parseShipTo(['Ann Lee', '1 Market Street', 'Toronto, ON 12345'])).toEqual({ reason: 'To State must be a US state, DC or PR' });
    expect(parseShipTo(['Ann Lee', 'x'.repeat(36), 'Austin, TX 78701'])).toEqual({ reason: 'To Street must be at most 35 characters' });
  });
});
