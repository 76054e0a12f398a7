// The mapping editor per upstream, rendered by React to markup (renderToStaticMarkup: no DOM, no effects), and the
// errors it shows under its fields before sending.
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { AdminUpstreamServices, UpstreamHealth } from '@portal/contract';

type Modules = typeof import('./upstream-services-card.tsx') & { upstreamServicesQuery: typeof import('../../../api/admin.ts').upstreamServicesQuery };
let m: Modules;
beforeAll(async () => {
  // client.ts reads the page's address and sets a global when it loads.
  vi.stubGlobal('window', { location: { href: 'https://shop.test/', origin: 'https://shop.test' } });
  m = { ...(await import('./upstream-services-card.tsx')), ...(await import('../../../api/admin.ts')) };
  return () => vi.unstubAllGlobals();
});

const health = (name: string): UpstreamHealth => ({
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
});
type Service = AdminUpstreamServices['services'][number];
const UPS_EXPRESS: Service = {
  _id: 't1',
  uid: 'ups_express',
  name: 'UPS Express (Canada)',
  mappings: [
    {
      upstream: 'easypost',
      configured: true,
      mapping: { carrier: 'UPS', service: 'Express', carrierAccount: null },
      offered: [
        { carrier: 'UPS', service: 'Express' },
        { carrier: 'UPS', service: 'Expedited' },
        { carrier: 'USPS', service: 'Priority' },
      ],
      rated: true,
    },
    { upstream: 'shippo', configured: false, mapping: { carrier: 'UPS', service: 'ups_express', carrierAccount: 'ca_1' }, offered: null, rated: null },
  ],
};
const PRIORITY: Service = {
  _id: 't2',
  uid: 'priority',
  name: 'USPS Priority',
  mappings: [
    {
      upstream: 'easypost',
      configured: true,
      mapping: { carrier: 'USPS', service: 'Gone', carrierAccount: null },
      offered: [{ carrier: 'USPS', service: 'Priority' }],
      rated: false,
    },
    { upstream: 'shippo', configured: false, mapping: null, offered: null, rated: null },
  ],
};
const UNMAPPED: Service = {
  _id: 't3',
  uid: 'uspsv9',
  name: 'USPS v9',
  mappings: [
    { upstream: 'easypost', configured: true, mapping: null, offered: null, rated: null },
    { upstream: 'shippo', configured: false, mapping: { carrier: 'USPS', service: 'usps_priority', carrierAccount: null }, offered: null, rated: null },
  ],
};
const answer = (upstreams: string[]): AdminUpstreamServices => ({
  upstreams: upstreams.map(health),
  policy: 'cheapest',
  services: [UPS_EXPRESS, PRIORITY, UNMAPPED],
});

