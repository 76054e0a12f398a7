// The shared list table and its pager, rendered by React to markup (renderToStaticMarkup: no DOM, no effects).
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { PagedTable, type Columns, type PagedTableProps } from './paged-table.tsx';
import { Pagination, pageJumps } from './pagination.tsx';

type Row = { _id: string; name: string; amount: number };
const ROWS: Row[] = [
  { _id: 'a1', name: 'Ann', amount: -5 },
  { _id: 'b2', name: 'Bob', amount: 7 },
];
const COLUMNS: Columns<Row> = [
  { header: '#', td: { className: 'stack-hide' }, cell: (_, index) => index + 1 },
  { header: 'Name', td: { className: 'stack-key' }, cell: (row) => row.name },
  false, // a column this screen leaves out
  {
    header: 'Amount',
    className: 'text-end',
    th: { style: { minWidth: '10rem' } },
    td: (row) => ({ 'data-label': 'Amount', className: row.amount < 0 ? 'text-danger' : undefined }),
    cell: (row) => `$${row.amount}`,
  },
];

const loaded = { isPending: false, isSuccess: true, error: null, isFetching: false, refetch: async () => undefined };
const render = (props: Partial<PagedTableProps<Row>> = {}) =>
  renderToStaticMarkup(<PagedTable query={loaded} rows={ROWS} columns={COLUMNS} what="the things" empty="No things yet" testId="things-table" {...props} />);
/** The table's body rows, each as its cells' markup. */
const bodyRows = (html: string) =>
  [
    ...html
      .split('<tbody>')[1]
      .split('</tbody>')[0]
      .matchAll(/<tr([^>]*)>(.*?)<\/tr>/g),
  ].map(([, attributes, cells]) => ({
    attributes,
    cells: [...cells.matchAll(/<td([^>]*)>(.*?)<\/td>/g)].map(([, cellAttributes, content]) => ({ attributes: cellAttributes, content })),
  }));

describe('PagedTable', () => {
  it('shows a header per column left in, and each row its cells with their classes and attributes', () => {
    const html = render({ rowProps: (row) => ({ 'data-testid': 'thing-row', 'data-thing-id': row._id }) });
    expect([...html.matchAll(/<th( [^>]*)?>(.*?)<\/th>/g)].map(([, attributes = '', content]) => [content, attributes])).toEqual([
      ['#', ''],
      ['Name', ''],
      ['Amount', ' style="min-width:10rem" class="text-end"'],
    ]);
    expect(bodyRows(html)).toEqual([
      {
        attributes: ' data-testid="thing-row" data-thing-id="a1"',
        cells: [
          { attributes: ' class="stack-hide"', content: '1' },
          { attributes: ' class="stack-key"', content: 'Ann' },
          { attributes: ' data-label="Amount" class="text-end text-danger"', content: '$-5' },
        ],
      },
      {
        attributes: ' data-testid="thing-row" data-thing-id="b2"',
        cells: [
          { attributes: ' class="stack-hide"', content: '2' },
          { attributes: ' class="stack-key"', content: 'Bob' },
          { attributes: ' data-label="Amount" class="text-end"', content: '$7' },
        ],
      },
    ]);
    expect(html).not.toContain('No things yet');
    expect(html).not.toContain('spinner-border');
  });

  it('shows one spinner row across every column until the first answer, and no empty text', () => {
    const html = render({ query: { ...loaded, isPending: true, isSuccess: false }, rows: [] });
    expect(bodyRows(html)).toEqual([
      { attributes: '', cells: [{ attributes: ' colSpan="3" class="text-center"', content: expect.stringContaining('spinner-border spinner-border-sm') }] },
    ]);
    expect(html).not.toContain('No things yet');
  });

  it('says so in one muted row when the answer has no rows', () => {
    const html = render({ rows: [], empty: <span data-testid="things-empty">Nothing here</span> });
    expect(bodyRows(html)).toEqual([
      {
        attributes: '',
        cells: [{ attributes: ' colSpan="3" class="text-center text-muted"', content: '<span data-testid="things-empty">Nothing here</span>' }],
      },
    ]);
  });

  it('shows what could not be loaded, with Retry, above the table', () => {
    const html = render({ query: { ...loaded, isSuccess: false, error: new Error('offline') }, rows: [] });
    expect(html.indexOf('Could not load the things.')).toBeGreaterThan(-1);
    expect(html.indexOf('data-testid="load-error"')).toBeLessThan(html.indexOf('<table'));
    expect(html).toMatch(/<button[^>]*>Retry<\/button>/);
    expect(bodyRows(html)).toEqual([]);
  });

  it('puts the pager with its label below the table, and its classes follow compact, stack and the pager', () => {
    const paged = render({ pager: { label: 'Things pages', page: 2, totalPages: 3, onPageChange: () => undefined }, compact: true, stack: true });
    expect(paged).toContain('<table data-testid="things-table" class="align-middle small mb-3 table-stack table table-sm table-hover">');
    expect(paged.indexOf('<nav aria-label="Things pages"')).toBeGreaterThan(paged.indexOf('</table>'));
    expect(paged).toContain('Page 2 of 3');

    const single = render();
    expect(single).toContain('<table data-testid="things-table" class="align-middle mb-0 table table-hover">');
    expect(single).not.toContain('<nav');
  });
});

describe('Pagination', () => {
  const pager = (page: number, totalPages: number) => renderToStaticMarkup(<Pagination page={page} totalPages={totalPages} onPageChange={() => undefined} />);
  const buttons = (html: string) =>
    [...html.matchAll(/<button([^>]*)>(.*?)<\/button>/g)].map(([, attributes, label]) => `${label}${attributes.includes('disabled') ? ' (disabled)' : ''}`);

  it('offers Prev and Next, disabled at either end, and the page of how many', () => {
    expect(buttons(pager(1, 3))).toEqual(['Prev (disabled)', 'Next']);
    expect(buttons(pager(2, 3))).toEqual(['Prev', 'Next']);
    expect(buttons(pager(3, 3))).toEqual(['Prev', 'Next (disabled)']);
    // No answer yet (0 pages) is one page.
    expect(buttons(pager(1, 0))).toEqual(['Prev (disabled)', 'Next (disabled)']);
    expect(pager(1, 0)).toContain('Page 1 of 1');
  });

  it('from ten pages on, offers the first, the last and the pages around the current one as jumps', () => {
    expect(pageJumps(6, 40)).toEqual([1, null, 4, 5, 6, 7, 8, null, 40]);
    expect(pageJumps(1, 10)).toEqual([1, 2, 3, null, 10]);
    expect(buttons(pager(6, 40))).toEqual(['Prev', '1', '4', '5', '7', '8', '40', 'Next']);
    expect(buttons(pager(6, 9))).toEqual(['Prev', 'Next']);
  });
});
