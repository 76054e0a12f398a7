import type { HTMLAttributes, ReactNode, TdHTMLAttributes, ThHTMLAttributes } from 'react';
import { Spinner, Table } from 'react-bootstrap';
import { LoadError } from './load-error.tsx';
import { Pagination, type PaginationProps } from './pagination.tsx';

/** A cell's or a row's attributes, data-* included (a test id, data-label on a table-stack table). */
type Attributes<Element> = Element & { [data: `data-${string}`]: string | undefined };
export type CellAttributes = Attributes<TdHTMLAttributes<HTMLTableCellElement>>;

/** One column of a list: its header, and each row's cell. */
export type Column<Row> = {
  header: ReactNode;
  cell: (row: Row, index: number) => ReactNode;
  /** The class of the header and of every cell under it ('text-end' for amounts). */
  className?: string;
  /** The header cell's own attributes (a minimum width). */
  th?: ThHTMLAttributes<HTMLTableCellElement>;
  /** A body cell's own attributes, from its row or the same for all (data-label on a table-stack table, a title, a class). */
  td?: CellAttributes | ((row: Row) => CellAttributes);
};

/** A column left out (false, for a column only some screens show) is dropped. */
export type Columns<Row> = (Column<Row> | false)[];

type Query = { isPending: boolean; isSuccess: boolean; error: unknown; isFetching: boolean; refetch: () => Promise<unknown> };

export type PagedTableProps<Row extends { _id: string }> = {
  /** The list's query: its spinner while nothing has come, its <LoadError> when it failed. */
  query: Query;
  rows: Row[];
  columns: Columns<Row>;
  /** What the list is, in 'Could not load {what}.' */
  what: string;
  /** What shows in place of the rows when there are none. */
  empty: ReactNode;
  /** The table's test id, and the row's own attributes (its test id, its ids). */
  testId: string;
  rowProps?: (row: Row) => Attributes<HTMLAttributes<HTMLTableRowElement>>;
  /** Small type and tight rows (the console's and the order lists' tables). */
  compact?: boolean;
  /** Each row a card on a phone (table-stack: the cells' data-label names them there). */
  stack?: boolean;
  /** The pager, with its label ('Invoices pages'); none for a list that has one page. */
  pager?: PaginationProps;
};

const join = (...classes: (string | undefined)[]) => classes.filter(Boolean).join(' ') || undefined;

/**
 * A list's table, as every list card shows one: the header, a spinner row until the first answer,
 * a row saying there is nothing, the rows (columns as data), the load error above and the pager below.
 */
export function PagedTable<Row extends { _id: string }>({ query, rows, columns, what, empty, testId, rowProps, compact, stack, pager }: PagedTableProps<Row>) {
  const shown = columns.filter((column) => column !== false);
  const state = (content: ReactNode, muted: boolean) => (
    <tr>
      <td colSpan={shown.length} className={join('text-center', muted ? 'text-muted' : undefined)}>
        {content}
      </td>
    </tr>
  );
  return (
    <>
      <LoadError query={query} what={what} />
      <Table
        responsive
        hover
        size={compact ? 'sm' : undefined}
        className={join('align-middle', compact ? 'small' : undefined, pager ? 'mb-3' : 'mb-0', stack ? 'table-stack' : undefined)}
        data-testid={testId}
      >
        <thead>
          <tr>
            {shown.map((column, i) => (
              <th key={i} {...column.th} className={join(column.className, column.th?.className)}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {query.isPending && state(<Spinner animation="border" size="sm" />, false)}
          {query.isSuccess && rows.length === 0 && state(empty, true)}
          {rows.map((row, index) => (
            <tr key={row._id} {...rowProps?.(row)}>
              {shown.map((column, i) => {
                const td = typeof column.td === 'function' ? column.td(row) : column.td;
                return (
                  <td key={i} {...td} className={join(column.className, td?.className)}>
                    {column.cell(row, index)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </Table>
      {pager && <Pagination {...pager} />}
    </>
  );
}
