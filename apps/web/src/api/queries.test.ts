// The read factories' keys: each read has its own, and a list's pages differ only by their page (usePagedList starts a
// list again at page 1 when the key of page 1 changes). The console's own are checked in features/admin/queries.test.ts.
import { hashKey, type QueryKey } from '@tanstack/react-query';
import { beforeAll, describe, expect, it, vi } from 'vitest';

type Factories = Awaited<ReturnType<typeof load>>;
const load = async () => ({
  ...(await import('./addresses.ts')),
  ...(await import('./auth.ts')),
  ...(await import('./billing.ts')),
  ...(await import('./bulk.ts')),
  ...(await import('./catalog.ts')),
  ...(await import('./content.ts')),
  ...(await import('./current-user.ts')),
  ...(await import('./fedex.ts')),
  ...(await import('./orders.ts')),
  ...(await import('./packages.ts')),
  ...(await import('./reseller.ts')),
  ...(await import('./telegram.ts')),
});

let q: Factories;
beforeAll(async () => {
  // client.ts reads the page's address and sets a global when it loads.
  vi.stubGlobal('window', { location: { href: 'https://shop.test/', origin: 'https://shop.test' } });
  q = await load();
  return () => vi.unstubAllGlobals();
});

const filter = { search: 'ann', status: 'all', sort: 'desc' } as const;
/** Every paged list's factory, as a function of its page, for two filters (or one, for a list without a filter). */
const pagedLists = () => ({
  fedexOrders: [(page: number) => q.fedexOrdersQuery('', page), (page: number) => q.fedexOrdersQuery('ann', page)],
  orderHistory: [(page: number) => q.orderHistoryQuery({ ...filter, search: '' }, page), (page: number) => q.orderHistoryQuery(filter, page)],
  invoices: [q.invoicesQuery],
  statement: [q.statementQuery],
  bulkOrders: [q.bulkOrdersQuery],
});

describe('the read factories', () => {
  it('give every read a key of its own', () => {
    const singles: QueryKey[] = [
      q.accessQuery(),
      q.publicConfigQuery(),
      q.addressesQuery(),
      q.packagesQuery(),
      q.labelTypesQuery(),
      q.priceQuery('priority', 2),
      q.tosQuery(),
      q.faqsQuery(),
      q.announcementQuery(),
      q.telegramQuery(),
      q.telegramLinkQuery(),
      q.webhookQuery(),
      q.resellerDocumentQuery(),
      q.fedexPriceQuery(),
      q.orderCountQuery(),
      q.orderDetailsQuery('o1'),
    ].map((options) => options.queryKey);
    const pages = Object.values(pagedLists()).flatMap((lists) => lists.flatMap((list) => [list(1).queryKey, list(2).queryKey]));
    const keys = [...singles, ...pages].map(hashKey);
    expect(keys.length).toBe(16 + 2 * 7);
    expect(new Set(keys).size).toBe(keys.length);
    // A price per type and weight; an order's details per order.
    expect(hashKey(q.priceQuery('priority', 3).queryKey)).not.toBe(hashKey(q.priceQuery('priority', 2).queryKey));
    expect(hashKey(q.orderDetailsQuery('o2').queryKey)).not.toBe(hashKey(q.orderDetailsQuery('o1').queryKey));
  });

  it("key a list's pages by the page, last, and its filter before it", () => {
    for (const [name, lists] of Object.entries(pagedLists())) {
      for (const list of lists) {
        const [first, second] = [list(1).queryKey, list(2).queryKey];
        expect([name, first.at(-1), second.at(-1)]).toEqual([name, 1, 2]);
        expect([name, hashKey(second.slice(0, -1))]).toEqual([name, hashKey(first.slice(0, -1))]);
      }
      if (lists.length === 2) expect([name, hashKey(lists[1](1).queryKey)]).not.toEqual([name, hashKey(lists[0](1).queryKey)]);
    }
  });

  it('ask nothing for an order while none is open', () => {
    expect(typeof q.orderDetailsQuery('o1').queryFn).toBe('function');
    expect(typeof q.orderDetailsQuery(null).queryFn).toBe('symbol'); // skipToken
  });
});
