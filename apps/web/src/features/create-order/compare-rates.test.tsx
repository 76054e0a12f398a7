// Compare rates' list, rendered by React to markup (renderToStaticMarkup: no DOM, no effects), and the form's package.
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Rate, RatesResponse } from '@portal/contract';
import { formatDay } from '../../components/format.ts';
import type { OutOfDate } from './compare-rates.tsx';

let RatesList: typeof import('./compare-rates.tsx').RatesList;
let ratesPackage: typeof import('./compare-rates.tsx').ratesPackage;
beforeAll(async () => {
  // The API client (the rates call's) reads the page's address when it loads.
  vi.stubGlobal('window', { location: { href: 'https://shop.test/', origin: 'https://shop.test' } });
  ({ RatesList, ratesPackage } = await import('./compare-rates.tsx'));
  return () => vi.unstubAllGlobals();
});

const rate = (uid: string, name: string, fields: Partial<Rate>): Rate => ({
  labelType: { uid, name },
  carrier: 'USPS',
  service: name,
  available: true,
  price: null,
  days: null,
  deliveryDate: null,
  reason: null,
  message: null,
  ...fields,
});
const unavailable = (uid: string, name: string, reason: Rate['reason'], message: string | null) => rate(uid, name, { available: false, reason, message });

const ANSWER: RatesResponse = {
  quoteId: 'q1',
  expiresAt: '2026-12-01T12:15:00.000Z',
  shipDate: '2026-12-01',
  sandbox: true,
  cheapest: 'fedex_ground',
  fastest: 'priority',
  rates: [
    rate('priority', 'USPS Priority Mail', { service: 'Priority', price: 9.5, days: 1, deliveryDate: '2026-12-02' }),
    rate('fedex_ground', 'FedEx Ground', { carrier: 'FedEx', service: 'FEDEX_GROUND', price: 6.5, days: 4, deliveryDate: '2026-12-07' }),
    unavailable('ground_oz', 'USPS Ground (oz)', 'weight', 'USPS Ground (oz) takes 0.1-15.99 oz'),
    unavailable('uspsv9', 'USPS v9', 'size', 'USPS v9 takes a box of at most 15 x 15 x 15 in'),
    unavailable('ups_standard', 'UPS Standard (Canada)', 'route', 'UPS Standard (Canada) ships only inside Canada'),
    unavailable('ups_express', 'UPS Express (Canada)', 'unavailable', 'This service is not available for this package right now'),
  ],
};

const render = (props: { answer?: RatesResponse; selectedUid?: string; outOfDate?: OutOfDate } = {}) =>
  renderToStaticMarkup(<RatesList answer={ANSWER} selectedUid="" outOfDate={null} onChoose={() => {}} {...props} />);

/** Each row as its uid and its cells' text (tags and the badges' markup dropped). */
const rows = (html: string) =>
  [...html.matchAll(/<tr(?: class="([^"]*)")? data-testid="rate-row" data-uid="([^"]+)" data-available="(true|false)">(.*?)<\/tr>/g)].map(
    ([, className = '', uid, available, cells]) => ({
      uid,
      available: available === 'true',
      greyed: className.includes('table-secondary'),
      cells: [...cells.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map(([, content]) =>
        content
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim(),
      ),
    }),
  );

describe('RatesList', () => {
  it('shows each available type with its price, carrier and service, days and delivery date, and marks the cheapest and fastest', () => {
    const [priority, fedex] = rows(render());
    expect(priority).toEqual({
      uid: 'priority',
      available: true,
      greyed: false,
      cells: ['USPS Priority Mail Fastest', 'USPS · Priority', '$9.50', `1 day · ${formatDay('2026-12-02')}`, 'Choose'],
    });
    expect(fedex).toEqual({
      uid: 'fedex_ground',
      available: true,
      greyed: false,
      cells: ['FedEx Ground Cheapest', 'FedEx · FEDEX_GROUND', '$6.50', `4 days · ${formatDay('2026-12-07')}`, 'Choose'],
    });
  });

  it('greys every type that cannot take the package with its reason, and offers no Choose there', () => {
    const greyed = rows(render()).slice(2);
    expect(greyed.map((r) => [r.uid, r.available, r.greyed, r.cells.slice(2)])).toEqual([
      ['ground_oz', false, true, ['Over its weight: USPS Ground (oz) takes 0.1-15.99 oz']],
      ['uspsv9', false, true, ['Over its size: USPS v9 takes a box of at most 15 x 15 x 15 in']],
      ['ups_standard', false, true, ['Not offered for this route: UPS Standard (Canada) ships only inside Canada']],
      // The server's message would only repeat it.
      ['ups_express', false, true, ['Not available right now']],
    ]);
    expect(greyed.every((r) => !r.cells.includes('Choose'))).toBe(true);
  });

  it('says the rates are the sandbox’s only when they are', () => {
    expect(render()).toContain('data-testid="rates-sandbox"');
    expect(render({ answer: { ...ANSWER, sandbox: false } })).not.toContain('data-testid="rates-sandbox"');
  });

  it('marks the selected type Chosen; out of date, it says why and no row can be chosen', () => {
    const chosen = rows(render({ selectedUid: 'fedex_ground' }));
    expect(chosen.map((r) => r.cells.at(-1))).toEqual(['Choose', 'Chosen', ...Array(4).fill(expect.any(String))]);
    expect(render({ selectedUid: 'fedex_ground' })).not.toContain('rates-out-of-date');

    const changed = render({ selectedUid: 'fedex_ground', outOfDate: 'changed' });
    expect(changed).toContain('These rates are out of date: the package, ZIPs or ship date changed. Compare rates again.');
    expect(
      rows(changed)
        .map((r) => r.cells.at(-1))
        .slice(0, 2),
    ).toEqual(['Choose', 'Choose']);
    expect(changed.match(/<button[^>]*disabled=""[^>]*>Choose<\/button>/g)).toHaveLength(2);
    expect(render({ outOfDate: 'expired' })).toContain('These rates expired. Compare rates again to order at a quoted price.');
  });
});

describe('ratesPackage', () => {
  it('is the weight in the form’s unit, the dimensions given and both ZIPs, uppercased as the server takes them', () => {
    expect(ratesPackage({ Weight: '2.5', WeightUnit: 'lb', Length: '10', Width: '', Height: undefined, FromZip: ' 10001 ', ToZip: 'k1a 0b1' })).toEqual({
      Weight: 2.5,
      WeightUnit: 'lb',
      Length: 10,
      Width: undefined,
      Height: undefined,
      FromZip: '10001',
      ToZip: 'K1A 0B1',
      ShipDate: undefined,
    });
  });

  it('is none while the weight is missing or not above zero, or a ZIP is missing', () => {
    expect(ratesPackage({ Weight: '', WeightUnit: 'lb', FromZip: '10001', ToZip: '90210' })).toBeNull();
    expect(ratesPackage({ Weight: '0', WeightUnit: 'lb', FromZip: '10001', ToZip: '90210' })).toBeNull();
    expect(ratesPackage({ Weight: '2', WeightUnit: 'oz', FromZip: '10001', ToZip: ' ' })).toBeNull();
  });
});
