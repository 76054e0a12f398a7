// The console's read factories (api/admin.ts, which only features/admin imports): each read has its own key, a list's
// pages differ only by their page (usePagedList starts a list again at page 1 when the key of page 1 changes), and
// every key starts alike, so a write refreshes the whole console, and no customer's key starts so.
import { hashKey } from '@tanstack/react-query';
import { beforeAll, describe, expect, it, vi } from 'vitest';

const load = async () => ({
  ...(await import('../../api/admin.ts')),
  ...(await import('../../api/orders.ts')),
  ...(await import('../../api/current-user.ts')),
});
let q: Awaited<ReturnType<typeof load>>;
beforeAll(async () => {
  // client.ts reads the page's address and sets a global when it loads.
  vi.stubGlobal('window', { location: { href: 'https://shop.test/', origin: 'https://shop.test' } });
  q = await load();
  return () => vi.unstubAllGlobals();
});

/** Every paged list's factory, as a function of its page, for two filters (or one, for a list without a filter). */
const pagedLists = () => ({
  users: [(page: number) => q.usersQuery('', page), (page: number) => q.usersQuery('ann', page)],
  userStatement: [(page: number) => q.userStatementQuery('u1', page), (page: number) => q.userStatementQuery('u2', page)],
  userInvoices: [(page: number) => q.userInvoicesQuery('u1', page), (page: number) => q.userInvoicesQuery('u2', page)],
  orders: [(page: number) => q.adminOrdersQuery({}, page), (page: number) => q.adminOrdersQuery({ search: 'ann' }, page)],
  refunds: [(page: number) => q.adminRefundsQuery('requested', page), (page: number) => q.adminRefundsQuery('stuck', page)],
  bulkOrders: [(page: number) => q.adminBulkOrdersQuery({}, page), (page: number) => q.adminBulkOrdersQuery({ status: 'failed' }, page)],
  invoices: [(page: number) => q.adminInvoicesQuery({}, page), (page: number) => q.adminInvoicesQuery({ user: 'u1' }, page)],
  audit: [(page: number) => q.auditQuery({}, page), (page: number) => q.auditQuery({ admin: '@op' }, page)],
  fedexQueue: [q.fedexQueueQuery, q.fedexHistoryQuery],
  outbox: [q.outboxQuery],
});
const singles = () => [
  q.overviewQuery(),
  q.userQuery('u1'),
  q.adminLabelTypesQuery(),
  q.upstreamServicesQuery(),
  q.priceCheckQuery(),
  q.referencePackagesQuery(),
  q.adminFedexPriceQuery(),
  q.adminContentQuery(),
  q.adminOrderQuery('o1'),
];

describe("the console's read factories", () => {
  it('give every read a key of its own, all starting alike, as no customer key does', () => {
    const pages = Object.values(pagedLists()).flatMap((lists) => lists.flatMap((list) => [list(1), list(2)]));
    const keys = [...singles(), ...pages].map((options) => options.queryKey);
    expect(keys.length).toBe(9 + 2 * 19);
    expect(new Set(keys.map(hashKey)).size).toBe(keys.length);
    expect(new Set(keys.map((key) => key[0])).size).toBe(1);
    const customer = [q.accessQuery(), q.orderCountQuery(), q.orderHistoryQuery({ search: '', status: 'all', sort: 'desc' }, 1)];
    expect(customer.filter((options) => options.queryKey[0] === keys[0][0])).toEqual([]);
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
    expect(typeof q.adminOrderQuery('o1').queryFn).toBe('function');
    expect(typeof q.adminOrderQuery(null).queryFn).toBe('symbol'); // skipToken
  });
});
