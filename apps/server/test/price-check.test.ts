import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_ZIPS_ONE_COUNTRY, type PriceCheck, type PriceCheckRow, type ReferencePackage } from '@portal/contract';
import { adminCall, auditRowsFor, signUpAdmin, signUpCustomer } from './admin-fixtures.ts';
import { startTestApp, type TestApp } from './harness.ts';
import { startEasyPostApp } from './easypost-fixtures.ts';
import type { FakeEasyPost } from './fake-easypost.ts';
import { sandboxQuote } from '../src/providers/labels/sandbox.ts';
import { REFERENCE_PACKAGE_NOT_FOUND } from '../src/modules/price-check/service.ts';

type Admin = Awaited<ReturnType<typeof signUpAdmin>>;
const US_TYPES = ['priority', 'uspsv9', 'ground_oz', 'fedex_ground'];
const UPS_TYPES = ['ups_standard', 'ups_express', 'ups_express_saver', 'ups_express_early', 'ups_expedited'];

async function priceCheck(t: TestApp, admin: Admin, refresh = false): Promise<PriceCheck> {
  const res = await adminCall(t.app, admin.headers, 'GET', `/price-check${refresh ? '?refresh=true' : ''}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const rowOf = (check: PriceCheck, uid: string, packageId: string): PriceCheckRow => {
  const row = check.rows.find((r) => r.labelType.uid === uid && r.package._id === packageId);
  if (!row) throw new Error(`no row for ${uid} and ${packageId}`);
  return row;
};
const packagesOf = (check: PriceCheck, uid: string) => check.rows.filter((r) => r.labelType.uid === uid).map((r) => r.package._id);

describe('the price check against EasyPost (the official client against a fake)', () => {
  let t: TestApp;
  let fake: FakeEasyPost;
  let close = async () => {};
  let admin: Admin;

  beforeAll(async () => {
    ({ t, fake, close } = await startEasyPostApp('embedded', 'price-check'));
    admin = await signUpAdmin(t);
  });
  afterAll(() => close());
  afterEach(() => {
    fake.faults = [];
    fake.rates = {};
  });

  it('prices every enabled type with each reference package of its route, one Shipment a package: cost, our price and the margin in exact cents, a negative one flagged', async () => {
    fake.rates = { FEDEX_GROUND: '7.20', Priority: '2.40' };
    const shipmentsBefore = fake.requests.filter((r) => r === 'POST /v2/shipments').length;
    const check = await priceCheck(t, admin, true);
    expect(fake.requests.filter((r) => r === 'POST /v2/shipments').length - shipmentsBefore).toBe(4);
    expect(check).toMatchObject({ labelProvider: 'easypost', sandbox: false });
    // FedEx Ground sells at $6.50 up to 5 lb: $7.20 upstream is $0.70 below it.
    expect(rowOf(check, 'fedex_ground', 'ref-us-1lb')).toEqual({
      labelType: { uid: 'fedex_ground', name: 'FedEx Ground' },
      package: { _id: 'ref-us-1lb', name: 'Small box 1 lb 10x8x4, New York to Los Angeles' },
      upstream: 'easypost',
      carrier: 'FedEx',
      service: 'FEDEX_GROUND',
      cost: 7.2,
      price: 6.5,
      margin: -0.7,
      marginPercent: -10.8,
      negative: true,
      notRated: false,
      unavailable: false,
      message: null,
    });
    // Priority Mail sells at $4.50 up to 1 lb: $2.40 upstream leaves $2.10 (46.7 %).
    expect(rowOf(check, 'priority', 'ref-us-1lb')).toMatchObject({ cost: 2.4, price: 4.5, margin: 2.1, marginPercent: 46.7, negative: false });
    // 5 lb is the Priority tier of $6.75: $4.35.
    expect(rowOf(check, 'priority', 'ref-us-5lb')).toMatchObject({ cost: 2.4, price: 6.75, margin: 4.35, negative: false });
    expect(check.negative).toBe(check.rows.filter((r) => r.negative).length);
    expect(check.negative).toBeGreaterThanOrEqual(3); // FedEx Ground with each US package
    // The US types with the US packages only, the UPS (Canada) types with the Canadian one only.
    for (const uid of US_TYPES) expect(packagesOf(check, uid).every((id) => id.startsWith('ref-us-'))).toBe(true);
    expect(packagesOf(check, 'priority')).toEqual(['ref-us-8oz', 'ref-us-1lb', 'ref-us-5lb']);
    for (const uid of UPS_TYPES) expect(packagesOf(check, uid)).toEqual(['ref-ca-2lb']);
    // ground_oz (at most 15.99 oz) takes only the 8 oz package.
    expect(packagesOf(check, 'ground_oz')).toEqual(['ref-us-8oz']);

    const overview = await adminCall(t.app, admin.headers, 'GET', '/overview');
    expect(overview.json().priceCheck).toMatchObject({ checkedAt: check.checkedAt, negative: check.negative });
  });

  it('a mapped service the upstream does not rate for the route is flagged before any customer meets it; the mapping editor is offered the rated names', async () => {
    type Listed = {
      uid: string;
      mappings: {
        upstream: string;
        mapping: { carrier: string; service: string } | null;
        offered: { carrier: string; service: string }[] | null;
        rated: boolean | null;
      }[];
    };
    // Each type's mapping at EasyPost, the shop's one upstream here.
    const atEasyPost = (s: Listed) => s.mappings.find((m) => m.upstream === 'easypost')!;
    const before = atEasyPost(
      ((await adminCall(t.app, admin.headers, 'GET', '/upstream-services')).json().services as Listed[]).find((s) => s.uid === 'ups_express')!,
    );
    const mapped = await adminCall(t.app, admin.headers, 'PUT', '/label-types/ups_express/upstream/easypost', {
      carrier: 'UPS',
      service: 'NoSuchService',
      carrierAccount: '',
    });
    expect(mapped.statusCode).toBe(200);
    try {
      // The change made the kept check out of date: this read runs it again.
      const check = await priceCheck(t, admin);
      expect(rowOf(check, 'ups_express', 'ref-ca-2lb')).toMatchObject({
        carrier: 'UPS',
        service: 'NoSuchService',
        cost: null,
        margin: null,
        notRated: true,
        negative: false,
        message: 'UPS NoSuchService is not rated for this route',
      });
      expect(check.notRated).toBeGreaterThanOrEqual(1);
      expect((await adminCall(t.app, admin.headers, 'GET', '/overview')).json().priceCheck).toMatchObject({ notRated: check.notRated });

      const services = (await adminCall(t.app, admin.headers, 'GET', '/upstream-services')).json().services as Listed[];
      const upsExpress = atEasyPost(services.find((s) => s.uid === 'ups_express')!);
      expect(upsExpress.rated).toBe(false);
      expect(upsExpress.offered!.some((o) => o.carrier === 'UPS')).toBe(true);
      expect(upsExpress.offered).not.toContainEqual({ carrier: 'UPS', service: 'NoSuchService' });
      // Priority's mapping is one of the services rated inside the US.
      const priority = atEasyPost(services.find((s) => s.uid === 'priority')!);
      expect(priority).toMatchObject({ rated: true });
      expect(priority.offered).toContainEqual({ carrier: 'USPS', service: 'Priority' });
    } finally {
      await adminCall(t.app, admin.headers, 'PUT', '/label-types/ups_express/upstream/easypost', {
        carrier: before.mapping!.carrier,
        service: before.mapping!.service,
        carrierAccount: '',
      });
    }
  });

  it('an upstream that cannot be reached leaves every row "not available now", with no margin', async () => {
    fake.faults.push({ kind: '500', on: 'create', count: 1_000 });
    const check = await priceCheck(t, admin, true);
    expect(check.rows.length).toBeGreaterThan(0);
    expect(check.rows.every((r) => r.unavailable && r.cost === null && r.margin === null && !r.negative)).toBe(true);
    expect(check.unavailable).toBe(check.rows.length);
  });

  it('is kept: a read within the hour asks the upstream nothing; "Check now" (refresh) asks again', async () => {
    const first = await priceCheck(t, admin, true);
    const requests = fake.requests.length;
    const again = await priceCheck(t, admin);
    expect(again.checkedAt).toBe(first.checkedAt);
    expect(fake.requests.length).toBe(requests);
    const kept = await t.db.selectFrom('price_checks').select('checked_at').executeTakeFirstOrThrow();
    expect(kept.checked_at).toBe(first.checkedAt);
    // An hour later (the kept time moved back), the next read runs it again.
    await t.db
      .updateTable('price_checks')
      .set({
        checked_at: new Date(Date.now() - 61 * 60_000).toISOString(),
        result_json: JSON.stringify({ ...first, checkedAt: new Date(Date.now() - 61 * 60_000).toISOString() }),
      })
      .execute();
    const later = await priceCheck(t, admin);
    expect(later.checkedAt > first.checkedAt).toBe(true);
    expect(fake.requests.length).toBeGreaterThan(requests);
  });
});

describe('the price check on the sandbox, and its reference packages', () => {
  let t: TestApp;
  let admin: Admin;
  let customer: Awaited<ReturnType<typeof signUpCustomer>>;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await signUpAdmin(t);
    customer = await signUpCustomer(t);
  });
  afterAll(() => t.close());

  it("says the rates are the sandbox's, and its margins are our price less the sandbox's cost, in exact cents", async () => {
    const check = await priceCheck(t, admin, true);
    expect(check).toMatchObject({ labelProvider: 'sandbox', sandbox: true, negative: 0, notRated: 0, unavailable: 0 });
    const party = (zip: string) => ({ name: '', company: '', street: '', street2: '', city: '', state: '', zip, country: 'United States', phone: '' });
    const sandbox = sandboxQuote({
      quoteId: 'x',
      from: party('10001'),
      to: party('90012'),
      weight: 5,
      weightUnit: 'lb',
      length: 12,
      width: 12,
      height: 8,
      shipDate: '2026-12-01',
      wanted: [{ uid: 'fedex_ground', upstream: null, priceCents: 650 }],
    });
    const costCents = (sandbox.rates[0] as { costCents: number }).costCents;
    expect(rowOf(check, 'fedex_ground', 'ref-us-5lb')).toMatchObject({
      cost: costCents / 100,
      price: 6.5,
      margin: (650 - costCents) / 100,
      marginPercent: Math.round(((650 - costCents) * 1000) / 650) / 10,
      negative: false,
    });
  });

  it('an admin lists, adds, edits and deletes reference packages (each audited); the next check prices with them', async () => {
    const list = await adminCall(t.app, admin.headers, 'GET', '/reference-packages');
    expect(list.statusCode).toBe(200);
    expect((list.json().packages as ReferencePackage[]).map((p) => [p._id, p.country])).toEqual([
      ['ref-us-8oz', 'United States'],
      ['ref-us-1lb', 'United States'],
      ['ref-us-5lb', 'United States'],
      ['ref-ca-2lb', 'Canada'],
    ]);
    await priceCheck(t, admin, true);

    const added = await adminCall(t.app, admin.headers, 'POST', '/reference-packages', {
      name: 'Heavy box, Vancouver to Montreal',
      weight: 30,
      weightUnit: 'lb',
      length: 20,
      width: 16,
      height: 12,
      fromZip: 'v6b 1a1',
      toZip: 'H3B 2Y5',
    });
    expect(added.statusCode, added.body).toBe(200);
    const created = added.json().package as ReferencePackage;
    expect(created).toMatchObject({ name: 'Heavy box, Vancouver to Montreal', weight: 30, fromZip: 'V6B 1A1', country: 'Canada' });
    // The kept check was of the old packages: the next read prices the new one too (UPS Standard's $22 tier for 30 lb).
    const check = await priceCheck(t, admin);
    expect(rowOf(check, 'ups_standard', created._id)).toMatchObject({ price: 22 });
    expect(packagesOf(check, 'priority')).not.toContain(created._id);

    const edited = await adminCall(t.app, admin.headers, 'PUT', `/reference-packages/${created._id}`, {
      name: 'Box, Vancouver to Montreal',
      weight: 3,
      weightUnit: 'lb',
      fromZip: 'V6B 1A1',
      toZip: 'H3B 2Y5',
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().package).toMatchObject({ name: 'Box, Vancouver to Montreal', weight: 3, length: null, width: null, height: null });
    expect(rowOf(await priceCheck(t, admin), 'ups_standard', created._id)).toMatchObject({ price: 9.5 });

    const deleted = await adminCall(t.app, admin.headers, 'DELETE', `/reference-packages/${created._id}`);
    expect(deleted.json()).toEqual({ message: 'Reference package deleted' });
    expect(packagesOf(await priceCheck(t, admin), 'ups_standard')).toEqual(['ref-ca-2lb']);
    expect((await adminCall(t.app, admin.headers, 'DELETE', `/reference-packages/${created._id}`)).json()).toMatchObject({
      message: REFERENCE_PACKAGE_NOT_FOUND,
    });

    const audit = await auditRowsFor(t, created._id);
    expect(audit.map((r) => [r.action, r.admin_id])).toEqual([
      ['reference_package.create', admin.userId],
      ['reference_package.update', admin.userId],
      ['reference_package.delete', admin.userId],
    ]);
    expect(JSON.parse(audit[1].before_json!)).toMatchObject({ weight: 30 });
    expect(JSON.parse(audit[1].after_json!)).toMatchObject({ weight: 3 });
  });

  it('refuses a package of two countries, part of its dimensions, or an unknown id (404)', async () => {
    const base = { name: 'Bad', weight: 1, weightUnit: 'lb', fromZip: '10001', toZip: '90012' };
    const twoCountries = await adminCall(t.app, admin.headers, 'POST', '/reference-packages', { ...base, toZip: 'M5V 3L9' });
    expect(twoCountries.statusCode).toBe(400);
    expect(twoCountries.body).toContain(REFERENCE_ZIPS_ONE_COUNTRY);
    const partial = await adminCall(t.app, admin.headers, 'POST', '/reference-packages', { ...base, length: 10 });
    expect(partial.statusCode).toBe(400);
    expect(partial.body).toContain('Give the length, width and height, or none of them');
    const badZip = await adminCall(t.app, admin.headers, 'POST', '/reference-packages', { ...base, fromZip: '1000' });
    expect(badZip.statusCode).toBe(400);
    const unknown = await adminCall(t.app, admin.headers, 'PUT', '/reference-packages/nope', base);
    expect(unknown.statusCode).toBe(404);
  });

  it('refuses a customer (403) the price check and every reference package change, and changes nothing', async () => {
    const body = { name: 'Customer box', weight: 1, weightUnit: 'lb', fromZip: '10001', toZip: '90012' };
    const calls: ['GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?][] = [
      ['GET', '/price-check'],
      ['GET', '/reference-packages'],
      ['POST', '/reference-packages', body],
      ['PUT', '/reference-packages/ref-us-1lb', body],
      ['DELETE', '/reference-packages/ref-us-1lb'],
    ];
    for (const [method, path, payload] of calls)
      expect((await adminCall(t.app, customer.headers, method, path, payload)).statusCode, `${method} ${path}`).toBe(403);
    const packages = await t.db.selectFrom('reference_packages').select(['id', 'name', 'weight']).where('id', '=', 'ref-us-1lb').executeTakeFirstOrThrow();
    expect(packages).toEqual({ id: 'ref-us-1lb', name: 'Small box 1 lb 10x8x4, New York to Los Angeles', weight: 1 });
  });
});