const render = (data: AdminUpstreamServices) => {
  const client = new QueryClient();
  client.setQueryData(m.upstreamServicesQuery().queryKey, data);
  return renderToStaticMarkup(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <m.UpstreamServicesCard />
      </MemoryRouter>
    </QueryClientProvider>,
  );
};
/** The markup of one type's editor at one upstream. */
const editor = (html: string, uid: string, upstream: string) => {
  const at = html.indexOf(`data-testid="upstream-mapping" data-uid="${uid}" data-upstream="${upstream}"`);
  expect(at).toBeGreaterThan(-1);
  const next = html.indexOf('data-testid="upstream-mapping"', at + 1);
  return html.slice(html.lastIndexOf('<div', at), next < 0 ? undefined : html.lastIndexOf('<div', next));
};
/** The button of that name in that markup, disabled or not. */
const disabled = (html: string, name: string) => {
  const tag = html.match(new RegExp(`<button[^>]*aria-label="${name}"[^>]*>`));
  expect(tag).not.toBeNull();
  return tag![0].includes('disabled');
};
const selectOptions = (html: string) => [...html.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map(([, value, text]) => [value, text]);

describe('the mapping editor per upstream', () => {
  it('gives every label type one editor per selling upstream, titled by its name', () => {
    const html = render(answer(['easypost']));
    for (const uid of ['ups_express', 'priority', 'uspsv9']) {
      expect(editor(html, uid, 'easypost')).toContain('<h4 class="h6 mb-0 me-auto">EasyPost</h4>');
      expect(editor(html, uid, 'shippo')).toContain('<h4 class="h6 mb-0 me-auto">Shippo</h4>');
    }
    expect(html.match(/data-testid="upstream-mapping"/g)).toHaveLength(6);
    expect(html).toContain('aria-label="Carrier of ups_express at Shippo"');
    expect(html).toContain('aria-label="Save the Shippo service of ups_express"');
    expect(html).toContain('data-testid="configured-upstreams">EasyPost</strong>');
  });

  it("offers the upstream's rated services for the carrier, the saved one kept and marked when it is not among them", () => {
    const html = render(answer(['easypost']));
    expect(selectOptions(editor(html, 'ups_express', 'easypost'))).toEqual([
      ['', 'Choose a service'],
      ['Express', 'Express'],
      ['Expedited', 'Expedited'],
    ]);
    expect(selectOptions(editor(html, 'priority', 'easypost'))).toEqual([
      ['', 'Choose a service'],
      ['Priority', 'Priority'],
      ['Gone', 'Gone (not rated for this route)'],
    ]);
    expect(editor(html, 'priority', 'easypost')).toContain('data-testid="not-rated"');
    expect(editor(html, 'ups_express', 'easypost')).not.toContain('data-testid="not-rated"');
    // No check has priced the route there: the service is free text.
    expect(editor(html, 'ups_express', 'shippo')).toMatch(/<input[^>]*aria-label="Service of ups_express at Shippo"[^>]*value="ups_express"/);
  });

  it("mutes an upstream that is not the shop's, saying its mapping can be prepared, and keeps it editable", () => {
    const html = render(answer(['easypost']));
    const shippo = editor(html, 'ups_express', 'shippo');
    expect(shippo).toContain('bg-light text-muted');
    expect(shippo).toContain('Not one of the shop&#x27;s upstreams (LABEL_UPSTREAMS)');
    expect(shippo).toMatch(/aria-label="Carrier account of ups_express at Shippo"[^>]*value="ca_1"/);
    expect(disabled(shippo, 'Save the Shippo service of ups_express')).toBe(false);
    expect(shippo).not.toMatch(/<(input|select)[^>]*disabled/);
    expect(editor(html, 'ups_express', 'easypost')).not.toContain('data-testid="not-configured"');
  });

  it('marks a type not offered when none of the shop\u2019s upstreams maps it, unless the sandbox is one of them', () => {
    const rowOf = (html: string, uid: string) =>
      html.slice(html.indexOf(`data-testid="upstream-row" data-uid="${uid}"`)).split('data-testid="upstream-row"')[1];
    const html = render(answer(['easypost']));
    expect(rowOf(html, 'uspsv9')).toContain('data-testid="not-offered"');
    expect(rowOf(html, 'priority')).not.toContain('data-testid="not-offered"');
    // Clear is for a mapping there is.
    expect(disabled(html, 'Clear the EasyPost service of uspsv9')).toBe(true);
    expect(disabled(html, 'Clear the Shippo service of uspsv9')).toBe(false);
    expect(render(answer(['easypost', 'sandbox']))).not.toContain('data-testid="not-offered"');
  });
});

describe("a mapping's errors, each under its field", () => {
  it('asks for both the carrier and the service, or neither', () => {
    const both = 'Set both the carrier and the service, or neither to stop buying the type at Shippo';
    expect(m.mappingErrors({ carrier: 'UPS', service: ' ', carrierAccount: '' }, 'shippo')).toEqual({ service: both });
    expect(m.mappingErrors({ carrier: '', service: 'ups_ground', carrierAccount: '' }, 'shippo')).toEqual({ carrier: both });
    expect(m.mappingErrors({ carrier: '', service: '', carrierAccount: '' }, 'shippo')).toEqual({});
    expect(m.mappingErrors({ carrier: 'UPS', service: 'ups_ground', carrierAccount: 'ca_1' }, 'easypost')).toEqual({});
  });

  it("holds the contract's limits", () => {
    expect(m.mappingErrors({ carrier: 'U'.repeat(51), service: 'x', carrierAccount: 'a'.repeat(101) }, 'easypost')).toEqual({
      carrier: 'Carrier must be at most 50 characters',
      carrierAccount: 'Carrier account must be at most 100 characters',
    });
  });
});
