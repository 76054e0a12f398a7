// The fake EasyPost is strict: it rates what EasyPost rates for the Shipment's route, within each carrier's weight and
// size, says why a carrier did not rate, and keeps what it was sent. Asked through the official client, as the shop does.
import EasyPostClient from '@easypost/api';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isRefusedConnection } from '../src/providers/labels/upstream-call.ts';
import { RATE_ERRORS, fakeDeliveryDays, fakeRate, startFakeEasyPost, type FakeEasyPost } from './fake-easypost.ts';
import { CA_RECIPIENT, CA_SENDER, RECIPIENT, SENDER, type Party } from './sample-addresses.ts';

const COUNTRY: Record<string, string> = { 'United States': 'US', Canada: 'CA' };
const address = (party: Party, withCountry = true) => ({
  name: party.name,
  street1: party.street,
  city: party.city,
  state: party.state,
  zip: party.zip,
  ...(withCountry ? { country: COUNTRY[party.country] } : {}),
});

describe('the fake EasyPost', () => {
  let fake: FakeEasyPost;
  let client: InstanceType<typeof EasyPostClient>;
  beforeAll(async () => {
    fake = await startFakeEasyPost();
    client = new EasyPostClient(fake.apiKey, { baseUrl: fake.url } as any);
  });
  afterAll(() => fake.close());
  afterEach(() => {
    fake.rates = {};
    fake.rateErrors.clear();
  });

  const ship = (from: Party, to: Party, parcel: Record<string, number>, more: Record<string, unknown> = {}) =>
    client.Shipment.create({ from_address: address(from), to_address: address(to), parcel, ...more } as any) as Promise<any>;
  const services = (shipment: any) => shipment.rates.map((r: any) => `${r.carrier} ${r.service}`).sort();

  it('rates the services of each route only, at its published rates, growing with weight and distance', async () => {
    const domestic = await ship(SENDER, RECIPIENT, { weight: 32 });
    expect(services(domestic)).toEqual(
      [
        'FedEx FEDEX_2_DAY',
        'FedEx FEDEX_GROUND',
        'FedEx STANDARD_OVERNIGHT',
        'UPS 2ndDayAir',
        'UPS 3DaySelect',
        'UPS Ground',
        'UPS NextDayAir',
        'UPS NextDayAirEarlyAM',
        'UPS NextDayAirSaver',
        'USPS Express',
        'USPS GroundAdvantage',
        'USPS Priority',
      ].sort(),
    );
    const priority = domestic.rates.find((r: any) => r.service === 'Priority');
    const days = fakeDeliveryDays('USPS', 'Priority', SENDER.zip, RECIPIENT.zip);
    expect(priority).toMatchObject({
      object: 'Rate',
      carrier: 'USPS',
      rate: fakeRate('USPS', 'Priority', 32, SENDER.zip, RECIPIENT.zip),
      currency: 'USD',
      est_delivery_days: days,
      delivery_days: days,
      delivery_date_guaranteed: false,
      carrier_account_id: 'ca_usps',
      shipment_id: domestic.id,
    });
    expect(priority.rate).toMatch(/^\d+\.\d\d$/);
    expect(Number(priority.retail_rate)).toBeGreaterThan(Number(priority.rate));
    expect(Number(priority.list_rate)).toBeGreaterThan(Number(priority.rate));
    expect(domestic.messages).toHaveLength(0);

    const price = (ounces: number, from: string, to: string) => Number(fakeRate('USPS', 'Priority', ounces, from, to));
    expect(price(80, SENDER.zip, RECIPIENT.zip)).toBeGreaterThan(price(32, SENDER.zip, RECIPIENT.zip));
    expect(price(32, SENDER.zip, RECIPIENT.zip)).toBeGreaterThan(price(32, SENDER.zip, '10301'));
    expect(fakeDeliveryDays('USPS', 'GroundAdvantage', SENDER.zip, RECIPIENT.zip)!).toBeGreaterThan(
      fakeDeliveryDays('USPS', 'GroundAdvantage', SENDER.zip, '10301')!,
    );

    const canada = await ship(CA_SENDER, CA_RECIPIENT, { weight: 32 });
    expect(services(canada)).toEqual(['UPS Expedited', 'UPS Express', 'UPS ExpressPlus', 'UPS UPSSaver', 'UPS UPSStandard']);
    expect(canada.rates.find((r: any) => r.service === 'UPSStandard').rate).toBe(fakeRate('UPS', 'UPSStandard', 32, CA_SENDER.zip, CA_RECIPIENT.zip));
    // The US names get no rate inside Canada, whatever fake.rates says.
    fake.rates.Ground = '1.00';
    expect(services(await ship(CA_SENDER, CA_RECIPIENT, { weight: 32 }))).not.toContain('UPS Ground');
    expect(fakeRate('UPS', 'Ground', 32, CA_SENDER.zip, CA_RECIPIENT.zip)).toBeNull();

    const international = await ship(SENDER, CA_RECIPIENT, { weight: 32 });
    expect(services(international)).toEqual([
      'FedEx INTERNATIONAL_ECONOMY',
      'UPS Expedited',
      'UPS Express',
      'UPS UPSStandard',
      'USPS PriorityMailInternational',
    ]);
    // No country: the route is read from the ZIPs' shapes.
    const byZip = await client.Shipment.create({
      from_address: address(SENDER, false),
      to_address: address(CA_RECIPIENT, false),
      parcel: { weight: 32 },
    } as any);
    expect(services(byZip)).toEqual(services(international));
    // Elsewhere (no carrier of the fake goes there): no rates.
    const abroad = await client.Shipment.create({
      from_address: address(SENDER),
      to_address: { ...address(RECIPIENT), zip: 'SW1A 1AA', country: 'GB' },
      parcel: { weight: 32 },
    } as any);
    expect(abroad.rates).toEqual([]);
  });

  it('leaves a carrier that cannot take the parcel out, with its reason in messages: over its weight, over its size, or not answering', async () => {
    const heavy = await ship(SENDER, RECIPIENT, { weight: 1121 });
    expect(services(heavy).filter((s: string) => s.startsWith('USPS'))).toEqual([]);
    expect(services(heavy)).toContain('UPS Ground');
    expect(heavy.messages).toMatchObject([{ carrier: 'USPS', carrier_account_id: 'ca_usps', type: 'rate_error', message: RATE_ERRORS.overWeight('USPS') }]);
    const tooHeavy = await ship(SENDER, RECIPIENT, { weight: 2401 });
    expect(tooHeavy.rates).toEqual([]);
    expect(tooHeavy.messages.map((m: any) => m.carrier).sort()).toEqual(['FedEx', 'UPS', 'USPS']);

    // 40 x 30 x 20 in: length + girth 140, over USPS's 130, within UPS's and FedEx's 165.
    const large = await ship(SENDER, RECIPIENT, { weight: 32, length: 40, width: 30, height: 20 });
    expect(large.messages).toMatchObject([{ carrier: 'USPS', carrier_account_id: 'ca_usps', type: 'rate_error', message: RATE_ERRORS.overSize('USPS') }]);
    expect(services(large)).toContain('FedEx FEDEX_GROUND');
    // 110 in long: over UPS's and FedEx's 108, within USPS's length + girth (126).
    const long = await ship(SENDER, RECIPIENT, { weight: 32, length: 110, width: 4, height: 4 });
    expect(long.messages.map((m: any) => [m.carrier, m.message])).toEqual([
      ['FedEx', RATE_ERRORS.overSize('FedEx')],
      ['UPS', RATE_ERRORS.overSize('UPS')],
    ]);

    fake.rateErrors.add('FedEx');
    const down = await ship(SENDER, RECIPIENT, { weight: 32 });
    expect(services(down).filter((s: string) => s.startsWith('FedEx'))).toEqual([]);
    expect(down.messages).toMatchObject([{ carrier: 'FedEx', carrier_account_id: 'ca_fedex', type: 'rate_error', message: RATE_ERRORS.unavailable('FedEx') }]);
  });

  it("takes a rate of its own in place of a service's, keeps the options it was sent, and buys only a rate of the Shipment", async () => {
    fake.rates.Priority = '2.05';
    const options = { label_format: 'PDF', label_date: '2026-12-01T00:00:00Z', print_custom_1: 'PO 1234', print_custom_2: 'Shelf B' };
    const shipment = await ship(SENDER, RECIPIENT, { weight: 32 }, { options });
    expect(shipment.rates.find((r: any) => r.service === 'Priority').rate).toBe('2.05');
    expect(shipment.options).toMatchObject(options);
    expect(fake.shipments.get(shipment.id).options).toEqual(options);
    expect((await client.Shipment.retrieve(shipment.id)).options).toMatchObject(options);

    const other = await ship(SENDER, RECIPIENT, { weight: 32 });
    await expect(client.Shipment.buy(shipment.id, other.rates[0].id)).rejects.toMatchObject({ statusCode: 422 });
    const bought = await client.Shipment.buy(shipment.id, shipment.rates.find((r: any) => r.service === 'Priority').id);
    expect(bought.selected_rate).toMatchObject({ carrier: 'USPS', service: 'Priority', rate: '2.05' });
  });

  it('makes a ScanForm only of bought, unrefunded Shipments of one from address and carrier account dated today or later, each on one form', async () => {
    const bought = async (from: Party, service = 'Priority', more: Record<string, unknown> = {}) => {
      const shipment = await ship(from, RECIPIENT, { weight: 16 }, more);
      const rate = shipment.rates.find((r: any) => r.service === service);
      return (await client.Shipment.buy(shipment.id, rate.id)) as any;
    };
    const refusal = (shipments: any[]) =>
      client.ScanForm.create({ shipments } as any).then(
        () => 'made',
        (error: { message: string }) => error.message,
      );
    const [a, b] = [await bought(SENDER), await bought(SENDER)];
    // Let through: two labels of one sender.
    const form: any = await client.ScanForm.create({ shipments: [a, b] } as any);
    expect(form).toMatchObject({ object: 'ScanForm', status: 'created', tracking_codes: [a.tracking_code, b.tracking_code] });
    expect(form.form_url).toMatch(/\.pdf$/);
    // Refused: a label already on a form, two from addresses, two carrier accounts, a refunded label, one not bought, a past date.
    expect(await refusal([a])).toMatch(/already on ScanForm/);
    const other = { ...SENDER, street: '99 Other Street' };
    expect(await refusal([await bought(SENDER), await bought(other)])).toMatch(/same from address/);
    expect(await refusal([await bought(SENDER), await bought(SENDER, 'FEDEX_GROUND')])).toMatch(/same carrier account/);
    const refunded = await bought(SENDER);
    await client.Shipment.refund(refunded.id);
    expect(await refusal([refunded])).toMatch(/was refunded/);
    expect(await refusal([await ship(SENDER, RECIPIENT, { weight: 16 })])).toMatch(/has no postage/);
    expect(await refusal([await bought(SENDER, 'Priority', { options: { label_date: '2020-01-02T12:00:00Z' } })])).toMatch(/label_date in the past/);
    // A form made in the background is created when it is next read, and listed newest first.
    fake.scanFormStatus = 'creating';
    const later: any = await client.ScanForm.create({ shipments: [await bought(SENDER)] } as any);
    fake.scanFormStatus = 'created';
    expect(later).toMatchObject({ status: 'creating', form_url: null });
    expect(await client.ScanForm.retrieve(later.id)).toMatchObject({ status: 'created' });
    expect(((await client.ScanForm.all({ page_size: 1 } as any)) as any).scan_forms.map((f: any) => f.id)).toEqual([later.id]);
  });

  it('refuses connections while it does not listen, and takes them again on the same port', async () => {
    await fake.listen(false);
    const refused = await ship(SENDER, RECIPIENT, { weight: 32 }).catch((error) => error);
    expect(isRefusedConnection(refused)).toBe(true);
    await fake.listen(true);
    expect((await ship(SENDER, RECIPIENT, { weight: 32 })).rates.length).toBeGreaterThan(0);
  });
});
