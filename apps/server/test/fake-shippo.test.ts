// The fake Shippo is strict: it refuses what Shippo refuses (a wrong token, a shipment without the fields Shippo
// requires, a rate it did not make, a refund of a label that was not bought or was refunded), rates only the route's
// services, and answers shapes the official SDK validates. Asked through the official SDK, as the shop does.
import { Shippo } from 'shippo';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeRate } from './fake-easypost.ts';
import { fakeShippoRate, fakeShippoServices, startFakeShippo, type FakeShippo } from './fake-shippo.ts';
import { CA_RECIPIENT, CA_SENDER, RECIPIENT, SENDER, type Party } from './sample-addresses.ts';
import { startReceiver } from './webhook-receiver.ts';

const COUNTRY: Record<string, string> = { 'United States': 'US', Canada: 'CA' };
const address = (party: Party) => ({
  name: party.name,
  street1: party.street,
  city: party.city,
  state: party.state,
  zip: party.zip,
  country: COUNTRY[party.country],
});
const parcel = (ounces: number) => ({ length: '10', width: '8', height: '4', distanceUnit: 'in' as const, weight: String(ounces), massUnit: 'oz' as const });

describe('the fake Shippo', () => {
  let fake: FakeShippo;
  let sdk: Shippo;
  beforeAll(async () => {
    fake = await startFakeShippo();
    sdk = new Shippo({ apiKeyHeader: `ShippoToken ${fake.apiKey}`, serverURL: fake.url, retryConfig: { strategy: 'none' } });
  });
  afterAll(() => fake.close());
  afterEach(() => {
    fake.rates = {};
    fake.rateErrors.clear();
    fake.queued = null;
    fake.faults = [];
    fake.purchasesPerSecond = 0;
    fake.manifestQueued = null;
  });

  const ship = (from: Party, to: Party, ounces = 32) =>
    sdk.shipments.create({ addressFrom: address(from), addressTo: address(to), parcels: [parcel(ounces)], async: false, metadata: 'quote-1' });
  const services = (shipment: { rates: { provider: string; servicelevel: { token?: string } }[] }) =>
    shipment.rates.map((r) => `${r.provider} ${r.servicelevel.token}`).sort();

  it('rates the services of each route only, a few per cent off the fake EasyPost', async () => {
    const domestic = await ship(SENDER, RECIPIENT);
    expect(services(domestic)).toEqual(fakeShippoServices(SENDER.zip, RECIPIENT.zip).sort());
    expect(services(domestic)).toContain('USPS usps_priority');
    expect(services(domestic)).not.toContain('UPS ups_standard');
    const priority = domestic.rates.find((r) => r.servicelevel.token === 'usps_priority')!;
    expect(priority.amount).toBe(fakeShippoRate('usps_priority', 32, SENDER.zip, RECIPIENT.zip));
    expect(priority.amount).not.toBe(fakeRate('USPS', 'Priority', 32, SENDER.zip, RECIPIENT.zip));
    expect(priority.estimatedDays).toBeGreaterThan(0);
    expect(domestic.metadata).toBe('quote-1');

    const canada = await ship(CA_SENDER, CA_RECIPIENT);
    expect(services(canada)).toEqual(['UPS ups_expedited', 'UPS ups_express', 'UPS ups_express_early', 'UPS ups_saver', 'UPS ups_standard']);
    const crossBorder = await ship(SENDER, CA_RECIPIENT);
    expect(services(crossBorder)).toContain('UPS ups_standard');
    expect(services(crossBorder)).not.toContain('USPS usps_priority');
  });

  it('takes rate overrides, and says in messages which carrier could not rate', async () => {
    fake.rates.usps_priority = '1.23';
    fake.rateErrors.add('FedEx');
    const shipment = await ship(SENDER, RECIPIENT);
    expect(shipment.rates.find((r) => r.servicelevel.token === 'usps_priority')!.amount).toBe('1.23');
    expect(shipment.rates.some((r) => r.provider === 'FedEx')).toBe(false);
    expect(shipment.messages).toEqual([expect.objectContaining({ source: 'FedEx', code: 'carrier_timeout' })]);
  });

  it('refuses a wrong token, and a shipment without the address or parcel fields Shippo requires', async () => {
    const wrong = new Shippo({ apiKeyHeader: 'ShippoToken shippo_test_wrong', serverURL: fake.url, retryConfig: { strategy: 'none' } });
    await expect(
      wrong.shipments.create({ addressFrom: address(SENDER), addressTo: address(RECIPIENT), parcels: [parcel(8)], async: false }),
    ).rejects.toMatchObject({
      statusCode: 401,
      body: expect.stringContaining('Invalid token'),
    });
    // The SDK sends what it is given; a raw ask shows the fake's refusal of a parcel without its sides.
    const raw = await fetch(`${fake.url}/shipments`, {
      method: 'POST',
      headers: { authorization: `ShippoToken ${fake.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ address_from: address(SENDER), address_to: { zip: RECIPIENT.zip }, parcels: [{ weight: '8', mass_unit: 'oz' }], async: false }),
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({
      address_to: { country: ['This field is required.'] },
      parcels: [
        {
          length: ['This field is required.'],
          width: ['This field is required.'],
          height: ['This field is required.'],
          distance_unit: ['This field is required.'],
        },
      ],
    });
  });

  it('sells a rate it made, refuses one it did not, and sells a rate bought twice twice', async () => {
    const shipment = await ship(SENDER, RECIPIENT);
    const rate = shipment.rates[0].objectId;
    await expect(sdk.transactions.create({ rate: 'not-a-rate', async: false })).rejects.toMatchObject({ statusCode: 400 });
    const first = await sdk.transactions.create({ rate, async: false, labelFileType: 'PDF_4x6', metadata: 'order-1' });
    expect(first).toMatchObject({ status: 'SUCCESS', rate, metadata: 'order-1', trackingNumber: expect.stringMatching(/^SHP/) });
    const file = await fetch(first.labelUrl!);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    await sdk.transactions.create({ rate, async: false, metadata: 'order-1' });
    expect(fake.purchasesFor.get('order-1')).toBe(2);
    const listed = await sdk.transactions.list({ rate });
    expect(listed.results).toHaveLength(2);
    expect((await sdk.rates.get(rate)).amount).toBe(shipment.rates[0].amount);
  });

  it('answers a purchase whose addresses are not enough for a label with ERROR and its messages', async () => {
    const shipment = await sdk.shipments.create({
      addressFrom: { zip: SENDER.zip, country: 'US' },
      addressTo: { zip: RECIPIENT.zip, country: 'US' },
      parcels: [parcel(8)],
      async: false,
    });
    const txn = await sdk.transactions.create({ rate: shipment.rates[0].objectId, async: false, metadata: 'order-2' });
    expect(txn.status).toBe('ERROR');
    expect(txn.messages![0].text).toMatch(/address_from: name, street1, city required/);
    expect(fake.purchasesFor.get('order-2')).toBeUndefined();
  });

  it('keeps a queued purchase QUEUED until it was asked about, then SUCCESS', async () => {
    fake.queued = { then: 'SUCCESS', afterPolls: 2 };
    const shipment = await ship(SENDER, RECIPIENT);
    const txn = await sdk.transactions.create({ rate: shipment.rates[0].objectId, async: false, metadata: 'order-3' });
    expect(txn.status).toBe('QUEUED');
    expect((await sdk.transactions.get(txn.objectId!)).status).toBe('QUEUED');
    expect((await sdk.transactions.get(txn.objectId!)).status).toBe('SUCCESS');
    expect(fake.purchasesFor.get('order-3')).toBe(1);
  });

  it('refunds a bought label once, and refuses a label not bought or already refunded', async () => {
    const shipment = await ship(SENDER, RECIPIENT);
    const txn = await sdk.transactions.create({ rate: shipment.rates[0].objectId, async: false, metadata: 'order-4' });
    fake.refundDecision = 'hold';
    const refund = await sdk.refunds.create({ transaction: txn.objectId!, async: false });
    expect(refund.status).toBe('QUEUED');
    expect((await sdk.transactions.get(txn.objectId!)).status).toBe('REFUNDPENDING');
    await expect(sdk.refunds.create({ transaction: txn.objectId!, async: false })).rejects.toMatchObject({ statusCode: 400 });
    fake.refundDecision = 'approve';
    expect((await sdk.transactions.get(txn.objectId!)).status).toBe('REFUNDED');
    await expect(sdk.refunds.create({ transaction: 'nope', async: false })).rejects.toMatchObject({ statusCode: 400 });
  });

  it('makes a manifest of bought labels of one carrier account, day and from address, each label on one manifest only', async () => {
    fake.manifestQueued = null;
    const buy = async (from: Party, metadata: string) => {
      const shipment = await ship(from, RECIPIENT);
      const rate = shipment.rates.find((r) => r.servicelevel.token === 'usps_priority')!;
      const txn = await sdk.transactions.create({ rate: rate.objectId, async: false, metadata });
      return { txn: txn.objectId!, account: rate.carrierAccount, day: String(shipment.shipmentDate).slice(0, 10) };
    };
    const [a, b] = [await buy(SENDER, 'm-a'), await buy(SENDER, 'm-b')];
    const elsewhere = await buy({ ...SENDER, street: '99 Other Street' }, 'm-c');
    const refunded = await buy(SENDER, 'm-d');
    await sdk.refunds.create({ transaction: refunded.txn, async: false });
    const ask = (transactions: string[], overrides: Record<string, unknown> = {}) =>
      sdk.manifests.create({
        carrierAccount: a.account,
        shipmentDate: `${a.day}T12:00:00Z`,
        addressFrom: address(SENDER),
        transactions,
        async: false,
        ...overrides,
      });
    const refusal = async (promise: Promise<unknown>) =>
      ((await promise.then(
        () => null,
        (e) => e,
      )) as { statusCode: number; body: string }) ?? { statusCode: 0, body: '' };

    // Refused, with Shippo's field words: two from addresses, a refunded label, another account or day, nothing required.
    expect(await refusal(ask([a.txn, elsewhere.txn]))).toMatchObject({ statusCode: 400, body: expect.stringContaining('ships from another address') });
    expect(await refusal(ask([a.txn, refunded.txn]))).toMatchObject({ statusCode: 400, body: expect.stringContaining('is not a bought label') });
    expect(await refusal(ask([a.txn], { carrierAccount: 'someone_else' }))).toMatchObject({ body: expect.stringContaining('another carrier account') });
    expect(await refusal(ask([a.txn], { shipmentDate: '2001-01-01T12:00:00Z' }))).toMatchObject({ body: expect.stringContaining('ships on another day') });
    expect(await refusal(ask([a.txn], { shipmentDate: 'tomorrow' }))).toMatchObject({ body: expect.stringContaining('ISO 8601') });
    expect(fake.manifests.size).toBe(0);

    // Let through: the two labels of one address, at once with "async": false, its PDF behind documents[0].
    const manifest = await ask([a.txn, b.txn]);
    expect(manifest).toMatchObject({ status: 'SUCCESS', transactions: [a.txn, b.txn], carrierAccount: a.account });
    const file = await fetch(manifest.documents[0]);
    expect(Buffer.from(await file.arrayBuffer())).toEqual(fake.manifestPdf);
    expect((await sdk.manifests.get(manifest.objectId)).status).toBe('SUCCESS');
    expect((await sdk.manifests.list(1, 100)).results?.[0].objectId).toBe(manifest.objectId);
    // A label is on one manifest only; the other address's label makes its own.
    expect(await refusal(ask([b.txn]))).toMatchObject({ statusCode: 400, body: expect.stringContaining(`is already on manifest ${manifest.objectId}`) });
    expect((await ask([elsewhere.txn], { addressFrom: address({ ...SENDER, street: '99 Other Street' }) })).status).toBe('SUCCESS');

    // Asked in the background (the default), it is QUEUED until looked at; one the carrier refuses is ERROR with its words.
    fake.manifestQueued = { afterLooks: 1, then: 'ERROR', errors: ['USPS: SCAN form service unavailable'] };
    const queued = await ask([(await buy(SENDER, 'm-e')).txn], { async: undefined });
    expect(queued.status).toBe('QUEUED');
    expect(await sdk.manifests.get(queued.objectId)).toMatchObject({ status: 'ERROR', errors: ['USPS: SCAN form service unavailable'] });
    fake.manifestQueued = null;
  });

  it('validates addresses: a known one corrected, an unknown one with its message', async () => {
    const known = await sdk.addresses.create({ ...address(SENDER), validate: true });
    expect(known.validationResults?.isValid).toBe(true);
    expect(known.street1).toBe(SENDER.street.toUpperCase());
    const unknown = await sdk.addresses.create({ ...address(SENDER), street1: fake.unverifiableStreet, validate: true });
    expect(unknown.validationResults).toMatchObject({
      isValid: false,
      messages: [expect.objectContaining({ text: expect.stringContaining('could not be found') })],
    });
  });

  it('answers its faults: 500, 429 with Retry-After, a reset connection', async () => {
    fake.faults.push({ kind: '500', call: 'shipment', count: 1 });
    await expect(ship(SENDER, RECIPIENT)).rejects.toMatchObject({ statusCode: 500 });
    fake.faults.push({ kind: '429', call: 'shipment', count: 1, retryAfterSeconds: 2 });
    const limited = await ship(SENDER, RECIPIENT).catch((error) => error);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    fake.faults.push({ kind: 'refuse', call: 'shipment', count: 1 });
    await expect(ship(SENDER, RECIPIENT)).rejects.toMatchObject({ name: 'ConnectionError' });
    expect((await ship(SENDER, RECIPIENT)).rates.length).toBeGreaterThan(0);
  });

  it('answers 429 to purchases over its rate a second, and counts them', async () => {
    const shipment = await ship(SENDER, RECIPIENT);
    fake.purchasesPerSecond = 1;
    const before = fake.rateLimited;
    await sdk.transactions.create({ rate: shipment.rates[0].objectId, async: false, metadata: 'order-5' });
    const limited = await sdk.transactions.create({ rate: shipment.rates[1].objectId, async: false, metadata: 'order-6' }).catch((error) => error);
    expect(limited).toMatchObject({ statusCode: 429 });
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(fake.rateLimited).toBe(before + 1);
    expect(fake.purchasesFor.get('order-6')).toBeUndefined();
  });

  it('posts a track_updated event, unsigned, to the URL it is given (which carries our token)', async () => {
    const shipment = await ship(SENDER, RECIPIENT);
    const txn = await sdk.transactions.create({ rate: shipment.rates[0].objectId, async: false, metadata: 'order-7' });
    const receiver = await startReceiver();
    try {
      const answer = await fake.deliver(`${receiver.url}?token=${fake.webhookSecret}`, fake.trackEvent(txn.trackingNumber!, 'DELIVERED'));
      expect(answer.status).toBe(200);
      expect(JSON.parse(receiver.received[0].body)).toMatchObject({
        event: 'track_updated',
        data: { tracking_number: txn.trackingNumber, transaction: txn.objectId, metadata: 'order-7', tracking_status: { status: 'DELIVERED' } },
      });
    } finally {
      await receiver.close();
    }
  });

  it('refuses connections while it does not listen, and takes them again on the same port', async () => {
    await fake.listen(false);
    const refused = await ship(SENDER, RECIPIENT).catch((error) => error);
    expect(refused.name).toBe('ConnectionError');
    expect(String(refused.cause?.cause?.code ?? refused.cause?.cause?.errors?.[0]?.code)).toBe('ECONNREFUSED');
    await fake.listen(true);
    expect((await ship(SENDER, RECIPIENT)).rates.length).toBeGreaterThan(0);
  });
});
