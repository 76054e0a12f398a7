// Where a label is bought, with upstreams that answer from memory: the choice itself (cheapest, spill, preference,
// health, the cost ceiling, a refused connection). The real adapters against their fakes: test/upstreams.test.ts.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LabelProviderError, type ChosenRate, type LabelProvider, type LabelRequest } from '../../providers/labels/label-provider.ts';
import { UpstreamHealth } from '../../providers/labels/upstream-health.ts';
import { COST_ABOVE_PRICE, createUpstreamList, type UpstreamPolicy } from './upstreams.ts';

type Memory = { costCents: number; waitMs: number; refuse: boolean; bought: string[] };

/** An upstream that rates every type at `costCents` and sells whatever it is asked. */
function upstream(name: string, memory: Memory): LabelProvider {
  return {
    name,
    freeLabels: false,
    mapsServices: true,
    purchaseWaitMs: () => memory.waitMs,
    quote: async (request) => ({
      shipmentRef: `${name}-shp`,
      rates: request.wanted.map((w) => ({ uid: w.uid, status: 'rated' as const, costCents: memory.costCents, days: 2, rateId: `${name}-rate` })),
      offered: [],
    }),
    async createLabel(request) {
      if (memory.refuse) return { status: 'processing', providerRef: `${name}:retry:1`, notSold: true };
      memory.bought.push(request.orderId);
      return { status: 'completed', tracking: `${name}-1`, pdf: new Uint8Array(), bought: { costCents: memory.costCents, carrier: 'USPS', service: name } };
    },
    findLabel: async () => null,
    checkLabel: async () => ({ status: 'failed', message: 'unused' }),
  };
}

function shop(policy: UpstreamPolicy, first: Partial<Memory>, second: Partial<Memory>) {
  const memories = {
    easypost: { costCents: 400, waitMs: 0, refuse: false, bought: [], ...first },
    shippo: { costCents: 390, waitMs: 0, refuse: false, bought: [], ...second },
  };
  const health = new Map([
    ['easypost', new UpstreamHealth('easypost', { faultsToOpen: 1 })],
    ['shippo', new UpstreamHealth('shippo', { faultsToOpen: 1 })],
  ]);
  const chosen: { upstream: string; chosen: ChosenRate | null }[] = [];
  const refused: number[] = [];
  const list = createUpstreamList({
    upstreams: [upstream('easypost', memories.easypost), upstream('shippo', memories.shippo)],
    health,
    policy,
    quoteDeadlineMs: 1000,
    spillMs: 1000,
    settleMs: () => 1000,
    mappingOf: async () => ({ easypost: { carrier: 'USPS', service: 'Priority' }, shippo: { carrier: 'USPS', service: 'usps_priority' } }),
    store: {
      choose: async (_id, name, rate) => (chosen.push({ upstream: name, chosen: rate }), true),
      recordPurchase: async () => {},
      askPurchase: async () => true,
    },
    maxCostRatio: 1,
    processingLimitMinutes: 60,
    onCostRefused: async (_request, costCents) => void refused.push(costCents),
    log: pino({ level: 'silent' }),
  });
  return { list, memories, health, chosen, refused };
}

const request = (priceCents = 500): LabelRequest => {
  const party = { name: 'A', company: '', street: '1 Main St', street2: '', city: 'New York', state: 'NY', zip: '10001', country: 'United States', phone: '' };
  return {
    orderId: 'order-1',
    uid: 'priority',
    serviceName: 'Priority',
    design: null,
    weight: 2,
    weightUnit: 'lb',
    length: null,
    width: null,
    height: null,
    from: party,
    to: { ...party, zip: '90210' },
    createdAt: new Date().toISOString(),
    priceCents,
    upstream: 'easypost',
    chosen: null,
  };
};

describe('where a label is bought', () => {
  it('cheapest: the cheaper upstream, its choice recorded before it is bought', async () => {
    const { list, memories, chosen } = shop('cheapest', {}, {});
    expect(await list.createLabel(request())).toMatchObject({ status: 'completed', tracking: 'shippo-1' });
    expect(chosen).toEqual([{ upstream: 'shippo', chosen: { shipmentRef: 'shippo-shp', rateId: 'shippo-rate' } }]);
    expect([memories.easypost.bought, memories.shippo.bought]).toEqual([[], ['order-1']]);
  });

  it('cheapest: a saturated cheaper upstream (a purchase would wait over UPSTREAM_SPILL_MS) spills to the next; both saturated, the one that frees first', async () => {
    const saturated = shop('cheapest', { waitMs: 200 }, { waitMs: 1500 });
    expect(await saturated.list.createLabel(request())).toMatchObject({ tracking: 'easypost-1' });
    const both = shop('cheapest', { waitMs: 3000 }, { waitMs: 1500 });
    expect(await both.list.createLabel(request())).toMatchObject({ tracking: 'shippo-1' });
    // Quotes a customer reads are not purchases: the cheapest, whatever the queue.
    const quoted = await saturated.list.quote({
      ...request(),
      quoteId: 'q',
      shipDate: '2026-11-30',
      wanted: [{ uid: 'priority', upstream: null, priceCents: 500 }],
    });
    expect(quoted.rates[0]).toMatchObject({ upstream: 'shippo', costCents: 390 });
  });

  it('preference: the first healthy upstream, however cheap the other; an unhealthy one is skipped', async () => {
    const { list, health } = shop('preference', {}, {});
    expect(await list.createLabel(request())).toMatchObject({ tracking: 'easypost-1' });
    health.get('easypost')!.failed(10, 'timeout');
    expect(await list.createLabel(request())).toMatchObject({ tracking: 'shippo-1' });
  });

  it('the cost ceiling refuses before anything is bought, with the audit hook told the cost', async () => {
    const { list, memories, chosen, refused } = shop('cheapest', { costCents: 700 }, { costCents: 650 });
    await expect(list.createLabel(request(600))).rejects.toThrow(new LabelProviderError(COST_ABOVE_PRICE));
    expect([chosen, refused, memories.easypost.bought, memories.shippo.bought]).toEqual([[], [650], [], []]);
  });

  it('a refused connection at the chosen upstream (nothing sold) is let go and bought at the other at once', async () => {
    const { list, memories, chosen } = shop('cheapest', {}, { refuse: true });
    expect(await list.createLabel(request())).toMatchObject({ tracking: 'easypost-1' });
    expect(chosen.map((c) => [c.upstream, c.chosen?.shipmentRef ?? null])).toEqual([
      ['shippo', 'shippo-shp'],
      ['shippo', null],
      ['easypost', 'easypost-shp'],
    ]);
    expect(memories.shippo.bought).toEqual([]);
  });
});
