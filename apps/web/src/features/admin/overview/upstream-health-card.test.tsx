// The upstreams' health on the overview, rendered by React to markup (renderToStaticMarkup: no DOM, no effects).
import { renderToStaticMarkup } from 'react-dom/server';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { beforeAll, expect, it, vi } from 'vitest';
import type { AdminUpstreamHealth, UpstreamHealth } from '@portal/contract';
import { formatDate } from '../../../components/format.ts';

type Modules = typeof import('./upstream-health-card.tsx') & { upstreamHealthQuery: typeof import('../../../api/admin.ts').upstreamHealthQuery };
let m: Modules;
beforeAll(async () => {
  // client.ts reads the page's address and sets a global when it loads.
  vi.stubGlobal('window', { location: { href: 'https://shop.test/', origin: 'https://shop.test' } });
  m = { ...(await import('./upstream-health-card.tsx')), ...(await import('../../../api/admin.ts')) };
  return () => vi.unstubAllGlobals();
});

const upstream = (name: string, fields: Partial<UpstreamHealth> = {}): UpstreamHealth => ({
  name,
  state: 'closed',
  lastError: null,
  lastErrorAt: null,
  probeAt: null,
  p95Ms: null,
  callsLastHour: 0,
  faultsLastHour: 0,
  rateLimitedLastHour: 0,
  purchasesLastHour: 0,
  ...fields,
});

const render = (data: AdminUpstreamHealth) => {
  const client = new QueryClient();
  client.setQueryData(m.upstreamHealthQuery().queryKey, data);
  return renderToStaticMarkup(
    <QueryClientProvider client={client}>
      <m.UpstreamHealthCard />
    </QueryClientProvider>,
  );
};
/** Each row's upstream and its cells' text. */
const rows = (html: string) =>
  [...html.matchAll(/<tr data-testid="upstream-health-row" data-upstream="([^"]+)"[^>]*>(.*?)<\/tr>/g)].map(([, name, cells]) => [
    name,
    [...cells.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map(([, cell]) =>
      cell
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    ),
  ]);

it('shows each upstream in order of preference with its state, last error, p95 and last hour', () => {
  const at = '2026-11-29T15:00:00.000Z';
  const html = render({
    upstreams: [
      upstream('shippo', {
        state: 'open',
        lastError: 'Shippo answered 502',
        lastErrorAt: at,
        probeAt: '2026-11-29T15:00:10.000Z',
        p95Ms: 840,
        callsLastHour: 12,
        faultsLastHour: 3,
        rateLimitedLastHour: 2,
      }),
      upstream('easypost', { p95Ms: 310, callsLastHour: 40, purchasesLastHour: 9 }),
      upstream('sandbox', { state: 'half-open' }),
    ],
    policy: 'preference',
  });
  expect(rows(html)).toEqual([
    [
      'shippo',
      [
        'Shippo',
        `Unhealthy — skipped until the next probe at ${formatDate('2026-11-29T15:00:10.000Z')}`,
        `Shippo answered 502 ${formatDate(at)}`,
        '840 ms',
        '12',
        '3',
        '2',
        '0',
      ],
    ],
    ['easypost', ['EasyPost', 'Healthy', 'none', '310 ms', '40', '0', '0', '9']],
    ['sandbox', ['Sandbox', 'Probing', 'none', '—', '0', '0', '0', '0']],
  ]);
  expect(html).toContain('data-testid="upstream-policy">Buys at the first healthy upstream</span>');
  // Cards at phone width.
  expect(html).toContain('table-stack');
});

it('names the cheapest policy', () => {
  expect(render({ upstreams: [upstream('easypost')], policy: 'cheapest' })).toContain('Buys the cheapest rate among healthy upstreams');
  expect(m.UPSTREAM_HEALTH_REFRESH_MS).toBeLessThanOrEqual(10_000);
});
