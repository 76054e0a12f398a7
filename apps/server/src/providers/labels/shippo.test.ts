// The Shippo adapter against the strict fake Shippo (test/fake-shippo.ts), through the official SDK: what it quotes,
// buys (once), finds again after a lost answer, refunds, and what each fault leaves the order as.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeShippo, type FakeShippo } from '../../../test/fake-shippo.ts';
import { CA_RECIPIENT, CA_SENDER, RECIPIENT, SENDER, type Party } from '../../../test/sample-addresses.ts';
import { UpstreamUnavailable, processingLimitMessage } from './upstream-call.ts';
import {
  LabelProviderError,
  WebhookRefused,
  type LabelParty,
  type LabelProvider,
  type LabelRequest,
  type QuoteRequest,
  type ScanFormRequest,
} from './label-provider.ts';
import { createShippoLabelProvider } from './shippo.ts';
import { DEFAULT_UPSTREAM_SERVICES } from './default-services.ts';
import { UpstreamHealth } from './upstream-health.ts';

const party = (p: Party): LabelParty => ({ ...p, company: '', street2: '', phone: '' });

describe('the Shippo label provider', () => {
  let fake: FakeShippo;
  let health: UpstreamHealth;
  let provider: LabelProvider;
  let serial = 0;

  const make = (overrides: { timeoutMs?: number; webhookSecret?: string } = {}) => {
    health = new UpstreamHealth('shippo', { faultsToOpen: 100 });
    provider = createShippoLabelProvider({
      apiKey: fake.apiKey,
      apiUrl: fake.url,
      timeoutMs: overrides.timeoutMs ?? 2000,
      concurrency: 4,
      processingLimitMinutes: 30,
      refundPollMs: 60_000,
      health,
      webhookSecret: 'webhookSecret' in overrides ? overrides.webhookSecret : fake.webhookSecret,
    });
  };

  beforeAll(async () => {
    fake = await startFakeShippo();
    make();
  });
  afterAll(() => fake.close());
  afterEach(async () => {
    fake.faults = [];
    fake.queued = null;
    fake.rates = {};
    fake.rateErrors.clear();
    fake.refundDecision = 'approve';
    fake.manifestQueued = null;
    await provider.close?.();
    make();
  });

  const quoteRequest = (from = SENDER, to = RECIPIENT, wanted = ['priority', 'ground_oz', 'fedex_ground', 'ups_standard']): QuoteRequest => ({
    quoteId: `quote-${++serial}`,
    weight: 2,
    weightUnit: 'lb',
    length: null,
    width: null,
    height: null,
    from: party(from),
    to: party(to),
    shipDate: '2026-12-01',
    reference: 'PO 42',
    wanted: wanted.map((uid) => ({ uid, upstream: DEFAULT_UPSTREAM_SERVICES.shippo[uid], priceCents: 5000 })),
  });

  /** An order of a USPS Priority label whose shipment and rate were chosen from a quote. */
  async function order(options: { rateId?: string; createdAt?: string } = {}): Promise<LabelRequest> {
    const answer = await provider.quote(quoteRequest());
    const rate = answer.rates.find((r) => r.uid === 'priority');
    if (rate?.status !== 'rated') throw new Error('no Priority rate');
    return {
      orderId: `order-${++serial}`,
      uid: 'priority',
      serviceName: 'USPS Priority',
      design: null,
      weight: 2,
      weightUnit: 'lb',
      length: null,
      width: null,
      height: null,
      from: party(SENDER),
      to: party(RECIPIENT),
      createdAt: options.createdAt ?? new Date().toISOString(),
      upstream: 'shippo',
      chosen: { shipmentRef: answer.shipmentRef!, rateId: options.rateId ?? rate.rateId },
    };
  }

  it('quotes every wanted type from one shipment: rated, not on the route, or its carrier unavailable', async () => {
    fake.rateErrors.add('FedEx');
    const request = quoteRequest();
    const answer = await provider.quote(request);
    const shipment = fake.shipments.get(answer.shipmentRef!);
    expect(shipment).toMatchObject({
      metadata: request.quoteId,
      shipment_date: '2026-12-01T12:00:00Z',
      extra: { reference_1: 'PO 42' },
      address_from: { zip: SENDER.zip, country: 'US' },
      parcels: [{ weight: '32', mass_unit: 'oz', length: '6', width: '4', height: '1', distance_unit: 'in' }],
    });
    const priority = shipment.rates.find((r: any) => r.servicelevel.token === 'usps_priority');
    expect(answer.rates).toEqual([
      { uid: 'priority', status: 'rated', costCents: Math.round(Number(priority.amount) * 100), days: priority.estimated_days, rateId: priority.object_id },
      expect.objectContaining({ uid: 'ground_oz', status: 'rated' }),
      { uid: 'fedex_ground', status: 'unavailable' },
      { uid: 'ups_standard', status: 'route' },
    ]);
    expect(answer.offered).toContainEqual({ carrier: 'USPS', service: 'usps_ground_advantage' });
    expect(answer.offered.some((o) => o.carrier === 'FedEx')).toBe(false);

    // A party may hold only its ZIP and country (a quote before the addresses are known).
    const zipsOnly = quoteRequest();
    zipsOnly.from = { ...party(SENDER), name: '', street: '', city: '', state: '' };
    zipsOnly.to = { ...party(RECIPIENT), name: '', street: '', city: '', state: '' };
    const byZip = await provider.quote(zipsOnly);
    expect(fake.shipments.get(byZip.shipmentRef!).address_to).toMatchObject({ zip: RECIPIENT.zip, country: 'US' });
    expect(fake.shipments.get(byZip.shipmentRef!).address_to).not.toHaveProperty('street1');
    expect(byZip.rates.find((r) => r.uid === 'priority')).toMatchObject({ status: 'rated' });

    const canada = await provider.quote(quoteRequest(CA_SENDER, CA_RECIPIENT, ['ups_standard', 'ups_express_early', 'priority']));
    expect(canada.rates.map((r) => r.status)).toEqual(['rated', 'rated', 'route']);
  });

  it('quotes a return as Shippo takes one: the original shipment’s addresses and extra.is_return, rated on the way back', async () => {
    // The return goes from the original receiver (its `from`) back to the original sender (its `to`).
    const request = { ...quoteRequest(RECIPIENT, SENDER), isReturn: true };
    const answer = await provider.quote(request);
    const shipment = fake.shipments.get(answer.shipmentRef!);
    expect(shipment).toMatchObject({ extra: { is_return: true }, address_from: { zip: SENDER.zip }, address_to: { zip: RECIPIENT.zip } });
    expect(answer.rates.find((r) => r.uid === 'priority')).toMatchObject({ status: 'rated' });
  });

  it('buys the chosen rate once, with its cost, carrier and service, and reports the purchase', async () => {
    const request = await order();
    const label = await provider.createLabel(request);
    expect(label).toMatchObject({ status: 'completed', tracking: expect.stringMatching(/^SHP/), bought: { carrier: 'USPS', service: 'usps_priority' } });
    if (label.status !== 'completed') throw new Error('not bought');
    expect(Buffer.from(label.pdf).subarray(0, 5).toString()).toBe('%PDF-');
    const txn = [...fake.transactions.values()].find((t) => t.metadata === request.orderId);
    expect(txn).toMatchObject({ label_file_type: 'PDF_4x6', rate: request.chosen!.rateId });
    const rate = fake.shipments.get(request.chosen!.shipmentRef).rates.find((r: any) => r.object_id === request.chosen!.rateId);
    expect(label.bought!.costCents).toBe(Math.round(Number(rate.amount) * 100));
    expect(fake.purchasesFor.get(request.orderId)).toBe(1);
    expect(health.view()).toMatchObject({ purchasesLastHour: 1, faultsLastHour: 0 });
    // Asked again, it finds the label rather than buying another.
    expect(await provider.findLabel(request)).toMatchObject({ status: 'completed', tracking: label.tracking });
    expect(fake.purchasesFor.get(request.orderId)).toBe(1);
  });

  it('follows a QUEUED purchase to SUCCESS, and another to ERROR, through checkLabel', async () => {
    fake.queued = { then: 'SUCCESS', afterPolls: 2 };
    const request = await order();
    const pending = await provider.createLabel(request);
    expect(pending).toMatchObject({ status: 'processing', providerRef: expect.stringMatching(/^shippo:txn:/) });
    if (pending.status !== 'processing') throw new Error('not queued');
    expect(await provider.checkLabel(request, pending.providerRef)).toEqual({ status: 'processing', providerRef: pending.providerRef });
    expect(await provider.checkLabel(request, pending.providerRef)).toMatchObject({ status: 'completed', bought: { service: 'usps_priority' } });
    expect(fake.purchasesFor.get(request.orderId)).toBe(1);

    fake.queued = { then: 'ERROR', afterPolls: 1 };
    const failing = await order();
    const queued = await provider.createLabel(failing);
    if (queued.status !== 'processing') throw new Error('not queued');
    expect(await provider.checkLabel(failing, queued.providerRef)).toEqual({
      status: 'failed',
      message: 'the carrier refused the label: USPS: The carrier could not create the label.',
    });
    expect(fake.purchasesFor.get(failing.orderId)).toBeUndefined();
  });

  it('after a lost answer, finds the one purchase instead of buying again', async () => {
    const request = await order();
    fake.faults.push({ kind: 'lose', call: 'buy', count: 1 });
    const pending = await provider.createLabel(request);
    expect(pending).toMatchObject({ status: 'processing', providerRef: 'shippo:retry:1' });
    expect(pending).not.toHaveProperty('notSold');
    expect(fake.purchasesFor.get(request.orderId)).toBe(1);
    expect(await provider.checkLabel(request, 'shippo:retry:1')).toMatchObject({ status: 'completed' });
    expect(await provider.findLabel(request)).toMatchObject({ status: 'completed' });
    expect(fake.purchasesFor.get(request.orderId)).toBe(1);
    expect([...fake.transactions.values()].filter((t) => t.metadata === request.orderId)).toHaveLength(1);
  });

  it('a refused connection leaves the order Processing and says nothing was sold', async () => {
    const request = await order();
    await fake.listen(false);
    try {
      const pending = await provider.createLabel(request);
      expect(pending).toMatchObject({ status: 'processing', providerRef: 'shippo:retry:1', notSold: true });
    } finally {
      await fake.listen(true);
    }
    expect(fake.purchasesFor.get(request.orderId)).toBeUndefined();
    expect(health.view()).toMatchObject({ faultsLastHour: 1, lastError: expect.stringContaining('Unable to make request') });
  });

  it('a 5xx or a timeout leaves the order Processing, backing off; a 4xx refuses the label', async () => {
    const request = await order();
    fake.faults.push({ kind: '500', call: 'buy', count: 1 });
    const pending = await provider.createLabel(request);
    expect(pending).toEqual({ status: 'processing', providerRef: 'shippo:retry:1', retryInMs: 1000 });
    expect(await provider.checkLabel(request, 'shippo:retry:1')).toMatchObject({ status: 'completed' });
    expect(health.view().faultsLastHour).toBe(1);

    make({ timeoutMs: 300 });
    const slow = await order();
    fake.faults.push({ kind: 'hang', call: 'buy', count: 1 });
    expect(await provider.createLabel(slow)).toMatchObject({ status: 'processing', providerRef: 'shippo:retry:1' });
    expect(health.view().faultsLastHour).toBe(1);

    make();
    const unknownRate = await order({ rateId: 'no-such-rate' });
    await expect(provider.createLabel(unknownRate)).rejects.toThrow(LabelProviderError);
    await expect(provider.createLabel(unknownRate)).rejects.toThrow(/rate: Rate with object_id no-such-rate not found/);
    // The upstream answered: a refusal is not a fault of Shippo's.
    expect(health.view()).toMatchObject({ faultsLastHour: 0, callsLastHour: 3 });
  });

  it('waits out a 429 as its Retry-After asks, and counts it; one that stays leaves the order Processing', async () => {
    const request = await order();
    fake.faults.push({ kind: '429', call: 'buy', count: 1, retryAfterSeconds: 0 });
    expect(await provider.createLabel(request)).toMatchObject({ status: 'completed' });
    expect(health.view()).toMatchObject({ rateLimitedLastHour: 1, faultsLastHour: 0, purchasesLastHour: 1 });

    const again = await order();
    fake.faults.push({ kind: '429', call: 'buy', count: 3, retryAfterSeconds: 0 });
    expect(await provider.createLabel(again)).toMatchObject({ status: 'processing', providerRef: 'shippo:retry:1' });
    expect(health.view()).toMatchObject({ rateLimitedLastHour: 4, faultsLastHour: 1 });
    expect(fake.purchasesFor.get(again.orderId)).toBeUndefined();
  });

  it('past the processing limit buys nothing more: the label Shippo has, else failed', async () => {
    const old = new Date(Date.now() - 31 * 60_000).toISOString();
    const unsold = await order({ createdAt: old });
    expect(await provider.checkLabel(unsold, 'shippo:retry:2')).toEqual({ status: 'failed', message: processingLimitMessage(30) });
    expect(fake.purchasesFor.get(unsold.orderId)).toBeUndefined();

    const sold = await order({ createdAt: old });
    fake.faults.push({ kind: 'lose', call: 'buy', count: 1 });
    await provider.createLabel(sold);
    expect(await provider.checkLabel(sold, 'shippo:retry:1')).toMatchObject({ status: 'completed' });
  });

  it('finds nothing for an order with no chosen rate, or whose purchase was an ERROR', async () => {
    const request = await order();
    expect(await provider.findLabel({ ...request, chosen: null })).toBeNull();
    expect(await provider.findLabel(request)).toBeNull();
    // Shippo queues the purchase and then fails it: nothing was sold.
    fake.queued = { then: 'ERROR', afterPolls: 0 };
    expect(await provider.createLabel(request)).toMatchObject({ status: 'processing' });
    expect(await provider.findLabel(request)).toBeNull();
    expect(fake.transactions.size).toBeGreaterThan(0);
    expect(fake.purchasesFor.get(request.orderId)).toBeUndefined();
  });

  it('refunds the order’s label: submitted, then refunded or rejected, and tells what became of it', async () => {
    const request = await order();
    await provider.createLabel(request);
    expect(await provider.checkRefund!(request)).toEqual({ status: 'none' });
    fake.refundDecision = 'hold';
    expect(await provider.requestRefund!(request)).toEqual({ status: 'submitted', checkInMs: 60_000 });
    expect(await provider.checkRefund!(request)).toEqual({ status: 'submitted', checkInMs: 60_000 });
    // Asked twice (another process took the refund), nothing is asked of Shippo a second time.
    expect(await provider.requestRefund!(request)).toEqual({ status: 'submitted', checkInMs: 60_000 });
    expect(fake.refunds).toBe(1);
    fake.refundDecision = 'approve';
    expect(await provider.checkRefund!(request)).toEqual({ status: 'refunded' });

    const rejected = await order();
    await provider.createLabel(rejected);
    fake.refundDecision = 'reject';
    await provider.requestRefund!(rejected);
    expect(await provider.checkRefund!(rejected)).toEqual({ status: 'rejected', reason: 'the carrier rejected the refund' });

    const unsold = await order();
    expect(await provider.requestRefund!(unsold)).toEqual({ status: 'rejected', reason: 'no label was bought upstream for this order' });
  });

  it('takes a tracking webhook with our token, and refuses one without it', async () => {
    const request = await order();
    const label = await provider.createLabel(request);
    if (label.status !== 'completed') throw new Error('not bought');
    const raw = Buffer.from(JSON.stringify(fake.trackEvent(label.tracking, 'TRANSIT')));
    const news = await provider.parseWebhook!(raw, {}, { token: fake.webhookSecret });
    expect(news).toEqual({ eventId: expect.stringMatching(/^shippo:[0-9a-f]{64}$/), tracking: { trackingNumber: label.tracking, status: 'in_transit' } });
    expect((await provider.parseWebhook!(raw, {}, { token: fake.webhookSecret }))!.eventId).toBe(news!.eventId);
    const delivered = Buffer.from(JSON.stringify(fake.trackEvent(label.tracking, 'RETURNED')));
    expect((await provider.parseWebhook!(delivered, {}, { token: fake.webhookSecret }))!.tracking!.status).toBe('return_to_sender');

    await expect(provider.parseWebhook!(raw, {}, { token: 'wrong' })).rejects.toMatchObject({ statusCode: 401 });
    await expect(provider.parseWebhook!(raw, {}, {})).rejects.toMatchObject({ statusCode: 401 });
    await expect(provider.parseWebhook!(Buffer.from('not json'), {}, { token: fake.webhookSecret })).rejects.toMatchObject({ statusCode: 400 });
    expect(await provider.parseWebhook!(Buffer.from(JSON.stringify({ event: 'batch_created', data: {} })), {}, { token: fake.webhookSecret })).toBeNull();

    make({ webhookSecret: undefined });
    await expect(provider.parseWebhook!(raw, {}, { token: fake.webhookSecret })).rejects.toBeInstanceOf(WebhookRefused);
  });

  /** A SCAN form request of bought labels (each label's rate as the order records it), shipping on the quote's day. */
  async function boughtForm(count: number, from = SENDER): Promise<ScanFormRequest> {
    const labels = [];
    for (let i = 0; i < count; i++) {
      const request = await order();
      if (from !== SENDER) request.from = party(from);
      const label = await provider.createLabel(request);
      if (label.status !== 'completed') throw new Error('not bought');
      labels.push({ orderId: request.orderId, shipmentRef: request.chosen!.shipmentRef, rateRef: request.chosen!.rateId, tracking: label.tracking });
    }
    return { formId: `form-${++serial}`, from: party(from), shipDate: '2026-12-01', carrier: 'USPS', labels };
  }

  it('makes a SCAN form as a Shippo manifest of the labels’ transactions under their carrier account, its PDF fetched', async () => {
    const request = await boughtForm(2);
    const answer = await provider.createScanForm!(request);
    expect(answer).toMatchObject({ status: 'created', ref: expect.any(String) });
    if (answer.status !== 'created') throw new Error('not created');
    expect(Buffer.from(answer.pdf)).toEqual(fake.manifestPdf);
    const manifest = fake.manifests.get(answer.ref);
    const txns = request.labels.map((l) => [...fake.transactions.values()].find((t) => t.metadata === l.orderId).object_id);
    expect(manifest).toMatchObject({ transactions: txns, carrier_account: 'fake_usps_account', shipment_date: '2026-12-01T12:00:00Z' });
    // Asked by its reference, it is the same form; the same labels again are refused with Shippo's words.
    expect(await provider.findScanForm!(request, answer.ref)).toMatchObject({ status: 'created', ref: answer.ref });
    expect(await provider.createScanForm!(request)).toEqual({
      status: 'failed',
      message: expect.stringMatching(/^the carrier refused the SCAN form: transactions: Transaction \w+ is already on manifest/),
    });
  });

  it('after a lost answer, finds the manifest holding the labels instead of asking for a second', async () => {
    const request = await boughtForm(1);
    fake.faults = [{ kind: 'lose', call: 'manifest', count: 1 }];
    await expect(provider.createScanForm!(request)).rejects.toBeInstanceOf(UpstreamUnavailable);
    expect(fake.manifests.size).toBeGreaterThan(0);
    const before = fake.manifests.size;
    expect(await provider.findScanForm!(request, null)).toMatchObject({ status: 'created' });
    expect(fake.manifests.size).toBe(before);
    // Labels on no manifest are found on none: the form is asked for then.
    expect(await provider.findScanForm!(await boughtForm(1), null)).toBeNull();
  });

  it('follows a queued manifest to created or failed; a refunded label or another address fails the form with the reason', async () => {
    fake.manifestQueued = { afterLooks: 1, then: 'SUCCESS' };
    const later = await boughtForm(1);
    const queued = await provider.createScanForm!(later);
    expect(queued).toMatchObject({ status: 'creating', ref: expect.any(String), checkInMs: 60_000 });
    expect(await provider.findScanForm!(later, (queued as { ref: string }).ref)).toMatchObject({ status: 'created' });
    fake.manifestQueued = { afterLooks: 1, then: 'ERROR', errors: ['USPS: SCAN form service unavailable'] };
    const refusedLater = await boughtForm(1);
    const failing = await provider.createScanForm!(refusedLater);
    expect(await provider.findScanForm!(refusedLater, (failing as { ref: string }).ref)).toEqual({
      status: 'failed',
      message: 'the carrier refused the SCAN form: USPS: SCAN form service unavailable',
    });
    fake.manifestQueued = null;

    const refunded = await boughtForm(1);
    const [label] = refunded.labels;
    const refund = await provider.requestRefund!({
      ...(await order()),
      orderId: label.orderId,
      chosen: { shipmentRef: label.shipmentRef!, rateId: label.rateRef },
    });
    expect(refund).toMatchObject({ status: 'submitted' });
    expect(await provider.createScanForm!(refunded)).toEqual({
      status: 'failed',
      message: `the carrier refused the SCAN form: Shippo holds no bought label for ${label.tracking}`,
    });
    const moved = await boughtForm(1);
    expect(await provider.createScanForm!({ ...moved, from: { ...moved.from, street: '99 Other Street' } })).toEqual({
      status: 'failed',
      message: expect.stringContaining('ships from another address'),
    });
  });

  it('validates an address: corrected when known, the validator’s words when not', async () => {
    expect(await provider.verifyAddress!(party(SENDER))).toEqual({
      verified: true,
      address: { ...party(SENDER), street: SENDER.street.toUpperCase(), city: SENDER.city.toUpperCase() },
    });
    expect(await provider.verifyAddress!({ ...party(SENDER), street: fake.unverifiableStreet })).toEqual({
      verified: false,
      message: 'The address as submitted could not be found.',
    });
  });
});
